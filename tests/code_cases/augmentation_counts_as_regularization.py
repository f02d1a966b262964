import torch
from torchvision import transforms as T
from torch.utils.data import DataLoader

train_tf = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToTensor()])  # expect: regularization=['augmentation']
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

# (from test_augmentation_counts_as_regularization in the former tests/test_code_reader.py)
