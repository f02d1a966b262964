import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

ACCUM_STEPS = 4
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
loader = DataLoader(data, batch_size=4)
val_loader = DataLoader(data, batch_size=32)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Dropout(0.1), nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
sched = StepLR(opt, step_size=10, gamma=0.5)  # expect: scheduler='steplr'; scheduler_designed_per_batch=False
mse = nn.MSELoss()

for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):  # expect: uses_amp=True; amp_dtype='bfloat16'; grad_scaler_used=False
            loss = mse(model(x), y) / ACCUM_STEPS  # expect: model_mode_in_training='eval'
        loss.backward()
        if (i + 1) % ACCUM_STEPS == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)  # expect: clip_max_norm=0.5
            opt.step()
            opt.zero_grad()  # expect: zero_grad_called=True
            sched.step()  # expect: scheduler_step_per_batch=True
    model.eval()
    with torch.no_grad():
        val = sum(mse(model(x), y).item() for x, y in val_loader)  # expect: model_mode_in_validation='eval'

# expect-not: grads_cleared_before_step
# expect-detail: model_mode_in_training: model.eval()
# code-case: runnable
# (from test_gradient_accumulation_counts_as_zeroing, test_epoch_scheduler_stepped_every_batch, test_validation_without_eval_and_eval_never_undone, test_amp_with_and_without_grad_scaler, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
