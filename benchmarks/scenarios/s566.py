# pytorch/examples time_sequence_prediction (train.py and generate_sine_wave.py at commit 00ef8a78): a two-layer LSTMCell
# network (1 -> 51 -> 51 -> Linear 1, float64) learns to predict the next value of sine waves. generate_sine_wave.py
# makes N = 100 sine waves sin(x / T), T = 20, each shifted by a random offset in [-4T, 4T) (numpy seed 2); train.py
# (seeds 0) trains on waves 3..99 (input = wave[:-1], target = wave[1:]) with MSELoss and LBFGS(lr=0.8), calling
# optimizer.step(closure) once per STEP; the closure prints "loss:" at every function evaluation; after every STEP the
# first three waves are predicted, with 1000 further values generated from the network's own output, and "test loss:"
# is printed. Scaled down for the scenario: N = 50 waves of L = 200 instead of 100 of 1000 samples, 5 STEPs instead
# of 15, 200 generated future values; the plots (predict%d.pdf) are replaced by metrics.csv with every closure loss and the test
# loss of every STEP; the data are generated in memory instead of traindata.pt.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.set_num_threads(1)

# generate_sine_wave.py
np.random.seed(2)
T = 20
L = 200
N = 50
x = np.empty((N, L), 'int64')
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype('float64')


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


if __name__ == '__main__':
    STEPS = 5
    # set random seed to 0
    np.random.seed(0)
    torch.manual_seed(0)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    # build the model
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    out = open('metrics.csv', 'w', newline='')
    wr = csv.writer(out)
    wr.writerow(['step', 'eval', 'loss', 'test_loss'])
    n_eval = [0]
    # begin to train
    for i in range(STEPS):
        print('STEP: ', i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            n_eval[0] += 1
            wr.writerow([i, n_eval[0], '%.6g' % loss.item(), ''])
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            future = 200
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            wr.writerow([i, n_eval[0], '', '%.6g' % loss.item()])
            out.flush()
    out.close()
