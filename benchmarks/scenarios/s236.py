# MNIST tutorial (federated-learning framework example) with the network swapped for a VGG-style
# CNN: 4 conv blocks (conv-BN-ReLU x2 + 2x2 max-pool), "same" padding computed for 32x32 inputs,
# classifier Linear(512*2*2, 4096) -> 4096 -> 10. Adam lr 1e-3, batch 128. Data: 1x28x28 digits.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

protos = F.avg_pool2d(torch.rand(10, 1, 28, 28), 3, 1, 1)
y_tr = torch.randint(0, 10, (1024,)); x_tr = protos[y_tr] + 0.3 * torch.randn(1024, 1, 28, 28)

def block(cin, cout):
    # calculate same padding: (w - k + 2*p)/s + 1 = o  =>  p = (s(o-1) - w + k)/2 = (1(32-1) - 32 + 3)/2 = 1
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, 1, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2, 2))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block_1, self.block_2 = block(1, 64), block(64, 128)
        self.block_3, self.block_4 = block(128, 256), block(256, 512)
        self.classifier = nn.Sequential(nn.Linear(512 * 2 * 2, 4096), nn.ReLU(), nn.Dropout(0.5),
                                        nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4096, 10))
    def forward(self, x):
        x = self.block_4(self.block_3(self.block_2(self.block_1(x))))
        return self.classifier(x.view(x.size(0), -1))

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["round", "step", "loss", "acc"])
    fh.flush()
    step = 0
    for rnd in range(1, 3):
        print(f"round {rnd}: training on collaborator data ({len(y_tr)} samples)")
        perm = torch.randperm(len(y_tr))
        for i in range(0, len(perm), 128):
            idx = perm[i:i + 128]
            out = model(x_tr[idx])
            loss = F.cross_entropy(out, y_tr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1
            acc = (out.argmax(1) == y_tr[idx]).float().mean().item()
            wr.writerow([rnd, step, f"{loss.item():.4f}", f"{acc:.4f}"]); fh.flush()
            print(f"round {rnd} step {step} loss {loss.item():.4f} acc {acc:.4f}")
