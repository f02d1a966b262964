# cleverhans-lab/cleverhans examples/ex_cifar10_tf.py in miniature, ported from TensorFlow/Keras to PyTorch,
# as it ran after the tutorials' model_train switched to Adam: the cleverhans.utils.cnn_model network
# (Dropout 0.2 on the input, Conv 8x8 stride 2 same - ReLU - Conv 6x6 stride 2 valid - ReLU - Conv 5x5
# valid - ReLU - Dropout 0.5 - Flatten - Dense 10 - softmax; filters halved to 32/64/64), the tutorial's
# label smoothing (one-hot targets clipped to [0.1/9, 0.9]) and cross entropy, batch_size 128,
# Adam with the script's flag learning_rate = 0.1, and model_train's "Epoch N" / "Epoch took ... seconds"
# lines followed by evaluate()'s "Test accuracy on legitimate test examples: ..." after every epoch
# (an average training loss is printed as well). 3000 synthetic 32 x 32 x 3 images in [0, 1] from
# 10 classes (1000 test images) replace CIFAR-10. The FGSM and adversarial-training part is left out.
import time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(1234); np.random.seed(1234); torch.set_num_threads(1)
nb_epochs, batch_size, learning_rate = 6, 128, 0.1

def data_cifar10():
    rs = np.random.RandomState(0)
    protos = rs.rand(10, 3, 8, 8)
    def make(n):
        y = rs.randint(10, size=n)
        base = np.kron(protos[y], np.ones((1, 1, 4, 4)))                 # 32 x 32 class pattern
        shift = rs.randint(-3, 4, size=(n, 2))
        X = np.stack([np.roll(b, tuple(s), axis=(1, 2)) for b, s in zip(base, shift)])
        X = np.clip(0.6 * X + 0.4 * rs.rand(n, 3, 32, 32), 0, 1).astype(np.float32)
        return X, y
    X_train, y_train = make(3000); X_test, y_test = make(1000)
    print('X_train shape:', (X_train.shape[0], 32, 32, 3))
    print(X_train.shape[0], 'train samples')
    print(X_test.shape[0], 'test samples')
    Y_train = np.eye(10, dtype=np.float32)[y_train]; Y_test = np.eye(10, dtype=np.float32)[y_test]
    return torch.tensor(X_train), torch.tensor(Y_train), torch.tensor(X_test), torch.tensor(Y_test)

def cnn_model(nb_filters=32, channels=3, nb_classes=10):
    return nn.Sequential(nn.Dropout(0.2),
                         nn.Conv2d(channels, nb_filters, 8, stride=2, padding=3), nn.ReLU(),
                         nn.Conv2d(nb_filters, nb_filters * 2, 6, stride=2), nn.ReLU(),
                         nn.Conv2d(nb_filters * 2, nb_filters * 2, 5), nn.ReLU(),
                         nn.Dropout(0.5), nn.Flatten(), nn.Linear(nb_filters * 2 * 2 * 2, nb_classes))

X_train, Y_train, X_test, Y_test = data_cifar10()
label_smooth = .1
Y_train = Y_train.clamp(label_smooth / 9., 1. - label_smooth)
model = cnn_model()
print("Defined TensorFlow model graph.")

def model_loss(y, logits):
    return -(y * F.log_softmax(logits, 1)).sum(1).mean()

def evaluate():
    model.eval()
    with torch.no_grad():
        acc = sum((model(X_test[i:i + batch_size]).argmax(1) == Y_test[i:i + batch_size].argmax(1)).sum().item()
                  for i in range(0, len(X_test), batch_size)) / len(X_test)
    model.train()
    print('Test accuracy on legitimate test examples: ' + str(acc), flush=True)

optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
nb_batches = int(np.ceil(float(len(X_train)) / batch_size))
for epoch in range(nb_epochs):
    print("Epoch " + str(epoch))
    prev = time.time(); tot = 0.0
    perm = torch.randperm(len(X_train))
    for batch in range(nb_batches):
        idx = perm[batch * batch_size:(batch + 1) * batch_size]
        loss = model_loss(Y_train[idx], model(X_train[idx]))
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        tot += loss.item()
    cur = time.time()
    print("\tEpoch took " + str(round(cur - prev, 2)) + " seconds")
    print("\tAverage training loss: %.4f" % (tot / nb_batches))
    evaluate()
print("Completed model training.")
