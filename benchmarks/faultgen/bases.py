"""Healthy base programs for the fault-injection benchmark.

Each base is a small, fast (CPU, one thread, synthetic data made in the script from fixed seeds)
training program described by a :class:`Base`: how its data are made, its model's ``body`` and
``head`` (the generic ``Net`` of :mod:`render` calls ``head(body(x))``, which is where the
detach / squash operators act), its loss and its optimizer. :mod:`render` turns a base plus a
:class:`~operators.Spec` (the base's settings after one fault operator) into a script.

Kinds: ``cls`` (multi-class, CrossEntropyLoss), ``bin`` (one logit, BCEWithLogitsLoss), ``reg``
(regression, MSELoss), ``ae`` (autoencoder, MSELoss on the input). ``loader``: batches through a
DataLoader over a TensorDataset, else raw tensor slicing with a private generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Base:
    name: str
    kind: str                 # cls | bin | reg | ae
    family: str               # mlp | cnn | rnn | transformer | linear | autoencoder
    loader: bool
    data: str                 # code defining X (float inputs, or token ids), Y, N_CLASSES
    body: str                 # expression: nn.Module
    head: str                 # expression: nn.Module
    opt: str = "adam"         # adam | sgd | sgdm | adamw
    lr: float = 1e-3
    epochs: int = 6
    batch: int = 32
    n: int = 1536             # examples made (a fifth goes to validation)
    tokens: bool = False      # inputs are token ids (no normalisation / NaN operators)
    helpers: str = ""         # module-level classes the body uses
    raw_scale: str = ""       # feature scales the data are made at (the script standardises them)
    tags: tuple = field(default_factory=tuple)


BLOBS = """\
N_CLASSES = 5
centres = torch.randn(N_CLASSES, 16, generator=g) * 1.6
Y = torch.randint(0, N_CLASSES, (N,), generator=g)
X = centres[Y] + torch.randn(N, 16, generator=g)
"""

BINARY = """\
N_CLASSES = 2
w_true = torch.randn(12, generator=g)
X = torch.randn(N, 12, generator=g)
Y = ((X @ w_true + 0.3 * torch.randn(N, generator=g)) > 0).float()
"""

IMAGES = """\
N_CLASSES = 4
# four kinds of 12x12 texture: horizontal, vertical, diagonal stripes and blobs, with noise
ii, jj = torch.meshgrid(torch.arange(12.0), torch.arange(12.0), indexing="ij")
pats = torch.stack([torch.sin(ii * 1.3), torch.sin(jj * 1.3), torch.sin((ii + jj) * 0.9),
                    torch.cos(ii * 0.6) * torch.cos(jj * 0.6)])
Y = torch.randint(0, N_CLASSES, (N,), generator=g)
shift = torch.randn(N, 1, 1, generator=g) * 0.3
X = (pats[Y] + shift + 0.8 * torch.randn(N, 12, 12, generator=g)).unsqueeze(1)
"""

SEQ_SIGN = """\
N_CLASSES = 3
# class = which third of the sequence holds a bump
T = 20
X = 0.5 * torch.randn(N, T, 4, generator=g)
Y = torch.randint(0, N_CLASSES, (N,), generator=g)
for c in range(N_CLASSES):
    X[Y == c, c * 6:(c + 1) * 6, 0] += 1.5
"""

SINE = """\
N_CLASSES = 0
# predict the next value of a noisy sine from the 16 before it
T = 16
phase = torch.rand(N, 1, generator=g) * 6.28
freq = 0.3 + 0.4 * torch.rand(N, 1, generator=g)
t = torch.arange(T + 1).float()
wave = torch.sin(phase + freq * t) + 0.05 * torch.randn(N, T + 1, generator=g)
X = wave[:, :T].unsqueeze(-1)
Y = wave[:, T:]
"""

TOKENS = """\
N_CLASSES = 4
# class = the most frequent of tokens 1..4 in a sequence of 12 tokens from a vocabulary of 24
VOCAB, T = 24, 12
X = torch.randint(5, VOCAB, (N, T), generator=g)
Y = torch.randint(0, N_CLASSES, (N,), generator=g)
pos = torch.rand(N, T, generator=g) < 0.35
X = torch.where(pos, (Y + 1)[:, None].expand(N, T), X)
"""

REGRESSION = """\
N_CLASSES = 0
w_true = torch.randn(10, 1, generator=g)
X = torch.randn(N, 10, generator=g)
Y = X @ w_true + 0.5 * torch.sin(3 * X[:, :1]) + 0.1 * torch.randn(N, 1, generator=g)
"""

LOWRANK = """\
N_CLASSES = 0
# 32 features driven by 4 latent factors: an autoencoder with a bottleneck of 6 can rebuild them
Z = torch.randn(N, 4, generator=g)
A = torch.randn(4, 32, generator=g)
X = torch.tanh(Z @ A * 0.5) + 0.05 * torch.randn(N, 32, generator=g)
Y = X
"""

SIGNALS = """\
N_CLASSES = 3
# 1-D signals of 48 samples: a low, a middle or a high frequency tone in noise
L = 48
f = torch.tensor([0.15, 0.45, 0.9])
Y = torch.randint(0, N_CLASSES, (N,), generator=g)
ph = torch.rand(N, 1, generator=g) * 6.28
X = (torch.sin(f[Y][:, None] * torch.arange(L).float() + ph) + 0.6 * torch.randn(N, L, generator=g)).unsqueeze(1)
"""

HELPER_LAST = """\
class LastStep(nn.Module):
    \"\"\"An RNN read at its last time step.\"\"\"

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        out, _ = self.rnn(x)
        return out[:, -1]


