# iusaspb/deep_learning_Nikolenko_and_Co ch10_04_01.py (variational autoencoder on MNIST from the
# Nikolenko et al. book) in miniature, ported from TensorFlow 1.x to PyTorch: xavier_init weights,
# encoder 784 -> 500 -> 500 (softplus) -> z_mean / z_log_sigma_sq (n_z = 20), reparameterisation
# with eps fed from numpy, decoder 20 -> 500 -> 500 (softplus) -> sigmoid x_reconstr_mean,
# reconstr_loss = -sum(x * log(1e-10 + p) + (1 - x) * log(1e-10 + 1 - p)) as in the version the
# report quotes, latent_loss = -0.5 * sum(1 + log_sigma_sq - mean^2 - exp(log_sigma_sq)),
# AdamOptimizer(learning_rate=0.001), batch_size 100, avg_cost per epoch and the book's
# "Epoch: %04d\tcost: ...\trec_loss: ...\tlatent_loss: ..." line (display_step 1 here instead of 5).
# Synthetic 28 x 28 stroke "digits" with values in [0, 1] (3000 images) stand in for MNIST.
import csv
import numpy as np
import torch

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)

# ---- synthetic MNIST-like images: thick strokes at full intensity, soft edges, some background
def make_templates():
    t = np.zeros((10, 28, 28), np.float32)
    for k in range(10):
        for _ in range(4):
            r0, c0 = np.random.randint(6, 22, 2); r1, c1 = np.random.randint(6, 22, 2)
            for a in np.linspace(0, 1, 40):
                r, c = int(r0 + a * (r1 - r0)), int(c0 + a * (c1 - c0)); t[k, r - 1:r + 2, c - 1:c + 2] = 1.0
    return t
templates = make_templates()
def make_set(n):
    X = np.zeros((n, 28, 28), np.float32)
    for i in range(n):
        k = np.random.randint(10); dr, dc = np.random.randint(-1, 2, 2)
        img = np.roll(np.roll(templates[k], dr, 0), dc, 1)
        blur = (np.roll(img, 1, 0) + np.roll(img, -1, 0) + np.roll(img, 1, 1) + np.roll(img, -1, 1)) * 0.25
        X[i] = np.clip(np.maximum(img, blur * np.random.uniform(0.3, 0.9)), 0, 1)
    return X.reshape(n, 784)
train_images = make_set(3000)
n_samples = len(train_images)
_order = np.random.permutation(n_samples); _pos = [0]
def next_batch(batch_size):
    if _pos[0] + batch_size > n_samples:
        np.random.shuffle(_order); _pos[0] = 0
    idx = _order[_pos[0]:_pos[0] + batch_size]; _pos[0] += batch_size
    return torch.from_numpy(train_images[idx])

def xavier_init(fan_in, fan_out, constant=1):
    low = -constant * np.sqrt(6.0 / (fan_in + fan_out)); high = constant * np.sqrt(6.0 / (fan_in + fan_out))
    return torch.nn.Parameter(torch.empty(fan_in, fan_out).uniform_(low, high))
def zeros(n):
    return torch.nn.Parameter(torch.zeros(n))

image_size = 28 * 28
n_input, n_z = image_size, 20
n_hidden_recog_1, n_hidden_recog_2 = 500, 500
n_hidden_gener_1, n_hidden_gener_2 = 500, 500
w = {'w_recog': {'h1': xavier_init(n_input, n_hidden_recog_1), 'h2': xavier_init(n_hidden_recog_1, n_hidden_recog_2),
                 'out_mean': xavier_init(n_hidden_recog_2, n_z), 'out_log_sigma': xavier_init(n_hidden_recog_2, n_z)},
     'b_recog': {'b1': zeros(n_hidden_recog_1), 'b2': zeros(n_hidden_recog_2), 'out_mean': zeros(n_z), 'out_log_sigma': zeros(n_z)},
     'w_gener': {'h1': xavier_init(n_z, n_hidden_gener_1), 'h2': xavier_init(n_hidden_gener_1, n_hidden_gener_2),
                 'out_mean': xavier_init(n_hidden_gener_2, n_input)},
     'b_gener': {'b1': zeros(n_hidden_gener_1), 'b2': zeros(n_hidden_gener_2), 'out_mean': zeros(n_input)}}
params = [p for grp in w.values() for p in grp.values()]
softplus = torch.nn.functional.softplus

def model(x, eps):
    enc_layer_1 = softplus(x @ w['w_recog']['h1'] + w['b_recog']['b1'])
    enc_layer_2 = softplus(enc_layer_1 @ w['w_recog']['h2'] + w['b_recog']['b2'])
    z_mean = enc_layer_2 @ w['w_recog']['out_mean'] + w['b_recog']['out_mean']
    z_log_sigma_sq = enc_layer_2 @ w['w_recog']['out_log_sigma'] + w['b_recog']['out_log_sigma']
    z = z_mean + torch.sqrt(torch.exp(z_log_sigma_sq)) * eps
    dec_layer_1 = softplus(z @ w['w_gener']['h1'] + w['b_gener']['b1'])
    dec_layer_2 = softplus(dec_layer_1 @ w['w_gener']['h2'] + w['b_gener']['b2'])
    x_reconstr_mean = torch.sigmoid(dec_layer_2 @ w['w_gener']['out_mean'] + w['b_gener']['out_mean'])
    reconstr_loss = -torch.sum(x * torch.log(1e-10 + x_reconstr_mean) + (1 - x) * torch.log(1e-10 + 1 - x_reconstr_mean), 1)
    latent_loss = -0.5 * torch.sum(1 + z_log_sigma_sq - z_mean ** 2 - torch.exp(z_log_sigma_sq), 1)
    cost = torch.mean(reconstr_loss + latent_loss)
    return cost, torch.mean(reconstr_loss), torch.mean(latent_loss)

l_rate = 0.001
optimizer = torch.optim.Adam(params, lr=l_rate)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'cost', 'rec_loss', 'latent_loss'])

def train(batch_size=100, training_epochs=10, display_step=5):
    step = 0
    for epoch in range(training_epochs):
        avg_cost = 0.
        total_batch = int(n_samples / batch_size)
        for i in range(total_batch):
            xs = next_batch(batch_size)
            eps = torch.from_numpy(np.random.normal(loc=0.0, scale=1.0, size=(batch_size, n_z)).astype(np.float32))
            c, _reconstr_loss, _latent_loss = model(xs, eps)
            optimizer.zero_grad(); c.backward(); optimizer.step()
            c, _reconstr_loss, _latent_loss = c.item(), _reconstr_loss.item(), _latent_loss.item()
            avg_cost += c / n_samples * batch_size
            step += 1
            wr.writerow([epoch + 1, step, c, _reconstr_loss, _latent_loss])
        f.flush()
        if epoch % display_step == 0:
            print("Epoch: %04d\tcost: %.9f\trec_loss: %.9f\tlatent_loss: %.9f" % (epoch + 1, avg_cost, _reconstr_loss, _latent_loss), flush=True)

train(training_epochs=14, batch_size=100, display_step=1)
f.close()
