# keras-team/keras text classifier in miniature, ported to PyTorch: a Keras Sequential model
# Embedding(vocab_size, output_dim, input_length=100) -> three Conv1D(padding='SAME', relu) layers
# (kernel sizes 3, 7, 7) each with kernel_regularizer=keras.regularizers.l2(0.1) -> MaxPool1D(3) ->
# Dropout(0.5) -> Flatten -> Dense(3, softmax), compiled with categorical_crossentropy and
# optimizer='adam' (lr 0.001), batch_size 32 (Keras default), validation data, Keras-style
# "loss - acc - val_loss - val_acc" lines (the displayed loss includes the regularisation
# penalties, as in Keras), 8 epochs. Embedding width 32 and 32 filters instead of 256 / 128 to fit
# the CPU budget; 1800 training and 450 validation synthetic "documents" of 100 token ids over a
# 2000-word vocabulary, 3 classes, each document carrying a few class-specific words.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(7); torch.manual_seed(7); torch.set_num_threads(1)
vocab_size, maxlen, n_classes = 2000, 100, 3
class_words = np.random.choice(np.arange(1, vocab_size), (n_classes, 30), replace=False)
def make_docs(n):
    X = np.random.randint(1, vocab_size, (n, maxlen)); y = np.random.randint(0, n_classes, n)
    for i in range(n):
        pos = np.random.choice(maxlen, 6, replace=False); X[i, pos] = np.random.choice(class_words[y[i]], 6)
    return torch.tensor(X), torch.tensor(y)
X_train, y_train = make_docs(1800); X_val, y_val = make_docs(450)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, 32)
        self.conv1 = nn.Conv1d(32, 32, 3, padding='same')
        self.conv2 = nn.Conv1d(32, 32, 7, padding='same')
        self.conv3 = nn.Conv1d(32, 32, 7, padding='same')
        self.dropout = nn.Dropout(0.5)
        self.dense = nn.Linear(32 * (maxlen // 3), n_classes)
        for m in [self.conv1, self.conv2, self.conv3, self.dense]:          # Keras defaults
            nn.init.xavier_uniform_(m.weight); nn.init.zeros_(m.bias)
        nn.init.uniform_(self.embedding.weight, -0.05, 0.05)
    def forward(self, x):
        h = self.embedding(x).transpose(1, 2)
        h = F.relu(self.conv1(h)); h = F.relu(self.conv2(h)); h = F.relu(self.conv3(h))
        h = F.max_pool1d(h, 3)
        return self.dense(self.dropout(h).flatten(1))
    def regularization_losses(self):
        return sum(0.1 * (c.weight ** 2).sum() for c in [self.conv1, self.conv2, self.conv3])

model = Model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'acc', 'val_loss', 'val_acc'])
epochs, batch_size, N = 8, 32, len(X_train); step = 0
print(f'Train on {N} samples, validate on {len(X_val)} samples')
for epoch in range(epochs):
    t0 = time.time(); model.train(); perm = torch.randperm(N); tl = tc = 0.0
    for b in range(0, N, batch_size):
        idx = perm[b:b + batch_size]
        out = model(X_train[idx])
        loss = F.cross_entropy(out, y_train[idx]) + model.regularization_losses()
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        tl += loss.item() * len(idx); tc += (out.argmax(1) == y_train[idx]).sum().item()
        if step % 15 == 0:
            wr.writerow([epoch + 1, step, loss.item(), (out.argmax(1) == y_train[idx]).float().mean().item(), '', ''])
    model.eval()
    with torch.no_grad():
        vo = model(X_val); vl = (F.cross_entropy(vo, y_val) + model.regularization_losses()).item()
        va = (vo.argmax(1) == y_val).float().mean().item()
    print(f'Epoch {epoch + 1}/{epochs}')
    print(f'{N}/{N} [==============================] - {time.time() - t0:.0f}s - loss: {tl / N:.4f} - acc: {tc / N:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}', flush=True)
    wr.writerow([epoch + 1, step, tl / N, tc / N, vl, va]); f.flush()
