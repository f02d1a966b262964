import yaml
import torch

cfg = yaml.safe_load(open("config.yaml"))
model = torch.nn.Linear(2, 2)
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])  # expect: learning_rate=0.003

# expect-detail: learning_rate: config.yaml
# expect-config-paths: ['config.yaml']
# (from test_learning_rate_from_a_config_file_next_to_the_script in the former tests/test_code_reader.py)
