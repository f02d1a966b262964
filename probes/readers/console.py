"""Read the console output a training run printed (``python train.py | tee run.out``, ``nohup.out``,
a SLURM ``.out`` file, or an excerpt pasted into a thread) into the same bounded
:class:`~traindx.probes.readers.logs.LogData` the CSV reader builds. Torch-free.

Entry points
------------
``read_console(path, column_map=None, params=None) -> ConsoleLog``
    Stream a text file once.
``read_console_text(text, name="pasted log", ...) -> ConsoleLog``
    The same for text already in memory (a pasted excerpt).
``ConsoleLog.evidence(findings, params)``
    What the text says beyond its curves: a traceback's kind (``error_kind``: a CUDA OOM or a
    collate error puts the run out of scope), NaN warnings (explosion evidence).

How a line is read
------------------
Nothing keys on a framework's wording; a line is read by its *structure*:

1. **Prefixes go.** A leading time stamp (``2024-05-01 12:00:03,123``, ``[08/12 10:00:00]``,
   glog's ``I0418 14:52:11.1 123 solver.cpp:228]``), log levels (``INFO``), ANSI colours, clock
   times (``eta: 0:10:00``) and ``tensor(`` wrappers are removed.
2. **Axes.** ``epoch N``/``Epoch N/M``/``Epoch [N/M]``/``Epoch(train) [N][i/M]`` give the epoch
   (with an optional in-epoch counter); ``step|iter|iteration|batch|update|num_updates N[/M]``
   give a step; a bare ``i/M`` (a tqdm or Keras progress counter, ``12850/37527;``) is the counter
   within the epoch; a line that starts ``N:`` is step N. A line holding only an epoch sets the
   epoch for the lines that follow (Keras prints ``Epoch 3/10`` on its own line).
3. **Pairs.** A name (one or more words: ``val_loss``, ``Train Loss``, ``'loss'``) followed by a
   number, with ``:``, ``=``, quotes or blanks between, is a metric; so is a number followed by its
   name before a comma (``24.93 avg loss, 0.001 rate``). Numbers may be ``1.5e-3``, ``nan``,
   ``inf``, ``-inf``, percentages (``27.5%`` -> 0.275 for an accuracy) or ratios
   (``Accuracy: 9800/10000`` -> 0.98). A parenthesised number after a value (fairseq's running
   mean) is not a metric of its own.
4. **Tables.** A line of names only (``epoch,train_loss,val_acc``, fastai's and nolearn's
   whitespace tables, ``|``-separated) followed by rows of as many numbers is a header; its rows
   are records until another header. A heading that names a split right above the header
   (``Validation:``), or a split word in a row's own cell (``| vali | 1.21 | 0.27 |``), makes the
   rows that split's.
5. **Roles.** Names get roles as in :meth:`traindx.probes.readers.words.LogWords.match_role` (``loss``,
   ``val_loss``, ``accuracy``, ``val_accuracy``, ``lr``, ``grad_norm``), trying sub-phrases of
   up to three words. A split word in the line's prefix (``Validation accuracy: ...  (loss
   1.37)``, ``Test net output``, ``Epoch(val)``, ``valid on 'valid' subset``) attributes the
   line's unqualified metrics to that split. Perplexity stands in for a loss only when no loss is
   printed (``ln(ppl)`` is the cross-entropy).

(Steps 1-4 are :class:`~traindx.probes.readers.console_lines.LineParser`'s, in
:mod:`traindx.probes.readers.console_lines`; this module keeps roles, records and axes.)

Records, axes and restarts
--------------------------
The x axis is chosen once, from the first lines with metrics: ``step`` when a step or an
in-epoch counter is printed, else ``epoch``, else the record's number. An in-epoch counter
becomes a step ``(epoch - first epoch) * per_epoch + i`` (``per_epoch`` is the counter's total, or
the largest counter seen). A validation/test record takes the step of the latest training
record. When the step (or the epoch) goes back, the run restarted: the curve continues from the
new start (as for CSV) and the line is remembered; but a counter that starts again with a smaller
total right after the training loop ran to its own is the evaluation loop (:class:`_EvalLoops`).
A progress bar redrawn with the same values (tqdm and Lightning refresh with a carriage return)
counts once, and a validation value carried along every redraw counts when it changes.

Streaming
---------
The file is read line by line (``\\r`` also ends a line); each metric feeds a bounded
:class:`~traindx.probes.readers.logs.Series`, so memory does not grow with the file. At most
``console.max_metric_names`` distinct names are tracked, lines longer than
``console.max_line_chars`` are read up to that length, and the first ``console.max_events``
tracebacks/warnings are kept (counted beyond). A file with no metric raises one
:class:`~traindx.engine.errors.InputError` naming the file and the lines it tried.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import re
from dataclasses import dataclass, field
from statistics import median

from traindx.engine import bounded
from traindx.engine.errors import InputError, NoMetricsError
from traindx.engine.evidence import Finding
from traindx.engine.parameters import resolve

from . import console_guess
from .console_tuples import has_named_tuple, split_named_tuples
from .console_wrap import unwrap_batches, wrap_width
from .console_above import _NamedAbove
from .console_detect import header_counts, row_scores
from .console_history import _Histories
from .console_tables import BOX_START, _Boxes, _Frames, markup_row
from .console_lines import (_EPOCH_MEAN_BAR, _HEADING_MAX_CHARS, _PREFIX, _PROGRESS, LineParser, _loss_part,
                            abbreviated_axes, msvc_nonfinite, shape, value_calls,
                            yaml_nonfinite)
from .logs import (FLUSH_ROWS, LogData, RLLogError, Series, StepTimer, normalize_name, parse_column_map,
                   reward_names_in_text, rl_names_in_text)
from .loss_scale import ScaleFall, fall_grads_said, fall_said
from .words import ACRONYM_HUMP, CAMEL_HUMP, CAMEL_ROLES, LogWords, log_words

#: Bounds on work and memory, not knowledge: a traceback is taken to have ended after this many
#: lines (whatever follows is the log again), the metric-name -> role cache holds this many
#: phrases, and at most this many distinct epoch numbers are remembered.
_TRACE_MAX_LINES = 400
_ROLE_CACHE_SIZE = 8192
_MAX_EPOCHS_SEEN = 100_000
#: A bound on work, not knowledge: a verdict's metric name (at most three words) is looked for in this
#: many characters before the verdict, so a long line of letters costs linear time, not quadratic.
_VERDICT_NAME_REACH = 256
#: More bounds on work and memory: at most this many epoch starts are kept, and a file is read in
#: pieces of this many characters.
_MAX_EPOCH_STARTS = 100_000
_READ_CHUNK_CHARS = 1 << 16
#: The word n-grams a metric's phrase is looked up by, longest first (``train loss avg``, ``loss avg``,
#: ``avg``): the longest known name wins.
_NAME_NGRAMS = (3, 2, 1)
#: Presentation, not knowledge: the decimals a fact's value keeps (a share, a held-out metric), and
#: how much of an error message, a list of names or of restart lines a finding or a summary shows
#: (an error kept on the log is cut at _KEPT_ERROR_CHARS, the list of ignored columns at 30 names).
_SHARE_DECIMALS = 4
_VALUE_DECIMALS = 6
_SHOWN_ERROR_CHARS = 200
_SHOWN_RAISED_CHARS = 160
_SHOWN_TRACE_CHARS = 80
_KEPT_ERROR_CHARS = 300
_KEPT_IGNORED_COLUMNS = 30
_SHOWN_RL_NAMES = 4
_SHOWN_RL_NAMES_IN_ERROR = 6
_SHOWN_RESTARTS = 5

# ------------------------------------------------------------------------------ line cleaning
#: a decimal comma between digits (``1,1939``), in a line written in a language that uses one; never
#: in a list of numbers (``1,2,3``) or next to a point (``1,234.5``)
_DECIMAL_COMMA = re.compile(r"(?<![\w.,])(\d+),(\d+)(?![\w.]|,\d)")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: what a thread adds in front of a pasted line: e-mail/Markdown quote marks, bold
_QUOTED = re.compile(r"^(?:>[ \t]*|\*\*|\[(?:rank|default)\d+\]:[ \t]?)+")

#: a value of one process of a distributed run (``[local: 0.70 | reduced: 0.69]``)
_LOCAL = re.compile(r"\blocal\b", re.IGNORECASE)
#: ``accuracy_top-1`` too: the name before ``top`` ends in ``_``, a word character
_TOP1 = re.compile(r"(?<![A-Za-z0-9])(?:top|prec|precision|acc|accuracy)[-@_ ]?1\b", re.IGNORECASE)


_TIME_ROLES = ("data_wait", "step_wait", "step_time")
#: the two roles of a line that prints a data wait beside its step's time
_TIME_WAIT_PAIR = frozenset(("data_wait", "step_wait"))


def _timing_role(words: list, vocab) -> str | None:
    """``data_wait`` for the name of a data-loading time, ``step_wait`` for a step's time (a data-loading
    time and the time of the step beside it: ``Time 0.21 (0.78) Data 0.001 (0.61)``, ``time: 0.539,
    data_time: 0.051``, ``updt_s:0.30 data_s:13.3``, PaddlePaddle's ``batch_cost: 5.98 s, reader_cost: 5.34 s``;
    the words are ``console.*_words`` in the KB)."""
    ws = set(words)
    if not ws:
        return None
    if ws & vocab.data_wait and ws <= vocab.data_time:
        return "data_wait"
    if (ws & vocab.step_time_key or ("cost" in ws and ws & vocab.step_cost)) and ws <= vocab.step_time:
        return "step_wait"
    return None
#: a traceback's first line, of Python's or of another language's stack (PaddlePaddle's ``C++ Traceback
#: (most recent call last):``)
_TRACE_START = re.compile(r"^\s*(?:([\w+#]+)\s+)?Traceback \(most recent call last\)")
#: a frame of a traceback as IPython/Jupyter prints it, at the line's start rather than indented: the
#: file and the function (``<ipython-input-29-2ce5> in <module>``, ``~\lib\deprecation.py in
#: new_func(*args)``, ``File ~/lib/training.py:1184, in Model.fit(self, x)``, ``Cell In[5], line 3``)
#: or the arrow at the line that raised (``----> 8     validation_steps=...``)
_IPY_FRAME = re.compile(r"^(?:-+>\s*\d+|Cell In\s*\[\d*\]|(?:File \S.*, |\S*[/\\<.]\S* )in <?[\w.]+>?(?:\(.*)?$)")
#: a line inside a traceback that is neither a frame nor the exception: a rule under its title
#: (``-----``), or a numbered native frame (``0   paddle::framework::...``)
_TRACE_FILLER = re.compile(r"^\s*(?:[-=]{3,}\s*$|\d+\s{2,}\S)")
#: a line that holds one number and nothing else (a list of values printed one per line)
_BARE_NUMBER = re.compile(r"\s*[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\s*", re.IGNORECASE)
#: a line that holds a whole number and then one value with decimals, and nothing else (``788 41.2322``,
#: ``12: 0.53``, ``3, 0.61``): a value printed one per line after its index, which is its step
_INDEXED_NUMBER = re.compile(r"\s*(\d+)\s*[,:]?\s+([-+]?(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+"
                             r"|nan|inf))\s*", re.IGNORECASE)
#: the progress line of the PyTorch char-RNN and seq2seq tutorials: the iteration, its share of the run with ``%``,
#: the elapsed time as ``Nm Ns`` (either order, the seq2seq one with its ``(- Nm Ns)`` remaining), then one unnamed
#: value with decimals, the interval's mean loss (``500 50% (0m 7s) 1.1889 Lfub / Esmeri ✓``, ``0m 24s (5000 5%)
#: 2.6593``, ``1m 47s (- 6m 59s) (5000 20%) 2.4071``); group ``a`` or ``b`` is the iteration, ``v`` the loss
_ELAPSED_PROGRESS = re.compile(
    r"\s*(?:\d+m \d+s (?:\(- ?\d+m \d+s\) )?\((?P<a>\d+) \d+%\)|(?P<b>\d+) \d+% \(\d+m \d+s\)) "
    r"(?P<v>[-+]?(?:\d+\.\d+(?:[eE][-+]?\d+)?|nan|inf))(?!\S)", re.IGNORECASE)
_ELAPSED_PROGRESS_NAME = "interval loss"
#: the name a bare number's series is reported under
_BARE_NAME = "unnamed values"
_BARE_START = frozenset("0123456789-+. \tnNiI")
#: the first letters of a SQL dump's table and row statements (``CREATE TABLE``, ``INSERT INTO``) and of a
#: MediaWiki table's header and data rows (``! a !! b``, ``| 1 || 2``)
_MARKUP_START = frozenset("CI!|")
#: a chance-corrected agreement printed by its name (Cohen's ``Kappa: 0.0000`` of a segmentation or
#: classification evaluation): 0 is a guess's agreement whatever the classes' balance
_KAPPA = re.compile(r"\bkappa\b[\s:=]{0,3}([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.IGNORECASE)
#: the longest line read as a bare number (a float's repr with spaces around it)
_BARE_MAX_CHARS = 40
_KEY_ROLES = ("loss", "val_loss", "accuracy", "val_accuracy")
_EXC_LINE = re.compile(r"^\s*((?:[\w.]+\.)?(\w*(?:Error|Exception|Interrupt)))\b:?\s*(.*)$")
#: an exception's "message" that is only numbers, a list of them or an array's (MatConvNet's ``topFiveError: [0.11
#: 0.04 ...]``): a metric whose name ends in "Error", printed with its values, no exception
_NUMBERS_ONLY = re.compile(r"[\[(]?\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[\s,;]*)+[\])]?\s*")
#: the exception that ends a traceback pasted with its newlines lost (``... File "t.py", line 269, in _steps
#: raise RuntimeError("Model diverged with loss = NaN.")RuntimeError: Model diverged with loss = NaN.``): a class
#: name glued after the last frame's code, then its message
_GLUED_EXC = re.compile(r".*[)\]'\"\s]((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):\s+(\S.*)$")
#: a kernel's failed assertion: in a ``.cu`` file, or at a GPU block and thread (``DynamicCast.h:78: block:
#: [38,0,0], thread: [97,0,0] Assertion `false` failed.``)
#: an error logged by the framework's C++ side at error level (``[E ProcessGroupNCCL.cpp:458] [Rank 0]
#: Watchdog caught collective operation timeout: ...``): the run failed there
#: the shell's report of a child it saw die of SIGKILL (``Killed``, alone on its line): most often the
#: kernel's out-of-memory killer ending a run that ran out of host memory
_KILLED = re.compile(r"^[\s*_>`]*Killed[\s*_`.!]*$")
_KILLED_MESSAGE = "Killed: the process was sent SIGKILL, most often by the system's out-of-memory killer"
#: the shell's report of a child that died of a crash signal, alone on its line (``Segmentation fault (core
#: dumped)``, ``Bus error``, ``Aborted (core dumped)``, ``Illegal instruction (core dumped)``): the run crashed
#: in native code (a framework's C++ side, a driver, a bad build). ``Aborted`` and ``Floating point
#: exception`` count only with ``(core dumped)``: alone they are words a person may write
_SIGNAL_DEATH = re.compile(r"^[\s*_>`]*(?:(?:Segmentation fault|Bus error)(?:\s*\(core dumped\))?|"
                           r"(?:Aborted|Illegal instruction|Floating point exception)\s*\(core dumped\))[\s*_`.!]*$")
_SIGNAL_DEATH_MESSAGE = "{}: the process died of a crash signal (native code: the framework's C++ side, a driver)"
#: the report a shell makes of a job that died of a signal, in front of the job's command line: a script's
#: (``run.sh: line 12:  4242 Killed     python train.py``, ``bash: line 1: 23670 Aborted  (core dumped) ( cmd )``)
#: or an interactive shell's job table (``[1]+  Segmentation fault  (core dumped) python train.py``); here
#: ``Aborted`` needs no ``(core dumped)``: the shell's own notation names the signal
_SHELL_JOB_DEATH = re.compile(r"^[\s*_>`]*(?:(?:[^\s:*_>`][^\s:]*: )?line \d+:\s+\d+|\[\d+\][+-]?)\s+"
                              r"(Killed|Segmentation fault|Bus error|Aborted|Illegal instruction|"
                              r"Floating point exception)(\s*\(core dumped\))?(?:\s|$)")
#: a frame of a traceback whose header the paste left out (``  File "/path/trainer.py", line 187, in train``)
_TRACE_FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in \S')
#: a logger's name in front of its message (Python's default ``WARNING:root:message``, after the level)
_LOGGER_NAME = re.compile(r"^\s*[\w.-]+:\s*")
#: an error the C++ side logs: ``[E ProcessGroupNCCL.cpp:458] ...``, or in glog's form with the date and time
#: (``[E602 11:17:52.185053341 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught ...``, PyTorch 2.2 on)
_CPP_ERROR = re.compile(r"\[E(?:\d{3,4}\s+\d\d:\d\d:\d\d(?:\.\d+)?(?:\s+\d+)?)?\s+([\w./-]+\.(?:cpp|cc|cu|h|hpp)):\d+\]"
                        r"\s*(.+)$")
#: the message of a C++ exception that ended the process: the C++ runtime's ``terminate called after
#: throwing an instance of 'c10::Error'`` is followed by ``  what():  CUDA error: ...`` (any C++ type)
_CPP_WHAT = re.compile(r"^\s*what\(\):\s+(\S.*)$")
#: an exception's class printed as Python writes a class (``repr(type(e))``) and its message after it: a
#: supervisor that reports the exception it caught (TensorFlow's ``Error reported to Coordinator: <class
#: 'tensorflow.python.framework.errors_impl.ResourceExhaustedError'>, OOM when allocating ...``, a script's
#: ``print(type(e), e)``); the dotted name is bounded, so the search stays linear
_CLASS_REPR = re.compile(r"<class '(?:[\w.]{0,200}\.)?(\w{1,100})'>[,:]?\s*(\S.*)$")
_CUDA_ASSERT = re.compile(r"(?:\.cuh?:\d+|\bblock:\s*\[[\d,\s]+\],\s*thread:\s*\[[\d,\s]+\]).*\bAssertion\b.*\bfailed")
#: a name that is a source file's path (``/pytorch/aten/src/ATen/native/cuda/Loss.cu:115``), not a metric
_SOURCE_PATH = re.compile(r"(?:/[^/]*){3}|\.(?:py|cu|cuh|cpp|cc|c|h|hpp)$")
_NAN_WARN = re.compile(r"(?:\bnan\b|\binf(?:inite|inity)?\b|non-?finite)", re.IGNORECASE)
#: a best-so-far's starting value on the left of an arrow to the new best (an early-stopping helper's
#: ``Validation loss decreased (inf --> 0.177827).  Saving model ...``): the record's empty start, no value
_NAN_SENTINEL = re.compile(r"\b(?:nan|inf(?:inity)?)\s*(?:-+>|=>|\u2192)\s*[-+]?\.?\d", re.IGNORECASE)
_NAN_CTX = re.compile(r"\b(?:loss|criterion|grad\w*|gradient|weights?|output|logits?)\b", re.IGNORECASE)
_NAN_BENIGN = re.compile(r"overflow|loss[ _]?scal|skipping step|reducing", re.IGNORECASE)
#: the step a NaN/Inf report names on its own line (detectron2's ``FloatingPointError: Loss became infinite or NaN at
#: iteration=756!``, "NaN loss at step 51"): where the run first went non-finite, when no record says it
_NAN_AT_STEP = re.compile(r"\b(?:at|on|in)\s+(?:the\s+)?(?:iteration|iter|step)\s*[=:#]?\s*(\d+)(?![\d.])",
                          re.IGNORECASE)
#: a mixed-precision loss scaler's overflow report and the scale it sets (apex ``Gradient overflow.
#: Skipping step, loss scaler 0 reducing loss scale to 512.0``, fairseq ``overflow detected,
#: setting loss scale to: 0.25``, DeepSpeed ``OVERFLOW! ... Attempted loss scale: 2048, reducing to
#: 1024``)
_SCALE_DOWN = re.compile(r"\b(?:overflow|skipping step)\b.*\bloss[ _]?scale\b(?:(?!hysteresis).)*?\bto:?\s*"
                         r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*\.?\s*$", re.IGNORECASE)
#: the scale an overflow report started from (``Attempted loss scale: 1, reducing to 1``, ``from 8.0
#: to 4.0``): the same as the scale it sets when the scaler is at its minimum and cannot lower it
_SCALE_FROM = re.compile(r"\b(?:attempted\s+loss\s+scale|from)\b:?\s*((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                         re.IGNORECASE)
#: a loss scaler's report of a scale it lowered, on a line of its own (DeepSpeed's fused optimizer
#: ``Reducing dynamic loss scale from 8.0 to 4.0``, under a separate ``Grad overflow`` line): the
#: two scales, read as the scale printed (not counted as an overflow report)
_SCALE_REDUCED = re.compile(r"\breduc\w*\s+(?:the\s+)?(?:dynamic\s+)?loss[ _]?scale\s+from\s+"
                            r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s+to\s+((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                            re.IGNORECASE)
#: PyTorch's loss warning that the target's size differs from the input's (``Using a target size
#: (torch.Size([64])) that is different to the input size (torch.Size([64, 1]))``): the two sizes
_SIZE_WARN = re.compile(r"target size \(torch\.Size\(\[([\d,\s]*)\]\)\) that is different to the input "
                        r"size \(torch\.Size\(\[([\d,\s]*)\]\)\)")
#: NumPy's warning that an array operation of a script made NaN (``train.py:49: RuntimeWarning: invalid value
#: encountered in divide``): the file and line that raised it, and the operation (``scalar divide``, a
#: scalar's, is no array's)
_NAN_MADE_WARN = re.compile(r"(?P<file>[^\s:]+\.py):(?P<line>\d+): RuntimeWarning: invalid value encountered in "
                            r"(?P<op>(?!scalar )\w+)")
#: where an installed library's files sit: a warning raised there is the library's, not the script's
_LIBRARY_PATH = re.compile(r"[/\\](?:site|dist)-packages[/\\]|[/\\]lib[/\\]python\d")
#: the autograd node of a printed tensor (``grad_fn=<BinaryCrossEntropyBackward0>``) and the loss
#: function each loss node belongs to. ``NllLossBackward`` is left out: ``CrossEntropyLoss`` and
#: ``NLLLoss`` print the same node, and a node of a sum (``AddBackward``) names no loss.
_GRAD_FN = re.compile(r"grad_fn=<(\w+?)Backward\d*>")
_LOSS_NODES = {"binarycrossentropywithlogits": "bce_with_logits", "binarycrossentropy": "bce",
               "mseloss": "mse", "l1loss": "l1", "smoothl1loss": "smooth_l1", "huberloss": "smooth_l1",
               "kldiv": "kl_div"}
_ROW_NONFINITE = re.compile(r"[-+]?(?:nan|inf(?:inity)?)", re.IGNORECASE)
#: what parts the cells of a headerless row of numbers: blanks, a table's pipes, and the commas or semicolons of
#: delimited rows pasted without their header line (``209,nan,4.1607,7.72,24.02`` from a summary CSV)
_ROW_CELL_SEPARATORS = re.compile(r"[\s|,;]+")
#: a checkpoint or early-stopping callback's verdict on the metric it monitors (Keras' ``Epoch 00086:
#: val_loss did not improve from 0.26629`` and ``val_loss improved from 1.59 to 1.58``, Lightning's
#: ``Monitored metric val_loss did not improve in the last 3 records. Best score: 0.266``): the name
#: is up to three words right before the verb (``did not improve``, ``improved``)
_VERDICT = re.compile(r"(?P<neg>\b(?:did|does|has|have|was|is)[ \t]*(?:not|n't)[ \t]+|\bnever[ \t]+)?"
                      r"\bimproved?\b", re.IGNORECASE)
_VERDICT_NAME = re.compile(r"((?:[A-Za-z_][\w.\-/]*[ \t]+){1,3})$")
_VERDICT_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
#: the best value a verdict states: after ``from`` (no improvement), after ``to`` (an improvement),
#: or named ``best`` (``Best score: 0.266``)
_VERDICT_FROM = re.compile(r"\bfrom:?\s*" + _VERDICT_NUM)
_VERDICT_TO = re.compile(r"\bto:?\s*" + _VERDICT_NUM)
_VERDICT_BEST = re.compile(r"\bbest(?:[ _]score)?\s*[:=]?\s*" + _VERDICT_NUM, re.IGNORECASE)
#: how many evaluations a verdict of no improvement covers (``in the last 3 records``)
_VERDICT_SPAN = re.compile(r"\blast\s+(\d+)\s+(?:records?|epochs?|evaluations?|checks?|validations?)\b",
                           re.IGNORECASE)
#: a cell of a headerless row: a number with an optional unit (``6.47G``, ``12%``) or a counter
_ROW_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[A-Za-z%]?|\d+/\d+")
_LOG_LEVEL = re.compile(r"^\s*[\[(]?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)[\])]?:?", re.IGNORECASE)
_BANNER = re.compile(r"\b(?:run|seed|restart(?:ing|ed)?|resum(?:e|ing|ed)|trial|fold)\b", re.IGNORECASE)

#: the message of a traceback the text ends inside, before the exception's line
_CUT_SHORT = "an exception whose traceback the text cuts short"
_CUT_SHORT_NAN = "an exception whose traceback the text cuts short, right after a NaN/Inf loss report"
_NAN_ERROR = re.compile(r"\bnan\b|\binf(?:inite)?\b|FloatingPointError", re.IGNORECASE)




def exception_message(line: str, classless: tuple = ()) -> str | None:
    """The message of an exception printed without its traceback (``RuntimeError: ...``, behind a
    logger's time stamp and level too; a CUDA kernel's failed assertion, ``Loss.cu:115: ...
    Assertion `...` failed.``, and an error the C++ side logs, ``[E ProcessGroupNCCL.cpp:458] ...``,
    are ones, as is the ``what():`` line under a C++ runtime's ``terminate called after throwing``,
    an exception's class printed as Python writes a class with the message after it (``<class
    '...ResourceExhaustedError'>, OOM when allocating``: a supervisor reporting what it caught),
    a shell's report of a job killed by a signal, and a message that begins as one of ``classless``
    does, logged without its class: ``console.classless_error_messages``), else None."""
    if "Killed" in line and _KILLED.match(line):
        return _KILLED_MESSAGE
    if ("fault" in line or "dumped" in line or "Bus error" in line) and _SIGNAL_DEATH.match(line):
        return _SIGNAL_DEATH_MESSAGE.format(line.strip(" \t*_>`.!"))
    if ("line" in line or "]" in line) and (job := _SHELL_JOB_DEATH.match(line)):
        return _KILLED_MESSAGE if job.group(1) == "Killed" else \
            _SIGNAL_DEATH_MESSAGE.format(job.group(1) + (" (core dumped)" if job.group(2) else ""))
    if classless and (logged := _classless_message(line, classless)):
        return logged
    if "Assertion" in line and _CUDA_ASSERT.search(line):
        return "CUDA error: device-side assertion failed: " + line.strip()[:_SHOWN_ERROR_CHARS]
    if "<class '" in line:
        c = _CLASS_REPR.search(line)
        if c is not None and c.group(1).endswith(("Error", "Exception")):
            return c.group(1) + ": " + c.group(2).strip()[:_SHOWN_ERROR_CHARS]
    if "what():" in line:
        c = _CPP_WHAT.match(line)
        if c is not None:
            return "C++ exception: " + c.group(1).strip()[:_SHOWN_ERROR_CHARS]
    if "[E" in line and ".c" in line:
        c = _CPP_ERROR.search(line)
        if c is not None:
            # the file that logged it names the part that failed (ProcessGroupNCCL.cpp: NCCL)
            return f"C++ error in {c.group(1).rsplit('/', 1)[-1]}: " + c.group(2).strip()[:_SHOWN_ERROR_CHARS]
    m = _EXC_LINE.match(line)
    if m is None and ("Error" in line or "Exception" in line):
        # the logger's time stamp and level in front (``2022-12-28 16:13:02 [ERROR] RuntimeError: ...``)
        p = _PREFIX.match(line)
        m = _EXC_LINE.match(_LOG_LEVEL.sub("", line[p.end():] if p else line, 1))
    if m and m.group(3) and m.group(2) not in ("KeyboardInterrupt",) and \
            (m.group(2).endswith("Error") or "OutOfMemory" in m.group(2)) and not _NUMBERS_ONLY.fullmatch(m.group(3)):
        return m.group(1) + ": " + m.group(3)
    return None


def _classless_message(line: str, openings: tuple) -> str | None:
    """The message of ``line`` behind a logger's time stamp, level and name when it begins with one of
    ``openings`` (a fatal error logged without its exception's class), else None."""
    if not any(o in line for o in openings):
        return None
    p = _PREFIX.match(line)
    message = _LOG_LEVEL.sub("", line[p.end():] if p else line, 1).strip()
    for text in (message, _LOGGER_NAME.sub("", message, 1)):
        if text.startswith(openings):
            return text[:_SHOWN_ERROR_CHARS]
    return None


def error_kind(message: str, kinds) -> str:
    """The error kind (kb/facts.yaml ``error_kind``, or ``nonfinite``) of an exception message; ``kinds``:
    (pattern, kind) pairs in order (``console.error_kinds``, compiled in
    :class:`~traindx.probes.readers.words.LogWords`)."""
    if _NAN_ERROR.search(message) and not re.search(r"out of memory", message, re.I):
        return "nonfinite"
    for rx, k in kinds:
        if rx.search(message):
            return k
    return "other_error"


@dataclass
class ConsoleLog(LogData):
    """A :class:`LogData` read from console text, with what the text said besides its metrics.

    ``lines`` counts the lines read; ``errors`` lists the tracebacks (``{"line", "kind",
    "message"}``, first ``console.max_events``); ``nan_warnings`` counts lines that report a
    NaN/Inf loss or gradient in words, ``nan_warning_lines`` the first of them; ``restart_lines``
    the lines where a restart begins; ``epochs`` the epochs seen; ``names`` the metric names as
    printed, by role; ``styles`` the line shapes that held metrics.
    """

    lines: int = 0
    errors: list = field(default_factory=list)
    error_count: int = 0
    nan_warnings: int = 0
    nan_warning_lines: list = field(default_factory=list)
    nan_warning_x: float | None = None
    nan_report_step: int | None = None
    nan_made: tuple | None = None   # (console line, "file:line", operation) of NumPy's first NaN made by the script
    restart_lines: list = field(default_factory=list)
    epochs: int = 0
    names: dict = field(default_factory=dict)
    styles: list = field(default_factory=list)
    held_out: dict = field(default_factory=dict)
    first_epoch: float | None = None
    data_wait: tuple | None = None
    float_floor: tuple | None = None
    #: the loss functions named by the autograd node of a printed loss tensor (``tensor(0.6876,
    #: grad_fn=<BinaryCrossEntropyBackward>)``): ``{loss_function: (lines, first line)}``
    loss_nodes: dict = field(default_factory=dict)
    #: where each epoch's training records begin (x of its first record), when the lines count
    #: steps within each epoch ("[epoch 3][iter 40/91]"), so that a curve can be read by its
    #: position in the epoch; empty otherwise
    epoch_starts: list = field(default_factory=list)
    other_nonfinite: tuple | None = None
    #: a mixed-precision loss scale driven below ``console.loss_scale_floor`` by a cascade of
    #: overflows with no step between, or stuck at a minimum no higher than it: ``(halvings, scale
    #: before, scale after, first line, overflows reported at the minimum)``
    scale_collapse: tuple | None = None
    #: every overflow report of a mixed-precision loss scaler: ``(reports, first line, lowest scale
    #: set)``, None when there was none
    scale_reports: tuple | None = None
    #: the loss scale printed (a loss_scale column of a record, or set by an overflow report)
    #: falling ``console.loss_scale_fall_halvings`` halvings or more to ``console.loss_scale_floor``
    #: or below: ``(halvings, highest scale before, scale, line, "column" or "overflow")``
    scale_fall: tuple | None = None
    rl_names: list = field(default_factory=list)
    #: the finite Cohen's kappas printed: ``(best, how many, line of the first)``, None when none was
    kappa_best: tuple | None = None
    #: the scores of a detector's evaluation summaries (the YOLO family's ``all`` row under its ``Class Images
    #: ... P R mAP50`` header, console_detect): ``(best score, rows, line of the first, epoch of the last or
    #: None)``, None when none was printed
    detection_best: tuple | None = None
    #: PyTorch's loss warning that the target's size differs from the input's and the two broadcast
    #: to more elements than either holds (a (B, 1) output against a (B,) target gives B x B
    #: pairs): ``(lines, first line, input size, target size)``, None when there was none
    size_warning: tuple | None = None
    #: the printed names whose roles were guessed from their values (:mod:`.console_guess`), by role
    guessed_names: dict = field(default_factory=dict)
    #: lines that print a speed and no metric (a bare progress bar's ``132.68s/it``, ``Steps/second:
    #: 0.0142``) in a text whose metric lines print no time per step: ``(lines, median seconds per
    #: step)``. Set on the log only where there are some (not a dataclass field, so a log without
    #: them reads as before); the curve reads its speed from them when the metrics show no course
    #: (curves: speed_lines_apart)
    speed_apart = None
    #: whether the training metrics come from a progress bar that prints each epoch's running mean
    #: (Keras' ``16/63 [=====>....] - loss: ..``): their saw-tooth with the position in the epoch is
    #: the average's restart, not the order of the data (curves: oscillation_pattern). Set on the log
    #: only where one was seen, like speed_apart
    epoch_mean_bar = False

    def describe(self) -> str:
        """One line: ``Read run.out: 41,200 lines, 3 metrics (loss, val_loss, lr) over 12 epochs;
        1 restart at line 18,433.``"""
        return describe(self)

    def _other_nonfinite_evidence(self, out: list, where: str) -> list:
        """A loss printed under a second name that turned NaN/Inf (``other_nonfinite``) is
        non-finite loss evidence when the curve's own loss shows none."""
        if self.other_nonfinite is None or any(f.fact == "loss_has_nonfinite" and f.value is True for f in out):
            return out
        name, count, x = self.other_nonfinite
        out = [f for f in out if f.fact not in ("loss_has_nonfinite", "loss_trend")]
        out.append(Finding("loss_has_nonfinite", True, f"log:{where}:{name}",
                           f"{name} is NaN/Inf in {count} record(s)"
                           + (f" (first at {self.x_label} {x:g})" if x is not None else "")))
        if x is not None and not any(f.fact == "nan_first_step" for f in out):
            out.append(Finding("nan_first_step", int(x), f"log:{where}:{name}",
                               f"{name} is first NaN/Inf at {self.x_label} {x:g}"))
        return out

    def _nan_report_step_evidence(self, out: list, where: str) -> list:
        """A NaN/Inf report that names its step ("Loss became infinite or NaN at iteration=756!") in a log whose
        records carry no step of their own (counted by rows: a ``loss_dict`` printed under the report is row 0)
        says where the run first went non-finite: that step is ``nan_first_step``, not the row."""
        if self.nan_report_step is None or self.x_label != "row":
            return out
        first = self.nan_warning_lines[0] if self.nan_warning_lines else None
        return [f for f in out if f.fact != "nan_first_step"] + [
            Finding("nan_first_step", self.nan_report_step, f"log:{where}:line {first}" if first else f"log:{where}",
                    f"a NaN/Inf report names the step it happened at: {self.nan_report_step}")]

    def _nan_made_evidence(self, out: list, where: str) -> list:
        """NumPy's warning that a line of the script made NaN in an array (``script_made_nan``)."""
        if self.nan_made is not None:
            first, at, op = self.nan_made
            out.append(Finding("script_made_nan", True, f"log:{where}:line {first}",
                               f"NumPy warned that {at} made NaN in an array (invalid value encountered in {op}): "
                               "the script's own arithmetic on its arrays, not a library's"))
        return out

    def _size_warning_evidence(self, out: list, where: str) -> list:
        """PyTorch's target-size warning whose sizes broadcast to more elements than either holds
        (``size_warning``): the loss compares every output with every target."""
        if self.size_warning is None or any(f.fact == "loss_shape_mismatch" for f in out):
            return out
        n, first, inp, tgt = self.size_warning
        out.append(Finding("loss_shape_mismatch", True, f"log:{where}:line {first}",
                           f"PyTorch warned {n} time(s) that the target size {tgt} differs from the "
                           f"input size {inp}: the loss broadcasts them into pairs that do not belong "
                           "together"))
        out.append(Finding("loss_broadcast_expands", True, f"log:{where}:line {first}",
                           f"a target of size {tgt} against an input of size {inp} broadcasts to "
                           "more elements than either holds: every output is compared with every target"))
        return out

    def _detection_evidence(self, out: list, where: str, P) -> list:
        """``out`` and ``detection_score_best``, the best precision, recall or mAP of every detection
        summary the text printed; not when the last came before epoch console.detection_min_epoch (a
        detector from scratch finds nothing in its first epochs)."""
        if self.detection_best is None:
            return out
        best, n, line, epoch = self.detection_best
        if epoch is not None and epoch < float(P["console.detection_min_epoch"]):
            return out
        out.append(Finding("detection_score_best", round(best, _VALUE_DECIMALS), f"log:{where}:line {line}",
                           f"the best precision, recall or mAP of the {n} detection summary row(s) printed: "
                           f"{best:.4g}"))
        return out

    def _kappa_evidence(self, out: list, where: str, P) -> list:
        """``out`` and ``kappa_best``, the best Cohen's kappa the text printed, and the best score of its
        detection summaries (:meth:`_detection_evidence`)."""
        if self.kappa_best is not None:
            best, n, line = self.kappa_best
            out.append(Finding("kappa_best", round(best, _VALUE_DECIMALS), f"log:{where}:line {line}",
                               f"the best of the {n} Cohen's kappa(s) printed: {best:.4g} (0 is a guess's "
                               "agreement with the labels, whatever the classes' balance)"))
        return self._detection_evidence(out, where, P)

    def _scale_warmup_evidence(self, out: list, where: str, P) -> list:
        """Overflow reports that left the loss scale at ``console.loss_scale_warmup_min`` or more,
        with no collapse and no other non-finite evidence: the dynamic loss scaler's warm-up
        (``loss_scale_warmup``; it starts high and halves on each overflow, skipping those steps)."""
        rep = self.scale_reports
        if rep is None or self._scale_fell() or rep[2] < float(P["console.loss_scale_warmup_min"]) \
                or any(f.fact in ("grads_have_nan", "loss_has_nonfinite") and f.value is True for f in out) \
                or self.nan_warnings:
            return out
        n, line, low = rep
        out.append(Finding("loss_scale_warmup", True, f"log:{where}:line {line}",
                           f"{n} overflow report(s) of the loss scaler leave its scale at {low:.4g} or more, "
                           "far above 1: a dynamic loss scaler settling (those steps are skipped)"))
        if not any(f.fact == "grads_have_nan" for f in out):
            out.append(Finding("grads_have_nan", False, f"log:{where}:line {line}",
                               f"the loss scaler's overflows stop at a scale of {low:.4g}: its warm-up, not "
                               "gradients that stay non-finite"))
        return out

    def _scale_fell(self) -> bool:
        """Whether the loss scale collapsed (``scale_collapse``) or fell to a fraction of 1
        (``scale_fall``)."""
        return self.scale_collapse is not None or self.scale_fall is not None

    def _scale_fall_evidence(self, out: list, where: str) -> list:
        """The printed loss scale fallen to a fraction of 1 (``scale_fall``) or driven below the
        floor by a cascade of overflows (``scale_collapse``): ``loss_scale_collapsed``."""
        fall = self.scale_fall
        if fall is not None:
            line, said = fall[3], fall_said(fall)
        elif self.scale_collapse is not None:
            line = self.scale_collapse[3]
            said = "the loss scaler's overflows drove its scale below 1 with no step between"
        else:
            return out
        out.append(Finding("loss_scale_collapsed", True, f"log:{where}:line {line}", said))
        return out

    def _scale_collapse_evidence(self, out: list, where: str) -> list:
        """A loss scale driven below the floor by a cascade of overflows (``scale_collapse``), or
        fallen to a fraction of 1 (``scale_fall``): the gradients are not finite."""
        out = self._scale_fall_evidence(out, where)
        if not self._scale_fell() or any(f.fact == "grads_have_nan" and f.value is True for f in out):
            return out
        out = [f for f in out if f.fact != "grads_have_nan"]
        if self.scale_collapse is None:
            out.append(Finding("grads_have_nan", True, f"log:{where}:line {self.scale_fall[3]}",
                               fall_grads_said(self.scale_fall)))
            return out
        halvings, before, after, line, stuck = self.scale_collapse
        if stuck:
            said = (f"the loss scaler reported {stuck} overflow(s) at its minimum scale {after:.4g}, unable "
                    "to lower it, with no step between: the gradients overflow even unscaled, so they are "
                    "not finite")
        else:
            said = (f"the loss scaler halved its scale {halvings:.0f} time(s) in a row with no step "
                    f"between ({before:.4g} -> {after:.4g}): the gradients overflow even below "
                    "a scale of 1, so they are not finite")
        out.append(Finding("grads_have_nan", True, f"log:{where}:line {line}", said))
        return out

    def evidence(self, findings: list, params=None) -> list:
        """``findings`` (the curve facts) plus what the text says: the crash's kind and message,
        NaN warnings as non-finite loss evidence. ``params``: the knowledge base's (a pack's included)."""
        P = resolve(params)
        out = list(findings)
        where = self.name
        if self.errors:
            last = self.errors[-1]
            src = f"log:{where}:line {last['line']}"
            if last["kind"] == "nonfinite" or (last["message"].endswith(_CUT_SHORT) and self._scale_fell()):
                # (a traceback cut short right after the loss scale collapsed: the scaler giving up)
                self.nan_warnings += 1
                self.nan_warning_lines.append(last["line"])
            else:
                out.append(Finding("error_kind", last["kind"], src,
                                   f"the run raised {last['message'][:_SHOWN_RAISED_CHARS]}"))
                out.append(Finding("error_message", last["message"][:_KEPT_ERROR_CHARS], src,
                                   "the last line of the traceback"))
        if self.rl_names:
            out.append(Finding("rl_training", True, f"log:{where}",
                               "the log prints an agent's rewards "
                               f"({', '.join(self.rl_names[:_SHOWN_RL_NAMES])}): reinforcement learning"))
        if len(self.loss_nodes) == 1 and not any(f.fact == "loss_function" for f in out):
            (kind, (n, first)), = self.loss_nodes.items()
            out.append(Finding("loss_function", kind, f"log:{where}:line {first}",
                               f"{n} printed loss tensor(s) carry the autograd node of {kind} "
                               "(grad_fn=<...Backward>): the loss function that made them"))
        out = self._kappa_evidence(self._nan_made_evidence(self._size_warning_evidence(out, where), where), where, P)
        if self.float_floor is not None:
            value, name = self.float_floor
            out.append(Finding("loss_at_float_floor", True, f"log:{where}:{name}",
                               f"{name} ends at {value:g}, -ln of the smallest float: the probability "
                               "of the true class underflowed to 0 (a clamped log(0))"))
        if self.data_wait is not None and not any(f.fact == "data_time_fraction" for f in out):
            share, lines, apart = self.data_wait
            if lines >= int(P["console.min_timing_lines"]):
                out.append(Finding("data_time_fraction", round(share, _SHARE_DECIMALS), f"log:{where}",
                                   f"the data-loading time printed on {lines} line(s) is {share:.0%} of "
                                   + ("the data time plus the step time" if apart else "the step time")))
        for fact, (value, name) in sorted(self.held_out.items()):
            out.append(Finding(fact, round(value, _VALUE_DECIMALS), f"log:{where}:{name}",
                               f"the last {name} printed: {value:.4g} (a test set apart from the "
                               f"validation series)"))
        gn = self.get("grad_norm")
        if gn is not None and gn.rows and not gn.nonfinite and not any(
                f.fact == "grads_have_nan" for f in out):
            out.append(Finding("grads_have_nan", False, f"log:{where}:{self.columns.get('grad_norm')}",
                               f"all {gn.rows} printed gradient norms are finite"))
        if gn is not None and gn.nonfinite and not any(f.fact == "grads_have_nan" for f in out):
            share = float(P["console.grad_nan_share"])
            loss = self.get("loss")
            fin = gn.finite_points()
            # NaN/Inf norms only before the first finite one, with a finite loss: a dynamic loss
            # scaler starting high and halving on each overflow (those steps are skipped)
            calibrating = bool(fin) and 0 < len(gn.nonfinite_steps) == gn.nonfinite and \
                max(gn.nonfinite_steps) < fin[0].x0 and not (loss is not None and loss.nonfinite)
            if calibrating:
                out.append(Finding("grads_have_nan", False, f"log:{where}:{self.columns.get('grad_norm')}",
                                   f"the {gn.nonfinite} NaN/Inf gradient norm(s) come only before the first "
                                   "finite one: a mixed-precision loss scaler settling (those steps are skipped)"))
            elif gn.trailing_nonfinite or gn.nonfinite >= share * gn.rows or (
                    loss is not None and loss.nonfinite):
                out.append(Finding("grads_have_nan", True,
                                   f"log:{where}:{self.columns.get('grad_norm')}",
                                   f"{gn.nonfinite} of {gn.rows} gradient norms are NaN/Inf"))
        out = self._scale_collapse_evidence(self._other_nonfinite_evidence(out, where), where)
        if self.nan_warnings and not any(f.fact == "loss_has_nonfinite" and f.value is True
                                         for f in out):
            first = self.nan_warning_lines[0] if self.nan_warning_lines else None
            src = f"log:{where}:line {first}" if first else f"log:{where}"
            out = [f for f in out if f.fact not in ("loss_has_nonfinite", "loss_trend")
                   or (f.fact == "loss_trend" and False)]
            out.append(Finding("loss_has_nonfinite", True, src,
                               f"{self.nan_warnings} line(s) report a NaN/Inf loss or gradient "
                               f"(first at line {first})"))
            if self.nan_warning_x is not None and not any(f.fact == "nan_first_step" for f in out):
                out.append(Finding("nan_first_step", int(self.nan_warning_x), src,
                                   f"the first NaN/Inf report is at {self.x_label} "
                                   f"{self.nan_warning_x:g}"))
        return self._scale_warmup_evidence(self._nan_report_step_evidence(out, where), where, P)


def _untrailed(words: list, vocab: LogWords) -> list:
    """A name's words without the filler after its last metric word (``console.phrase_filler_words``):
    ``Validation perplexity is 6.6061`` names the perplexity, as ``Validation loss is`` names the loss."""
    end = len(words)
    while end > 1 and words[end - 1] in vocab.phrase_filler:
        end -= 1
    return words if end == len(words) else words[:end]


def _stand_in_role(words: list, eff: str | None, phrase: str, vocab: LogWords, scores: bool = False):
    """A value that stands in for a loss or an accuracy, ranked after every name of it: a
    perplexity (ln ppl is the cross-entropy), a log-likelihood (``console.log_likelihood_names``: its
    negation), an error rate (WER, CER, TER, ``char train``: 1 - the accuracy; ``console.error_rate_*``
    in the KB), an AUC; with ``scores`` (a text read again
    because it printed no loss and no accuracy) a quality score (``console.quality_score_names``);
    None for any other name."""
    last = words[-1] if words else None
    test = vocab.test_split_rank if eff == "test" else 0
    held_out = eff in ("val", "test")
    accuracy, loss = ("val_accuracy", "val_loss") if held_out else ("accuracy", "loss")
    if vocab.class_error(words, phrase):
        # a boosting round's classification error (``test-error:0.027``): 1 - the accuracy
        return accuracy, vocab.stand_in_rank + len(vocab.error_rates) + test, phrase, "complement"
    rate = vocab.error_rate(words)
    if rate is not None:
        return accuracy, vocab.stand_in_rank + vocab.error_rates[rate] + test, phrase, "complement"
    # a perplexity (its log), an objective printed with either sign convention (Kaldi's log-probability,
    # k2's negation), a log-likelihood, which rises as the model learns (its negation): the loss
    transform = "log" if last in vocab.perplexity else "sign" if last in vocab.signed_objective else \
        "negate" if vocab.names_log_likelihood(words) else None
    if transform is not None:
        return loss, vocab.stand_in_rank + test, phrase, transform
    if last in vocab.half_chance_scores and all(w in vocab.split for w in words[:-1]):
        # an AUC: 0.5 at chance and 1.0 when perfect, as a binary accuracy
        return accuracy, vocab.stand_in_rank + len(vocab.error_rates) + test, phrase, None
    score = _quality_score(words, vocab) if scores else None
    if score is not None:
        # an F1, Dice, mAP, BLEU or R2: the accuracy of a log that prints nothing else
        return accuracy, vocab.stand_in_rank + len(vocab.error_rates) + 1 + vocab.quality_scores[score] + test, \
            phrase, None
    return None


def _quality_score(words: list, vocab: LogWords) -> str | None:
    """The quality score a name's words name (``console.quality_score_names``: ``mean average dice``,
    ``valid scores bleu``, ``iou results miou``, ``train scores mean pearson r2 score``): the last of
    them, when every other word is a split word, a filler word, a heading word or a score too; None
    for any other name."""
    kept = [w for w in words if w not in vocab.split and w not in vocab.phrase_filler
            and w not in vocab.score_heading]
    if not kept or any(w not in vocab.quality_scores for w in kept):
        return None
    return kept[-1]



#: the rank of a word that names a run's objective without saying "loss" (DL4J's ``Score at
#: iteration 60 is 0.69``, a CNTK criterion node named ``error``): after every other reading of a
#: loss, a split word alone included


def _ngram_role(pwords: list, eff: str | None, phrase: str, vocab: LogWords):
    """The role of the longest run of a phrase's last words that names a metric (``train loss avg``,
    ``loss avg``, ``avg``), the split-qualified reading first; a loss named after other words that
    name one of its parts (:meth:`LogWords.names_a_part`) ranks after every name of the whole."""
    best = None
    split_words, match_role = vocab.split, vocab.match_role
    n = len(pwords)
    for size in _NAME_NGRAMS:
        start = n - size
        if start < 0:
            continue
        sub = [w for w in pwords[start:] if w not in vocab.phrase_filler or w == "total"] \
            if size > 1 else pwords[start:]
        if not sub:
            continue
        joined = "_".join(sub)
        cands = [joined]
        if eff and not any(t in split_words for t in joined.split("_")):
            cands.insert(0, eff + "_" + joined)
        for c in cands:
            m = match_role(c)
            if m is None:
                continue
            role, rank = m
            if role in ("step", "epoch", "time", "step_time"):
                continue
            if eff == "test" and role in ("val_loss", "val_accuracy"):
                rank += vocab.test_split_rank
            if role in ("loss", "val_loss") and rank < vocab.generic_rank and vocab.names_a_part(pwords[:start]):
                # ``Classification loss`` beside ``Regression loss`` and ``Total loss``: one part of the
                # objective, ranked after every name of the whole (a spelled total, a plain loss)
                rank += vocab.generic_rank + vocab.qualified_rank
            if best is None or rank < best[1]:
                best = (role, rank, phrase, None)
            break  # the split-qualified reading first: "Test ... accuracy" is a test accuracy
        if best is not None:
            break
    return best


def _objective_word_role(pwords: list, eff: str | None, phrase: str, words: frozenset, vocab: LogWords):
    """A training metric named by one of ``console.objective_words`` alone (``score``, ``error``)
    read as the loss of the last resort: what a training loop prints per iteration under such a
    name is the objective it minimises when nothing else is printed. A validation or test score
    (a BLEU or F1 ``score``) is no loss; None for any other name."""
    if eff in ("val", "test"):
        return None
    kept = [w for w in pwords if w not in vocab.phrase_filler and w not in vocab.split]
    if len(kept) != 1 or kept[0] not in words:
        return None
    return "loss", vocab.objective_word_rank, phrase, None


def _part_role(pwords: list, eff: str | None, phrase: str, vocab: LogWords):
    """One component of a loss (cross_entropy_loss, loss_cls) read as a loss of the last resort,
    ranked after every total and after perplexity; None for any other name. A split word before
    the kind of loss in one identifier (``val_margin_loss``, ``validation.margin_loss``,
    ``train_mse_loss``) names that split's loss of that kind, ranked the same (a plain ``val_loss``
    beside it is the curve); a path (``val/box_loss``) is read by :func:`_path_role`."""
    if not pwords:
        return None
    name = pwords[-1]
    if not _loss_part(name, False, vocab):
        words = [w for w in re.split(r"[^0-9a-z]+", name.lower()) if w]
        if len(pwords) != 1 or "/" in phrase or not words or words[0] not in vocab.split:
            return None
        eff = vocab.split[words[0]]
        if not _loss_part("_".join(words[1:]), False, vocab):
            return None
    role = "val_loss" if eff in ("val", "test") else "loss"
    return role, vocab.part_rank + (vocab.test_split_rank if eff == "test" else 0), phrase, None




def _qualified_role(pwords: list, phrase: str, vocab: LogWords):
    """A split's metric behind a qualifier of one identifier (``source_train_acc``,
    ``target_val_acc``, ``student_val_loss``): the trailing part that starts at a split word names
    the role; None when no part is a split word (``loss_rpn_cls`` stays a loss component)."""
    if len(pwords) != 1:
        return None
    parts = pwords[0].split("_")
    for i in range(1, len(parts) - 1):
        if parts[i] in vocab.split:
            m = vocab.match_role("_".join(parts[i:]))
            if m is not None and m[0] in ("loss", "val_loss", "accuracy", "val_accuracy"):
                return m[0], m[1] + vocab.qualified_rank, phrase, None
            return None
    return _split_first_accuracy(parts, phrase, vocab)


#: the parts of a split's accuracy behind qualifiers: the split word, at least one qualifier, the accuracy word
_QUALIFIED_ACCURACY_PARTS = 3


def _split_first_accuracy(parts: list, phrase: str, vocab: LogWords):
    """A split's accuracy with qualifiers between the split word and the accuracy word of one
    identifier (``valid_en_mlm_acc``: a language and a task, ``val_seg_acc``): that split's accuracy,
    ranked after every plain name of it; None when a middle part names a metric itself (a loss's
    accuracy is no such name) or the ends are not a split word and an accuracy word. A loss so
    qualified is a loss component (:func:`_part_role`)."""
    if len(parts) < _QUALIFIED_ACCURACY_PARTS or parts[0] not in vocab.split:
        return None
    m = vocab.match_role(parts[0] + "_" + parts[-1])
    if m is None or m[0] not in ("accuracy", "val_accuracy"):
        return None
    if any(vocab.match_role(w) is not None for w in parts[1:-1]):
        return None
    return m[0], m[1] + vocab.qualified_rank, phrase, None


def _split_alone_role(pwords: list, phrase: str, vocab: LogWords):
    """A split named alone ("tr 1.37 | va 1.79", "train 0.52 val 0.61") stands for that split's
    objective, ranked after every name that says what it measures; None for any other name."""
    if len(pwords) != 1 or pwords[0] not in vocab.split:
        return None
    split_only = vocab.split[pwords[0]]
    return ("val_loss" if split_only in ("val", "test") else "loss"), \
        vocab.split_alone_rank + (vocab.test_split_rank if split_only == "test" else 0), phrase, None


def _split_alone_scores(cands, best: dict, vocab: LogWords) -> None:
    """Split words printed alone beside a named loss (gluon's ``train=0.81 val=0.79 loss=0.52``,
    PyG's ``Loss: 0.52, Train: 0.81, Val: 0.79, Test: 0.78``) score something other than the loss:
    the training split's word lost to the named loss and printed other values, so the validation
    split's word is no validation loss either (it is dropped from ``best``, not guessed)."""
    v, lo = best.get("val_loss"), best.get("loss")
    alone, last = vocab.split_alone_rank, vocab.console_last_resort_rank
    if v is None or lo is None or not alone <= v.rank < last or lo.rank >= alone:
        return
    if any(c.role == "loss" and alone <= c.rank < last and c.series.rows
           and c.last != lo.last for c in cands):
        del best["val_loss"]


def _scores_only_beside_scores(best: dict, vocab: LogWords) -> None:
    """An AUC stands in for an accuracy only beside another AUC or no accuracy at all: a training
    accuracy and a validation AUC (``acc=0.80`` per step, ``auc=0.66`` per evaluation) measure two
    different things, and their difference is no gap (the AUC is dropped from ``best``)."""
    def is_score(c) -> bool:
        words = [w for w in normalize_name(c.name).split("_") if w]
        return bool(words) and words[-1] in vocab.half_chance_scores
    a, v = best.get("accuracy"), best.get("val_accuracy")
    if a is None or v is None or is_score(a) == is_score(v):
        return
    del best["accuracy" if is_score(a) else "val_accuracy"]


def _head_accuracy_role(pwords: list, eff: str | None, phrase: str, vocab: LogWords):
    """An accuracy word followed by the one word that names what it scores (``acc class : 87.50``,
    ``Accuracies on val: class : 88.96``: the accuracy of a model's ``class`` head or task), ranked
    after every name that ends in what it measures; None for any other name. Only an accuracy:
    a loss word in front of another word names a setting (``loss scale 128``). An error word after
    it (``logs.error_words``: ``Top1 error``, ``top1_err``, ``Top-1 err``) names the accuracy's
    complement, 1 - the accuracy, read as an error rate is (``accuracy rate`` stays the accuracy)."""
    words = [w for w in pwords if w not in vocab.phrase_filler and w not in vocab.split]
    if len(words) == 1 and "_" in words[0]:
        # one identifier (pycls's ``top1_err``): its parts, its split words apart
        words = [w for w in words[0].split("_") if w and w not in vocab.phrase_filler and w not in vocab.split]
        if len(words) != 2 or words[1] not in vocab.err_words:
            return None
    if len(words) != 2:
        return None
    m = vocab.match_role((eff + "_" if eff else "") + words[0])
    if m is None or m[0] not in ("accuracy", "val_accuracy"):
        return None
    test = vocab.test_split_rank if eff == "test" else 0
    if words[1] in vocab.err_words:
        return m[0], vocab.stand_in_rank + len(vocab.error_rates) + test, phrase, "complement"
    return m[0], vocab.part_rank + test, phrase, None


def _path_role(phrase: str, vocab: LogWords):
    """A name printed as a path of namespaces (Chainer's ``main/loss``, ``validation/main/accuracy``,
    a summary tag's ``eval/accuracy``): its last part names the metric, and a split word anywhere
    before it (``validation``, ``fast_validation``) its split; the parts between name a model or
    an optimizer. A last part that names one component of a loss (``train/generator_loss``,
    ``val/box_loss``, ``losses/value_loss``) is that split's loss of that kind, ranked as a loss's
    component (:func:`_part_role`). None when the last part names no loss or accuracy (``lr/pg0``).
    Words before the path that name nothing are a tool's tag on every line, not part of the name
    (W&B's run summary, ``wandb:    train/box_loss 1.667``): the path is the last word. Words that
    name a split or a metric (``val loss/acc``), or a summary of the run (``Best val/acc``), make the
    phrase no path."""
    tokens = phrase.split()
    parts = tokens[-1].split("/") if tokens else []
    if len(parts) < 2:
        return None
    if len(tokens) > 1:
        tag = normalize_name(" ".join(tokens[:-1]))
        words = set(tag.split("_"))
        if vocab.split.keys() & words or vocab.summary & words or vocab.match_role(tag) is not None:
            return None
    last = normalize_name(parts[-1])
    words = [w for p in parts[:-1] for w in normalize_name(p).split("_")]
    split = next((vocab.split[w] for w in words if w in vocab.split), None)
    test_rank = vocab.test_split_rank if split == "test" else 0
    m = vocab.match_role(last if split is None else split + "_" + last)
    if m is None and _loss_part(last, False, vocab):
        return ("val_loss" if split in ("val", "test") else "loss"), vocab.part_rank + test_rank, phrase, None
    if m is None or m[0] not in ("loss", "val_loss", "accuracy", "val_accuracy"):
        return None
    return m[0], m[1] + test_rank, phrase, None


def _timing_pair(rs) -> tuple | None:
    """The positions of a data-loading time and a step time among a record's roles, or None."""
    d = st = None
    for i, r in enumerate(rs):
        if r[0] == "data_wait":
            d = i
        elif r[0] == "step_wait":
            st = i
    return None if d is None or st is None else (d, st)


def _fmt_int(n) -> str:
    return f"{int(n):,}"


def _broadcast_numel(a: tuple, b: tuple) -> int:
    """The number of elements two shapes broadcast to (0 when they do not broadcast)."""
    n = 1
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return 0
        n *= max(x, y)
    return n


def describe(log: LogData) -> str:
    """``Read NAME: N lines, K metrics (...) over E epochs; R restarts at line L.`` for any log."""
    roles = [r for r in ("loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm")
             if r in log.series]
    n = len(roles)
    what = f"{n} metric{'s' if n != 1 else ''} ({', '.join(roles)})" if n else "no metrics"
    lines = getattr(log, "lines", 0)
    head = f"Read {log.name}: " + (f"{_fmt_int(lines)} lines, " if lines else
                                    f"{_fmt_int(log.rows)} rows, ")
    span = ""
    epochs = getattr(log, "epochs", 0)
    if epochs:
        span = f" over {epochs} epoch{'s' if epochs != 1 else ''}"
    else:
        xs = [s.last_x for s in log.series.values() if s.last_x is not None]
        if xs and log.x_label in ("step", "epoch"):
            span = f" over {_fmt_int(max(xs))} {log.x_label}s"
    text = head + what + span
    if getattr(log, "guessed_names", None):
        text += " (names in unknown words, read by their values)"
    if "step_time" in log.series:
        text += ", and the time per step"
    rl = getattr(log, "restart_lines", None)
    if rl:
        text += (f"; {len(rl)} restart{'s' if len(rl) != 1 else ''} at line"
                 f"{'s' if len(rl) != 1 else ''} " + ", ".join(_fmt_int(x) for x in rl[:_SHOWN_RESTARTS]))
    elif log.restarts:
        text += f"; {len(log.restarts)} restart{'s' if len(log.restarts) != 1 else ''}"
    errors = getattr(log, "errors", None)
    if errors:
        e = errors[-1]
        text += f"; a traceback at line {_fmt_int(e['line'])} ({e['message'][:_SHOWN_TRACE_CHARS]})"
    nw = getattr(log, "nan_warnings", 0)
    if nw:
        text += f"; {nw} NaN/Inf warning{'s' if nw != 1 else ''}"
    return text + "."


# ------------------------------------------------------------------------------ the reader
class _Cand:
    __slots__ = ("role", "rank", "name", "series", "bx", "by", "last", "transform", "unit", "clock")

    def __init__(self, role, rank, name, transform=None):
        self.role, self.rank, self.name = role, rank, name
        self.unit = None   # an error rate's unit (1 or 100), or a signed objective's sign, from its first value
        self.series = Series(role, name, want_sq=role in ("loss", "val_loss"))
        self.bx, self.by = [], []
        self.last = None
        self.transform = transform
        self.clock = None  # a time printed under a name that may be a running clock: its differences (_Clocks)

    def flush(self) -> None:
        """The values buffered since the last flush onto the curve (and onto the clock's differences)."""
        if self.clock is not None:
            self.clock.feed(self.bx, self.by)
        self.series.extend(self.bx, self.by)
        self.bx, self.by = [], []

    def restart_from(self, x: float) -> None:
        """A run started again at ``x``: the curve keeps only its values before it."""
        self.flush()
        self.series.restart_from(x)


def _cut_back(cands, origin: float) -> None:
    """A run begun again at ``origin``: each of the record's metrics keeps its values from before it."""
    for c in cands:
        if c is not None:
            c.restart_from(origin)


class _Clocks:
    """A time printed on each record under a name that does not say per what (``time: 101.3``, ``Time 5.2s``,
    ``elapsed``: ``logs.role_spellings``' time names) that only counts up is a clock running since the start,
    not the time a step took (a mixin of :class:`ConsoleReader`, using its ``words`` and ``log``). Its
    differences per record, as the CSV reader takes a time-stamp column's, become the step-time curve."""

    def _init_clocks(self, p) -> None:
        self.clock_names = frozenset(self.words.aliases.get("time", ()))
        self.clock_back_share = float(p["logs.time_stamp_back_share"])
        self.clock_min_records = int(p["console.clock_min_records"])

    def _watch_clock(self, c: _Cand) -> None:
        if c.role == "step_time" and c.transform is None and normalize_name(c.name) in self.clock_names:
            c.clock = StepTimer(c.name)

    def _clock_series(self, best: dict) -> None:
        """The step-time curve of a clock: its differences per step (or epoch) when the time went up between
        all but ``logs.time_stamp_back_share`` of its consecutive records, over at least
        ``console.clock_min_records`` records (a duration per step goes up and down)."""
        c = best.get("step_time")
        t = c.clock if c is not None else None
        if t is None or t.pairs + 1 < self.clock_min_records:
            return
        if t.series.rows < (1 - self.clock_back_share) * t.pairs:
            return
        c.series = t.series
        self.log.time_kind = "cumulative"
        per = "record" if self.log.x_label == "row" else self.log.x_label
        self.log.notes.append(f"{c.name} only counts up over {t.pairs + 1} records, a clock since the start: "
                              f"the time per {per} is read from its differences")


class _RunFacts:
    """What a console log says beyond its curves, gathered while reading (a mixin of
    :class:`ConsoleReader`, using its ``cands``, ``log`` and ``params``): the time spent waiting
    for data beside the step time, a held-out test evaluation, a loss at the float floor."""

    def _float_floor(self) -> None:
        """A loss (any loss printed, a component too) whose last value is -ln FLT_MIN: the
        probability underflowed to 0 and the log(0) was clamped (``log.float_floor``). Also one
        that reached the floor on the way (its largest value) and still ends near it
        (console.float_floor_stays of the floor or more): batches at the floor and between it, the
        model still saturated at the end."""
        floors = [float(v) for v in self.params["console.float_floor_losses"]]
        rtol = float(self.params["console.float_floor_rtol"])
        stays = float(self.params["console.float_floor_stays"])
        for c in self.cands.values():
            last, top = c.series.last_value, c.series.max
            if c.role not in ("loss", "val_loss") or last is None or not math.isfinite(last):
                continue
            if any(abs(last - f) <= rtol * f for f in floors):
                self.log.float_floor = (last, c.name)
                return
            if any(abs(top - f) <= rtol * f and last >= stays * f for f in floors):
                self.log.float_floor = (top, c.name)
                return

    def _timing(self, data: float, step: float) -> None:
        """One line's data-loading time beside its step time. A data time above the step time
        says the step time leaves the data wait out (``updt_s``): the step is their sum."""
        if not (math.isfinite(data) and math.isfinite(step)) or data < 0 or step < 0:
            return
        self.t_data += data
        self.t_step += step
        self.t_lines += 1
        if data > step:
            self.t_apart = True

    def _other_nonfinite(self, best: dict) -> None:
        """A loss printed under another name than the one the curve follows (``Mean Training
        loss : nan`` under a progress bar's ``loss=1.9e+04``, a component such as ``loss_bbox``)
        that turned NaN/Inf: the run produced a non-finite loss even when the curve shows none.
        Kept as ``(name, count, first x)`` of the candidate with the most such values."""
        worst = None
        for c in self.cands.values():
            if c.role not in ("loss", "val_loss") or best.get(c.role) is c or not c.series.nonfinite:
                continue
            chosen = best.get("loss")
            if chosen is not None and chosen.series.nonfinite:
                return   # the curve itself shows it
            if worst is None or c.series.nonfinite > worst.series.nonfinite:
                worst = c
        if worst is not None:
            steps = worst.series.nonfinite_steps
            self.log.other_nonfinite = (worst.name, worst.series.nonfinite, steps[0] if steps else None)

    def _loss_node(self, line: str) -> None:
        """A loss tensor printed with its autograd node names the loss function that made it
        (``loss tensor(0.6876, grad_fn=<BinaryCrossEntropyBackward>)``). Only a line with one
        node counts: a dict of several loss terms (``loss_dict = {'loss_cls': tensor(..., grad_fn=
        <NllLossBackward>), 'loss_mask': tensor(..., grad_fn=<BinaryCrossEntropy...>)}``) names
        the terms' functions, not the objective's."""
        nodes = _GRAD_FN.findall(line)
        if len(nodes) != 1:
            return
        kind = _LOSS_NODES.get(nodes[0].lower())
        if kind is None:
            return
        seen = self.log.loss_nodes
        n, first = seen.get(kind, (0, self.line_no))
        seen[kind] = (n + 1, first)

    def _size_warning(self, line: str) -> bool:
        """PyTorch's ``Using a target size (torch.Size([64])) that is different to the input size
        (torch.Size([64, 1]))``: remembered (``log.size_warning``) when the two sizes broadcast to
        more elements than either has, the loss then averaging pairs that do not belong together
        (a size (1,) against () broadcasts harmlessly and is not)."""
        m = _SIZE_WARN.search(line)
        if m is None:
            return False
        tgt, inp = (tuple(int(d) for d in re.findall(r"\d+", g)) for g in m.groups())
        if _broadcast_numel(inp, tgt) <= max(math.prod(inp), math.prod(tgt)):
            return True
        n, first, _, _ = self.log.size_warning or (0, self.line_no, None, None)
        self.log.size_warning = (n + 1, first, list(inp), list(tgt))
        return True

    det_counts = None   # the count columns of the last detection summary's header (console_detect)

    def _warning_line(self, line: str) -> bool:
        """A library's warning this reader takes a fact from (True: the line is read); a detection
        summary's header or row is noted on the way, and read on as before."""
        if "mAP" in line or (self.det_counts is not None and "all" in line):
            self._detection_line(line)
        return ("different to the input size" in line and self._size_warning(line)) or (
            "invalid value encountered" in line and self._nan_made_warning(line))

    def _detection_line(self, line: str) -> None:
        """A detection summary's header (how many counts its rows print first) or its ``all`` row, whose
        best score is kept (``log.detection_best``)."""
        counts = header_counts(line) if "mAP" in line else None
        if counts is not None:
            self.det_counts = counts
            return
        scores = row_scores(line, self.det_counts) if self.det_counts is not None else None
        if scores is None:
            return
        top, best = max(scores), self.log.detection_best
        epoch = self.epoch if self.epoch is not None else (self.last_x if self.log.x_label == "epoch" else None)
        self.log.detection_best = (top, 1, self.line_no, epoch) if best is None else \
            (max(best[0], top), best[1] + 1, best[2], epoch)

    def _nan_made_warning(self, line: str) -> bool:
        """NumPy's ``train.py:49: RuntimeWarning: invalid value encountered in divide``: the first one
        raised by a script's own line (an installed library's files are not the script's) is
        remembered (``log.nan_made``)."""
        m = _NAN_MADE_WARN.search(line)
        if m is None:
            return False
        if self.log.nan_made is None and not _LIBRARY_PATH.search(m.group("file")):
            self.log.nan_made = (self.line_no, f"{os.path.basename(m.group('file'))}:{m.group('line')}", m.group("op"))
        return True

    def _held_out(self, best: dict) -> None:
        """The last test-set loss/accuracy printed beside a validation series (``test_loss``,
        ``test_accuracy`` in ``log.held_out``): a held-out evaluation the validation curve does not
        show."""
        for role, key in (("val_loss", "test_loss"), ("val_accuracy", "test_accuracy")):
            chosen = best.get(role)
            tests = [c for c in self.cands.values() if c.role == role and c is not chosen
                     and c.last is not None and math.isfinite(c.last)
                     and any(self.words.split.get(w) == "test" for w in normalize_name(c.name).split("_"))]
            if chosen is None or not tests:
                continue
            c = tests[-1]
            v = c.last / 100.0 if key == "test_accuracy" and c.last > 1 else c.last
            self.log.held_out[key] = (v, c.name)



#: (starts only where a run of blanks or digits starts: linear time on a long line of either)
_BAR_AT = re.compile(r"(?<!\s)(?!(?<=\d)\d)\s*\d+%\|")


def _redraws(line: str) -> list:
    """The progress-bar redraws of ``line`` when several were run together (``| epoch 014:   3%| |
    1/35 [..., loss=11.557, ...| epoch 014:   6%| | 2/35 [...``): each redraw starts with the same
    description as the first, as long as the first's (its digits aside); ``[line]`` when the
    redraws cannot be told apart that way."""
    bars = list(_BAR_AT.finditer(line))
    width = bars[0].start()
    if width == 0:
        return [line]
    desc = shape(line[:width])
    cuts = [0]
    for m in bars[1:]:
        a = m.start() - width
        if a <= cuts[-1] or shape(line[a:m.start()]) != desc:
            return [line]
        cuts.append(a)
    return [line[a:b] for a, b in zip(cuts, cuts[1:] + [len(line)])]


def _nan_row(line: str, min_numbers: int) -> bool:
    """A line of numbers only (a table row whose header the excerpt left out: ``49/300  6.4G
    nan  nan  nan  28  416``, or a CSV's rows pasted without their header, ``210,nan,nan,1.0,5.0``; dashes stand
    for a cell left empty) with NaN/Inf cells among at least ``min_numbers``
    (``console.min_headerless_row_numbers``) finite ones: a printed table of the run's metrics
    turned non-finite. A row of more than that many cells that are all NaN/Inf (``NaN  NaN  NaN
    NaN`` under Julia's ``2x10 CuArray{Float32,2}:``, a matrix as R or MATLAB print it) is an array
    the script printed - its outputs or weights - gone non-finite."""
    m = _PREFIX.match(line)
    text = line[m.end():] if m else line
    bar = _PROGRESS.search(text)
    if bar:
        text = text[:bar.start()]
    cells = [c for c in _ROW_CELL_SEPARATORS.split(text) if c]
    if cells and cells[-1].endswith(":"):
        cells[-1] = cells[-1][:-1]
    bad = finite = 0
    for c in cells:
        if c.strip("-") == "":
            continue   # a placeholder for a cell with no value this row (``----``)
        if _ROW_NONFINITE.fullmatch(c):
            bad += 1
        elif _ROW_NUMBER.fullmatch(c):
            finite += 1
        else:
            return False
    if finite == 0:
        return bad > min_numbers   # an array printed with every cell NaN/Inf (the model's outputs)
    return bad > 0 and finite >= min_numbers


def _layouts(p) -> dict:
    """``console.headerless_layouts`` by their number of columns: the column layouts of tables
    that tools write without a header line."""
    out: dict = {}
    for names in p["console.headerless_layouts"]:
        out.setdefault(len(re.split(r"\s{2,}", names.strip())), names)
    return out


def _best_candidates(cands) -> dict:
    """The candidate each role's curve follows: the best-ranked name, the most rows among equals.
    A name printed once (a progress bar's last redraw above per-epoch summaries) has no curve:
    any name of the role printed more often goes first."""
    most: dict = {}
    for c in cands:
        most[c.role] = max(most.get(c.role, 0), c.series.rows)

    def order(c):
        return (c.series.rows < 2 <= most[c.role], c.rank, -c.series.rows)
    best: dict = {}
    for c in cands:
        if c.series.rows == 0:
            continue
        b = best.get(c.role)
        if b is None or order(c) < order(b):
            best[c.role] = c
    return best


def _scale_names(names) -> re.Pattern:
    """A loss-scale column's name (any of ``names``, their words joined by a space, an underscore,
    a hyphen or nothing) and the number after it, quoted or not."""
    alts = sorted((r"[\s_-]?".join(re.escape(w) for w in str(n).lower().split()) for n in names),
                  key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(alts) + r")(?![A-Za-z0-9])[\"']?\s*[:=]?\s*[\"']?"
                      r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?![\d.])", re.IGNORECASE)


class _Overflows:
    """Line shapes read beside the records (a mixin of :class:`ConsoleReader`, using its ``log``,
    ``metric_lines``, ``_feed`` and table methods): progress-bar redraws run together on one line,
    a table's rows printed without its header, a mixed-precision loss scaler's overflow reports."""

    def _init_name_words(self, p) -> None:
        """The words around a metric's name: those that bind it to the axis after it
        (``console.axis_joiners``), the axes printed abbreviated (``console.abbreviated_axis_words``),
        the length of a parenthesised aside inside it (``console.name_aside_words``), and the calls
        that wrap its value (``console.value_wrapper_calls``)."""
        self.axis_joiners = frozenset(str(w).lower() for w in p["console.axis_joiners"])
        self.axis_abbrevs = abbreviated_axes(p["console.abbreviated_axis_words"])
        self.aside_words = tuple(int(n) for n in p["console.name_aside_words"])
        self.value_calls = value_calls(p["console.value_wrapper_calls"])

    def _init_overflows(self, p) -> None:
        self._init_clocks(p)   # (after the vocabulary: a clock's names are the time role's)
        self.layouts = _layouts(p)
        self.scale_floor = float(p["console.loss_scale_floor"])
        self.scale_cascade = float(p["console.loss_scale_cascade_halvings"])
        self.scale_stuck = int(p["console.loss_scale_stuck_reports"])
        self.scale_watch = ScaleFall(p)   # the deepest fall of the scales printed (log.scale_fall)
        self.last_rs = ()        # the roles of the last record read
        self.scale_column = _scale_names(p["console.loss_scale_names"])
        # the loss scaler's overflows since the last record: (halvings, scale before the first,
        # last scale, line of the first, metric_lines when the last was read, reports at a minimum)
        self.overflow_run = None

    def _redrawn(self, line: str) -> bool:
        """Progress-bar redraws run together on one line (the carriage returns lost in a copy):
        each redraw fed as the line it was (True), or False when they cannot be told apart."""
        pieces = _redraws(line)
        if len(pieces) < 2:
            return False
        for piece in pieces:
            self._feed(piece)
        return True

    def _headerless(self, line: str) -> bool:
        """A row of numbers only, with no header in force, whose cells are as many as one of
        ``console.headerless_layouts`` names: that layout is its header (returns True, the row read)."""
        cells = line.split()
        names = self.layouts.get(len(cells))
        if names is None or not all(_ROW_NUMBER.fullmatch(c) for c in cells) or not self._maybe_header(names):
            return False
        row = self._table_row(line)
        if row is None:
            self.header = None
            return False
        self._table_record(row)
        return True

    def _overflow_line(self, line: str) -> tuple | None:
        """``(scale, stuck)`` of an overflow report (see ``_SCALE_DOWN``), counted: the scale it
        sets, and whether it started from that scale (a scaler at its minimum); else None."""
        m = _SCALE_DOWN.search(line)
        try:
            if m is None:
                r = _SCALE_REDUCED.search(line)
                if r is None:
                    return None
                out = (float(r.group(2)), False, float(r.group(1)), False)
            else:
                f = _SCALE_FROM.search(line, 0, m.start(1))
                scale = float(m.group(1))
                start = None if f is None else float(f.group(1))
                out = (scale, start == scale, start, True)
        except ValueError:
            return None
        self._scale_down(*out)
        return out

    def _scale_column_line(self, line: str) -> None:
        """A training record's loss-scale column (``console.loss_scale_names``): a reading. The record
        must hold a metric read by its name (ranked before ``logs.generic_rank``): a configuration
        dump's ``"loss_scale": 0`` (DeepSpeed's dynamic scale) is read as a last-resort loss only."""
        m = self.scale_column.search(line)
        if m is None or not any(r[1] < self.words.generic_rank for r in self.last_rs):
            return
        try:
            scale = float(m.group(1))
        except ValueError:
            return
        if math.isfinite(scale) and scale >= 0:
            self._scale_seen(scale, "column")

    def _scale_seen(self, scale: float, how: str) -> None:
        """One loss scale the log printed. At ``console.loss_scale_floor`` or below, and
        ``console.loss_scale_fall_halvings`` halvings or more below the highest scale printed before
        it (or ``console.loss_scale_start_min``): kept as ``log.scale_fall``, the deepest fall."""
        self.scale_watch.seen(scale, self.line_no, how)
        self.log.scale_fall = self.scale_watch.fall

    def _scale_down(self, scale: float, stuck: bool = False, start: float | None = None,
                    counted: bool = True) -> None:
        """One overflow that set the loss scale to ``scale`` (from ``start`` when the report says),
        both read as scales printed (:meth:`_scale_seen`); a report that is not ``counted`` (a
        scaler's own line beside the overflow's) ends there. Overflows with no record between them
        are one cascade; a cascade of at least ``console.loss_scale_cascade_halvings`` halvings that
        ends below ``console.loss_scale_floor``, or one that reports at least
        ``console.loss_scale_stuck_reports`` overflows at a minimum scale no higher than the floor
        (``stuck``: the scaler cannot lower it), is kept as ``log.scale_collapse``."""
        if start is not None:
            self._scale_seen(start, "overflow")
        self._scale_seen(scale, "overflow")
        if not counted:
            return
        rep = self.log.scale_reports
        self.log.scale_reports = (1, self.line_no, scale) if rep is None else \
            (rep[0] + 1, rep[1], min(rep[2], scale))
        run = self.overflow_run
        if run is None or run[4] != self.metric_lines or scale > run[2]:
            run = (0, scale * 2.0, scale, self.line_no, self.metric_lines, 0)
        before = run[1]
        halvings = math.log2(before / scale) if scale > 0 else math.inf
        run = (halvings, before, scale, run[3], self.metric_lines, run[5] + (1 if stuck else 0))
        self.overflow_run = run
        old = self.log.scale_collapse
        if scale < self.scale_floor and halvings >= self.scale_cascade and (
                old is None or halvings > old[0]):
            self.log.scale_collapse = run[:4] + (0,)
        elif scale <= self.scale_floor and run[5] >= self.scale_stuck and (old is None or old[4]):
            self.log.scale_collapse = run[:4] + (run[5],)


class _Verdicts:
    """A checkpoint or early-stopping callback's verdicts on the validation metric it monitors (a
    mixin of :class:`ConsoleReader`, using its ``log``, ``line_no`` and ``_role``), kept as
    ``log.verdicts[role] = (stated best, evaluations without improvement since the last improvement,
    line of the last verdict)``: a run that says its validation loss "did not improve from 0.266"
    had its best before the evaluations that follow, however few of them a pasted excerpt shows."""

    def _verdict_line(self, line: str):
        """``(role, stale, best, span)`` for a verdict line (see ``_VERDICT``), else None."""
        m = _VERDICT.search(line)
        if m is None:
            return None
        # a name of at most three words sits just before the verdict: searching only the last
        # _VERDICT_NAME_REACH characters keeps a long line of letters from costing quadratic time
        nm = _VERDICT_NAME.search(line, max(0, m.start() - _VERDICT_NAME_REACH), m.start())
        r = self._role(" ".join(nm.group(1).split()), None) if nm else None
        if r is None or r[0] not in ("val_loss", "val_accuracy"):
            return None
        rest = line[m.end():]
        stale = m.group("neg") is not None
        b = _VERDICT_BEST.search(rest) or (_VERDICT_FROM if stale else _VERDICT_TO).search(rest)
        sp = _VERDICT_SPAN.search(rest) if stale else None
        try:
            best = float(b.group(1)) if b else None
        except ValueError:
            best = None
        return r[0], stale, best, int(sp.group(1)) if sp else 1

    def _verdict(self, v: tuple) -> None:
        role, stale, best, span = v
        old = self.log.verdicts.get(role)
        count = (old[1] if old is not None else 0) + span if stale else 0
        if best is None and old is not None:
            best = old[0]
        self.log.verdicts[role] = (best, count, self.line_no)


class _EpochSteps:
    """A step printed per epoch (``epoch 2 step 10``, or ``step`` lines under ``epoch 1: ...``
    summaries) counts again from each epoch's start: such a step that goes back after a later epoch
    was printed continues past the previous epoch's end. A run printed again from the same or an
    earlier epoch, or without epochs, is a restart (the caller's)."""

    __slots__ = ("offset", "epoch_at_step")

    def __init__(self):
        self.offset = 0.0
        self.epoch_at_step = None    # the epoch when the last training record with a step was read

    def x(self, step, last_x, epoch, is_eval) -> float:
        x = float(step) + self.offset
        if is_eval:
            return x
        before = self.epoch_at_step
        # a step no further on than the last while the epoch moved on counts from the new epoch's start
        # (``Epoch: 2, Steps: 88``: each epoch's record printed at its end, the same count each time)
        if last_x is not None and x <= last_x and epoch is not None and (before is None or epoch > before):
            self.offset = last_x                 # a new epoch's steps, not a restart
            x = float(step) + self.offset
        self.epoch_at_step = epoch
        return x


class _NanReports:
    """Lines that report a NaN/Inf loss or gradient in words, or a row of the run's numbers turned
    NaN (a mixin of :class:`ConsoleReader`, using its ``log``, ``line_no``, ``last_x`` and
    ``metric_lines``), and what a traceback cut short right after one such report raised."""

    #: ``metric_lines`` when the last NaN report was read (None before the first)
    nan_at_records = None

    def _nan_warning(self, line: str) -> bool:
        line = _NAN_SENTINEL.sub(" ", line)
        if _NAN_WARN.search(line) and (
                (_NAN_CTX.search(line) and not _NAN_BENIGN.search(line)) or _nan_row(line, self.min_row_numbers)):
            self._nan_hit()
            named = _NAN_AT_STEP.search(line)
            if named is not None and self.log.nan_report_step is None:
                self.log.nan_report_step = int(named.group(1))
            return True
        return False

    def _nan_hit(self) -> None:
        self.log.nan_warnings += 1
        self.nan_at_records = self.metric_lines
        if len(self.log.nan_warning_lines) < self.max_events:
            self.log.nan_warning_lines.append(self.line_no)
        if self.log.nan_warning_x is None and self.last_x is not None:
            self.log.nan_warning_x = self.last_x

    def _cut_short_message(self) -> str:
        """The message of a traceback the text ends inside: after a NaN/Inf report with no record
        between it and the traceback, or with a loss whose last printed value is NaN/Inf
        (TensorFlow's ``Model diverged with loss = NaN.`` above its ``NanLossDuringTrainingError``),
        the run raised on the non-finite loss."""
        if self.nan_at_records is not None and self.nan_at_records == self.metric_lines \
                and self.log.nan_warning_lines and self.log.nan_warning_lines[-1] < self.trace_line:
            return _CUT_SHORT_NAN
        if any(c.role in ("loss", "val_loss") and c.last is not None and not math.isfinite(c.last)
               for c in self.cands.values()):
            return _CUT_SHORT_NAN
        # (the class IPython's traceback header named, where it did)
        return _CUT_SHORT if self.trace_class is None else f"{self.trace_class}: {_CUT_SHORT}"


class _Transforms:
    """A printed value that stands for another (a mixin of :class:`ConsoleReader`, using its ``log``
    and parameters): a perplexity for its loss, an error rate for its accuracy."""

    def _transformed(self, c, v: float) -> float:
        if c.transform == "log":
            return self._ln_ppl(c, v)
        if c.transform == "negate":
            return -v
        if c.transform == "sign":
            return self._signed(c, v)
        return self._complement(c, v)

    @staticmethod
    def _signed(c, v: float) -> float:
        """The loss an objective printed with either sign convention stands for
        (``console.signed_objective_words``): its first finite value decides the convention, a
        negative one a log-probability that rises as the model learns (negated), a positive one
        the loss itself."""
        if c.unit is None and math.isfinite(v) and v != 0:
            c.unit = -1.0 if v < 0 else 1.0
        return v * (c.unit or 1.0)

    def _complement(self, c, v: float) -> float:
        """The accuracy an error rate stands for, ``1 - rate`` (at least 0: a word error rate counts
        insertions too). The rate's first value decides its unit: above
        ``console.error_rate_percent_above`` it is printed in percent."""
        if c.unit is None and math.isfinite(v):
            c.unit = 100.0 if v > self.params["console.error_rate_percent_above"] else 1.0
        return max(0.0, 1.0 - v / (c.unit or 1.0)) if math.isfinite(v) else v

    def _ln_ppl(self, c, v: float) -> float:
        """The loss a printed perplexity stands for (ln ppl); Inf beyond
        ``console.max_plausible_perplexity``, which no vocabulary reaches: the loss overflowed."""
        if v > self.max_ppl:
            if not self.ppl_noted:
                self.ppl_noted = True
                self.log.notes.append(f"{c.name} {v:.3g} is beyond any vocabulary's perplexity "
                                      f"(console.max_plausible_perplexity): read as an overflowed loss")
            return math.inf
        return math.log(v) if v > 0 else (math.nan if v != 0 else -math.inf)


class _EpochRows:
    """Training records printed one per batch under the same epoch number, with no step or counter
    in the log (``Epoch 2 train Loss: 0.0044 Accu: 0.0012`` line after line): a mixin of
    :class:`ConsoleReader`, using its ``last_x`` and ``log``."""

    epoch_rows = False
    epoch_row_roles = None
    #: an epoch printed with a fraction (``'epoch': 0.03``) was read: a position in the run at the print's
    #: resolution, so a record that repeats it was logged within that resolution, not per batch of an epoch
    epoch_fractional = False

    def _epoch_row_x(self, x: float, roles: tuple) -> float:
        """The x of a training record in epoch mode: its epoch, until a record with the metrics of
        the one before it comes at the same epoch; from then on each record is a point of its own,
        one row after the last (the x axis counts rows). A fractional epoch (HF Trainer's ``'epoch':
        2.11``, rounded to two decimals) stays the x when it repeats: the run's position, which
        says whether the excerpt starts mid-run."""
        last, before = self.last_x, self.epoch_row_roles
        self.epoch_row_roles = roles
        if x != int(x) and not self.epoch_rows:
            self.epoch_fractional = True
        if last is None or self.epoch_fractional:
            return x
        if not self.epoch_rows and (x != last or roles != before):
            return x
        if not self.epoch_rows:
            self.epoch_rows = True
            self.log.x_label = "row"
        return last + 1.0


class _BareValues:
    """Lines that hold one number and nothing else (a mixin of :class:`ConsoleReader`, using its
    ``bare``, ``min_bare``, ``cands``, ``mode``, ``metric_lines`` and ``log``)."""

    @staticmethod
    def _is_bare_number(line: str) -> bool:
        """Whether ``line`` holds one number and nothing else."""
        return len(line) <= _BARE_MAX_CHARS and line[0] in _BARE_START and _BARE_NUMBER.fullmatch(line) is not None

    #: a tutorial's unnamed progress value was read as the loss (noted once; set on the instance)
    elapsed_noted = False

    def _elapsed_progress(self, line: str) -> str:
        """A tutorial's progress line (:data:`_ELAPSED_PROGRESS`) as the record it is: the iteration as the
        step, the one unnamed value as the training loss (noted once: the name is read, not printed); any
        other line as it is."""
        m = _ELAPSED_PROGRESS.match(line) if line.lstrip()[:1] in _BARE_START and "s" in line else None
        if m is None:
            return line
        if not self.elapsed_noted:
            self.elapsed_noted = True
            self.log.notes.append("lines of `iteration percent% (elapsed) value` print no metric name: "
                                  "the value read as the training loss, the iteration as the step")
        return f"step {m.group('a') or m.group('b')} {_ELAPSED_PROGRESS_NAME} {m.group('v')}"

    def _bare_value(self, line: str, index: int | None = None) -> None:
        """A line that holds one number and nothing else (values printed one per line, no name), or
        a whole number and then one value (``788 41.2322``: the value's index, its step): kept apart,
        a curve only for a text that names no metric at all (see :meth:`finish`)."""
        c = self.bare
        if c is None:
            c = self.bare = _Cand("loss", self.words.console_last_resort_rank, _BARE_NAME)
        v = float(line)
        c.last = v
        row = len(c.by) + c.series.rows
        c.bx.append(float(row if index is None else index))
        c.by.append(v)
        if len(c.by) >= FLUSH_ROWS:
            c.flush()

    def _bare_series(self, best: dict) -> None:
        """Values printed one per line, in a text that names no loss or accuracy, read as the loss
        (what a list pasted under a question most often is), when there are at least
        ``console.min_bare_values`` of them."""
        c = self.bare
        if c is None or any(r in best for r in _KEY_ROLES):
            return
        if c.by:
            c.flush()
        if c.series.rows < self.min_bare:
            return
        best["loss"] = c
        self.cands[("loss", _BARE_NAME)] = c
        if self.mode is None:
            self.log.x_label = "row"
        self.metric_lines = max(self.metric_lines, c.series.rows)
        self.log.notes.append(f"{c.series.rows} lines hold one number each and no metric is named: "
                              "read as the loss, one value per line")


#: a line that only names a split, opening (or closing) a block of that split's metrics printed
#: one per line or without a split word (``Validation @ 1000``, ``Eval begin...``, ``Validating``,
#: ``  validation:``); the word is looked up in the split-word table
#: a split's heading, in any case (``Validation Results:``, ``Test Metrics:``), behind the epoch it
#: belongs to where it names one (``Epoch [1/5] - Test Metrics:``, ``Epoch 3: Validation``)
_SPLIT_HEADING = re.compile(r"(?:epoch\s*[\[(]?\d+(?:/\d+)?[\])]?\s*[-:|,]\s*)?"
                            r"[\W_]*(?:(?:running|starting|start|begin)\s+)?([A-Za-z]+)"
                            r"(?:\s+(?:begin|start|started|results?|metrics|set|phase|summary|loop|mode|stats))?"
                            r"(?:\s*@\s*\d+|\s+(?:at|on)(?:\s+[A-Za-z]+)?(?:\s+\d+)?)?[\W_]*", re.IGNORECASE)
_TO_VAL = {"loss": "val_loss", "accuracy": "val_accuracy"}
_HELD_OUT = frozenset(_TO_VAL.values())
#: the loops one run's console counts through: the training loop and the evaluation loop
_LOOPS = 2


class _SplitBlocks:
    """A validation block: a heading line naming only a split, then that split's metrics printed
    without a split word (one per line, indented; or a progress line of the evaluation loop). A
    mixin of :class:`ConsoleReader` (``block_split``, ``block_seen``). The block holds the
    metric lines after the heading that carry no epoch, step or split of their own, and ends at a
    line that does, at a training heading, or when a metric repeats (the next record began). A
    table header read right after the heading makes the whole table the heading's split."""

    heading_at = None   # (split or None for training, records read by then) of the last heading

    def _heading_split(self, text: str) -> str | None:
        """The split ``text`` (a line without metrics) is the heading of, or None."""
        if not any(ch.isalpha() for ch in text):
            return None
        m = _SPLIT_HEADING.fullmatch(text)
        return self.words.split.get(m.group(1).lower()) if m else None

    def _heading(self, text: str) -> bool:
        """Whether ``text`` (a line without metrics) is a split's heading; opens or closes the block."""
        split = self._heading_split(text)
        if split is None:
            return False
        self.block_split = None if split == "train" else split
        self.block_seen = set()
        self.heading_at = (self.block_split, self.metric_lines)
        return True

    def _table_split(self) -> str | None:
        """The split of a table whose header is read now: the one the heading right above it names
        (``Validation:`` over ``epoch, loss, acc``; no record read in between), else None."""
        h = self.heading_at
        return h[0] if h is not None and h[1] == self.metric_lines else None

    def _block_record(self, rs, split, step, is_eval, plan):
        """``(roles, is_eval, plan)`` of a record read while a block is open: its training roles
        read as the block's split (without the plan, whose candidates are the training ones)."""
        mapped = self._in_block(rs, split, step, is_eval)
        return (rs, is_eval, plan) if mapped is None else (mapped, True, None)

    def _in_block(self, rs, split, step, is_eval):
        """The record's roles inside a block (training roles read as the block's split) and
        whether it is an evaluation; None when the record is not the block's (which ends it)."""
        if step is not None or self.epoch_on_line or (split is not None and split not in ("val", "test")):
            self.block_split = None
            return None
        if is_eval:
            return None
        base = {r[0] for r in rs}
        if base & self.block_seen:
            self.block_split = None
            return None
        self.block_seen |= base
        mapped = [(_TO_VAL[r[0]],) + tuple(r[1:]) if r[0] in _TO_VAL else r for r in rs]
        return mapped if any(r[0] in _TO_VAL for r in rs) else None


class _EvalLoops:
    """An evaluation loop printed in the training loop's own shape, without a split word: a mixin of
    :class:`ConsoleReader` (``epoch``, ``train_loop``, ``loop_totals``). Within an epoch the first
    counted loop is the training; once it has run to its total, a loop with a smaller total is the
    evaluation (a held-out set is smaller than the training set: Keras's ``1250/1250`` then
    ``157/157``, a progress bar's ``(3708/3708)`` then ``(493/493)``), its loss and accuracy held out
    rather than a restart of the training curve. Not when the loop stopped short of its total, when
    its lines print held-out metrics of their own (a run's training line: the next run's may be
    shorter), or once a log has counted to more totals than a training and an evaluation loop have
    (loops of several runs or datasets, not one run's two)."""

    train_loop = None             # (epoch, total, whether it ran to its total) of the epoch's training loop
    loop_totals = frozenset()     # the totals counted to so far; None once there are more than _LOOPS

    def _loop_record(self, rs, counter, total, is_eval, plan):
        """``(roles, is_eval, plan)`` of a counted record (``counter`` of ``total``) without a split."""
        if self.loop_totals is None:
            return rs, is_eval, plan
        totals = self.loop_totals | {total}
        if len(totals) > _LOOPS:
            self.loop_totals = None
            return rs, is_eval, plan
        self.loop_totals = totals
        lp = self.train_loop
        if lp is None or lp[0] != self.epoch or total >= lp[1]:
            self.train_loop = (self.epoch, total, counter is not None and counter >= total)
            return rs, is_eval, plan
        if not lp[2] or not any(r[0] in _TO_VAL for r in rs) or any(r[0] in _HELD_OUT for r in rs):
            return rs, is_eval, plan
        return [(_TO_VAL[r[0]],) + tuple(r[1:]) if r[0] in _TO_VAL else r for r in rs], True, None


class _SpeedOnly:
    """Lines that print a speed and no metric (a progress bar without a postfix, ``12.10s/it``; a
    throughput line): a mixin of :class:`ConsoleReader`, using its ``speed_only``, ``cands`` and
    ``log``. Kept apart, the step-time curve only of a text that prints no metric at all."""

    def _speed_value(self, value: float) -> None:
        c = self.speed_only
        if c is None:
            c = self.speed_only = _Cand("step_time", self.words.console_last_resort_rank, "speed")
        c.last = value
        c.bx.append(float(len(c.by) + c.series.rows))
        c.by.append(value)
        if len(c.by) >= FLUSH_ROWS:
            c.flush()

    def _speed_apart(self, c) -> None:
        """Speeds printed apart from the metrics, which print no time per step themselves: kept as a
        count and a median (``ConsoleLog.speed_apart``), not as a curve beside the metrics'."""
        if c.by:
            c.flush()
        fin = c.series.finite_points()
        if fin:
            self.log.speed_apart = (len(fin), median(p.mean for p in fin))

    def _speed_series(self, best: dict) -> None:
        """The speeds of lines without a metric, as the step-time curve of a text that prints no
        metric and no step time beside one (what a user asking about speed pastes)."""
        c = self.speed_only
        if c is not None and best and "step_time" not in best:
            self._speed_apart(c)
        if c is None or best or "step_time" in best:
            return
        if c.by:
            c.flush()
        best["step_time"] = c
        self.cands[("step_time", "speed")] = c
        if self.mode is None:
            self.log.x_label = "row"
        self.log.notes.append(f"{c.series.rows} line(s) print a speed and no metric: read as the time per step")


class _Tracebacks:
    """Tracebacks and exceptions printed without one (a mixin of :class:`ConsoleReader`, using its
    ``log``, ``line_no``, ``metric_lines``, ``in_trace``, ``trace_line`` and ``trace_lines``)."""

    trace_class = None   # the exception's class a traceback's header names (IPython's ``InternalError   Traceback``)

    def _trace_start(self, line: str, cls: str | None) -> None:
        """A traceback's first line. IPython's names the exception's class in front and has no colon
        (``InternalError          Traceback (most recent call last)``); Python's ends in one, as do
        the ``Original Traceback`` of a DataLoader worker and PaddlePaddle's ``C++ Traceback``."""
        self.in_trace = True
        self.trace_line = self.line_no
        self.trace_lines = 0
        self.trace_class = cls if cls is not None and cls.isidentifier() and not line.rstrip().endswith(":") \
            else None

    def _trace_opens(self, line: str) -> bool:
        """Whether ``line`` opens a traceback (read as its start): its header, or a frame of one the paste
        left without its header (``  File "/path/trainer.py", line 187, in train``)."""
        m = _TRACE_START.match(line)
        if m is None and not _TRACE_FRAME.match(line):
            return False
        self._trace_start(line, m.group(1) if m is not None else None)
        return True

    def _trace(self, line: str) -> None:
        self.trace_lines += 1
        if line.count('File "') > 1 and (g := _GLUED_EXC.match(line)):
            # the frames run together on one line (a paste that lost its newlines), the exception glued last
            self._error(g.group(1) + ": " + g.group(2).strip(), self.trace_line)
            self.in_trace = False
            return
        if line.startswith((" ", "\t")) or self.trace_lines > _TRACE_MAX_LINES or _TRACE_FILLER.match(line):
            if self.trace_lines > _TRACE_MAX_LINES:
                self.in_trace = False
            return
        if line.startswith(("During handling", "The above exception")) or (
                self.trace_class is not None and _IPY_FRAME.match(line)):
            return   # (IPython's frames start at the line's start)
        m = _EXC_LINE.match(line)
        if m:
            self._error(m.group(1) + (": " + m.group(3) if m.group(3) else ""), self.trace_line)
            self.in_trace = False
            return
        self.in_trace = False
        self._parse(line)

    def _exception_line(self, line: str) -> str | None:
        """An exception printed without its traceback (see :func:`exception_message`), recorded."""
        message = exception_message(line, self.words.classless_errors)
        if message is not None:
            self._error(message, self.line_no)
        return message

    def _trace_of_last_error(self) -> bool:
        """The traceback the text ends inside was printed as part of the exception read last, with
        no record between (PyTorch's ``Caught KeyError in DataLoader worker process 0.`` followed by
        the worker's ``Original Traceback (most recent call last):``): it is that error's."""
        errors = self.log.errors
        return bool(errors) and self.error_records == self.metric_lines and errors[-1]["line"] < self.trace_line

    error_records = -1   # metric_lines when the last error was read

    def _error(self, message: str, line: int) -> None:
        message = message.strip()
        if message.startswith("KeyboardInterrupt"):
            return
        self.error_records = self.metric_lines
        self.log.error_count += 1
        kind = error_kind(message, self.words.error_kinds)
        if len(self.log.errors) < self.max_events:
            self.log.errors.append({"line": line, "kind": kind, "message": message[:_KEPT_ERROR_CHARS]})
        else:
            self.log.errors[-1] = {"line": line, "kind": kind, "message": message[:_KEPT_ERROR_CHARS]}


class _NameRoles:
    """What each printed metric name means (its role, rank and split), cached per name: a mixin of
    :class:`ConsoleReader` (``words``, ``role_cache``, ``objective_words``, ``loss_abbrevs``)."""

    def _role(self, phrase: str, split: str | None):
        key = (phrase, split)
        hit = self.role_cache.get(key)
        if hit is not None or key in self.role_cache:
            return hit
        res = self._resolve(phrase, split)
        if len(self.role_cache) < _ROLE_CACHE_SIZE:
            self.role_cache[key] = res
        return res

    def _resolve(self, phrase: str, split: str | None):
        res = self._resolve_words(phrase, split)
        if res is None and CAMEL_HUMP.search(phrase):
            # a camelCase name that names nothing whole: its humps are word boundaries (``ValidationCost``)
            res = self._resolve_words(CAMEL_HUMP.sub(" ", phrase), split)
            res = (res[0], res[1], phrase) + tuple(res[3:]) if res is not None and res[0] in CAMEL_ROLES else None
        if res is None and ACRONYM_HUMP.search(phrase):
            # an acronym before the metric word (``VQVAELoss``, ``CTCLoss``): one named loss among others
            # (``CTCLoss: 0.0, SARLoss: 1.6, loss: 1.6``), so it ranks with a loss's components
            res = self._resolve_words(ACRONYM_HUMP.sub(" ", CAMEL_HUMP.sub(" ", phrase)), split)
            res = (res[0], max(res[1], self.words.part_rank), phrase) + tuple(res[3:]) \
                if res is not None and res[0] in CAMEL_ROLES else None
        if res is not None and _LOCAL.search(phrase):
            # one rank's value beside the value reduced over all ranks: the reduced one is the run's
            res = (res[0], res[1] + self.words.qualified_rank) + tuple(res[2:])
        if "/" in phrase and (res is None or res[1] >= self.words.part_rank) and not _SOURCE_PATH.search(phrase):
            return _path_role(phrase, self.words) or res
        if res is None and not phrase.isdigit():
            english = self.words.latin_words(phrase)   # Verlust, Genauigkeit, perte: a German/French/Spanish label
            if english != phrase:
                res = self._resolve_words(english, split)
                res = (res[0], res[1], phrase) + tuple(res[3:]) if res is not None else None
        return res

    def _resolve_words(self, phrase: str, split: str | None):
        # Top-1, Prec@1, acc@1: the top-1 accuracy
        phrase_top = _TOP1.sub("top1", phrase) if "1" in phrase else phrase
        norm = normalize_name(phrase_top)
        if not norm or (("/" in phrase or "." in phrase) and _SOURCE_PATH.search(phrase)):
            return None   # a source file (``loss_scaler.py:183`` in a logger's prefix): its line number
        if norm in self.cmap:
            return self.cmap[norm], -1, phrase, None
        words = [w for w in norm.split("_") if w]
        vocab = self.words
        if "cost" in words and vocab.time_cost.intersection(words):
            return None  # "Time cost=85.5": what the epoch cost in time, not the objective
        if vocab.summary.intersection(words):
            return None  # "best val_loss: 0.71" summarises the run; it is not a point of its curve
        split_words, match_role = vocab.split, vocab.match_role
        own = next((split_words[w] for w in words if w in split_words), None)
        eff = own or split
        timing = _timing_role(words, vocab)
        if timing is not None:
            return timing, 0, phrase, None
        stand_in = _stand_in_role(_untrailed(words, vocab), eff, phrase, vocab, self.scores)
        if stand_in is not None:
            return stand_in
        # sub-phrases of whole printed words (never parts of one identifier: loss_rpn_cls is
        # not "loss"), ending at the last word that is not filler ("Val loss decreased from"
        # names "from", not the loss)
        pwords = [normalize_name(w) for w in phrase_top.split()]
        pwords = [w for w in pwords if w]
        if len(pwords) == 1 and "_" in pwords[0] and match_role(pwords[0]) is None:
            kept = [t for t in pwords[0].split("_") if t not in vocab.phrase_filler]
            if kept:
                pwords = ["_".join(kept)]
        while len(pwords) > 1 and pwords[-1] in vocab.phrase_filler:
            pwords.pop()
        best = _ngram_role(pwords, eff, phrase, vocab)
        return best if best is not None else (_split_alone_role(pwords, phrase, vocab)
                                               or _part_role(self._unabbreviated(pwords, phrase), eff, phrase, vocab)
                                               or _qualified_role(pwords, phrase, vocab)
                                               or _head_accuracy_role(pwords, eff, phrase, vocab)
                                               or _objective_word_role(pwords, eff, phrase, self.objective_words,
                                                                       vocab))

    def _quality_named(self, phrase: str) -> bool:
        """Whether ``phrase`` names a quality score (``console.quality_score_names``) read as one."""
        words = [w for w in normalize_name(phrase).split("_") if w]
        return self.scores and _quality_score(words, self.words) is not None

    def _unabbreviated(self, pwords: list, phrase: str) -> list:
        """A one-word name whose first part abbreviates "loss" (``console.loss_abbreviations``:
        BasicSR's ``l_pix``, ``l_g_gan``, ``l_d_real``) spelt out, so that it reads as the loss
        component it is (``loss_pix``); any other name as it was. The part must be printed apart: a
        letter outside ASCII splits a word only in its normalised form (Icelandic ``líkaninu``, "the
        model", is no ``l_kaninu``)."""
        if len(pwords) == 1:
            head, sep, rest = pwords[0].partition("_")
            if sep and rest and head in self.loss_abbrevs and rest.replace("_", "").isalpha() \
                    and _printed_apart(phrase, head):
                return ["loss_" + rest]
        return pwords


def _printed_apart(phrase: str, head: str) -> bool:
    """Whether the printed word that normalises to ``head`` + ``_`` + more has no letter after ``head``
    (``l_pix``, ``L-G-GAN``), rather than a letter outside ASCII that normalising turned into ``_``."""
    word = next((w for w in phrase.lower().split() if w.startswith(head)), "")
    return len(word) > len(head) and not word[len(head)].isalpha()


class _KeyLines:
    """A line whose reading needs the line above: a number alone under its name
    (console_above._NamedAbove, a YAML-style block's key and value among them) and PHP's ``var_dump``
    pairs."""

    def _feed(self, raw: str) -> None:
        """One raw line: made plain, paired with the line above where a name stands apart from its value
        (a held number under its name, a var_dump key), then read (``_feed_line``)."""
        line = msvc_nonfinite(yaml_nonfinite(self._plain(raw)))
        if not line:
            return
        self._release_held(line)   # a number held under its name (console_above._NamedAbove)
        if "] - " in line and not self.log.epoch_mean_bar and _EPOCH_MEAN_BAR.search(line):
            self.log.epoch_mean_bar = True
        if self.dump_key is not None or line.endswith("=>"):
            line = self._dump_pair(line)
            if line is None:
                return
        if "appa" in line:
            self._kappa(line)
        self._feed_line(line)

    def _kappa(self, line: str) -> None:
        """A Cohen's kappa printed on the line (``ConsoleLog.kappa_best``)."""
        m = _KAPPA.search(line)
        v = float(m.group(1)) if m else math.nan
        if not math.isfinite(v):
            return
        best = self.log.kappa_best
        self.log.kappa_best = (v, 1, self.line_no) if best is None else (max(best[0], v), best[1] + 1, best[2])


class ConsoleReader(LineParser, _KeyLines, _NameRoles, _SplitBlocks, _EvalLoops, _RunFacts, _Overflows, _Verdicts,
                    _NanReports, _Transforms, _EpochRows, _BareValues, _SpeedOnly, _Clocks, _Tracebacks, _Histories,
                    _Boxes, _Frames, _NamedAbove):
    """Feed lines with :meth:`feed`, then :meth:`finish` for the :class:`ConsoleLog`."""

    #: the names in the text's head that name an agent's reward on their own (:func:`_read_head`)
    reward_names: list = []
    wrap_width: int | None = None   # the terminal width the text was hard-wrapped at (console_wrap)

    def __init__(self, path: str, column_map=None, params=None, fmt: str = "console", scores: bool = False):
        p = self.params = resolve(params)
        #: a quality score (F1, Dice, mAP, BLEU, R2) stands in for an accuracy: only when the text,
        #: read without, printed no loss and no accuracy (:func:`_read_scores`)
        self.scores = scores
        self.max_line = int(p["console.max_line_chars"])
        self.max_names = int(p["console.max_metric_names"])
        self.max_events = int(p["console.max_events"])
        self.max_counter_digits = int(p["limits.max_counter_digits"])
        self.header_min_numeric = float(p["console.table_min_numeric"])
        self.max_ppl = float(p["console.max_plausible_perplexity"])
        self.ppl_noted = False
        self.min_row_numbers = int(p["console.min_headerless_row_numbers"])
        self.min_bare = int(p["console.min_bare_values"])
        self.bare = self.speed_only = None   # candidates: lines of one number alone; speeds of lines without a metric
        self.sum_rel_tol = float(p["console.sum_total_rel_tol"])
        self.sum_max_parts = int(p["console.sum_total_max_parts"])
        self.qualifier_words = int(p["console.held_out_qualifier_words"])
        self._init_name_words(p)
        self.loss_abbrevs = frozenset(str(w).lower() for w in p["console.loss_abbreviations"])
        self.objective_words = frozenset(str(w).lower() for w in p["console.objective_words"])
        self.words = log_words(p)   # the knowledge base's vocabulary: roles, split words, other languages
        self._init_overflows(p)
        self.path = path
        self.cmap = {normalize_name(c): r for r, c in parse_column_map(column_map).items()}
        self.log = ConsoleLog(path=path, format=fmt)
        self.cands: dict = {}
        self.role_cache: dict = {}
        self.line_no = 0
        self.metric_lines = 0
        # axis state
        self.mode = None           # 'step' | 'epoch' | 'row'
        self.epoch = None
        self.epoch0 = None
        self.per_epoch = None
        self.block_split = None    # the split of a validation block after its heading (_SplitBlocks)
        self.block_seen: set = set()
        self.max_counter = 0
        self.counter_epoch = None
        self.counted_in_epoch = False
        self.start_epoch = None
        self.max_epoch_starts = _MAX_EPOCH_STARTS
        self.last_x = None
        self.train_records = 0
        self.epochs_seen = set()
        self.max_epochs_seen = 0
        self.epoch_steps = _EpochSteps()
        self.last_step = None
        self.pending_step = None   # (step, line) of the last step printed without metrics
        self.step_round = False    # the step of the record being read is a bracketed round (``[8]``)
        self.steps_named = False   # a training record's step was named (``iter 960``), not a round
        # data-loading time against step time, summed over the lines that print both
        self.t_data = self.t_step = 0.0
        self.t_lines = 0
        self.t_apart = False
        self.prev_progress, self.prev_points = None, (None, {})
        self.epoch_on_line = False
        # tables
        self.header = None         # (names, delim, roles)
        self.header_cells = None   # (line, delim, names) of the header, for a second line of names
        self.header_axes = []      # the header's epoch/step columns
        self.header_spans = None   # where a whitespace-aligned header's names stand on its line
        self.header_indexed = None    # where the first name of a header over an unnamed index column starts
        self.row_index = None      # the index label of the table row read last (console_tables._Frames)
        self.frame = None          # a wrapped DataFrame's rows by index label (console_tables._Frames)
        self.frame_more = False
        self.box = None            # a boxed key/value block's rows (console_tables._Boxes)
        self.box_raw, self.box_sections, self.box_off = [], [], False
        # tracebacks
        self.in_trace = False
        self.trace_line = 0
        self.trace_lines = 0
        self.styles = {}
        self.plans: dict = {}
        self.noise: dict = {}      # exact text -> what a full parse of it found (no metric)
        self.latin_shapes: dict = {}   # line shape -> whether it holds words of another language
        self.quiet: dict = {}      # the same for lines without a number
        self._noise_out = None
        self.max_plans = int(p["console.max_line_shapes"])

    # -- feeding -----------------------------------------------------------------------------
    def feed(self, raw: str, new: bool = True) -> None:
        if new:
            self.line_no += 1
        self._feed(raw)

    def feed_lines(self, lines: list) -> None:
        """Feed whole lines (each a new line of the file), as :meth:`feed` would one by one."""
        feed = self._feed
        n = self.line_no
        for raw in lines:
            n += 1
            self.line_no = n
            feed(raw)

    def _plain(self, raw: str) -> str:
        """The line as text to read: cut to the longest line read, without its end, terminal codes or
        markup, its words in English; a quoted log's ``> `` / bold / rank prefix taken off. Empty
        when nothing is left (a line of terminal codes only: ``\x1b[2K`` erases the line)."""
        line = raw[: self.max_line].rstrip("\r\n")
        if not line.strip():
            return ""
        if "\x1b" in line or "<t" in line or "<T" in line or line[0] in _MARKUP_START or '"value"' in line:
            line = _unmarked(line)
        if not line.isascii():
            line = self.words.localized(line)   # 训练损失 / エポック / Потери: the English words
        if line[:1] in (">", "*", "[") and _QUOTED.match(line):
            # a log quoted in a thread (``> `` per line), set in bold (``**...**``), or the
            # rank prefix a distributed launcher puts on each line (``[rank2]: ``)
            line = _QUOTED.sub("", line, 1).rstrip("*")
        return self._elapsed_progress(line) if line.strip() else ""

    def _feed_line(self, line: str) -> None:
        """Read one plain, non-empty line (see :meth:`_feed`)."""
        if "%|" in line and line.count("%|") > 1 and self._redrawn(line):
            return
        # tracebacks
        if self.in_trace:
            self._trace(line)
            return
        if ("Traceback" in line or 'File "' in line) and self._trace_opens(line):
            return
        if (self.box is not None or line[0] in BOX_START) and self._box_line(line):
            return   # a rule or a row of a boxed key/value block (console_tables._Boxes)
        if self.hist is not None and self._history_line(line):
            return   # a history's next line (a new one opens in LineParser._parse, on a line without a plan)
        if self._hold_named(line):
            return   # a number alone under its name on the line above, held for the next line
        if len(line) <= _BARE_MAX_CHARS and line[0] in _BARE_START and self.header is None \
                and _BARE_NUMBER.fullmatch(line):
            return self._bare_value(line)
        if len(line) <= _BARE_MAX_CHARS and line[0] in _BARE_START and self.header is None:
            m = _INDEXED_NUMBER.fullmatch(line)
            if m:
                return self._bare_value(m.group(2), int(m.group(1)))
        if "grad_fn=<" in line:
            self._loss_node(line)
        if self._warning_line(line):
            return
        if ")" in line and has_named_tuple(line):
            line = split_named_tuples(line)   # ``Loss:(a, b)/(1.2, 3.4)``: its pairs (console_tuples)
        line, key = self._latin_line(line, shape(line))
        if b"0" not in key and (line.isascii() or not any(c.isdigit() for c in line)):
            low = line.lower()
            if "nan" not in low and "inf" not in low:
                return self._quiet_line(line)
        records = self.metric_lines
        self._parse(line, key)
        if self.metric_lines != records and "cale" in line:
            self._scale_column_line(line)   # a record's loss-scale column (never a config dump's)

    def _latin_line(self, line: str, key: bytes) -> tuple:
        """``line`` and its shape, with metric and axis words of another Latin-script language in
        English (``Época 3/8 - pérdida: 0,7`` -> ``epoch 3/8 - loss: 0.7``) and its decimal commas
        read as points. Whether a shape of line holds any is decided once per shape: every line of a
        shape has the same words."""
        latin = self.latin_shapes.get(key)
        if latin is None:
            latin = self.words.has_latin(line)
            if len(self.latin_shapes) < self.max_plans:
                self.latin_shapes[key] = latin
        if not latin:
            return line, key
        # these languages write a decimal comma (Verlust = 1,1939): read as a point
        line = _DECIMAL_COMMA.sub(r"\1.\2", self.words.latin_words(line))
        return line, shape(line)

    def _quiet_line(self, line: str) -> None:
        """A line without a number: a table header, a split's heading or an exception's message
        (what it was is remembered, a heading excepted: it changes the reader's state)."""
        self._name_above(line)   # (and a history's label)
        if len(line) <= _HEADING_MAX_CHARS and self._heading(line.strip()):
            return
        hit = self.quiet.get(line)
        if hit is not None:
            return self._replay(hit)
        header = self._maybe_header(line)
        exc = self._exception_line(line)
        verdict = self._verdict_line(line) if "mprov" in line else None
        if verdict is not None:
            self._verdict(verdict)
        if not header and len(self.quiet) < self.max_plans:
            self.quiet[line] = (None, exc, False, None, None, verdict)

    def _commit(self, epoch, counter, counter_total, step, split, progress, metrics) -> None:
        if epoch is not None:
            self._set_epoch(epoch)
        self.epoch_on_line = epoch is not None
        self._record(metrics, split, counter, counter_total, step, progress,
                     "progress" if progress else "pairs")

    def _axis_step(self, step: int) -> None:
        """A step printed on a line without metrics (caffe's ``Iteration 8000, Testing net``):
        the x of an evaluation record printed right under it, before any training record."""
        self.pending_step = (step, self.line_no)
        self.block_split = None

    def _set_epoch(self, epoch: float) -> None:
        self.block_split = None
        if self.epoch is not None and epoch < self.epoch and self.mode != "step":
            pass
        self.epoch = epoch
        if self.epoch0 is None:
            self.epoch0 = epoch
        if epoch not in self.epochs_seen and len(self.epochs_seen) < _MAX_EPOCHS_SEEN:
            self.epochs_seen.add(epoch)

    # -- records -----------------------------------------------------------------------------
    def _record(self, metrics, split, counter, counter_total, step, progress, style) -> None:
        rs = [r for r, _ in metrics]
        is_eval = split in ("val", "test") or all(r[0] in ("val_loss", "val_accuracy") for r in rs)
        if self.block_split is not None:
            rs, is_eval, _ = self._block_record(rs, split, step, is_eval, None)
        if counter_total and split is None and not is_eval:
            rs, is_eval, _ = self._loop_record(rs, counter, counter_total, is_eval, None)
        self._record_values([v for _, v in metrics], rs, split, counter, counter_total, step,
                            progress, style, is_eval, None)

    def _round_step(self, step: int | None) -> int | None:
        """A record's step, or None for a bracketed round (``[8]\ttraining's listnet: 2.37``) behind
        the steps the log names itself (``iter 960: batch listnet = 2.34``): rounds and named steps are
        two counters, and a round below the last named step is no restart; the record takes the
        latest step, as an evaluation does."""
        is_round, self.step_round = self.step_round, False
        if step is None:
            return None
        if not is_round:
            self.steps_named = True
            return step
        if self.steps_named and self.mode == "step" and self.last_step is not None and step < self.last_step:
            return None
        return step

    def _cand(self, r):
        role, rank, name, transform = r
        if role == "data_wait":
            return None   # summed per line by _timing, not a curve
        if role == "step_wait":
            role = "step_time"   # summed by _timing too, and the step-time curve
        key = (role, name)
        c = self.cands.get(key)
        if c is None and len(self.cands) < self.max_names:
            c = self.cands[key] = _Cand(role, rank, name, transform)
            self._watch_clock(c)
        return c

    def _record_values(self, vals, rs, split, counter, counter_total, step, progress, style, is_eval,
                       plan) -> None:
        """One record: ``vals[k]`` is the value of the metric with role ``rs[k]``; ``plan`` (when
        read by one) keeps the metrics' candidates. A line that prints a data wait beside its step's
        time and nothing else (``data wait 17.6s of 28.5s`` under an epoch's line) is timing, not a
        record: it moves no axis."""
        if len(rs) == len(_TIME_WAIT_PAIR) and set(r[0] for r in rs) == _TIME_WAIT_PAIR:
            timing = _timing_pair(rs)
            self._timing(vals[timing[0]], vals[timing[1]])
            return
        self.metric_lines += 1
        self.last_rs = rs
        origin, per = None, self.per_epoch   # where a run begun again started; the loop's length so far
        step = self._round_step(step)
        styles = self.styles
        styles[style] = styles.get(style, 0) + 1
        if self.mode is None:
            pending = self.pending_step
            if step is not None or counter is not None:
                self.mode = "step"
            elif is_eval and pending is not None and self.epoch is None and \
                    self.line_no - pending[1] <= self.params["console.step_line_reach"]:
                self.mode = "step"
                self.last_step = pending[0]
            elif self.epoch is not None:
                self.mode = "epoch"
            else:
                self.mode = "row"
            self.log.x_label = {"step": "step", "epoch": "epoch", "row": "row"}[self.mode]
        if step is not None and self.mode == "step":
            self.last_step = step
            x = self.epoch_steps.x(step, self.last_x, self.epoch, is_eval)
        else:
            x = self._x(step, counter, counter_total, is_eval)
        roles = plan.roles if plan is not None else tuple(r[0] for r in rs)
        if (progress or self.mode != "row") and self._seen(x, vals, roles):
            return
        if self.mode == "epoch" and not is_eval and (self.epoch_rows or (
                step is None and counter is None and self.last_step is None)):
            # the same metrics under the same names again at the same epoch: a new row (one metric
            # a line under different names, Prometheus's exposition, is one record of the epoch)
            x = self._epoch_row_x(x, tuple((r[0], r[2]) for r in rs) if len(rs[0]) > 2 else roles)
        if not is_eval:
            last_x = self.last_x
            if last_x is not None and x < last_x:
                if not (step is not None or counter is not None or self.epoch_on_line):
                    x = last_x
                else:
                    if len(self.log.restart_lines) < self.max_events:
                        self.log.restart_lines.append(self.line_no)
                    self.max_counter = 0
                    self.epochs_seen = set() if self.epoch is None else {self.epoch}
                    self.epoch0 = self.epoch
                    if self.mode == "step" and step is None:
                        # the x from the new start: an in-epoch counter, or an epoch printed
                        # without one (a per-epoch summary under a progress bar's steps)
                        x = self._x(step, counter, counter_total, is_eval)
                        # a loop over another number of batches is another run (another fit, other
                        # data): it starts where its epoch began, not where its record fell, and its
                        # metrics' records from before (a shorter loop's) go too; a resume keeps them
                        origin = x - counter if counter is not None and per and counter_total \
                            and counter_total != per else None
            self.last_x = x
            self.train_records += 1
            self._note_epoch_start(x)
        n = len(self.epochs_seen)
        if n > self.max_epochs_seen:
            self.max_epochs_seen = n
        cands = plan.cands if plan is not None and plan.timing is None else None
        if cands is None:
            cands = self._cands(rs, vals, plan, is_eval)
        if origin is not None:
            _cut_back(cands, origin)
        self._append_points(x, cands, vals, progress)

    def _append_points(self, x: float, cands: list, vals, progress) -> None:
        """Each candidate's value at ``x`` added to its curve."""
        # the record before at the same x, printed with other metrics: a value it printed again (Keras's
        # last ``ETA: 0s`` redraw, then the epoch's line with the same loss and its validation) is the
        # same point, not a second (records of one shape at one x are left as they were read)
        before = self.prev_points[1] if self.prev_points[0] == x else {}
        if before and set(before) == {c for c in cands if c is not None}:
            before = {}
        points = {}
        for c, v in zip(cands, vals):
            if c is None:
                continue
            if c.transform is not None:
                v = self._transformed(c, v)
            points[c] = v
            if before.get(c, math.nan) == v:
                continue
            if progress and v == c.last and c.role in ("val_loss", "val_accuracy"):
                continue
            c.last = v
            c.bx.append(x)
            c.by.append(v)
            if len(c.by) >= FLUSH_ROWS:
                c.flush()
        self.prev_points = (x, points)

    def _seen(self, x: float, vals: list, roles: tuple) -> bool:
        """A progress bar redrawn, or a line printed twice (to the file and by a logger): the
        record just read again (True). The speed a redraw prints (appended last, see
        ``console_lines._speed``) changes with the clock, not with the record."""
        if roles and roles[-1] == "step_time":
            vals, roles = vals[:-1], roles[:-1]
        prev = self.prev_progress
        if prev is not None and prev[0] == x and prev[1] == vals and prev[2] == roles:
            return True
        self.prev_progress = (x, vals, roles)
        return False

    def _cands(self, rs, vals, plan, is_eval: bool = False) -> list:
        """The record's candidates (kept on its plan), after its data-loading and step times (an
        evaluation's, mmengine's ``Epoch(val) ... data_time: 0.001  time: 0.82``, time no step)."""
        cands = plan.cands if plan is not None else None
        if cands is None:
            # a line that prints a time and nothing else (an evaluation's "time: 0.02") is no
            # training step: its time joins no step-time curve
            alone = is_eval or all(r[0] in _TIME_ROLES for r in rs)
            cands = [None if alone and r[0] in _TIME_ROLES else self._cand(r) for r in rs]
            if plan is not None:
                plan.cands = cands
                plan.timing = _timing_pair(rs)
        timing = plan.timing if plan is not None else _timing_pair(rs)
        if timing is not None and not is_eval:
            self._timing(vals[timing[0]], vals[timing[1]])
        return cands

    def _note_epoch_start(self, x: float) -> None:
        """The x of the first training record of each epoch (``ConsoleLog.epoch_starts``)."""
        if self.epoch is not None and self.epoch != self.start_epoch \
                and len(self.log.epoch_starts) < self.max_epoch_starts:
            self.start_epoch = self.epoch
            self.log.epoch_starts.append(x)

    def _x(self, step, counter, counter_total, is_eval) -> float:
        if counter is not None and not is_eval:
            self.counted_in_epoch = True
        if self.mode == "step":
            if step is not None:
                self.last_step = step
                return float(step)
            if is_eval and self.last_x is not None:
                return self.last_x
            e = self.epoch if self.epoch is not None else 0.0
            e0 = self.epoch0 if self.epoch0 is not None else e
            if counter_total:
                self.per_epoch = counter_total
            if counter is not None:
                if self.counter_epoch != e:
                    self.counter_epoch = e
                if counter > self.max_counter:
                    self.max_counter = counter
                per = self.per_epoch or self.max_counter or 1
                return float((e - e0) * per + counter)
            if self.last_step is not None and self.epoch is None:
                return float(self.last_step)
            per = self.per_epoch or self.max_counter
            if per:
                return float((e - e0 + 1) * per)
            return self.last_x if self.last_x is not None else 0.0
        if self.mode == "epoch":
            if self.epoch is not None:
                return float(self.epoch)
            return self.last_x if self.last_x is not None else 0.0
        if is_eval and self.last_x is not None:
            return self.last_x
        return float(self.train_records)

    # -- the end -----------------------------------------------------------------------------
    def finish(self) -> ConsoleLog:
        log = self.log
        self._release_held(None)
        log.lines = self.line_no
        self._history_flush()
        if self.box:
            self._box_flush()      # a boxed block the text ends in, without its closing rule
        if self.frame is not None:
            self._frame_flush()    # a wrapped DataFrame the text ends in
        if self.in_trace and not self._trace_of_last_error():
            # the text ends inside a traceback (an excerpt cut before the exception's line): the
            # run still raised
            self._error(self._cut_short_message(), self.trace_line)
        for c in self.cands.values():
            if c.by:
                c.flush()
        best = _best_candidates(self.cands.values())
        self._clock_series(best)
        _split_alone_scores(self.cands.values(), best, self.words)
        _scores_only_beside_scores(best, self.words)
        self._bare_series(best)
        self._speed_series(best)
        # every name each role was printed under (a pasted excerpt that prints the loss under two
        # names, "Loss" per batch and "Training Loss" per epoch, states no single loss value)
        # ({name: last value} of the names that say what they measure: not a loss component, a
        # perplexity or a split word alone, which rank from logs.generic_rank on)
        log.role_names = {}
        for c in self.cands.values():
            if c.series.rows and c.role in best and (c.rank < self.words.generic_rank or best[c.role] is c):
                log.role_names.setdefault(c.role, {})[c.name] = c.last
        # a test split stands in for validation only when no validation was printed
        for role, c in best.items():
            log.series[role] = c.series
            log.columns[role] = c.name
            log.names[role] = c.name
        self._held_out(best)
        self._float_floor()
        self._other_nonfinite(best)
        ignored = sorted({c.name for c in self.cands.values()} - set(log.columns.values()))
        log.ignored_columns = ignored[:_KEPT_IGNORED_COLUMNS]
        log.rows = self.metric_lines
        log.epochs = self.max_epochs_seen if self.epochs_seen or self.max_epochs_seen else 0
        log.first_epoch = self.epoch0
        if not self.counted_in_epoch or log.restart_lines:
            log.epoch_starts = []
        if self.t_lines:
            total = self.t_data + self.t_step if self.t_apart else self.t_step
            if total > 0:
                log.data_wait = (min(1.0, self.t_data / total), self.t_lines, self.t_apart)
        log.styles = sorted(self.styles, key=self.styles.get, reverse=True)
        if self.log.x_label == "step" and log.restarts is not None:
            pass
        if not any(r in log.series for r in ("loss", "val_loss", "accuracy", "val_accuracy")):
            if log.errors or log.nan_warnings:
                return log  # a crash before the first metric is still evidence
            gn = log.series.get("grad_norm")
            if gn is not None and gn.nonfinite:
                return log  # NaN gradient norms printed without a loss: explosion evidence
            if log.data_wait is not None or log.scale_reports is not None or "step_time" in log.series \
                    or log.kappa_best is not None:
                return log  # data-loading and step times (speed), a loss scaler's overflows, a kappa
            rl = log.rl_names or self.reward_names   # (a reward alone: nothing else was printed)
            if rl:
                shown = ", ".join(repr(n) for n in rl[:_SHOWN_RL_NAMES_IN_ERROR])
                raise RLLogError(f"the log prints rewards ({shown}), "
                                 "not a supervised loss: a reinforcement-learning run",
                                 self.path, None, rl)
            raise NoMetricsError(
                f"no training metrics found in {self.line_no:,} line(s) (lines 1-{self.line_no}): "
                "none holds a loss or accuracy as 'key value', 'key: value', 'key=value', a table "
                "with a header, a progress bar or a dict", self.path,
                hint="name a metric with --column-map, e.g. loss=my_loss")
        return log


def _unmarked(line: str) -> str:
    """A line without its terminal colours, and a table row printed as markup (an HTML table's row, a
    SQL dump's table and rows) as the delimited row the table reader reads."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    return markup_row(line) or line


def _lines(f, path: str = "text", max_piece: int | None = None):
    """``(text, new)`` for the lines of a text stream opened with ``newline="\\n"``: a ``\\r`` (a
    progress bar redrawn) ends a piece of a line too; ``new`` is False for the pieces after the
    first, so that line numbers count the file's lines. (:func:`_line_batches` piece by piece.)"""
    for pieces, news in _line_batches(f, path, max_piece):
        if news is None:
            for p in pieces:
                yield p, True
        else:
            yield from zip(pieces, news)


def _line_batches(f, path: str = "text", max_piece: int | None = None):
    """The pieces of :func:`_lines` in batches ``(pieces, news)``: ``news`` is None when every
    piece is a new line (no ``\\r`` in the batch), else a list of the ``new`` flags. A piece holds
    no line end.

    Read in blocks, so a line is never held whole: a progress bar redrawn a million times without
    a newline streams piece by piece; a single piece longer than ``max_piece`` characters
    (``limits.max_line_chars``) is an InputError naming its line."""
    limit = max_piece if max_piece is not None else bounded.limits().max_line_chars
    buf = ""
    first = True          # the next piece of the current line is its first
    had_cr = False        # pieces of the current line were split off before its newline came
    line_no = 1
    while True:
        chunk = f.read(_READ_CHUNK_CHARS)
        buf += chunk
        nl = buf.rfind("\n")
        if nl >= 0:
            whole, buf = buf[:nl], buf[nl + 1:]
            lines = whole.split("\n")
            line_no += len(lines)
            if not had_cr and "\r" not in whole:
                yield lines, None
            else:
                pieces, news = [], []
                for line in lines:
                    if "\r" in line or had_cr:
                        first = _cr_pieces(line.rstrip("\r"), first, pieces, news)
                        if first:
                            pieces.append("")
                            news.append(True)
                    else:
                        pieces.append(line)
                        news.append(True)
                    first, had_cr = True, False
                yield pieces, news
        if not chunk:
            if buf:
                if "\r" in buf or had_cr:
                    pieces, news = [], []
                    first = _cr_pieces(buf, first, pieces, news)
                    if first:
                        pieces.append("")
                        news.append(True)
                    yield pieces, news
                else:
                    yield [buf], None
            return
        cr = buf.rfind("\r")
        if cr >= 0:   # finished pieces of an unfinished line: out now
            head, buf = buf[:cr], buf[cr:]
            had_cr = True
            pieces, news = [], []
            first = _cr_pieces(head, first, pieces, news)
            if pieces:
                yield pieces, news
            if len(buf) > 1:
                buf = buf[1:] if buf[1:2] != "\n" else buf
        if len(buf) > limit:
            raise InputError(f"line longer than {limit} characters", path, line_no,
                             hint="limits.max_line_chars in kb/parameters/limits.yaml")


def _cr_pieces(text: str, first: bool, pieces: list, news: list) -> bool:
    """Add the pieces of ``text`` between carriage returns that are not blank; returns ``first``
    for the piece after them (False once one was added)."""
    for part in text.split("\r"):
        if part.strip():
            pieces.append(part)
            news.append(first)
            first = False
    return first


def _feed_all(reader, f, path: str, max_piece: int | None) -> None:
    if reader.wrap_width:
        return _feed_unwrapped(reader, _line_batches(f, path, max_piece))
    for pieces, news in _line_batches(f, path, max_piece):
        if news is None:
            reader.feed_lines(pieces)
        else:
            for piece, new in zip(pieces, news):
                reader.feed(piece, new)


def _feed_unwrapped(reader, batches) -> None:
    """Feed a text hard-wrapped at a terminal's width (``console_wrap``) record by record, each cut
    record joined into one line; the line count goes on counting the physical lines."""
    for text, new, extra in unwrap_batches(batches, reader.wrap_width):
        reader.feed(text, new)
        reader.line_no += extra


def read_console(path, column_map=None, params=None, guess: bool = True, scores: bool = False) -> ConsoleLog:
    """Read a console log file into a :class:`ConsoleLog` (finished: percent accuracies scaled,
    restarts listed). Raises InputError (one line, file and lines tried) when no metric is found,
    not even as quality scores (:func:`_read_scores`) or under names guessed from their values
    (``guess``; see :mod:`.console_guess`)."""
    path = os.fspath(path)
    reader = ConsoleReader(path, column_map, params, scores=scores)
    try:
        f = open(path, encoding="utf-8-sig", errors="replace", newline="\n")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    with f:
        _read_head(reader, f.read(_rl_head(params)))
        f.seek(0)
        _feed_all(reader, f, path, bounded.limits(params).max_line_chars)
    try:
        log = reader.finish()
    except NoMetricsError as exc:
        if not guess:
            raise
        scored = _read_scores(lambda: read_console(path, column_map, params, guess=False, scores=True))
        if scored is not None:
            return scored
        with open(path, encoding="utf-8-sig", errors="replace", newline="\n") as f:
            head = _head_lines(f, params)
        return _read_guessed(lambda p: read_console(path, column_map, p, guess=False), head, params, exc)
    if guess and not _reads_a_loss(log):
        with open(path, encoding="utf-8-sig", errors="replace", newline="\n") as f:
            head = _head_lines(f, params)
        log = _loss_guessed(lambda p: read_console(path, column_map, p, guess=False), head, params, log) or log
    _finish(log, params)
    return log


def _head_lines(f, params) -> list[str]:
    """The first ``console.guess_max_lines`` lines of an open text, each cut at the longest line read."""
    limit, width = int(resolve(params)["console.guess_max_lines"]), bounded.limits(params).max_line_chars
    return [line[:width] for line in itertools.islice(f, limit)]


def _read_scores(read) -> ConsoleLog | None:
    """The text read again with quality scores standing in for accuracies (an evaluation table, a
    per-epoch dict of F1, Dice, mAP, BLEU or R2 scores printed without a loss or an accuracy), with a
    note saying so; None when that reads nothing either. Only after the plain reading found nothing,
    so that a score never moves the reading of a log that prints a loss or an accuracy."""
    try:
        log = read()
    except NoMetricsError:
        return None
    names = ", ".join(f"{log.columns[r]!r}" for r in ("accuracy", "val_accuracy") if r in log.columns)
    log.notes.append(f"no loss or accuracy printed: the quality score(s) {names} read as accuracies")
    return log


def _read_guessed(read, lines: list[str], params, exc: NoMetricsError) -> ConsoleLog:
    """The log read again under the names :func:`console_guess.guess_vocabulary` finds, with a note
    saying so; the original one-line refusal when the values tell nothing or still read as nothing."""
    pipes = console_guess.pipe_losses(lines, params)
    vocab = pipes or console_guess.guess_vocabulary(lines, params)
    if not vocab:
        raise exc
    try:
        log = read(console_guess.with_vocabulary(params, vocab))
    except NoMetricsError:
        raise exc from None
    log.notes.append(console_guess.pipe_note(vocab) if pipes else console_guess.note(vocab))
    if not pipes:   # a pipeline's component names are known words, not a guess
        log.guessed_names = dict(vocab)
    return log


def _reads_a_loss(log: ConsoleLog) -> bool:
    """Whether the log holds a loss, or holds no accuracy either (nothing for a guess to stand beside)."""
    return any(role in log.series for role in ("loss", "val_loss")) or not any(
        role in log.series for role in ("accuracy", "val_accuracy"))


def _loss_guessed(read, lines: list[str], params, first: ConsoleLog) -> ConsoleLog | None:
    """A log whose known names hold an accuracy and no loss (``acc`` is English in any language's
    print) read again with the names its values tell a loss (``entrenamendu-galera`` /
    ``balidazio-galera``, one metric on two splits), with the note saying so; None when the values
    tell no loss, or the second reading holds none or loses a metric the first one read."""
    vocab = console_guess.guess_vocabulary(lines, params)
    if not any(role.endswith("loss") for role in vocab.values()):
        return None
    try:
        log = read(console_guess.with_vocabulary(params, vocab))
    except NoMetricsError:
        return None
    if not any(role in log.series for role in ("loss", "val_loss")) or not set(first.series) <= set(log.series):
        return None
    log.notes.append(console_guess.note(vocab))
    log.guessed_names = dict(vocab)
    return log


def _rl_head(params) -> int:
    return int(resolve(params)["console.rl_head_chars"])


def _read_head(reader: ConsoleReader, head: str) -> None:
    """What the text's head says of the run before its lines are read: the RL metric names
    (an agent's reward beside its context) and the reward names printed on their own."""
    head = yaml_nonfinite(head)   # ``episode_reward_mean: .nan``: a reward name before a (YAML) number
    reader.log.rl_names = rl_names_in_text(head, reader.words)
    reader.wrap_width = wrap_width(head, reader.params)
    reader.reward_names = reward_names_in_text(head, reader.words)


def read_console_text(text: str, name: str = "pasted log", column_map=None, params=None,
                      guess: bool = True, scores: bool = False) -> ConsoleLog:
    """Read console text already in memory (a pasted excerpt); ``guess`` and ``scores`` as in
    :func:`read_console`."""
    reader = ConsoleReader(name, column_map, params, fmt="pasted", scores=scores)
    _read_head(reader, text[:_rl_head(params)])
    _feed_all(reader, io.StringIO(text, newline="\n"), name, bounded.limits(params).max_line_chars)
    try:
        log = reader.finish()
    except NoMetricsError as exc:
        if not guess:
            raise
        scored = _read_scores(lambda: read_console_text(text, name, column_map, params, guess=False, scores=True))
        if scored is not None:
            return scored
        head = _head_lines(io.StringIO(text, newline="\n"), params)
        return _read_guessed(lambda p: read_console_text(text, name, column_map, p, guess=False), head, params, exc)
    if guess and not _reads_a_loss(log):
        head = _head_lines(io.StringIO(text, newline="\n"), params)
        log = _loss_guessed(lambda p: read_console_text(text, name, column_map, p, guess=False), head, params,
                            log) or log
    _finish(log, params)
    return log


def _finish(log: ConsoleLog, params=None) -> None:
    log._finish(params)
    # restarts are counted by line in the reader; LogData lists them by step
    if not log.restart_lines and log.restarts:
        log.restart_lines = []


def looks_like_console(text: str, params=None) -> bool:
    """True when ``text`` holds at least ``console.min_pasted_records`` printed metric records, or a
    traceback and one (used to tell a pasted log from prose)."""
    reader = ConsoleReader("text", None, params, fmt="pasted")
    _feed_all(reader, io.StringIO(text, newline="\n"), "text", None)
    good = [c for c in reader.cands.values() if c.role in ("loss", "val_loss", "accuracy",
                                                            "val_accuracy")]
    least = reader.params["console.min_pasted_records"]
    return reader.metric_lines >= least and bool(good) or bool(reader.log.errors) and reader.metric_lines >= 1


def analyze_console(log: ConsoleLog, num_classes=None, params=None):
    """Curve facts plus the text's own evidence: ``(findings, analysis)``."""
    from .curves import analyze
    if any(r in log.series for r in ("loss", "val_loss", "accuracy", "val_accuracy", "step_time")):
        findings, analysis = analyze(log, num_classes=num_classes, params=params)
    else:
        findings, analysis = [], None
    return log.evidence(findings, params), analysis


__all__ = ["read_console", "read_console_text", "analyze_console", "looks_like_console",
           "ConsoleLog", "ConsoleReader", "describe"]
