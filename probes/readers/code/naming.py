"""What people name things: word patterns that give an unbound name its role (model, optimizer,
scheduler, loader, loss) and mark the lines worth reading.
"""

from __future__ import annotations

import re


MODEL_WORDS = re.compile(r"(model|net\b|network|encoder|decoder|classifier|backbone|"
                         r"generator|discriminator|student|\bnet|critic|actor)", re.I)


OPT_WORDS = re.compile(r"(^|[._])(opt|optim|optimizer|optimiser)[\w]*$", re.I)


SCHED_WORDS = re.compile(r"(sched|lr_s)", re.I)


LOADER_WORDS = re.compile(r"(loader|\bdl\b|_dl\b|dataloader|batches|\biterator)", re.I)


LOSS_WORDS = re.compile(r"(criterion|loss_fn|loss_func|lossfn|\bcrit\b|loss_function)", re.I)


EVAL_FUNC = re.compile(r"(eval|valid|test|predict|infer)", re.I)


RELEVANT = re.compile(r"(autocast|GradScaler|\.half\(|zero_grad|\.step\(|backward|DataLoader|"
                      r"optim|sched|\.eval\(|\.train\(|clip_grad|Dropout|requires_grad|"
                      r"init\.|Softmax|softmax|sigmoid|Loss|loss|lr)")


EPS_WORDS = re.compile(r"(eps|epsilon|tiny|smooth|1e-|delta|stab)", re.I)
