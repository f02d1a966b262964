# yandexdataschool/nlp_course week02_classification/seminar.ipynb in miniature: "Large scale text analysis with
# deep learning", predicting job salaries (Kaggle job-salary-prediction, Train_rev1) from the ad's Title and
# FullDescription (tokenised, vocabulary of tokens seen >= min_count times, padded matrices via as_matrix) and the
# categorical columns Category, Company, LocationNormalized, ContractType, ContractTime (missing values cast to the
# string "NaN", one-hot encoded as with DictVectorizer); the target is Log1pSalary = log1p(SalaryNormalized).
# SalaryPredictor has three branches (title encoder, description encoder: embedding -> Conv1d -> ReLU -> global max
# pool; categorical encoder: Linear) joined by a common head that predicts one number; nn.MSELoss(reduction='sum'),
# Adam(lr=1e-3) (the notebook's SGD(lr=1e-4) barely moves this miniature in 5 epochs), BATCH_SIZE = 16, EPOCHS = 5,
# iterate_minibatches() with a fresh permutation each epoch, "epoch: N" and print_metrics() on the validation split
# after every epoch ("Mean square error: ..." / "Mean absolute error: ..."), as in the notebook's PyTorch version.
# A synthetic job-ad table of 3000 rows (vocabulary of 300 words, 8 categories, 40 companies, 25 locations) replaces
# the 244k ads; train_test_split(test_size=0.2, random_state=42) is a seeded permutation. As in the seminar's data
# set there is a single NaN in the salary column (one ad whose SalaryNormalized is missing), so its Log1pSalary is NaN
# too; nothing in the notebook drops it.
import csv, math
from collections import Counter
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

# ---- synthetic Train_rev1 stand-in ----
N = 3000
WORDS = ['w%03d' % i for i in range(300)]
word_value = rs.normal(0, 0.25, len(WORDS)) * (rs.rand(len(WORDS)) < 0.3)      # ~30% of the words move the salary
CATS = ['IT Jobs', 'Engineering Jobs', 'Accounting & Finance Jobs', 'Healthcare & Nursing Jobs', 'Sales Jobs',
        'Teaching Jobs', 'Hospitality & Catering Jobs', 'Other/General Jobs']
cat_value = rs.normal(0, 0.3, len(CATS))
COMPANIES = ['company_%02d' % i for i in range(40)]; comp_value = rs.normal(0, 0.15, 40)
LOCS = ['location_%02d' % i for i in range(25)]; loc_value = rs.normal(0, 0.15, 25)
rows = []
for i in range(N):
    t = rs.choice(len(WORDS), rs.randint(3, 8)); d = rs.choice(len(WORDS), rs.randint(30, 80))
    c, co, lo = rs.randint(len(CATS)), rs.randint(40), rs.randint(25)
    ctype = [None, 'full_time', 'part_time'][rs.choice(3, p=[0.6, 0.3, 0.1])]
    ctime = [None, 'permanent', 'contract'][rs.choice(3, p=[0.3, 0.55, 0.15])]
    logsal = 10.2 + 2.0 * word_value[t].mean() + 0.6 * word_value[d].mean() + cat_value[c] + comp_value[co] \
        + loc_value[lo] + (0.2 if ctime == 'contract' else 0) - (0.35 if ctype == 'part_time' else 0) + rs.normal(0, 0.12)
    rows.append(dict(Title=' '.join(WORDS[j] for j in t), FullDescription=' '.join(WORDS[j] for j in d),
                     Category=CATS[c], Company=None if rs.rand() < 0.1 else COMPANIES[co], LocationNormalized=LOCS[lo],
                     ContractType=ctype, ContractTime=ctime, SalaryNormalized=float(round(math.expm1(logsal)))))
rows[118]['SalaryNormalized'] = float('nan')                                 # the single NaN in the salary column
for r in rows:
    r['Log1pSalary'] = np.float32(np.log1p(r['SalaryNormalized']))
print('data.shape = (%d, %d)' % (len(rows), len(rows[0])))

text_columns = ["Title", "FullDescription"]
categorical_columns = ["Category", "Company", "LocationNormalized", "ContractType", "ContractTime"]
TARGET_COLUMN = "Log1pSalary"
for r in rows:                                                                  # cast missing values to string "NaN"
    for col in categorical_columns:
        if r[col] is None: r[col] = 'NaN'

token_counts = Counter()
for r in rows:
    for col in text_columns: token_counts.update(r[col].split())
min_count = 10
tokens = sorted(t for t, c in token_counts.items() if c >= min_count)
UNK, PAD = "UNK", "PAD"
tokens = [UNK, PAD] + tokens
token_to_id = {t: i for i, t in enumerate(tokens)}
UNK_IX, PAD_IX = map(token_to_id.get, [UNK, PAD])
print("Vocabulary size:", len(tokens))

