"""Code reader idioms of unfamiliar model code (session 31, finish31).

What a user would notice: a mechanism in the script that the reader's interpreter did not follow, so the
diagnosis missed it or blamed the wrong one.

- Layers gathered into one list before a loop over them (``[*self.towers, self.bias_table]``,
  ``list(self.towers) + [self.bias_table]``): the loop variable was no longer known to be those layers,
  so zeroing embedding tables of a linear (wide) part read as a constant init of hidden weights.
- Raw inputs rounded to integers (``(x * 40 + 100).round()``) or picked elementwise by ``torch.where``
  from two sources of known scale: the inputs' scale was lost, so unnormalised inputs went unseen.
"""
from __future__ import annotations

from conftest import diagnose_json

WIDE = '''
import torch, torch.nn as nn

SIZES = [6, 9, 4]


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.towers = nn.ModuleList([nn.{layer} for n in SIZES])
        self.bias_table = nn.Embedding(54, 1)
        for t in {loop}:
            nn.init.zeros_(t.weight)
        self.mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, ids, num):
        out = self.mlp(num) + self.bias_table(ids[:, 0] * 9 + ids[:, 1])
        return (out + sum(t(ids[:, j]) for j, t in enumerate(self.towers))).squeeze(1)


ids = torch.randint(0, 4, (512, 3))
num = torch.randn(512, 3)
y = (torch.rand(512) < 0.5).float()
model = Wide()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for ep in range(5):
    perm = torch.randperm(512)
    for i in range(0, 512, 64):
        b = perm[i:i + 64]
        loss = nn.functional.binary_cross_entropy_with_logits(model(ids[b], num[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def _facts(tmp_path, text):
    p = tmp_path / "train.py"
    p.write_text(text)
    rep = diagnose_json("--code", str(p))
    return {f["fact"]: f["value"] for f in rep["facts"]}


def test_embedding_tables_gathered_by_star_unpacking_are_no_constant_hidden_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Embedding(n, 1)", loop="[*self.towers, self.bias_table]"))
    assert facts["init_constant"] is False


def test_embedding_tables_gathered_by_list_concatenation_are_no_constant_hidden_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Embedding(n, 1)", loop="list(self.towers) + [self.bias_table]"))
    assert facts["init_constant"] is False


def test_hidden_layers_gathered_the_same_way_and_zeroed_are_still_a_constant_init(tmp_path):
    facts = _facts(tmp_path, WIDE.format(layer="Linear(3, 3)", loop="list(self.towers) + [self.bias_table]"))
    assert facts["init_constant"] is True


PIXELS = '''
import torch, torch.nn as nn


def make(n):
    y = torch.randint(0, 4, (n,))
    wave = torch.sin(torch.rand(n, 1, 8, 8))
    blob = torch.cos(torch.rand(n, 1, 8, 8))
    img = 0.9 * torch.randn(n, 4, 8, 8)
    img[torch.arange(n), y] += {pick}
    return img, y


X, Y = make(600)
X = {raw}
net = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(512, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for ep in range(8):
    perm = torch.randperm(600)
    for i in range(0, 600, 50):
        b = perm[i:i + 50]
        loss = nn.functional.cross_entropy(net(X[b]), Y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_raw_intensities_rounded_to_integers_keep_their_scale(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="wave[:, 0]", raw="(X * 40 + 100).round()"))
    assert facts["input_scale"] > 100


def test_a_pattern_picked_by_where_keeps_the_scale_of_its_branches(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="torch.where(Y[:, None, None] > 1, wave[:, 0], blob[:, 0])",
                                           raw="X.floor() * 30 + 90"))
    assert facts["input_scale"] > 90


def test_rounded_inputs_in_the_unit_range_are_not_raw(tmp_path):
    facts = _facts(tmp_path, PIXELS.format(pick="wave[:, 0]", raw="(X * 0.1).round() / 4"))
    assert facts.get("input_scale", 1) < 5


# - Raw ``nn.Parameter`` attributes handed to the optimizer one by one (``Adam([net.head_w, net.head_b])``):
#   they were "a parameter" the reader could not place, so a model whose other raw parameters no optimizer
#   holds went unreported.
# - A stock decaying schedule's numbers (``StepLR(opt, step_size=1, gamma=0.1)``, from constants or a
#   config) over a loop of known length: how far it takes the LR was never worked out, so a schedule that
#   collapses the LR in the first epochs was left to a log that seldom prints the LR.

