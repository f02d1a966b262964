import torch.nn as nn
from mypackage.models import ResNetish


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loader:  # expect: zero_grad_called=False
            out = model(x)  # expect: model_mode_in_training='eval'
            loss = nn.CrossEntropyLoss()(out, y)  # expect: loss_function='cross_entropy'
            loss.backward()
            optimizer.step()
        model.eval()

# expect-not: optimizer
# expect-not: dropout_p
# expect-unresolved: never called
# expect-unresolved: not visible
# (from test_a_training_function_never_called_is_read_with_unknown_arguments in the former tests/test_code_reader.py)