class TokenEncoder(nn.Module):
    \"\"\"Token embedding + positions + a small TransformerEncoder, mean-pooled.\"\"\"

    def __init__(self, vocab, d=32, T=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(T, d))
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=DROPOUT, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(self.emb(x) + self.pos).mean(1)
"""

BASES = [
    Base("mlp_blobs_loader", "cls", "mlp", True, BLOBS,
         "nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(DROPOUT), nn.Linear(64, 64), nn.ReLU())",
         "nn.Linear(64, N_CLASSES)", opt="adam", lr=1e-3, epochs=5),
    Base("mlp_blobs_raw", "cls", "mlp", False, BLOBS,
         "nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())",
         "nn.Linear(64, N_CLASSES)", opt="sgdm", lr=0.05, epochs=5),
    Base("cnn_textures_loader", "cls", "cnn", True, IMAGES,
         "nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),"
         " nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(DROPOUT))",
         "nn.Linear(16, N_CLASSES)", opt="adam", lr=3e-3, epochs=4, n=1280),
    Base("cnn1d_signals_raw", "cls", "cnn", False, SIGNALS,
         "nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2), nn.Conv1d(8, 16, 5, padding=2),"
         " nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten())",
         "nn.Linear(16, N_CLASSES)", opt="adam", lr=3e-3, epochs=4, n=1280),
    Base("lstm_bumps_raw", "cls", "rnn", False, SEQ_SIGN,
         "LastStep(nn.LSTM(4, 32, batch_first=True))", "nn.Linear(32, N_CLASSES)",
         opt="adam", lr=5e-3, epochs=5, n=1280, helpers=HELPER_LAST),
    Base("gru_sine_loader", "reg", "rnn", True, SINE,
         "LastStep(nn.GRU(1, 32, batch_first=True))", "nn.Linear(32, 1)",
         opt="adam", lr=3e-3, epochs=5, n=1280, helpers=HELPER_LAST),
    Base("transformer_tokens_loader", "cls", "transformer", True, TOKENS,
         "TokenEncoder(VOCAB)", "nn.Linear(32, N_CLASSES)", opt="adamw", lr=1e-3, epochs=4, n=1280,
         tokens=True, helpers=HELPER_LAST),
    Base("regression_mlp_raw", "reg", "linear", False, REGRESSION,
         "nn.Sequential(nn.Linear(10, 48), nn.ReLU(), nn.Linear(48, 48), nn.ReLU())", "nn.Linear(48, 1)",
         opt="sgdm", lr=0.01, epochs=6, raw_scale="torch.logspace(-1, 2, 10)"),
    Base("autoencoder_loader", "ae", "autoencoder", True, LOWRANK,
         "nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 6))",
         "nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 32))", opt="adam", lr=2e-3, epochs=6),
    Base("logistic_binary_loader", "bin", "linear", True, BINARY,
         "nn.Sequential(nn.Linear(12, 32), nn.ReLU())", "nn.Linear(32, 1)", opt="sgd", lr=0.1, epochs=6,
         raw_scale="torch.logspace(0, 3, 12)"),
    Base("mlp_bn_adamw_raw", "cls", "mlp", False, BLOBS,
         "nn.Sequential(nn.Linear(16, 96), nn.BatchNorm1d(96), nn.ReLU(), nn.Dropout(DROPOUT), nn.Linear(96, 48),"
         " nn.ReLU())", "nn.Linear(48, N_CLASSES)", opt="adamw", lr=2e-3, epochs=5),
]

BY_NAME = {b.name: b for b in BASES}
