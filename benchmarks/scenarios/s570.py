# pytorch/examples gcn/main.py (commit d47f0f34): the two-layer Graph Convolutional Network of Kipf and Welling
# (GraphConv = D^-1/2 (A + I) D^-1/2 H W, ReLU, dropout, second GraphConv, log_softmax), trained full-batch on Cora
# for node classification with NLLLoss and Adam (lr 0.01, weight_decay 5e-4), the example's defaults hidden_dim 16,
# dropout_p 0.5, no bias, 200 epochs, seed 42, a random split of the nodes into test (first 1000), validation (next
# 500) and training (the rest), the line "Epoch: .... (..s) loss_train: .. acc_train: .. loss_val: .. acc_val: .."
# every 20 epochs and "Test set results: loss .. accuracy .." at the end. No download: instead of cora.tgz the script
# builds a Cora-like citation graph (1800 papers in 7 topics, binary bag-of-words features over 600 words with each
# topic favouring its own words, about 2 citations made by each paper, 80 % of them within the topic), and load_cora's
# processing is applied to it unchanged (row-normalised features, self-loops, symmetric normalisation, sparse
# tensors); split sizes are scaled to the graph (test 600, validation 300, training 900). Added: metrics.csv with the
# training and validation loss and accuracy of every epoch.
import csv
import time
import numpy as np
import argparse
import torch
from torch import nn
import torch.nn.functional as F
from torch.optim import Adam

torch.set_num_threads(1)


class GraphConv(nn.Module):
    """Graph Convolutional Layer: H' = f(D^(-1/2) * A * D^(-1/2) * H * W)."""

    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel) # Initialize the weights using Xavier initialization
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias) # Initialize the bias to zeros

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel) # Matrix multiplication between input and weight matrix
        output = torch.spmm(adj_mat, support) # Sparse matrix multiplication between adjacency matrix and support
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x) # Apply ReLU activation function
        x = self.dropout(x) # Apply dropout regularization
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def make_cora_like(n=1800, n_classes=7, n_words=600, seed=0):
    """Stands in for cora.content / cora.cites: (paper id, 0/1 word features, topic) rows and (cited, citing) pairs."""
    rng = np.random.RandomState(seed)
    topic = rng.randint(0, n_classes, n)
    own = rng.randint(0, n_classes, n_words)            # the topic each word belongs to
    p = np.where(own[None, :] == topic[:, None], 0.06, 0.012)
    words = (rng.uniform(size=(n, n_words)) < p).astype(np.int32)
    ids = rng.permutation(np.arange(30000, 30000 + 5 * n))[:n]
    edges = []
    for i in range(n):
        for _ in range(2):
            if rng.uniform() < 0.8:
                cand = np.flatnonzero(topic == topic[i])
            else:
                cand = np.arange(n)
            j = rng.choice(cand)
            if j != i:
                edges.append((ids[j], ids[i]))
    return ids, words, topic, np.array(edges, dtype=np.int32)


def load_cora(device='cpu'):
    ids, words, topic, cites_tensor = make_cora_like()
    # Process features
    features = torch.FloatTensor(words) # Extract feature values
    scale_vector = torch.sum(features, dim=1) # Compute sum of features for each node
    scale_vector = 1 / scale_vector # Compute reciprocal of the sums
    scale_vector[scale_vector == float('inf')] = 0 # Handle division by zero cases
    scale_vector = torch.diag(scale_vector).to_sparse() # Convert the scale vector to a sparse diagonal matrix
    features = scale_vector @ features # Scale the features using the scale vector
    # Process labels
    classes, labels = np.unique(topic, return_inverse=True) # Extract unique classes and map labels to indices
    labels = torch.LongTensor(labels) # Convert labels to a tensor
    # Process adjacency matrix
    idx = ids.astype(np.int32) # Extract node indices
    idx_map = {id: pos for pos, id in enumerate(idx)} # Create a dictionary to map indices to positions
    edges = np.array(
        list(map(lambda edge: [idx_map[edge[0]], idx_map[edge[1]]],
            cites_tensor)), dtype=np.int32)
    V = len(idx) # Number of nodes
    E = edges.shape[0] # Number of edges
    adj_mat = torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64) # Create the initial adjacency matrix as a sparse tensor
    adj_mat = torch.eye(V) + adj_mat # Add self-loops to the adjacency matrix
    degree_mat = torch.sum(adj_mat, dim=1) # Compute the sum of each row in the adjacency matrix (degree matrix)
    degree_mat = torch.sqrt(1 / degree_mat) # Compute the reciprocal square root of the degrees
    degree_mat[degree_mat == float('inf')] = 0 # Handle division by zero cases
    degree_mat = torch.diag(degree_mat).to_sparse() # Convert the degree matrix to a sparse diagonal matrix
    adj_mat = degree_mat @ adj_mat @ degree_mat # Apply the renormalization trick
    return features.to_sparse().to(device), labels.to(device), adj_mat.to_sparse().to(device)


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    start_t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train]) # Compute the loss using the training mask
    loss.backward()
    optimizer.step()
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)
    wr.writerow([epoch, round(loss_train, 6), round(acc_train, 4), round(loss_val, 6), round(acc_val, 4)])
    if epoch % print_every == 0:
        print(f'Epoch: {epoch:04d} ({(time.time() - start_t):.4f}s) loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]
        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='PyTorch Graph Convolutional Network')
    parser.add_argument('--epochs', type=int, default=200)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--l2', type=float, default=5e-4)
    parser.add_argument('--dropout-p', type=float, default=0.5)
    parser.add_argument('--hidden-dim', type=int, default=16)
    parser.add_argument('--val-every', type=int, default=20)
    parser.add_argument('--include-bias', action='store_true')
    parser.add_argument('--seed', type=int, default=42, metavar='S')
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device('cpu')
    print(f'Using {device} device')
    print('Loading dataset...')
    features, labels, adj_mat = load_cora(device=device)
    idx = torch.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:600], idx[600:900], idx[900:]
    gcn = GCN(features.shape[1], args.hidden_dim, labels.max().item() + 1, args.include_bias, args.dropout_p).to(device)
    optimizer = Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()
    out_f = open('metrics.csv', 'w', newline='')
    wr = csv.writer(out_f)
    wr.writerow(['epoch', 'loss_train', 'acc_train', 'loss_val', 'acc_val'])
    for epoch in range(args.epochs):
        train_iter(epoch + 1, gcn, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, args.val_every)
    out_f.close()
    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
