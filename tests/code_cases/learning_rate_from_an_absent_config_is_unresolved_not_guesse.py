import json, torch
with open("settings.json") as fh:
    cfg = json.load(fh)
model = torch.nn.Linear(2, 2)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

# expect-not: learning_rate
# expect-unresolved: settings.json
# expect-unresolved: learning rate
# expect-config-paths: ['settings.json']
# (from test_learning_rate_from_an_absent_config_is_unresolved_not_guessed in the former tests/test_code_reader.py)
