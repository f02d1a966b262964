# facebookresearch/svoice issue "RuntimeError: stack expects each tensor to be equal size" in miniature:
# svoice's training (train.py + Solver) on the user's own two-speaker data set described by egs/<dset>/
# {tr,cv}/{mix,s1,s2}.json files (lists of [wav path, number of samples]). Trainset cuts every file into
# 4 s segments (padded), so training runs; Validset loads whole files and sorts each json list by length
# on its own, then stacks the i-th entry of s1 and s2. In the poster's cv set one id's s1 file was not
# the same duration as its mix and s2 files, so after sorting the lists no longer line up and the first
# validation example fails in torch.stack. The wav files are synthetic (harmonic "voices" at 8 kHz, kept
# in memory instead of on disk), SWave is replaced by a small Conv-TasNet-like separator (encoder,
# dilated conv mask network, decoder), and svoice's PIT SI-SNR loss, Adam lr 5e-4, max_norm 5, batch 4,
# LogProgress lines and hydra-style log lines are kept. DataLoaders use num_workers=0 (svoice: 5).
import csv, json, logging, math, re, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from itertools import permutations

torch.manual_seed(2036); np.random.seed(0); torch.set_num_threads(1)
logging.basicConfig(format='[%(asctime)s][%(name)s][%(levelname)s] - %(message)s', level=logging.INFO)
logger = logging.getLogger('svoice.solver')
SR = 8000
rs = np.random.RandomState(0)
WAVS = {}                                                   # "disk": path -> samples

def voice(n):
    t = np.arange(n) / SR; f0 = rs.uniform(100, 260) * (1 + 0.05 * np.sin(2 * np.pi * rs.uniform(0.5, 2) * t))
    ph = 2 * np.pi * np.cumsum(f0) / SR
    sig = sum(np.sin(k * ph) / k for k in range(1, 6))
    env = (np.sin(2 * np.pi * rs.uniform(1, 3) * t) > -0.3).astype(float)
    return (0.3 * sig * env).astype(np.float32)

def make_split(name, lengths, bad=None):
    infos = {'mix': [], 's1': [], 's2': []}
    for k, n in enumerate(lengths):
        uid = '%s_%03d' % (name, k)
        s1, s2 = voice(n), voice(n)
        WAVS['%s/mix/%s.wav' % (name, uid)] = s1 + s2; WAVS['%s/s2/%s.wav' % (name, uid)] = s2
        n1 = n
        if bad is not None and k == bad[0]:                # this id's s1 file is another recording
            n1 = bad[1]; s1 = voice(n1)
        WAVS['%s/s1/%s.wav' % (name, uid)] = s1
        infos['mix'].append(['%s/mix/%s.wav' % (name, uid), n]); infos['s2'].append(['%s/s2/%s.wav' % (name, uid), n])
        infos['s1'].append(['%s/s1/%s.wav' % (name, uid), n1])
    return {'%s.json' % k: json.dumps(v, indent=4) for k, v in infos.items()}

JSONS = {'tr': make_split('tr', [int(n) for n in rs.randint(24000, 64000, 24)]),
         'cv': make_split('cv', [56000, 48230, 52011, 39874, 44512, 30755, 35120, 41990], bad=(0, 27411))}

def sort(infos): return sorted(infos, key=lambda info: int(info[1]), reverse=True)

class Audioset:
    def __init__(self, files, length=None, stride=None, pad=True):
        self.files, self.length, self.stride = files, length, stride or length; self.num_examples = []
        for file, file_length in self.files:
            if length is None: examples = 1
            elif file_length < length: examples = 1 if pad else 0
            else: examples = int(math.ceil((file_length - self.length) / self.stride) + 1)
            self.num_examples.append(examples)
    def __len__(self): return sum(self.num_examples)
    def __getitem__(self, index):
        for (file, _), examples in zip(self.files, self.num_examples):
            if index >= examples: index -= examples; continue
            out = torch.from_numpy(WAVS[file])[None]
            if self.length is not None:
                out = out[:, self.stride * index:self.stride * index + self.length]
                out = F.pad(out, (0, self.length - out.shape[-1]))
            return out[0]

