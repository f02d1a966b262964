import torch
import torch.nn as nn

policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(3):
    log_probs, rewards = [], []
    for t in range(5):
        dist = torch.distributions.Categorical(logits=policy(torch.randn(4)))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(float(action.item()))
    returns = torch.tensor(rewards)
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()  # expect: custom_loss=True; graph_cut=False
    optimizer.step()

# (from test_policy_gradient_loss_is_traced_through_a_list in the former tests/test_code_reader.py)
