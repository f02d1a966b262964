# optuna/optuna pull request "Update pytorch_simple.py" (1725) in miniature: examples/pytorch_simple.py as it was
# before the fix (parent 0709abb9 of merge 10e7ec65). The objective builds an MLP from the trial (n_layers, n_units_l{i},
# dropout_l{i}: Linear -> ReLU -> Dropout per layer, Linear -> LogSoftmax), an optimizer from the trial, trains for
# EPOCHS = 10 on N_TRAIN_EXAMPLES = BATCHSIZE * 30 examples per epoch with F.nll_loss, and after every epoch validates
# on N_VALID_EXAMPLES = BATCHSIZE * 10 examples under model.eval(), reporting the accuracy to the trial. model.train()
# is called once, before the epoch loop, so from the second epoch on the network trains with dropout switched off
# (the pull request moves model.train() inside the loop).
# Scaled down / changed for the scenario: one trial with fixed parameters (n_layers 2, n_units 256 and 256, dropout
# 0.5 and 0.5, Adam, lr 1e-3) instead of an Optuna study, synthetic 28 x 28 "digits"
# (noisy, shifted stroke templates, generated in memory) instead of MNIST; the training set is only these 3840
# examples, drawn in a new order every epoch (the example breaks after 30 batches of a shuffled loader over all of
# MNIST, so it sees a different subset each epoch); a line per epoch with the mean training loss, the validation
# loss and the accuracy; metrics.csv with every batch loss and the per-epoch validation numbers.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

DEVICE = torch.device("cpu")
BATCHSIZE = 128
CLASSES = 10
EPOCHS = 10
N_TRAIN_EXAMPLES = BATCHSIZE * 30
N_VALID_EXAMPLES = BATCHSIZE * 10

# fixed trial parameters (one point of the search space)
PARAMS = {"n_layers": 2, "n_units_l0": 256, "dropout_l0": 0.5, "n_units_l1": 256, "dropout_l1": 0.5,
          "optimizer": "Adam", "lr": 1e-3}


def make_digits(n, rng, templates):
    # a class template (a few random strokes) shifted by up to 3 pixels, scaled, plus strong pixel noise
    y = rng.randint(0, CLASSES, n)
    x = np.zeros((n, 28, 28), np.float32)
    for i in range(n):
        t = templates[y[i]]
        dx, dy = rng.randint(-3, 4, 2)
        x[i] = np.roll(np.roll(t, dx, axis=1), dy, axis=0) * rng.uniform(0.5, 1.0)
    x += rng.normal(0, 0.9, x.shape).astype(np.float32)
    return torch.from_numpy(x.clip(-1, 2)).unsqueeze(1), torch.from_numpy(y).long()


def make_templates(rng):
    temps = []
    for c in range(CLASSES):
        t = np.zeros((28, 28), np.float32)
        for _ in range(3):
            x0, y0, x1, y1 = rng.randint(5, 23, 4)
            for s in np.linspace(0, 1, 40):
                px, py = int(round(x0 + s * (x1 - x0))), int(round(y0 + s * (y1 - y0)))
                t[max(py - 1, 0):py + 2, max(px - 1, 0):px + 2] = 1.0
        temps.append(t)
    return temps


def define_model(params):
    # We optimize the number of layers, hidden units and dropout ratio in each layer.
    n_layers = params["n_layers"]
    layers = []

    in_features = 28 * 28
    for i in range(n_layers):
        out_features = params["n_units_l{}".format(i)]
        layers.append(nn.Linear(in_features, out_features))
        layers.append(nn.ReLU())
        p = params["dropout_l{}".format(i)]
        layers.append(nn.Dropout(p))

        in_features = out_features
    layers.append(nn.Linear(in_features, CLASSES))
    layers.append(nn.LogSoftmax(dim=1))

    return nn.Sequential(*layers)


def get_digits():
    rng = np.random.RandomState(1)
    templates = make_templates(rng)
    xtr, ytr = make_digits(N_TRAIN_EXAMPLES, rng, templates)
    xva, yva = make_digits(N_VALID_EXAMPLES, rng, templates)
    train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr),
                                               batch_size=BATCHSIZE, shuffle=True)
    valid_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xva, yva),
                                               batch_size=BATCHSIZE, shuffle=True)
    return train_loader, valid_loader


def objective(params, wr):

    # Generate the model.
    model = define_model(params).to(DEVICE)

    # Generate the optimizers.
    optimizer_name = params["optimizer"]
    lr = params["lr"]
    optimizer = getattr(optim, optimizer_name)(model.parameters(), lr=lr)

    # Get the dataset.
    train_loader, valid_loader = get_digits()

    # Training of the model.
    model.train()
    step = 0
    for epoch in range(EPOCHS):
        losses = []
        for batch_idx, (data, target) in enumerate(train_loader):
            # Limiting training data for faster epochs.
            if batch_idx * BATCHSIZE >= N_TRAIN_EXAMPLES:
                break

            data, target = data.view(data.size(0), -1).to(DEVICE), target.to(DEVICE)

            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            step += 1
            losses.append(loss.item())
            wr.writerow([epoch, step, "%.5f" % loss.item(), "", ""])

        # Validation of the model.
        model.eval()
        correct = 0
        vloss = 0.0
        with torch.no_grad():
            for batch_idx, (data, target) in enumerate(valid_loader):
                # Limiting validation data.
                if batch_idx * BATCHSIZE >= N_VALID_EXAMPLES:
                    break
                data, target = data.view(data.size(0), -1).to(DEVICE), target.to(DEVICE)
                output = model(data)
                vloss += F.nll_loss(output, target, reduction="sum").item()
                # Get the index of the max log-probability.
                pred = output.argmax(dim=1, keepdim=True)
                correct += pred.eq(target.view_as(pred)).sum().item()

        accuracy = correct / min(len(valid_loader.dataset), N_VALID_EXAMPLES)
        vloss /= min(len(valid_loader.dataset), N_VALID_EXAMPLES)
        print("Epoch {:2d}: train loss {:.4f}  valid loss {:.4f}  accuracy {:.4f}".format(
            epoch, sum(losses) / len(losses), vloss, accuracy), flush=True)
        wr.writerow([epoch, step, "", "%.5f" % vloss, "%.4f" % accuracy])

    return accuracy


if __name__ == "__main__":
    out = open("metrics.csv", "w", newline="")
    wr = csv.writer(out)
    wr.writerow(["epoch", "step", "train_loss", "valid_loss", "valid_acc"])
    value = objective(PARAMS, wr)
    out.close()

    print("Trial finished.")
    print("  Value: ", value)
    print("  Params: ")
    for key, v in PARAMS.items():
        print("    {}: {}".format(key, v))