def as_matrix(sequences, max_len=None):
    """ Convert a list of tokens into a matrix with padding """
    sequences = [s.split() for s in sequences]
    max_len = min(max(map(len, sequences)), max_len or float('inf'))
    matrix = np.full((len(sequences), max_len), np.int32(PAD_IX))
    for i, seq in enumerate(sequences):
        row_ix = [token_to_id.get(word, UNK_IX) for word in seq[:max_len]]
        matrix[i, :len(row_ix)] = row_ix
    return matrix

cat_vocab = sorted({'%s=%s' % (c, r[c]) for r in rows for c in categorical_columns})   # DictVectorizer.vocabulary_
cat_index = {k: i for i, k in enumerate(cat_vocab)}
def categorical_transform(rs_):
    out = np.zeros((len(rs_), len(cat_vocab)), np.float32)
    for i, r in enumerate(rs_):
        for c in categorical_columns: out[i, cat_index['%s=%s' % (c, r[c])]] = 1.0
    return out

perm = np.random.RandomState(42).permutation(N)                                 # train_test_split(test_size=0.2, random_state=42)
data_train = [rows[i] for i in perm[:int(N * 0.8)]]; data_val = [rows[i] for i in perm[int(N * 0.8):]]
print("Train size = ", len(data_train)); print("Validation size = ", len(data_val))

def make_batch(data, max_len=None):
    batch = {}
    batch["Title"] = torch.tensor(as_matrix([r["Title"] for r in data], max_len), dtype=torch.int64)
    batch["FullDescription"] = torch.tensor(as_matrix([r["FullDescription"] for r in data], max_len), dtype=torch.int64)
    batch['Categorical'] = torch.tensor(categorical_transform(data))
    batch[TARGET_COLUMN] = torch.tensor(np.array([r[TARGET_COLUMN] for r in data], np.float32))
    return batch

def iterate_minibatches(data, batch_size=256, shuffle=True):
    indices = np.arange(len(data))
    if shuffle: indices = np.random.permutation(indices)
    for start in range(0, len(indices), batch_size):
        yield make_batch([data[i] for i in indices[start:start + batch_size]])

class SalaryPredictor(nn.Module):
    def __init__(self, n_tokens=len(tokens), n_cat_features=len(cat_vocab), hid_size=64):
        super().__init__()
        self.title_emb = nn.Embedding(n_tokens, hid_size); self.desc_emb = nn.Embedding(n_tokens, hid_size)
        self.title_conv = nn.Conv1d(hid_size, hid_size, 3, padding=1); self.desc_conv = nn.Conv1d(hid_size, hid_size, 3, padding=1)
        self.cat = nn.Linear(n_cat_features, hid_size)
        self.head = nn.Sequential(nn.Linear(3 * hid_size, hid_size), nn.ReLU(), nn.Linear(hid_size, 1))
        with torch.no_grad(): self.head[2].bias.fill_(10.0)
    def forward(self, batch):
        t = torch.relu(self.title_conv(self.title_emb(batch['Title']).transpose(1, 2))).max(2)[0]
        d = torch.relu(self.desc_conv(self.desc_emb(batch['FullDescription']).transpose(1, 2))).max(2)[0]
        c = torch.relu(self.cat(batch['Categorical']))
        return self.head(torch.cat([t, d, c], 1))[:, 0]

BATCH_SIZE = 16
EPOCHS = 5

def print_metrics(model, data, batch_size=BATCH_SIZE, name=""):
    squared_error = abs_error = num_samples = 0.0
    model.eval()
    with torch.no_grad():
        for batch in iterate_minibatches(data, batch_size=batch_size, shuffle=False):
            batch_pred = model(batch)
            squared_error += torch.sum(torch.square(batch_pred - batch[TARGET_COLUMN]))
            abs_error += torch.sum(torch.abs(batch_pred - batch[TARGET_COLUMN]))
            num_samples += len(batch_pred)
    mse = squared_error.detach().cpu().numpy() / num_samples
    mae = abs_error.detach().cpu().numpy() / num_samples
    print("%s results:" % (name or ""))
    print("Mean square error: %.5f" % mse)
    print("Mean absolute error: %.5f" % mae)
    return mse, mae

model = SalaryPredictor()
criterion = nn.MSELoss(reduction='sum')
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['step', 'epoch', 'train_loss', 'grad_norm', 'val_mse', 'val_mae'])
step = 0
for epoch in range(EPOCHS):
    print(f"epoch: {epoch}")
    model.train()
    for i, batch in enumerate(iterate_minibatches(data_train, batch_size=BATCH_SIZE)):
        pred = model(batch)
        loss = criterion(pred, batch[TARGET_COLUMN])
        optimizer.zero_grad()
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        optimizer.step()
        step += 1
        wr.writerow([step, epoch, round(loss.item() / len(pred), 6), round(gn.item(), 4), '', ''])
    mse, mae = print_metrics(model, data_val)
    wr.writerow([step, epoch, '', '', round(float(mse), 6), round(float(mae), 6)]); f.flush()
f.close()
