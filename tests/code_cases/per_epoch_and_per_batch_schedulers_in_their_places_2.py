import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3 * len(batches))  # expect: scheduler='onecyclelr'; scheduler_designed_per_batch=True
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
for epoch in range(3):
    for x, y in batches:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()  # expect: scheduler_step_per_batch=True

# (from test_per_epoch_and_per_batch_schedulers_in_their_places in the former tests/test_code_reader.py)
