# MLP, 3 inputs -> 2 hidden layers of 6 neurons -> 1 output, cost 0.5*(target-output)^2, minibatch SGD
import json
import numpy as np
import torch

np.random.seed(0)
torch.manual_seed(0)
torch.set_num_threads(1)

# measured process data: output depends smoothly on 3 inputs, sensor noise std 0.05
N = 3000
inp = np.random.uniform(0, 1, (N, 3)).astype(np.float32)
target = (0.6 * inp[:, 0] + 0.3 * np.sin(3 * inp[:, 1]) + 0.2 * inp[:, 0] * inp[:, 2]
          + np.random.normal(0, 0.05, N)).astype(np.float32)[:, None]
tr_x, tr_y = torch.tensor(inp[:2400]), torch.tensor(target[:2400])
te_x, te_y = torch.tensor(inp[2400:]), torch.tensor(target[2400:])

net = torch.nn.Sequential(torch.nn.Linear(3, 6), torch.nn.Tanh(), torch.nn.Linear(6, 6), torch.nn.Tanh(),
                          torch.nn.Linear(6, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

with open("metrics.jsonl", "w") as log:
    it = 0
    for epoch in range(150):
        perm = torch.randperm(2400)
        for b in range(0, 2400, 32):
            idx = perm[b:b + 32]
            out = net(tr_x[idx])
            cost = 0.5 * ((tr_y[idx] - out) ** 2).mean()
            opt.zero_grad()
            cost.backward()
            opt.step()
            it += 1
        with torch.no_grad():
            tr_mae = (net(tr_x) - tr_y).abs().mean().item()
            te_mae = (net(te_x) - te_y).abs().mean().item()
            te_cost = 0.5 * ((net(te_x) - te_y) ** 2).mean().item()
        log.write(json.dumps({"step": it, "epoch": epoch, "train_loss": round(cost.item(), 6),
                              "val_loss": round(te_cost, 6), "train_mae": round(tr_mae, 5), "val_mae": round(te_mae, 5)}) + "\n")
        if epoch % 10 == 0 or epoch == 149:
            print(f"epoch {epoch:3d}: MAE train {tr_mae:.4f}  test {te_mae:.4f}")
