import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
head = nn.Linear(16, 3)
enc_opt = torch.optim.AdamW(encoder.parameters(), lr=1e-3)
head_opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)
crit = nn.CrossEntropyLoss()
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for step in range(100):
    enc_opt.zero_grad()  # expect: optimizer_not_zeroed=False
    head_opt.zero_grad()
    loss = crit(head(encoder(x)), y)
    loss.backward()
    enc_opt.step()
    head_opt.step()

# (from test_an_optimizer_whose_zero_grad_is_forgotten_among_two_is_found in the former tests/test_code_reader.py)
