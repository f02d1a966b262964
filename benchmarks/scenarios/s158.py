# pointer-generator style summariser (decoder only part), toy vocab
import json, random
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(3)
torch.manual_seed(3)
torch.set_num_threads(1)

VOCAB = 400
EMB, HID = 64, 128
SEQ = 12
BATCH = 32


def make_corpus(n):
    # each "article" is a chain: next token = (a*tok + b) % VOCAB with a little noise
    data = []
    for _ in range(n):
        a, b = random.choice([(3, 7), (5, 11), (7, 1)])
        t = random.randrange(VOCAB)
        seq = [t]
        for _ in range(SEQ):
            t = (a * t + b) % VOCAB if random.random() > 0.05 else random.randrange(VOCAB)
            seq.append(t)
        data.append(seq)
    return torch.tensor(data)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.gru = nn.GRU(EMB, HID, batch_first=True)
        self.out = nn.Linear(HID, VOCAB)

    def forward(self, inp):
        h, _ = self.gru(self.embedding(inp))
        vocab_dist = F.softmax(self.out(h), dim=-1)
        return vocab_dist


train = make_corpus(4000)
val = make_corpus(500)
model = Decoder()
criterion = nn.NLLLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

log = open("metrics.jsonl", "w")
step = 0
for epoch in range(6):
    perm = torch.randperm(len(train))
    for i in range(0, len(train), BATCH):
        batch = train[perm[i:i + BATCH]]
        inp, tgt = batch[:, :-1], batch[:, 1:]
        out = model(inp)
        loss = criterion(out.reshape(-1, VOCAB), tgt.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if step % 25 == 0:
            with torch.no_grad():
                vout = model(val[:, :-1])
                vloss = criterion(vout.reshape(-1, VOCAB), val[:, 1:].reshape(-1)).item()
                vacc = (vout.argmax(-1) == val[:, 1:]).float().mean().item()
            log.write(json.dumps({"step": step, "epoch": epoch, "train_loss": round(loss.item(), 6),
                                  "val_loss": round(vloss, 6), "val_acc": round(vacc, 4)}) + "\n")
    print("epoch %d  step %d  loss %.5f  val_loss %.5f  val_acc %.3f" % (epoch, step, loss.item(), vloss, vacc))
log.close()
