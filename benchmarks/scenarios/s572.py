# huggingface/torchMoji issue "loss don't go down when finetune and about requires_grad option in backward()" in
# miniature: examples/finetune_youtube_last.py run through torchmoji/finetuning.py (method 'last': freeze_layers keeps
# only output_layer trainable, Adam(lr=0.001) on the trainable parameters, BCEWithLogitsLoss for 2 classes, fit_model
# with the original-val-loss line, a "== Epoch e step i train loss .. train acc .." line per step, "val acc" /
# "val loss" after each epoch, checkpointing on the best validation loss and patience 5) with the model of
# torchmoji/model_def.py (torchmoji_transfer(nb_classes=2, output_logits=True): tanh-bounded embedding, embedding
# dropout, two bidirectional LSTMs, attention over [lstm_1, lstm_0, embedding], final dropout, Linear(attention, 1)).
# TorchMoji.forward notes whether it was given a LongTensor and, if so, returns "outputs = outputs.data"; fit_model
# passes Variable(X_train), which is a plain LongTensor in current PyTorch, so the returned logits are detached. As in
# the report, loss.backward() then failed with "element 0 of tensors does not require grad and does not have a
# grad_fn", and the user wrapped the loss, loss = Variable(loss, requires_grad=True): the script now runs but no
# gradient reaches any parameter and nothing is ever updated.
# Scaled down for the scenario: a vocabulary of 400 tokens, embedding 48, LSTM hidden 32 (torchMoji: 50000 / 256 / 512),
# a short in-script "pretraining" of the whole network on an 8-way emoji-style task stands in for loading
# pytorch_model.bin, a synthetic SS-Youtube-like sentiment set (sentences of 6-20 tokens whose label follows the
# positive and negative words in them; 1600 train, 400 validation, 400 test), epoch_size 640 and batch 32 (20 steps an
# epoch), 8 epochs; binary accuracy is taken on the squeezed logits; metrics.csv has every step and every epoch.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable
from torch.nn.utils import clip_grad_norm_
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, PackedSequence

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.RandomState(0)

NB_TOKENS = 400
MAXLEN = 20
POS = np.arange(10, 40)
NEG = np.arange(40, 70)


def make_sentences(n, rng):
    X = np.zeros((n, MAXLEN), np.int64)
    y = np.zeros(n, np.int64)
    emo = np.zeros(n, np.int64)
    for i in range(n):
        length = rng.randint(6, MAXLEN + 1)
        words = rng.randint(70, NB_TOKENS, length)
        n_pos, n_neg = rng.randint(0, 4), rng.randint(0, 4)
        if n_pos == n_neg:
            n_pos += 1 if rng.rand() < 0.5 else 0
            n_neg += 1 if n_pos == n_neg else 0
        slots = rng.choice(length, min(length, n_pos + n_neg), replace=False)
        for k, s in enumerate(slots):
            words[s] = rng.choice(POS) if k < n_pos else rng.choice(NEG)
        X[i, :length] = words
        y[i] = int(n_pos > n_neg)
        if rng.rand() < 0.12:  # annotator noise
            y[i] = 1 - y[i]
        emo[i] = min(max(n_pos - n_neg + 3, 0), 7)
    return X, y, emo


class Attention(nn.Module):
    def __init__(self, attention_size):
        super().__init__()
        self.attention_vector = nn.Parameter(torch.FloatTensor(attention_size))
        self.attention_vector.data.normal_(std=0.05)

    def forward(self, inputs, input_lengths):
        logits = inputs.matmul(self.attention_vector)
        unnorm_ai = (logits - logits.max()).exp()
        max_len = unnorm_ai.size(1)
        idxes = torch.arange(0, max_len, out=torch.LongTensor(max_len)).unsqueeze(0)
        mask = Variable((idxes < input_lengths.unsqueeze(1)).float())
        masked_weights = unnorm_ai * mask
        att_sums = masked_weights.sum(dim=1, keepdim=True)
        attentions = masked_weights.div(att_sums)
        weighted = torch.mul(inputs, attentions.unsqueeze(-1).expand_as(inputs))
        representations = weighted.sum(dim=1)
        return representations, attentions


