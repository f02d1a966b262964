# changspencer/Tumor-CapsNet issue "Performance is better than in the paper" in miniature, ported from Keras to
# PyTorch: kfold.py of the repository (brain-tumour type classification on T1 MRI slices: meningioma, glioma,
# pituitary; prepare_data() gathers all slice files, random.shuffle()s them and masks each slice with its
# tumorMask; k_fold_validation() cuts the shuffled slices into 5 consecutive folds; a CapsNet with Conv 9x9 ->
# PrimaryCap (9x9, stride 2) -> CapsuleLayer(3 x 16, routings=3) -> Length, plus the masked reconstruction
# decoder; compile(optimizer="rmsprop", loss='mse') on both outputs; batch 32; EarlyStopping(monitor=
# 'val_capsnet_acc', patience=4)). The folds are made per slice, not per patient (the data set's cvind.mat
# patient folds are not used), and every patient contributes about ten slices, so each validation fold holds
# other slices of its training patients. 65 synthetic "patients" (about ten 32 x 32 slices each, instead of
# 233 patients and 3064 slices at 64 x 64) with a patient-specific tumour shape, position and texture; the
# CapsNet is scaled down (32 conv filters, 4 x 8 primary capsules, decoder 256-512), epochs 8 instead of 15.
# Keras-style epoch lines, the repository's "Average K-Fold Validation Accuracy" line, and (added) the accuracy
# of each fold's model on 15 further patients who appear in no fold.
import csv, random, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)
S = 32
rs = np.random.RandomState(3)


def new_patient(label):
    # class tendencies (weak, overlapping between patients) ...
    cy = [0.35, 0.5, 0.62][label] + 0.12 * rs.randn(); cx = 0.5 + 0.15 * rs.randn()
    ry = [0.16, 0.22, 0.12][label] * np.exp(0.3 * rs.randn()); rx = ry * np.exp(0.35 * rs.randn())
    inten = [0.65, 0.55, 0.6][label] + 0.12 * rs.randn()
    # ... and a strong individual fingerprint (texture of the tumour in this patient's scans)
    f1, f2 = rs.uniform(0.3, 1.4, 2); th1, th2 = rs.uniform(0, np.pi, 2); ph = rs.uniform(0, 6.3, 2)
    return dict(label=label, cy=cy, cx=cx, ry=ry, rx=rx, inten=inten, f=(f1, f2), th=(th1, th2), ph=ph,
                rot=rs.uniform(0, np.pi), n=rs.randint(7, 14))


def slice_of(p):
    yy, xx = np.mgrid[0:S, 0:S] / S
    k = rs.uniform(0.75, 1.15)                                   # slice position: tumour cross-section size
    cy, cx = p['cy'] + 0.02 * rs.randn(), p['cx'] + 0.02 * rs.randn()
    c, s = np.cos(p['rot']), np.sin(p['rot'])
    dy, dx = yy - cy, xx - cx
    u, v = c * dy + s * dx, -s * dy + c * dx
    mask = ((u / (p['ry'] * k)) ** 2 + (v / (p['rx'] * k)) ** 2 < 1).astype(np.float32)
    tex = sum(np.sin(2 * np.pi * p['f'][i] * 8 * (np.cos(p['th'][i]) * yy + np.sin(p['th'][i]) * xx) + p['ph'][i]) for i in range(2))
    img = p['inten'] + 0.15 * tex + 0.08 * rs.randn(S, S)
    img = np.clip(img, 0, None)
    img = img * (1 / np.max(img))
    return (img * mask).astype(np.float32)                        # seg_img = img * tumorMask


LABELS = [0] * 21 + [1] * 26 + [2] * 18                            # 65 patients (meningioma, glioma, pituitary)
PATIENTS = [new_patient(l) for l in LABELS]
NEW_PATIENTS = [new_patient(l) for l in [0] * 5 + [1] * 5 + [2] * 5]


