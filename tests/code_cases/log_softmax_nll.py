import torch
from torch import nn, optim

torch.manual_seed(1)
X = torch.randn(200, 10)
Y = (X[:, 0] > 0).long()

model = nn.Sequential(
    nn.Linear(10, 32),
    nn.BatchNorm1d(32),  # expect: regularization=['batchnorm']
    nn.ReLU(),
    nn.Linear(32, 2),
    nn.LogSoftmax(dim=1),  # expect: output_activation='log_softmax'
)
criterion = nn.NLLLoss()  # expect: loss_function='nll'; custom_loss=False
optimizer = optim.Adam(model.parameters())
BATCH = 20

for epoch in range(3):
    perm = torch.randperm(len(X))  # expect: shuffle=True
    model.train()
    for i in range(0, len(X), BATCH):  # expect: batch_size=20
        idx = perm[i:i + BATCH]
        optimizer.zero_grad()
        loss = criterion(model(X[idx]), Y[idx])
        loss.backward()  # expect: unsafe_math=[]
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X), Y).item()

# code-case: runnable
# (from test_log_softmax_with_nll_is_reported_as_such_not_as_double_softmax, test_manual_batching_by_slicing, test_batchnorm_and_early_stopping_are_regularization, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
