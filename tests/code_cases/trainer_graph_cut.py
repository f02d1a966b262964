import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.RMSprop(self.model.parameters(), lr=lr)  # expect: params_not_in_optimizer=['net (torch.nn.Sequential, line 26) is trained but the optimizer (line 8) holds self.model.parameters() of backup (torch.nn.Sequential, line 27), another instance']; optimizer='rmsprop'; learning_rate=0.01
        self.loss_fn = nn.MSELoss()

    def train_step(self, x, y):
        pred = self.model(x)
        pred = torch.tensor(pred.detach().numpy(), requires_grad=True)  # expect: graph_cut=True
        loss = self.loss_fn(pred, y)
        self.optimizer.zero_grad()  # expect: zero_grad_called=True
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for x, y in batches:
                self.train_step(x, y)


net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))  # expect: dropout_p=0.0; regularization=[]; model_has_dropout_or_bn=False
backup = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
trainer = Trainer(backup)
trainer.model = net
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
trainer.fit(batches)

# code-case: runnable
# (from test_optimizer_over_another_instance, test_graph_cut_by_numpy_round_trip, test_no_dropout_anywhere, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
