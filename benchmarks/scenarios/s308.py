# ENUNU/NNSVS recipe in miniature for a new language: full-context labels are turned into linguistic features
# with a hand-written hed question file (here a Portuguese one with 187 binary QS + 4 numeric CQS = 191
# features), while the copied timelag/duration/acoustic model configs still say in_dim: 331 (the value for the
# stock Japanese hed). The feature extraction and data loading run normally; the first forward pass of the
# timelag FFN fails with "RuntimeError: mat1 and mat2 shapes cannot be multiplied". Prints the recipe log;
# writes metrics.jsonl with the (few) records produced before the crash.
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(308)

N_QS, N_CQS = 187, 4
config = {'timelag': {'in_dim': 331, 'hidden_dim': 128, 'out_dim': 1, 'num_layers': 3},
          'duration': {'in_dim': 331, 'hidden_dim': 128, 'out_dim': 1, 'num_layers': 3},
          'acoustic': {'in_dim': 335, 'hidden_dim': 256, 'out_dim': 199, 'num_layers': 3}}
log = open('metrics.jsonl', 'w')

print(f'stage 0: load hed file: {N_QS} QS, {N_CQS} CQS')
songs = []
for s in range(12):
    n_notes = int(torch.randint(30, 60, (1,), generator=g))
    feats = torch.cat([(torch.rand(n_notes, N_QS, generator=g) < 0.05).float(),
                       torch.rand(n_notes, N_CQS, generator=g)], 1)
    lag = torch.randn(n_notes, 1, generator=g) * 0.05
    songs.append((feats, lag))
print(f'stage 1: feature generation done: {len(songs)} songs, linguistic feature dim {songs[0][0].shape[1]}')
log.write(json.dumps(dict(stage=1, songs=len(songs), feature_dim=int(songs[0][0].shape[1]))) + '\n')
mean = torch.cat([f for f, _ in songs]).mean(0); std = torch.cat([f for f, _ in songs]).std(0) + 1e-5
print('stage 1: scaler fitted (in_timelag/in_duration/in_acoustic)')


class FFN(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim, num_layers):
        super().__init__()
        self.first_linear = nn.Linear(in_dim, hidden_dim)
        self.hidden_layers = nn.ModuleList([nn.Linear(hidden_dim, hidden_dim) for _ in range(num_layers)])
        self.last_linear = nn.Linear(hidden_dim, out_dim)
        self.relu = nn.ReLU()

    def forward(self, x, lengths=None):
        h = self.relu(self.first_linear(x))
        for hl in self.hidden_layers:
            h = self.relu(hl(h))
        return self.last_linear(h)


print('stage 2: train timelag model')
model = FFN(**config['timelag'])
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
print(model)
for epoch in range(1, 51):
    for b in range(0, len(songs), 4):
        batch = songs[b:b + 4]
        x = torch.cat([(f - mean) / std for f, _ in batch]).unsqueeze(0)
        y = torch.cat([l for _, l in batch]).unsqueeze(0)
        y_hat = model(x, [x.shape[1]])
        loss = nn.functional.mse_loss(y_hat, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        log.write(json.dumps(dict(stage=2, epoch=epoch, batch=b // 4, loss=loss.item())) + '\n')
    print(f'epoch {epoch}: timelag loss {loss.item():.5f}')
log.close()