ADDITIVE = '''
import torch, torch.nn as nn

F_IN, H = 5, 16


class Additive(nn.Module):
    def __init__(self):
        super().__init__()
        self.in_w = nn.Parameter(torch.randn(F_IN, H) * 0.5)
        self.in_b = nn.Parameter(torch.zeros(F_IN, H))
        self.head_w = nn.Parameter(torch.randn(F_IN, H) * 0.1)
        self.head_b = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        h = torch.relu(x[:, :, None] * self.in_w + self.in_b)
        return (h * self.head_w).sum((1, 2)) + self.head_b


x = torch.randn(800, F_IN)
y = torch.sin(x).sum(1)
net = Additive()
opt = torch.optim.Adam({params}, lr=3e-3)
sched = {sched}
for epoch in range({epochs}):
    perm = torch.randperm(800)
    for i in range(0, 800, 100):
        b = perm[i:i + 100]
        loss = nn.functional.mse_loss(net(x[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
'''

HELD = "torch.optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.5)"


def test_an_optimizer_given_only_some_raw_parameters_misses_the_others(tmp_path):
    facts = _facts(tmp_path, ADDITIVE.format(params="[net.head_w, net.head_b]", sched=HELD, epochs=20))
    missing = " ".join(facts["params_not_in_optimizer"])
    assert "net.in_w" in missing and "net.in_b" in missing
    assert "head_w" not in missing.split(":")[0]


def test_an_optimizer_given_every_raw_parameter_misses_none(tmp_path):
    facts = _facts(tmp_path, ADDITIVE.format(params="[net.in_w, net.in_b, net.head_w, net.head_b]", sched=HELD,
                                             epochs=20))
    assert facts.get("params_not_in_optimizer", []) == []


def test_a_step_schedule_that_divides_the_lr_by_ten_each_epoch_collapses_early(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(ADDITIVE.format(params="net.parameters()", epochs=20,
                                 sched="torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.1)"))
    log = tmp_path / "console.log"
    losses = [2.0, 1.1, 0.9] + [0.88] * 17
    log.write_text("".join(f"epoch {i + 1} train_loss {v:.4f}\n" for i, v in enumerate(losses)))
    rep = diagnose_json("--code", str(p), "--log", str(log))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["lr_collapse_fraction"] < 0.3
    assert rep["root_causes"][0]["id"] == "lr_schedule_collapse"


def test_an_exponential_decay_read_from_a_config_is_followed(tmp_path):
    (tmp_path / "cfg.yaml").write_text("decay: 0.5\nepochs: 30\n")
    text = "import yaml\ncfg = yaml.safe_load(open('cfg.yaml'))\n" + ADDITIVE.format(
        params="net.parameters()", epochs="cfg['epochs']",
        sched="torch.optim.lr_scheduler.ExponentialLR(opt, gamma=cfg['decay'])")
    facts = _facts(tmp_path, text)
    assert facts["lr_final_ratio"] < 1e-6
    assert facts["lr_collapse_fraction"] < 0.3


def test_a_step_schedule_longer_than_the_run_holds_the_lr(tmp_path):
    facts = _facts(tmp_path, ADDITIVE.format(params="net.parameters()", sched=HELD, epochs=20))
    assert facts["lr_final_ratio"] == 1.0
    assert facts["lr_collapse_fraction"] == 1.0


def test_a_gentle_cosine_schedule_does_not_collapse_until_its_end(tmp_path):
    facts = _facts(tmp_path, ADDITIVE.format(params="net.parameters()", epochs=40,
                                             sched="torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=40)"))
    assert facts["lr_collapse_fraction"] > 0.9


# - A stock layer's own submodules called apart (``self.tf.encoder(src)``, ``self.tf.decoder(tgt, memory)``):
#   their outputs were unknown values, so a ``.detach()`` of the encoder's output, which leaves the encoder
#   with no gradient, went unseen.

SEQ2SEQ = '''
import torch, torch.nn as nn


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(20, 32)
        self.core = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                   dim_feedforward=64, batch_first=True)
        self.proj = nn.Linear(32, 20)

    def forward(self, src, tgt):
        mem = {memory}
        return self.proj(self.core.decoder(self.tok(tgt), mem))


src = torch.randint(0, 20, (256, 7))
tgt = src.flip(1)
model = Seq2Seq()
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
for ep in range(6):
    for i in range(0, 256, 32):
        out = model(src[i:i + 32], tgt[i:i + 32])
        loss = nn.functional.cross_entropy(out.reshape(-1, 20), tgt[i:i + 32].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_a_detached_encoder_output_inside_a_stock_transformer_cuts_the_graph(tmp_path):
    facts = _facts(tmp_path, SEQ2SEQ.format(memory="self.core.encoder(self.tok(src)).detach()"))
    assert facts["graph_cut"] is True


def test_the_same_encoder_output_kept_in_the_graph_is_no_cut(tmp_path):
    facts = _facts(tmp_path, SEQ2SEQ.format(memory="self.core.encoder(self.tok(src))"))
    assert facts["graph_cut"] is False
