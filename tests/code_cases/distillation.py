import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(), nn.Linear(16, 4))  # expect: dropout_p=0.5; regularization=['dropout', 'early_stopping']

    def forward(self, x):
        return self.body(x)


teacher, student = Net(), Net()
ds = TensorDataset(torch.randn(96, 8), torch.randint(0, 4, (96,)))
train_loader = DataLoader(ds, batch_size=16, sampler=RandomSampler(ds), num_workers=0)  # expect: shuffle=True
val_loader = DataLoader(ds, batch_size=48)
opt = torch.optim.Adam(student.parameters(), lr=5e-4)
warmup_steps = 50
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / warmup_steps))  # expect: scheduler='lambdalr'; scheduler_designed_per_batch=True; warmup=True
best, patience, bad_epochs = float("inf"), 2, 0
for epoch in range(4):
    student.train()
    for x, y in train_loader:
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)  # expect: model_mode_in_training='train'
        loss = F.kl_div(F.log_softmax(s_logits, dim=1), F.softmax(t_logits, dim=1),
                        reduction="batchmean")
        for p in student.parameters():
            p.grad = None  # expect: zero_grad_called=True
        loss.backward()  # expect: graph_cut=False
        opt.step()
        sched.step()  # expect: scheduler_step_per_batch=True
    student.eval()
    with torch.no_grad():
        val = sum(F.cross_entropy(student(x), y).item() for x, y in val_loader)  # expect: model_mode_in_validation='eval'
    if val < best:
        best, bad_epochs = val, 0
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            break

# expect-detail: shuffle: RandomSampler
# code-case: runnable
# (from test_grad_set_to_none_and_zero_grad_between_backward_and_step, test_lambda_warmup_scheduler_is_per_step, test_item_for_logging_and_a_frozen_teacher_are_not_graph_cuts, test_eval_before_validation_and_train_each_epoch, test_sampler_decides_shuffling, test_dropout_default_p_and_functional_dropout, test_batchnorm_and_early_stopping_are_regularization, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
