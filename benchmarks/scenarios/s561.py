# pytorch/pytorch pull request "Prevent numerical issues with poisson_nll_loss when log_input=False" (3336) in
# miniature: the reproduction script of the pull request, run with the loss as it was before the fix. The script fits
# the mean of 200 Poisson(4) samples with one parameter initialised at zero, torch.nn.PoissonNLLLoss(log_input=False,
# full=True) and RMSprop(lr=0.1) for 5000 iterations, printing "Loss:" every 1000 iterations and then the sample mean
# and the learned mean. Before the fix, poisson_nll_loss with log_input=False computed input - target * log(input)
# with no epsilon, plus the Stirling term target * log(target) - target + 0.5 * log(2 pi target) for targets above 1
# (full=True); the fix added eps=1e-8 inside the log. Current PyTorch has the epsilon, so the pre-fix formula is
# written out here. The loop also logs the loss, the gradient and the parameter every 50 iterations to metrics.csv.
import csv, math
import numpy as np
import torch

torch.manual_seed(42)
np.random.seed(42)
torch.set_num_threads(1)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=True):
    # torch.nn.functional.poisson_nll_loss before pytorch/pytorch#3336
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input)
    if full:
        mask = target > 1
        stirling = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(~mask, 0)
    return torch.mean(loss) if size_average else torch.sum(loss)


poisson_mean = 4
poisson_numsample = 200

samples = np.random.poisson(poisson_mean, poisson_numsample)

param = torch.zeros(1, requires_grad=True)
torch_samples = torch.from_numpy(samples).float()

optimizer = torch.optim.RMSprop([param], lr=0.1)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iteration', 'loss', 'grad', 'param'])
for i in range(5000):
    optimizer.zero_grad()
    output = poisson_nll_loss(param, torch_samples, log_input=False, full=True)
    output.backward()

    if i % 50 == 0:
        wr.writerow([i, output.item(), param.grad.item(), param.item()])
    if i % 1000 == 0:
        print('Loss:', output.item(), flush=True)

    optimizer.step()
f.close()

print('Sample mean: ', torch_samples.mean().numpy())
print('Mean is : ', param.data.numpy())
