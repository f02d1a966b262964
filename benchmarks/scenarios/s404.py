# gnn_cross_lingual (TencentGameMate) bert_finetune.py in miniature, ported to a small PyTorch text
# classifier (bag-of-embeddings stand-in for multilingual BERT): finetune_model() is created with
# num_labels=12 (the SLU task's class count), but the intent labels of the data set being fine-tuned
# (b_labels) go up to 17 (18 intents). AdamW 2e-5 -> 1e-3 for the stand-in, batch 32,
# "Epoch n / Batch k of N" progress lines as in the BERT fine-tuning tutorial loop.
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(5); torch.manual_seed(5); torch.set_num_threads(1)
V, L, n_intents, num_labels = 2000, 20, 18, 12
y = np.random.randint(0, n_intents, 1200)
X = np.random.randint(200, V, (1200, L))
for i in range(1200): X[i, :4] = np.random.randint(10 * y[i], 10 * y[i] + 10, 4)
X, y = torch.tensor(X), torch.tensor(y)
print("Number of training sentences: {:,}".format(len(y)))
model = nn.Sequential(nn.EmbeddingBag(V, 64, mode='mean'), nn.Linear(64, num_labels))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['step', 'loss'])
order = torch.randperm(len(y)); step = 0
for epoch_i in range(4):
    print("\n======== Epoch {:} / {:} ========".format(epoch_i + 1, 4)); print("Training...")
    model.train(); total = 0.0
    for k, i in enumerate(range(0, len(y), 32)):
        j = order[i:i + 32]; b_input_ids, b_labels = X[j], y[j]
        if k % 10 == 0 and k: print("  Batch {:>5,}  of  {:>5,}.".format(k, len(y) // 32))
        loss = nn.functional.cross_entropy(model(b_input_ids), b_labels)
        opt.zero_grad(); loss.backward(); opt.step(); total += loss.item(); step += 1
        w.writerow([step, round(loss.item(), 5)]); f.flush()
    print("  Average training loss: {0:.2f}".format(total / (k + 1)))
f.close()
