"""The code reader: facts read from a Python training script without running it.

Evidence sources ``code:optimizer``, ``code:loss``, ``code:loop``, ``code:data`` and
``code:model`` (kb/sources.yaml). The script is parsed with :mod:`ast` and walked by a small
abstract interpreter: it is never imported, never executed, and nothing here imports torch.

The interpreter follows the script the way Python would run it, top to bottom, but with abstract
values: ``import torch.nn as nn`` binds ``nn`` to the name ``torch.nn``; ``crit =
nn.CrossEntropyLoss()`` binds a stock-loss value; ``model = Net()`` runs ``Net.__init__`` to learn
its layers; ``model(x)`` runs ``Net.forward`` so a softmax on its return is seen; a call to a
helper function defined in the same file (``train_one_epoch(model, loader, opt)``) is followed
into its body with the caller's values. Loop bodies run twice, so state that carries over from
one epoch to the next (``model.eval()`` never undone by ``model.train()``) shows. Tensors carry
their provenance: which model call produced them, which squashing was applied, which stock loss
consumed them, and where the autograd graph was cut (``.detach()``, ``.item()``, ``.numpy()``,
``torch.no_grad()``, re-wrapping with ``torch.tensor``).

Public API: :func:`analyze_code` ``(path) -> CodeReport``. Every finding's source is
``code:<basename>:<line>`` and its detail one short sentence quoting what was seen. What could
not be resolved goes to ``CodeReport.unresolved`` instead of being guessed.

Facts produced (names from kb/facts.yaml), each only when the script shows it:

- optimizer: ``optimizer``, ``learning_rate`` (keyword, positional, argparse default, a value
  from a config file next to the script, or the class default), ``weight_decay``,
  ``params_not_in_optimizer`` (another instance trained, a subset while the whole model trains,
  a layer replaced after the optimizer was built, layers in a plain list/dict);
- loss: ``loss_function``, ``output_activation`` (what squashing reaches the loss),
  ``custom_loss``, ``label_smoothing``, ``unsafe_math`` (log/exp/sqrt/division without a guard
  on the path to the loss);
- loop: ``zero_grad_called``, ``optimizer_not_zeroed`` (one of several optimizers never zeroed),
  ``grads_cleared_before_step`` (gradients cleared between backward and step),
  ``clip_max_norm``, ``scheduler``, ``scheduler_step_per_batch``,
  ``scheduler_designed_per_batch``, ``warmup``, ``graph_cut``, ``model_mode_in_validation``,
  ``model_mode_in_training``;
- data: ``shuffle``, ``batch_size``, ``num_workers`` of the loader the training loop iterates;
  ``input_scale`` of inputs the script makes itself (``torch_api/scale.py`` follows it);
- model: ``dropout_p``, ``regularization``, ``model_has_dropout_or_bn``, ``init_constant``,
  ``frozen_params``, ``uses_amp``, ``amp_dtype``, ``grad_scaler_used``.

Negative facts ("no Dropout", "frozen_params == []") are claimed only when the model is fully
visible in the file; for a model imported from elsewhere the reader says so in ``unresolved``.

Layout (each layer imports only the ones above it):

- ``source``: reading and parsing the file (:func:`parse_source`); ``report``: :class:`CodeReport`;
  ``text``: short quotations of the source; ``values``: the abstract values;
- ``interpreter/``: a generic Python interpreter over abstract values (``state``, ``statements``,
  ``expressions``, ``calls``), with no knowledge of torch;
- ``torch_api/``: the model of the torch API: ``names`` (tables of layers, losses, optimizers),
  ``dispatch`` (callee name -> handler), ``tensors``, ``modules``, ``builders``;
- ``facts/``: one module per evidence source: ``optimizer``, ``loss``, ``loop``, ``data``,
  ``model`` (``code:*`` in kb/sources.yaml), with ``common`` ordering them;
- ``reader``: :class:`~.reader.CodeReader`, the parts assembled, and :func:`analyze_code`.
"""

from .reader import CodeReader, analyze_code
from .report import CodeReport
from .source import parse_source

__all__ = ["analyze_code", "CodeReport", "parse_source", "CodeReader"]
