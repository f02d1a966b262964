# deepset-ai/FARM issue "Expected input batch_size to match target batch_size" in miniature: a FARM-style
# document classification run for 4 classes with batch_size=8, written in plain PyTorch. 400 synthetic
# short "news" texts (class-specific keywords mixed with shared filler words), a whitespace tokenizer
# and vocabulary, a small embedding + 1-layer Transformer-encoder language model with mean pooling
# standing in for BERT, a TextClassificationHead (one linear layer, CrossEntropyLoss), AdamW lr 2e-5
# (0.01 weight decay) with linear warm-up, FARM-like log lines. The processor turns each label into the
# label vector it builds for the task, and the head computes its loss as in
# farm/modeling/prediction_head.py: self.loss_fct(logits, label_ids.view(-1)).
import logging, random
import numpy as np
import torch, torch.nn as nn

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s -   %(message)s", datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
logger = logging.getLogger("farm")
random.seed(100); np.random.seed(100); torch.manual_seed(100); torch.set_num_threads(1)

label_list = ["World", "Sports", "Business", "Sci/Tech"]
keywords = [["government", "minister", "election", "war", "border", "president"],
            ["match", "team", "goal", "season", "coach", "league"],
            ["market", "shares", "profit", "bank", "company", "oil"],
            ["software", "internet", "computer", "space", "research", "phone"]]
filler = "the a of in on for with after new says will has by at from to and over more".split()
def make_doc(c):
    words = [random.choice(keywords[c]) for _ in range(3)] + [random.choice(filler) for _ in range(9)]
    random.shuffle(words); return " ".join(words)
dicts = [{"text": make_doc(c), "label": label_list[c]} for c in np.random.randint(0, 4, 400)]

class TextClassificationProcessor:
    def __init__(self, label_list, max_seq_len=16, multilabel=False):
        self.label_list, self.max_seq_len, self.multilabel = label_list, max_seq_len, multilabel
        self.vocab = {"[PAD]": 0, "[UNK]": 1}
    def dataset_from_dicts(self, dicts):
        ids, labels = [], []
        for d in dicts:
            toks = d["text"].split()[: self.max_seq_len]
            for t in toks: self.vocab.setdefault(t, len(self.vocab))
            ids.append([self.vocab[t] for t in toks] + [0] * (self.max_seq_len - len(toks)))
            label_ids = [0] * len(self.label_list)
            label_ids[self.label_list.index(d["label"])] = 1
            labels.append(label_ids)
        return torch.tensor(ids), torch.tensor(labels)

class LanguageModel(nn.Module):
    def __init__(self, vocab_size, dim=64):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, 128, batch_first=True), 1)
    def forward(self, input_ids):
        mask = input_ids == 0
        h = self.enc(self.emb(input_ids), src_key_padding_mask=mask)
        return (h * (~mask)[..., None]).sum(1) / (~mask).sum(1, keepdim=True)

class TextClassificationHead(nn.Module):
    def __init__(self, layer_dims):
        super().__init__()
        self.feed_forward = nn.Linear(*layer_dims)
        self.loss_fct = nn.CrossEntropyLoss(reduction="none")
        logger.info(f"Prediction head initialized with size {list(layer_dims)}")
    def forward(self, x):
        return self.feed_forward(x)
    def logits_to_loss(self, logits, label_ids):
        return self.loss_fct(logits, label_ids.view(-1))

processor = TextClassificationProcessor(label_list=label_list, max_seq_len=16)
input_ids, label_ids = processor.dataset_from_dicts(dicts)
logger.info(f"Loaded {len(dicts)} dicts, vocab size {len(processor.vocab)}")
language_model = LanguageModel(len(processor.vocab)); head = TextClassificationHead([64, len(label_list)])
params = list(language_model.parameters()) + list(head.parameters())
optimizer = torch.optim.AdamW(params, lr=2e-5, weight_decay=0.01)
batch_size, n_epochs = 8, 1
num_training_steps = n_epochs * len(dicts) // batch_size
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / (0.1 * num_training_steps)))
logger.info(f"Loading optimizer `AdamW`: '{{'weight_decay': 0.01, 'lr': 2e-05}}'")
logger.info(f"Using scheduler 'get_linear_schedule_with_warmup' ({num_training_steps} steps)")
logger.info("\n\n          ***Growing***\n")
for epoch in range(n_epochs):
    perm = torch.randperm(len(dicts))
    for step in range(num_training_steps):
        idx = perm[step * batch_size:(step + 1) * batch_size]
        logits = head(language_model(input_ids[idx]))
        per_sample_loss = head.logits_to_loss(logits, label_ids[idx])
        loss = per_sample_loss.mean()
        optimizer.zero_grad(); loss.backward(); optimizer.step(); scheduler.step()
        if step % 10 == 0:
            logger.info(f"Train epoch {epoch}/{n_epochs - 1} (Cur. train loss: {loss.item():.4f})")
