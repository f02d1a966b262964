# ssemeniuta/textvae issue 4 ("Negative KL divergence?") in miniature: the character-level text VAE of lm_vae.py,
# trained through nn/optimizer.py, with the costs of vae.py's LMReconstructionModel: reconstruction_loss is the
# cross-entropy summed over the characters of a sample, kld = 0.5 * sum(1 + log_sigma - mu ** 2 - exp(log_sigma))
# (the negative of the KL divergence), kld_weight = clip((step - anneal_start) / (anneal_end - anneal_start),
# 0, 1 - eps) + eps with eps = 0.001 (aux_loss=True, alpha 0.0 as in lm_vae.py), cost = mean(reconstruction_loss -
# kld * kld_weight + alpha * aux_reconstruction_loss), and the costs reported as [cost, reconstruction_loss, kld,
# aux_reconstruction_loss]: "epoch 001, 0.100000 done, cost = [...], took .. sec." every output_frequency = 10
# iterations and "validation... cost = [...]" after each epoch. The reporter set anneal_start = 0 and
# anneal_end = 100 "for demonstration purposes"; so does this script. Scaled down / changed, in PyTorch: synthetic
# 32-character "sentences" (each drawing its words from one of four small word lists) instead of the Twitter / text corpus, z = 16, a two-layer strided
# convolutional encoder and a deconvolutional decoder as in make_model() with encdec_layers = 2 but narrower, the
# characters fed to the decoder shifted by one with a start symbol and dropword p = 0.0 (the default), one causal
# gated convolution instead of the highway char-CNN, Adam lr 0.001, batch 32, 5 epochs of 100 batches (instead of
# 100 epochs of 1000), 20 validation batches; log.train.csv and log.valid.csv hold what the repository's
# optimizer writes (iteration, then the four costs).
import time

import numpy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
numpy.set_printoptions(precision=6, suppress=True)

SAMPLE = 32
Z = 16
TOPICS = [('the cat sat on a mat and it was fat').split(),
          ('we may go out now if you like').split(),
          ('her old red car is gone for good').split(),
          ('no one knew why this was so').split()]
WORDS = [w for t in TOPICS for w in t]
CHARS = sorted(set(' '.join(WORDS)))
N_CLASSES = len(CHARS)
C2I = {c: i for i, c in enumerate(CHARS)}
rng = numpy.random.RandomState(4)


def sentence():
    topic = TOPICS[rng.randint(len(TOPICS))]  # each sentence draws its words from one topic
    s = ''
    while len(s) < SAMPLE:
        s += topic[rng.randint(len(topic))] + ' '
    return [C2I[c] for c in s[:SAMPLE]]


def batch(n=32):
    return torch.tensor([sentence() for _ in range(n)], dtype=torch.long)


valid_batches = [batch() for _ in range(20)]


class TextVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(N_CLASSES, 64, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm1d(64)
        self.conv2 = nn.Conv1d(64, 128, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm1d(128)
        self.fc_encode = nn.Linear(SAMPLE // 4 * 128, Z * 2)
        self.fc_decode = nn.Linear(Z, SAMPLE // 4 * 128)
        self.deconv2 = nn.ConvTranspose1d(128, 64, 3, stride=2, padding=1, output_padding=1)
        self.deconv_bn2 = nn.BatchNorm1d(64)
        self.deconv1 = nn.ConvTranspose1d(64, 64, 3, stride=2, padding=1, output_padding=1)
        self.deconv_bn1 = nn.BatchNorm1d(64)
        self.aux_classifier = nn.Conv1d(64, N_CLASSES, 1)
        self.decconvresize = nn.Conv1d(64 + N_CLASSES + 2, 2 * 128, 1)
        self.decbnresize = nn.BatchNorm1d(2 * 128)
        self.decconv0 = nn.Conv1d(128, 2 * 128, 3, padding=2)  # causal: keep the first SAMPLE outputs
        self.classifier = nn.Conv1d(128, N_CLASSES, 1)

    def forward(self, x):
        onehot = F.one_hot(x, N_CLASSES).float().transpose(1, 2)
        h = F.relu(self.bn1(self.conv1(onehot)))
        h = F.relu(self.bn2(self.conv2(h)))
        stats = self.fc_encode(h.flatten(1))
        mu, log_sigma = stats[:, :Z], stats[:, Z:]
        z = mu + torch.exp(0.5 * log_sigma) * torch.randn_like(mu)
        d = F.relu(self.fc_decode(z)).view(-1, 128, SAMPLE // 4)
        d = F.relu(self.deconv_bn2(self.deconv2(d)))
        d = F.relu(self.deconv_bn1(self.deconv1(d)))
        aux_logits = self.aux_classifier(d)
        start = torch.full((x.shape[0], 1), N_CLASSES, dtype=torch.long)
        words = torch.cat([start, x], 1)[:, :-1]  # dropword p = 0.0
        w = F.one_hot(words, N_CLASSES + 2).float().transpose(1, 2)
        h = self.decbnresize(self.decconvresize(torch.cat([d, w], 1)))
        h = h[:, :128] * torch.sigmoid(h[:, 128:])  # Gated
        g = self.decconv0(h)[:, :, :SAMPLE]
        h = h + g[:, :128] * torch.sigmoid(g[:, 128:])
        return self.classifier(h), aux_logits, mu, log_sigma


model = TextVAE()
opt = torch.optim.Adam(model.parameters(), lr=0.001)
aux_loss, alpha = True, 0.0
anneal_start, anneal_end = 0.0, 100.0
step = 0


def costs(x):
    logits, aux_logits, mu, log_sigma = model(x)
    reconstruction_loss = F.cross_entropy(logits, x, reduction='none').sum(1)
    aux_reconstruction_loss = F.cross_entropy(aux_logits, x, reduction='none').sum(1)
    kld = 0.5 * torch.sum(1 + log_sigma - mu ** 2 - torch.exp(log_sigma), 1)
    eps = 0.001 if aux_loss else 0.0
    kld_weight = min(max((step - anneal_start) / (anneal_end - anneal_start), 0.0), 1 - eps) + eps
    cost = torch.mean(reconstruction_loss - kld * kld_weight + alpha * aux_reconstruction_loss)
    return [cost, reconstruction_loss.mean(), kld.mean(), aux_reconstruction_loss.mean()]


train_log = open('log.train.csv', 'w')
valid_log = open('log.valid.csv', 'w')
epochs, batches_per_epoch, output_frequency = 5, 100, 10
total_iteration = 0
for epoch in range(epochs):
    model.train()
    cost, iteration, t = [], 0, time.time()
    for _ in range(batches_per_epoch):
        iteration += 1
        total_iteration += 1
        c = costs(batch())
        opt.zero_grad()
        c[0].backward()
        opt.step()
        step += 1
        cost.append([v.item() for v in c])
        done = float(iteration) / batches_per_epoch
        if iteration % output_frequency == 0 or done == 1.:
            cost = numpy.mean(cost, axis=0)
            print('epoch %03i, %f done, cost = %s, took %f sec. ' % (epoch + 1, done, cost, time.time() - t))
            train_log.write('%i' % total_iteration + ''.join(',%f' % v for v in cost) + '\n')
            cost = []
    model.eval()
    with torch.no_grad():
        vc = numpy.average([[v.item() for v in costs(x)] for x in valid_batches], axis=0)
    print('validation... cost = %s' % vc)
    valid_log.write('%i' % total_iteration + ''.join(',%f' % v for v in vc) + '\n')
train_log.close()
valid_log.close()
