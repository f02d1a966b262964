import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(256, 20)
y = (X[:, :4].sum(dim=1) > 0).long()
train_loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True, num_workers=0)  # expect: shuffle=True; batch_size=32; num_workers=0

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(64, 2))  # expect: dropout_p=0.2; regularization=['dropout', 'weight_decay']; uses_amp=False; frozen_params=[]; init_constant=False
criterion = nn.CrossEntropyLoss()  # expect: loss_function='cross_entropy'; custom_loss=False; output_activation='none'
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)  # expect: optimizer='sgd'; learning_rate=0.05; weight_decay=0.0005; params_not_in_optimizer=[]

for epoch in range(2):
    running = 0.0
    for inputs, targets in train_loader:
        optimizer.zero_grad()  # expect: zero_grad_called=True
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()  # expect: graph_cut=False
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: {running / len(train_loader):.4f}")

# expect-detail: learning_rate: lr=0.05
# expect-unresolved: none
# code-case: runnable
# (from test_plain_loop_reads_optimizer_loss_and_loader_with_lines, test_item_for_logging_and_a_frozen_teacher_are_not_graph_cuts, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
