import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, n_in=16, n_classes=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 32)
        self.fc2 = nn.Linear(32, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)  # expect: output_activation='softmax'


def train_one_epoch(model, loader, opt, crit):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)  # expect: model_mode_in_training='train'
        loss.backward()
        opt.step()


def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(dim=1) == yb).sum().item()  # expect: model_mode_in_validation='train'
    return correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args([])
    X = torch.randn(120, 16)
    y = torch.randint(0, 3, (120,))
    train_dl = DataLoader(TensorDataset(X, y), batch_size=args.batch_size, shuffle=True)  # expect: batch_size=16
    val_dl = DataLoader(TensorDataset(X, y), batch_size=60)
    model = Classifier()
    crit = nn.CrossEntropyLoss()  # expect: loss_function='cross_entropy'
    opt = optim.Adam(model.parameters(), lr=args.lr)  # expect: learning_rate=0.01
    for epoch in range(args.epochs):
        train_one_epoch(model, train_dl, opt, crit)
        print(epoch, evaluate(model, val_dl))


if __name__ == "__main__":
    main()

# expect-detail: learning_rate: --lr
# expect-detail: output_activation: F.softmax(self.fc2(x), dim=1)
# expect-detail: output_activation: nn.CrossEntropyLoss
# code-case: runnable
# (from test_learning_rate_from_argparse_default, test_softmax_in_forward_before_cross_entropy_is_reported_with_both_lines, test_validation_without_eval_and_eval_never_undone, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
