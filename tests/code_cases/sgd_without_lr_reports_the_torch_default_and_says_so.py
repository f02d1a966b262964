import torch
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), momentum=0.9)  # expect: learning_rate=0.001

# expect-detail: learning_rate: default
# expect-detail: learning_rate: older torch
# (from test_sgd_without_lr_reports_the_torch_default_and_says_so in the former tests/test_code_reader.py)
