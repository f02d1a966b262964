# Transfer learning: frozen pretrained feature extractor, train new classifier head (cat vs dog)
import csv
import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
torch.set_num_threads(1)

# "pretrained" convolutional trunk -> 1024 features (kept frozen)
features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4),
                         nn.Flatten())
for param in features.parameters():
    param.requires_grad = False


def make_images(n, g):
    y = torch.randint(0, 2, (n,), generator=g)
    x = torch.randn(n, 3, 32, 32, generator=g) * 0.5
    # class 1 images have brighter, warmer top half
    x[y == 1, 0, :16, :] += 0.9
    x[y == 1, 2, :, :] -= 0.4
    return x, y


g = torch.Generator().manual_seed(5)
train_x, train_y = make_images(2000, g)
test_x, test_y = make_images(400, g)
trainloader = DataLoader(TensorDataset(train_x, train_y), batch_size=64, shuffle=True)
testloader = DataLoader(TensorDataset(test_x, test_y), batch_size=64)

classifier = nn.Sequential(nn.Linear(1024, 256), nn.ReLU(), nn.Dropout(0.2),
                           nn.Linear(256, 2), nn.LogSoftmax(dim=1))
criterion = nn.NLLLoss()
optimizer = optim.Adam(classifier.parameters(), lr=0.003)

epochs = 4
steps = 0
running_loss = 0
print_every = 5
out = open("metrics.csv", "w", newline="")
wr = csv.writer(out)
wr.writerow(["step", "epoch", "train_loss", "test_loss", "test_acc"])
for epoch in range(epochs):
    for inputs, labels in trainloader:
        steps += 1
        logps = classifier(features(inputs))
        loss = criterion(logps, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()

        if steps % print_every == 0:
            test_loss = 0
            accuracy = 0
            classifier.eval()
            with torch.no_grad():
                for inputs, labels in testloader:
                    logps = classifier(features(inputs))
                    test_loss += criterion(logps, labels).item()
                    ps = torch.exp(logps)
                    top_p, top_class = ps.topk(1, dim=1)
                    equals = top_class == labels.view(*top_class.shape)
                    accuracy += torch.mean(equals.type(torch.FloatTensor)).item()
            print(f"Epoch {epoch+1}/{epochs}.. "
                  f"Train loss: {running_loss/print_every:.3f}.. "
                  f"Test loss: {test_loss/len(testloader):.3f}.. "
                  f"Test accuracy: {accuracy/len(testloader):.3f}")
            wr.writerow([steps, epoch, f"{running_loss/print_every:.5f}", f"{test_loss/len(testloader):.5f}",
                         f"{accuracy/len(testloader):.4f}"])
            running_loss = 0
            classifier.train()
out.close()
