import torch
from torch.cuda.amp import GradScaler, autocast

model = torch.nn.Linear(3, 1).cuda()
opt = torch.optim.Adam(model.parameters())
scaler = GradScaler()  # expect: grad_scaler_used=True
for step in range(10):
    x = torch.randn(4, 3).cuda()
    with autocast():  # expect: uses_amp=True; amp_dtype='float16'
        loss = model(x).pow(2).mean()
    opt.zero_grad()  # expect: zero_grad_called=True
    scaler.scale(loss).backward()  # expect: graph_cut=False
    scaler.step(opt)
    scaler.update()

# (from test_amp_with_and_without_grad_scaler in the former tests/test_code_reader.py)
