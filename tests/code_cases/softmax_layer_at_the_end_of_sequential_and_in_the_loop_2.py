import torch
import torch.nn.functional as F

model = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
for _ in range(3):
    probs = F.softmax(model(x), dim=-1)  # expect: output_activation='softmax'
    loss = F.cross_entropy(probs, y)  # expect: label_smoothing=0.0
    opt.zero_grad()
    loss.backward()
    opt.step()

# (from test_softmax_layer_at_the_end_of_sequential_and_in_the_loop in the former tests/test_code_reader.py)