class TorchMoji(nn.Module):
    def __init__(self, nb_classes, nb_tokens, output_logits=False, embed_dropout_rate=0, final_dropout_rate=0):
        super().__init__()
        embedding_dim = 48
        hidden_size = 32
        attention_size = 4 * hidden_size + embedding_dim
        self.hidden_size = hidden_size
        self.nb_classes = nb_classes
        self.add_module('embed', nn.Embedding(nb_tokens, embedding_dim))
        self.add_module('embed_dropout', nn.Dropout(embed_dropout_rate))
        self.add_module('lstm_0', nn.LSTM(embedding_dim, hidden_size, batch_first=True, bidirectional=True))
        self.add_module('lstm_1', nn.LSTM(hidden_size * 2, hidden_size, batch_first=True, bidirectional=True))
        self.add_module('attention_layer', Attention(attention_size=attention_size))
        self.add_module('final_dropout', nn.Dropout(final_dropout_rate))
        self.add_module('output_layer', nn.Sequential(nn.Linear(attention_size, nb_classes if nb_classes > 2 else 1)))
        nn.init.uniform_(self.embed.weight.data, a=-0.5, b=0.5)
        for name, p in self.named_parameters():
            if 'weight_ih' in name:
                nn.init.xavier_uniform_(p.data)
            elif 'weight_hh' in name:
                nn.init.orthogonal_(p.data)
            elif 'bias' in name:
                nn.init.constant_(p.data, 0)
        nn.init.xavier_uniform_(self.output_layer[0].weight.data)
        self.eval()

    def forward(self, input_seqs):
        return_tensor = False
        if isinstance(input_seqs, (torch.LongTensor,)):
            input_seqs = Variable(input_seqs)
            return_tensor = True
        ho = self.lstm_0.weight_hh_l0.data.new(2, input_seqs.size()[0], self.hidden_size).zero_()
        co = self.lstm_0.weight_hh_l0.data.new(2, input_seqs.size()[0], self.hidden_size).zero_()
        input_lengths = torch.LongTensor([torch.max(input_seqs[i, :].data.nonzero()) + 1
                                          for i in range(input_seqs.size()[0])])
        input_lengths, perm_idx = input_lengths.sort(0, descending=True)
        input_seqs = input_seqs[perm_idx][:, :input_lengths.max()]
        packed_input = pack_padded_sequence(input_seqs, input_lengths.cpu().numpy(), batch_first=True)
        hidden = (Variable(ho, requires_grad=False), Variable(co, requires_grad=False))
        x = self.embed(packed_input.data)
        x = nn.Tanh()(x)
        x = self.embed_dropout(x)
        packed_input = PackedSequence(x, packed_input.batch_sizes)
        lstm_0_output, _ = self.lstm_0(packed_input, hidden)
        lstm_1_output, _ = self.lstm_1(lstm_0_output, hidden)
        packed_input = PackedSequence(torch.cat((lstm_1_output.data, lstm_0_output.data, packed_input.data), dim=1),
                                      packed_input.batch_sizes)
        input_seqs, _ = pad_packed_sequence(packed_input, batch_first=True)
        x, att_weights = self.attention_layer(input_seqs, input_lengths)
        x = self.final_dropout(x)
        outputs = self.output_layer(x)
        reorered = Variable(outputs.data.new(outputs.size()))
        reorered[perm_idx] = outputs
        outputs = reorered
        # Adapt return format if needed
        if return_tensor:
            outputs = outputs.data
        return outputs


def batches(X, y, batch_size, epoch_size=None, seed=42):
    r = np.random.RandomState(seed)
    if epoch_size is None:
        idx = np.arange(len(y))
    else:
        idx = r.choice(len(y), epoch_size, replace=True)
    return [(torch.from_numpy(X[idx[i:i + batch_size]]), torch.from_numpy(y[idx[i:i + batch_size]]))
            for i in range(0, len(idx), batch_size)]


def calc_loss(loss_op, pred, yv):
    if type(loss_op) is nn.CrossEntropyLoss:
        return loss_op(pred.squeeze(), yv.squeeze())
    return loss_op(pred.squeeze(), yv.squeeze().float())


def evaluate_using_acc(model, test_gen):
    model.eval()
    accs = []
    for x, y in test_gen:
        outs = model(x)
        pred = (outs.squeeze(-1) >= 0).long()
        accs.append(float((pred == y).double().sum() / len(pred)))
    return np.mean(accs)


def pretrain(model_pre, X, emo):
    # stands in for the released pytorch_model.bin
    opt = optim.Adam(model_pre.parameters(), lr=3e-3)
    loss_op = nn.CrossEntropyLoss()
    model_pre.train()
    for ep in range(3):
        for xb, yb in batches(X, emo, 64, seed=ep):
            opt.zero_grad()
            out = model_pre(xb.int())  # int32 ids: not a LongTensor, so the graph is kept
            loss = loss_op(out, yb)
            loss.backward()
            opt.step()
    model_pre.eval()


