"""Print styles a finished run's console log was unreadable in (session 34): an Erlang/Elixir term per
epoch (``{epoch,3,[{train_loss,0.08},{val_loss,0.09}]}``), a data file whose header is commented out
(``# epoch  train_mse  val_mse``, as gnuplot and ``numpy.savetxt(header=...)`` write it), and JSON
lines whose metrics sit in a nested object (a JSON-RPC notification's ``params``)."""

import json

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.logs import read_log


def _falling(e: int) -> float:
    return 0.3 / e


def test_an_erlang_term_per_epoch_reads_its_split_values():
    text = "\n".join(f"{{epoch,{e},[{{train_loss,{_falling(e):.6f}}},{{val_loss,{_falling(e) + 0.01:.6f}}},"
                     f"{{lr,0.05}}]}}." for e in range(1, 11))
    log = read_console_text("=INFO REPORT==== 5-Dec-2026::15:48:56 ===\n" + text)
    assert log.series["loss"].rows == 10
    assert log.series["loss"].points[-1].mean == pytest.approx(0.03, rel=1e-4)
    assert log.series["val_loss"].points[0].mean == pytest.approx(0.31, rel=1e-4)


def test_an_erlang_setting_that_names_no_number_stays_unread():
    with pytest.raises(InputError):
        read_console_text("{config,[{optimizer,sgd},{mode,fast}]}.\n" * 3)


def test_a_commented_out_header_heads_its_table():
    rows = "\n".join(f"  {e:2d}  {1.0 / e:.6e}  {1.1 / e:.6e}" for e in range(1, 13))
    text = "# training history, batch 64\n# epoch  train_mse  val_mse\n" + rows + "\n\n# end: 12 epochs\n"
    log = read_console_text(text)
    assert log.series["loss"].rows == 12
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.1 / 12, rel=1e-4)


def test_a_commented_line_of_prose_heads_no_table():
    with pytest.raises(InputError):
        read_console_text("# plot 'history.dat' using 1:3 with lines\n   1  2.5  3.0\n   2  2.4  2.9\n")


def test_json_lines_with_metrics_nested_under_a_container_read_every_split(tmp_path):
    recs = [{"jsonrpc": "2.0", "method": "run.start", "params": {"model": "net", "n_params": 1000}}]
    recs += [{"jsonrpc": "2.0", "method": "run.epoch", "params": {"epoch": e, "train_loss": 1.6 / e,
                                                                   "val_loss": 1.5 + 0.02 * e, "val_acc": 0.3},
              "id": e} for e in range(1, 21)]
    path = tmp_path / "console.log"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    log = read_log(str(path))
    assert set(log.series) >= {"loss", "val_loss", "val_accuracy"}
    assert log.series["val_loss"].points[-1].mean == pytest.approx(1.9, rel=1e-4)
    assert log.x_label == "epoch"


def _var_dump(e: int) -> str:
    return (f'array(4) {{\n  ["epoch"]=>\n  int({e})\n  ["train_nll"]=>\n  float({20 / e:.4f})\n'
            f'  ["dev_nll"]=>\n  float({18 / e:.4f})\n  ["dev_acc"]=>\n  float({0.5 + 0.02 * e:.4f})\n}}\n')


def test_php_var_dump_arrays_read_one_record_each():
    text = 'string(3) "crf"\nint(2694)\n' + "".join(_var_dump(e) for e in range(1, 11)) + 'string(9) "finished."\n'
    log = read_console_text(text)
    assert log.series["loss"].rows == 10
    assert log.series["loss"].points[-1].mean == pytest.approx(2.0, rel=1e-4)
    assert log.series["val_accuracy"].points[-1].mean == pytest.approx(0.7, rel=1e-4)


def test_a_var_dump_key_over_a_string_reads_no_value():
    with pytest.raises(InputError):
        read_console_text('array(2) {\n  ["model"]=>\n  string(3) "crf"\n  ["loss"]=>\n  string(4) "none"\n}\n' * 3)


def test_perl_data_dumper_values_held_as_strings_are_read():
    pad = " " * 10
    blocks = "".join(f"$VAR1 = {{\n{pad}'epoch' => {e},\n{pad}'lr' => '{5e-4 * 0.1 ** (e - 1):g}',\n"
                     f"{pad}'train_loss' => '{1.6 - 0.04 * e:.5f}',\n{pad}'val_loss' => '{1.4 - 0.03 * e:.5f}'\n"
                     f"        }};\n" for e in range(1, 11))
    log = read_console_text("# memnet: 3270 params\n" + blocks)
    assert log.series["loss"].rows == 10
    assert log.series["loss"].points[-1].mean == pytest.approx(1.2, rel=1e-4)
    assert log.series["lr"].points[-1].mean == pytest.approx(5e-13, rel=1e-3)


def test_a_quoted_word_after_an_arrow_is_no_value():
    with pytest.raises(InputError):
        read_console_text("$VAR1 = {\n  'model' => 'memnet',\n  'loss' => 'ce'\n};\n" * 3)