def read_jsons(json_dir):
    files = JSONS[json_dir]; sets_re = re.compile(r's[0-9].json')
    mix_infos = json.loads(files['mix.json'])
    s_infos = [json.loads(files[s]) for s in files if sets_re.search(s)]
    return mix_infos, s_infos

class Trainset:
    def __init__(self, json_dir, sample_rate=SR, segment=4.0, stride=1.0, pad=True):
        mix_infos, s_infos = read_jsons(json_dir)
        kw = {'length': int(sample_rate * segment), 'stride': int(sample_rate * stride), 'pad': pad}
        self.mix_set = Audioset(sort(mix_infos), **kw); self.sets = [Audioset(sort(s), **kw) for s in s_infos]
        for s in self.sets: assert len(s) == len(self.mix_set)
    def __getitem__(self, index):
        mix_sig = self.mix_set[index]; tgt_sig = [self.sets[i][index] for i in range(len(self.sets))]
        return self.mix_set[index], torch.LongTensor([mix_sig.shape[0]]), torch.stack(tgt_sig)
    def __len__(self): return len(self.mix_set)

class Validset:
    """load entire wav."""
    def __init__(self, json_dir):
        mix_infos, s_infos = read_jsons(json_dir)
        self.mix_set = Audioset(sort(mix_infos)); self.sets = [Audioset(sort(s)) for s in s_infos]
        for s in self.sets: assert len(s) == len(self.mix_set)
    def __getitem__(self, index):
        mix_sig = self.mix_set[index]; tgt_sig = [self.sets[i][index] for i in range(len(self.sets))]
        return self.mix_set[index], torch.LongTensor([mix_sig.shape[0]]), torch.stack(tgt_sig)
    def __len__(self): return len(self.mix_set)

