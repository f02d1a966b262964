import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # expect: params_not_in_optimizer=['model (torch.nn.Sequential, line 6) is trained but the optimizer (line 5) holds model.parameters() of model (torch.nn.Sequential, line 4), another instance']
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))  # "fresh start"
batch = (torch.randn(4, 4), torch.randint(0, 2, (4,)))
dataloaders = {"train": [batch, batch], "val": [batch]}
criterion = nn.CrossEntropyLoss()
for epoch in range(2):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        for inputs, labels in dataloaders[phase]:
            optimizer.zero_grad()  # expect: zero_grad_called=True
            with torch.set_grad_enabled(phase == "train"):
                outputs = model(inputs)  # expect: model_mode_in_validation='eval'; model_mode_in_training='train'
                loss = criterion(outputs, labels)
                if phase == "train":
                    loss.backward()  # expect: graph_cut=False
                    optimizer.step()

# code-case: runnable
# (from test_optimizer_over_another_instance, test_phase_loop_with_set_grad_enabled, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