def prepare_data(full_image):
    train_data, train_labels = [], []
    list_files = [(i, j) for i, p in enumerate(PATIENTS) for j in range(p['n'])]
    print("Preparing the brain tumor data...")
    random.shuffle(list_files)
    for i, j in list_files:
        train_labels.append(PATIENTS[i]['label'])
        train_data.append(slice_of(PATIENTS[i]))
    train_data = np.asarray(train_data)
    print("train_data.shape = ", train_data.shape)
    train_labels = np.eye(3, dtype=np.float32)[train_labels]
    print("train_labels.shape = ", train_labels.shape)
    print("Done preparing data")
    return train_data, train_labels


def squash(v, dim=-1):
    n2 = (v ** 2).sum(dim, keepdim=True)
    return n2 / (1 + n2) * v / torch.sqrt(n2 + 1e-7)


class CapsNet(nn.Module):
    def __init__(self, n_class=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 9)                                   # FirstLayer, relu
        self.primary = nn.Conv2d(32, 4 * 8, 9, stride=2)                   # PrimaryCap: 4 channels x dim 8
        n_in = 4 * 8 * 8
        self.W = nn.Parameter(0.05 * torch.randn(1, n_in, n_class, 16, 8))  # CapsuleLayer(3, 16, routings=3)
        self.decoder = nn.Sequential(nn.Linear(16 * n_class, 256), nn.ReLU(), nn.Linear(256, 512), nn.ReLU(),
                                     nn.Linear(512, S * S), nn.Sigmoid())
        self.n_class = n_class

    def forward(self, x, y):
        h = F.relu(self.conv1(x))
        u = self.primary(h)                                                # B, 32, 8, 8
        B = u.shape[0]
        u = squash(u.view(B, 4, 8, 8, 8).permute(0, 1, 3, 4, 2).reshape(B, -1, 8))
        u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)              # B, n_in, 3, 16
        b = torch.zeros(B, u_hat.shape[1], self.n_class)
        for r in range(3):
            c = F.softmax(b, dim=2)
            v = squash((c[..., None] * u_hat).sum(1))                      # B, 3, 16
            if r < 2:
                b = b + (u_hat * v[:, None]).sum(-1)
        out_caps = v.norm(dim=-1)                                          # Length
        recon = self.decoder((v * y[:, :, None]).reshape(B, -1))           # Mask()([caps, y])
        return out_caps, recon.view(B, 1, S, S)


def evaluate(model, data, labels):
    model.eval()
    with torch.no_grad():
        x = torch.tensor(data)[:, None]; y = torch.tensor(labels)
        caps, rec = model(x, y)
        cl = F.mse_loss(caps, y).item(); dl = F.mse_loss(rec, x).item()
        acc = (caps.argmax(1) == y.argmax(1)).float().mean().item()
    model.train()
    return cl + dl, cl, dl, acc


