# Custom CNN regressor with dropout (skflow / tf.contrib.learn style) on 1-D sensor windows,
# trained with a ValidationMonitor (print_steps=100, early_stopping_rounds=500) in miniature.
# As in the monitor being reported, the validation loss is computed by running the model exactly as
# in training, i.e. with dropout active (the model is never switched to eval mode for validation).
# Adam lr 1e-3, batch 64, up to 3000 steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(12)
def make(n):
    x = torch.randn(n, 1, 64, generator=g).cumsum(-1) / 8
    y = x[:, 0, 40:56].mean(1) - 0.5 * x[:, 0, :16].mean(1) + 0.05 * torch.randn(n, generator=g)
    return x, y
X_train, Y_train = make(4000)
X_validate, Y_validate = make(500)

regressor = nn.Sequential(nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                          nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                          nn.Flatten(), nn.Dropout(0.5), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 1))
opt = torch.optim.Adam(regressor.parameters(), lr=1e-3)

print_steps, early_stopping_rounds = 100, 500
best_loss, best_step, best_state = float("inf"), 0, None
regressor.train()
for step in range(1, 3001):
    idx = torch.randint(0, len(X_train), (64,))
    loss = F.mse_loss(regressor(X_train[idx]).squeeze(1), Y_train[idx])
    opt.zero_grad(); loss.backward(); opt.step()
    if step % print_steps == 0:
        with torch.no_grad():                                  # monitor: model still in training mode
            val_loss = F.mse_loss(regressor(X_validate).squeeze(1), Y_validate).item()
        if val_loss < best_loss:
            best_loss, best_step = val_loss, step
            best_state = {k: v.clone() for k, v in regressor.state_dict().items()}
        print(f"Step #{step}, avg. train loss: {loss.item():.5f}; Validation (step {step}): loss = {val_loss:.5f}, best loss step = {best_step}")
        if step - best_step >= early_stopping_rounds:
            print(f"Stopping. Best step: {best_step} with loss {best_loss:.5f}.")
            break

regressor.load_state_dict(best_state)
regressor.eval()
with torch.no_grad():
    pred = regressor(X_validate).squeeze(1)
print(f"model.predict() on the validation set after early stopping: MSE = {F.mse_loss(pred, Y_validate).item():.5f} "
      f"(monitor reported best validation loss {best_loss:.5f})")
