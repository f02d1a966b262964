# pytorch/examples regression/main.py (at commit 1877b870): fit a random degree-4 polynomial y = W_target . [x, x^2,
# x^3, x^4] + b_target (W_target = randn * 5, b_target = randn * 5) with a single torch.nn.Linear(4, 1), batches of 32
# fresh samples x ~ N(0, 1) every step, F.smooth_l1_loss, plain gradient descent by hand (param -= 0.1 * grad after
# fc.zero_grad()), and the stop criterion loss < 1e-3; at the end the script prints "Loss: .. after .. batches" and the
# learned and the actual polynomial. Added for the scenario: a fixed seed, a log line every 20 batches with the batch
# loss and the largest coefficient error, and metrics.csv with the loss of every batch.
import csv
from itertools import count

import torch
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)

POLY_DEGREE = 4
W_target = torch.randn(POLY_DEGREE, 1) * 5
b_target = torch.randn(1) * 5


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=32):
    """Builds a batch i.e. (x, f(x)) pair."""
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


# Define model
fc = torch.nn.Linear(W_target.size(0), 1)

out = open('metrics.csv', 'w', newline=''); wr = csv.writer(out)
wr.writerow(['batch', 'loss', 'max_coef_err'])
for batch_idx in count(1):
    # Get data
    batch_x, batch_y = get_batch()

    # Reset gradients
    fc.zero_grad()

    # Forward pass
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()

    # Backward pass
    output.backward()

    # Apply gradients
    with torch.no_grad():
        for param in fc.parameters():
            param.add_(-0.1 * param.grad)

    with torch.no_grad():
        err = max((fc.weight.view(-1) - W_target.view(-1)).abs().max().item(), abs(fc.bias.item() - b_target.item()))
    wr.writerow([batch_idx, round(loss, 6), round(err, 6)])
    if batch_idx % 20 == 0:
        print('batch {:4d}  loss {:.6f}  max coefficient error {:.4f}'.format(batch_idx, loss, err), flush=True)

    # Stop criterion
    if loss < 1e-3:
        break
out.close()

print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))