def main():
    Xtr, ytr, etr = make_sentences(1600, rng)
    Xva, yva, _ = make_sentences(400, rng)
    Xte, yte, _ = make_sentences(400, rng)
    Xpre, _, epre = make_sentences(3000, rng)

    pre = TorchMoji(nb_classes=8, nb_tokens=NB_TOKENS, output_logits=True)
    pretrain(pre, Xpre, epre)
    torch.save(pre.state_dict(), 'pytorch_model.bin')

    # torchmoji_transfer(nb_classes, PRETRAINED_PATH)
    model = TorchMoji(nb_classes=2, nb_tokens=NB_TOKENS, embed_dropout_rate=0.1, final_dropout_rate=0.5,
                      output_logits=True)
    weights = torch.load('pytorch_model.bin')
    for key, weight in weights.items():
        if 'output_layer' in key:
            print('Ignoring weights for {}'.format(key))
            continue
        print('Loading weights for {}'.format(key))
        model.state_dict()[key].copy_(weight)
    print(model)

    nb_classes = 2
    batch_size = 32
    nb_epochs = 8
    checkpoint_path = 'checkpoint.bin'
    loss_op = nn.BCEWithLogitsLoss()
    # freeze_layers(model, unfrozen_keyword='output_layer')
    for name, p in model.named_parameters():
        p.requires_grad = 'output_layer' in name
    adam = optim.Adam((p for p in model.parameters() if p.requires_grad), lr=0.001)
    print('Method:  {}'.format('last'))
    print('Metric:  {}'.format('acc'))
    print('Classes: {}'.format(nb_classes))
    train_sets = [batches(Xtr, ytr, batch_size, epoch_size=640, seed=42 + e) for e in range(nb_epochs)]
    val_gen = batches(Xva, yva, batch_size)
    test_gen = batches(Xte, yte, batch_size)
    print("Trainable weights: {}".format([n for n, p in model.named_parameters() if p.requires_grad]))
    print("Training...")
    print("Evaluation on test set prior training:", evaluate_using_acc(model, test_gen))

    out = open('metrics.csv', 'w', newline='')
    w = csv.writer(out)
    w.writerow(['epoch', 'step', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])

    torch.save(model.state_dict(), checkpoint_path)
    model.eval()
    best_loss = np.mean([calc_loss(loss_op, model(Variable(xv)), Variable(yv)).data.cpu().numpy()
                         for xv, yv in val_gen])
    print("original val loss", best_loss)
    patience = 5
    epoch_without_impr = 0
    for epoch in range(nb_epochs):
        for i, (X_train, y_train) in enumerate(train_sets[epoch]):
            X_train = Variable(X_train, requires_grad=False)
            y_train = Variable(y_train, requires_grad=False)
            model.train()
            adam.zero_grad()
            output = model(X_train)
            loss = calc_loss(loss_op, output, y_train)
            loss = Variable(loss, requires_grad=True)
            loss.backward()
            clip_grad_norm_(model.parameters(), 1)
            adam.step()
            acc = evaluate_using_acc(model, [(X_train.data, y_train.data)])
            print("== Epoch", epoch, "step", i, "train loss", loss.data.cpu().numpy(), "train acc", acc)
            w.writerow([epoch, i, float(loss.detach()), acc, '', ''])
        model.eval()
        acc = evaluate_using_acc(model, val_gen)
        print("val acc", acc)
        val_loss = np.mean([calc_loss(loss_op, model(Variable(xv)), Variable(yv)).data.cpu().numpy()
                            for xv, yv in val_gen])
        print("val loss", val_loss)
        w.writerow([epoch, '', '', '', float(val_loss), acc])
        out.flush()
        if best_loss is not None and val_loss >= best_loss:
            epoch_without_impr += 1
            print('No improvement over previous best loss: ', best_loss)
        if best_loss is None or val_loss < best_loss:
            best_loss = val_loss
            torch.save(model.state_dict(), checkpoint_path)
            print('Saving model at', checkpoint_path)
        if epoch_without_impr >= patience:
            break
    out.close()
    model.load_state_dict(torch.load(checkpoint_path))
    print('Acc: {}'.format(evaluate_using_acc(model, test_gen)))


if __name__ == '__main__':
    main()
