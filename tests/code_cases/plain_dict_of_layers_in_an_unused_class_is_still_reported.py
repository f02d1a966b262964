import torch.nn as nn


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = {"age": nn.Linear(8, 1), "sex": nn.Linear(8, 2)}  # expect: params_not_in_optimizer=['layers kept in a plain dict: self.heads in Heads (line 7); use nn.ModuleDict (class not instantiated in this file)']

    def forward(self, x):
        return {k: h(x) for k, h in self.heads.items()}

# (from test_plain_dict_of_layers_in_an_unused_class_is_still_reported in the former tests/test_code_reader.py)
