"""A zero (or constant) start of an embedding table is not the symmetry fault of a constant layer:
the table's rows are picked by index, so the data tells them apart (word2vec starts its context
vectors at zero). Reading the script alone, traindx must not blame the initialisation for it, and
must still blame it when a Linear layer starts constant."""
from conftest import diagnose_json

SKIPGRAM = '''
import torch, torch.nn as nn
V, D = 500, 32
class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.centre = nn.Embedding(V, D); self.context = nn.Embedding(V, D)
        nn.init.uniform_(self.centre.weight, -0.5 / D, 0.5 / D)
        nn.init.zeros_(self.context.weight)
    def forward(self, c, o, neg):
        u = self.centre(c)
        pos = (u * self.context(o)).sum(-1)
        ngs = torch.bmm(self.context(neg), u.unsqueeze(2)).squeeze(2)
        return -(nn.functional.logsigmoid(pos) + nn.functional.logsigmoid(-ngs).sum(1)).mean()
model = SkipGram()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(300):
    c = torch.randint(0, V, (64,)); o = (c + 1) % V; neg = torch.randint(0, V, (64, 5))
    loss = model(c, o, neg)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")
'''


def _causes(rep):
    return {c["id"]: c["confidence"] for c in rep["root_causes"]}


def test_a_zero_embedding_table_is_not_blamed(tmp_path):
    p = tmp_path / "w2v.py"
    p.write_text(SKIPGRAM)
    rep = diagnose_json("--code", str(p))
    assert "bad_initialization" not in _causes(rep)


def test_a_zero_linear_layer_still_is(tmp_path):
    p = tmp_path / "w2v.py"
    p.write_text(SKIPGRAM.replace("self.centre = nn.Embedding(V, D); self.context = nn.Embedding(V, D)",
                                  "self.centre = nn.Embedding(V, D); self.context = nn.Embedding(V, D)\n"
                                  "        self.proj = nn.Linear(D, D); nn.init.zeros_(self.proj.weight)")
                 .replace("u = self.centre(c)", "u = self.proj(self.centre(c))"))
    rep = diagnose_json("--code", str(p))
    assert rep["root_causes"][0]["id"] == "bad_initialization"