def k_fold_validation(train_data, train_labels, num_epoch, num_folds, new_data, new_labels, wr):
    print("Running k-fold validation...")
    fold_len = train_data.shape[0] // num_folds
    results = []
    batch = 32
    for fold in range(num_folds):
        model = CapsNet()
        opt = torch.optim.RMSprop(model.parameters(), lr=0.001, alpha=0.9, eps=1e-7)
        print("Building model...")
        print("++++++++++++++++++++\nProcessing fold {}...".format(fold + 1))
        print("++++++++++++++++++++")
        val_data = train_data[fold * fold_len:(fold + 1) * fold_len]
        val_labels = train_labels[fold * fold_len:(fold + 1) * fold_len]
        partial_train_data = np.concatenate((train_data[:fold * fold_len], train_data[(fold + 1) * fold_len:]))
        partial_train_labels = np.concatenate((train_labels[:fold * fold_len], train_labels[(fold + 1) * fold_len:]))
        print("Training data shape: {}".format(partial_train_data.shape + (1,)))
        print("Training Labels shape: {}".format(partial_train_labels.shape))
        print("Validation data shape: {}".format(val_data.shape + (1,)))
        print("Validation Labels shape: {}".format(val_labels.shape))
        steps_per_epoch = len(partial_train_data) // batch
        hist = {k: [] for k in ('capsnet_acc', 'capsnet_loss', 'val_capsnet_acc', 'val_capsnet_loss')}
        best, wait = -1, 0
        for epoch in range(num_epoch):
            print("Epoch {}/{}".format(epoch + 1, num_epoch))
            t0 = time.time(); tot = cls = dec = acc = 0.0
            for s in range(steps_per_epoch):                              # ImageDataGenerator().flow(): shuffled batches
                idx = np.random.randint(0, len(partial_train_data), batch) if s else np.random.permutation(len(partial_train_data))[:batch]
                x = torch.tensor(partial_train_data[idx])[:, None]; y = torch.tensor(partial_train_labels[idx])
                caps, rec = model(x, y)
                cl, dl = F.mse_loss(caps, y), F.mse_loss(rec, x)
                loss = cl + dl
                opt.zero_grad(); loss.backward(); opt.step()
                tot += loss.item(); cls += cl.item(); dec += dl.item()
                acc += (caps.argmax(1) == y.argmax(1)).float().mean().item()
            n = steps_per_epoch
            vl, vcl, vdl, vacc = evaluate(model, val_data, val_labels)
            dt = time.time() - t0
            print(f"{n}/{n} [==============================] - {dt:.0f}s {1000 * dt / n:.0f}ms/step - loss: {tot / n:.4f} - "
                  f"capsnet_loss: {cls / n:.4f} - decoder_loss: {dec / n:.4f} - capsnet_acc: {acc / n:.4f} - "
                  f"val_loss: {vl:.4f} - val_capsnet_loss: {vcl:.4f} - val_decoder_loss: {vdl:.4f} - val_capsnet_acc: {vacc:.4f}")
            hist['capsnet_acc'].append(acc / n); hist['capsnet_loss'].append(cls / n)
            hist['val_capsnet_acc'].append(vacc); hist['val_capsnet_loss'].append(vcl)
            wr.writerow([fold + 1, epoch + 1, round(tot / n, 5), round(cls / n, 5), round(dec / n, 5), round(acc / n, 4),
                         round(vl, 5), round(vcl, 5), round(vacc, 4), '', ''])
            if vacc > best:
                best, wait = vacc, 0                                         # ModelCheckpoint('CapsNet.h5', save_best_only)
            else:
                wait += 1
                if wait >= 4:
                    print(f"Epoch {epoch + 1:05d}: early stopping")
                    break
        _, ncl, _, nacc = evaluate(model, new_data, new_labels)
        print(f"Accuracy on the {len(new_data)} slices of the 15 patients outside the folds: {nacc:.4f} (capsnet_loss {ncl:.4f})")
        wr.writerow([fold + 1, epoch + 1, '', '', '', '', '', '', '', round(ncl, 5), round(nacc, 4)])
        results.append(dict(hist, new_patient_acc=nacc))
    return results


def main():
    full_image = False
    num_folds = 5
    epochs = 8
    train_data, train_labels = prepare_data(full_image)
    new_list = [(i, j) for i, p in enumerate(NEW_PATIENTS) for j in range(p['n'])]
    new_data = np.asarray([slice_of(NEW_PATIENTS[i]) for i, j in new_list])
    new_labels = np.eye(3, dtype=np.float32)[[NEW_PATIENTS[i]['label'] for i, j in new_list]]
    wr = csv.writer(open('metrics.csv', 'w', newline=''))
    wr.writerow(['fold', 'epoch', 'loss', 'capsnet_loss', 'decoder_loss', 'capsnet_acc', 'val_loss', 'val_capsnet_loss',
                 'val_capsnet_acc', 'new_patients_capsnet_loss', 'new_patients_acc'])
    results = k_fold_validation(train_data, train_labels, epochs, num_folds, new_data, new_labels, wr)
    list_acc = np.array([x["val_capsnet_acc"][-1] for x in results])
    print("Average K-Fold Validation Accuracy: {}".format(np.average(list_acc)))
    print("Array of Accuracies: {}".format(list_acc))
    print("Accuracy on the new patients, per fold model: {} (average {:.4f})".format(
        np.round([x['new_patient_acc'] for x in results], 4), np.mean([x['new_patient_acc'] for x in results])))


if __name__ == '__main__':
    main()