class Separator(nn.Module):                                # stand-in for SWave(N=128, L=8, H=128, R=6, C=2)
    def __init__(self, N=64, L=8, C=2):
        super().__init__(); self.C, self.L = C, L
        self.encoder = nn.Conv1d(1, N, L, stride=L // 2, bias=False)
        self.tcn = nn.ModuleList([nn.Sequential(nn.Conv1d(N, N, 3, padding=d, dilation=d), nn.PReLU(), nn.GroupNorm(1, N)) for d in (1, 2, 4, 8, 16)])
        self.mask = nn.Conv1d(N, C * N, 1)
        self.decoder = nn.ConvTranspose1d(N, 1, L, stride=L // 2, bias=False)
    def forward(self, mixture):
        w = F.relu(self.encoder(mixture[:, None])); h = w
        for blk in self.tcn: h = h + blk(h)
        m = torch.sigmoid(self.mask(h)).view(w.shape[0], self.C, w.shape[1], w.shape[2])
        est = torch.stack([self.decoder(w * m[:, c]).squeeze(1) for c in range(self.C)], 1)
        est = F.pad(est, (0, mixture.shape[-1] - est.shape[-1]))
        return [est]                                        # svoice returns the estimates of every block

def cal_loss(source, estimate_source, source_lengths, eps=1e-8):   # PIT SI-SNR, as svoice.models.sisnr_loss
    s = source - source.mean(-1, keepdim=True); e = estimate_source - estimate_source.mean(-1, keepdim=True)
    se, ee = s[:, None], e[:, :, None]                     # [B, 1, C, T], [B, C, 1, T]
    proj = (ee * se).sum(-1, keepdim=True) * se / ((se ** 2).sum(-1, keepdim=True) + eps)
    pair = 10 * torch.log10((proj ** 2).sum(-1) / (((ee - proj) ** 2).sum(-1) + eps) + eps)   # [B, C(est), C(src)]
    C = source.shape[1]
    snr = torch.stack([sum(pair[:, p[c], c] for c in range(C)) / C for p in permutations(range(C))], 1).max(1)[0]
    return -snr.mean(), snr, estimate_source, estimate_source

class LogProgress:
    def __init__(self, logger, iterable, updates=5, name="LogProgress"):
        self.iterable, self.updates, self.name, self.logger = iterable, updates, name, logger; self.total = len(iterable)
    def update(self, **infos): self._infos = infos
    def __iter__(self):
        self._iterator = iter(self.iterable); self._index = -1; self._infos = {}; self._begin = time.time(); return self
    def __next__(self):
        self._index += 1
        try:
            value = next(self._iterator)
        except StopIteration:
            raise
        else:
            return value
        finally:
            log_every = max(1, self.total // self.updates)
            if self._index >= 1 and self._index % log_every == 0: self._log()
    def _log(self):
        speed = (1 + self._index) / (time.time() - self._begin)
        speed = f"{1 / speed:.1f} sec/it" if speed < 0.1 else f"{speed:.1f} it/sec"
        infos = " | ".join(f"{k.capitalize()} {v}" for k, v in self._infos.items())
        self.logger.info(f"{self.name} | {self._index}/{self.total} | {speed}" + (" | " + infos if infos else ""))

tr_dataset = Trainset('tr', sample_rate=SR, segment=4, stride=1, pad=True)
tr_loader = torch.utils.data.DataLoader(tr_dataset, batch_size=4, shuffle=True, num_workers=0)
cv_dataset = Validset('cv')
cv_loader = torch.utils.data.DataLoader(cv_dataset, batch_size=1, num_workers=0)
model = Separator()
logging.getLogger('__main__').info('Size: %.1f MB' % (sum(p.numel() for p in model.parameters()) * 4 / 2 ** 20))
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.999))
sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.98)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'split', 'step', 'loss'])

def run_one_epoch(epoch, cross_valid=False):
    total_loss = 0
    data_loader = cv_loader if cross_valid else tr_loader
    label = ["Train", "Valid"][cross_valid]
    logprog = LogProgress(logger, data_loader, updates=5, name=label + f" | Epoch {epoch + 1}")
    for i, data in enumerate(logprog):
        mixture, lengths, sources = data
        estimate_source = model(mixture)
        if cross_valid: estimate_source = estimate_source[-1:]
        loss = 0; cnt = len(estimate_source)
        for c_idx, est_src in enumerate(estimate_source):
            sisnr_loss, snr, est_src, reorder_est_src = cal_loss(sources, est_src, lengths)
            loss += ((c_idx + 1) * (1 / cnt)) * sisnr_loss
        loss /= len(estimate_source)
        if not cross_valid:
            optimizer.zero_grad(); loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5); optimizer.step()
        total_loss += loss.item()
        logprog.update(loss=format(total_loss / (i + 1), ".5f"))
        wr.writerow([epoch + 1, label.lower(), i, round(loss.item(), 5)])
    return total_loss / (i + 1)

for epoch in range(3):
    model.train(); start = time.time()
    logger.info('-' * 70); logger.info("Training...")
    train_loss = run_one_epoch(epoch)
    logger.info(f'Train Summary | End of Epoch {epoch + 1} | Time {time.time() - start:.2f}s | Train Loss {train_loss:.5f}')
    logger.info('-' * 70); logger.info('Cross validation...')
    model.eval()
    with torch.no_grad():
        valid_loss = run_one_epoch(epoch, cross_valid=True)
    logger.info(f'Valid Summary | End of Epoch {epoch + 1} | Time {time.time() - start:.2f}s | Valid Loss {valid_loss:.5f}')
    sched.step()
    logger.info(f'Learning rate adjusted: {optimizer.state_dict()["param_groups"][0]["lr"]:.5f}')
