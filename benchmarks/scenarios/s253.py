# GPT-style next-token pre-training on a small text corpus (LLMs-from-scratch chapter 2/5 pattern):
# a sliding-window GPTDatasetV1 (max_length 32, stride 32) over token ids, a 2-layer decoder-only
# transformer (d=64), AdamW lr 4e-4, batch 8, shuffle=True.
# The window loop was changed to run over the whole token list so that the tail is not dropped.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
VOCAB = 200
g = torch.Generator().manual_seed(41)
# synthetic "text": a first-order Markov chain over 200 token ids
trans = torch.softmax(torch.randn(VOCAB, VOCAB, generator=g) * 2.5, 1)
ids = [0]
for _ in range(20_010):
    ids.append(torch.multinomial(trans[ids[-1]], 1, generator=g).item())

class GPTDatasetV1(Dataset):
    def __init__(self, token_ids, max_length, stride):
        self.input_ids, self.target_ids = [], []
        for i in range(0, len(token_ids), stride):          # was: range(0, len(token_ids) - max_length, stride)
            self.input_ids.append(torch.tensor(token_ids[i:i + max_length]))
            self.target_ids.append(torch.tensor(token_ids[i + 1:i + max_length + 1]))
    def __len__(self):
        return len(self.input_ids)
    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]

class GPT(nn.Module):
    def __init__(self, d=64, ctx=32):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d); self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(d, VOCAB)
    def forward(self, x):
        T = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(T))
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        return self.out(self.blocks(h, mask=mask, is_causal=True))

loader = DataLoader(GPTDatasetV1(ids, 32, 32), batch_size=8, shuffle=True, drop_last=True,
                    generator=torch.Generator().manual_seed(42))
model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "train_loss"])
    for epoch in range(1, 4):
        for x, y in loader:
            step += 1
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            opt.zero_grad(); loss.backward(); opt.step()
            wr.writerow([step, epoch, f"{loss.item():.4f}"])
            if step % 10 == 0:
                print(f"Ep {epoch} (Step {step:04d}): Train loss {loss.item():.3f}")
                fh.flush()
