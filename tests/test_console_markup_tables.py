"""Session 28 (finish28): a run's metrics written out as markup, one row a line — an HTML table
(``<tr><th>...</th></tr>`` over ``<tr><td>...</td></tr>``) or a SQL dump (``CREATE TABLE`` with the
column names, then one ``INSERT ... VALUES (...)`` per record) — are read as the table they are."""
import math

from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.console_tables import markup_row


def _html(epochs=10):
    rows = ['<html><body><h2>run 7</h2>', '<table border="1">',
            '<tr><th>Epoch</th><th>Train Loss</th><th>Valid Loss</th><th>Valid Acc</th></tr>']
    for e in range(1, epochs + 1):
        rows.append(f'  <tr><td>{e}</td><td><b>{2.3 * math.exp(-e / 4):.4f}</b></td>'
                    f'<td class="v">{2.4 * math.exp(-e / 5):.4f}</td><td>{0.1 + 0.07 * e:.3f}</td></tr>')
    return "\n".join(rows + ["</table></body></html>"]) + "\n"


def _sql(epochs=10, named=False):
    rows = ["PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;",
            'CREATE TABLE "history" ("trial" TEXT, "epoch" INTEGER, "loss" REAL, "val_loss" REAL, '
            'PRIMARY KEY ("trial", "epoch"));']
    for e in range(1, epochs + 1):
        vals = f"'b3', {e}, {1.9 - 0.1 * e:.4f}, {2.0 - 0.08 * e:.4f}"
        cols = "(trial, epoch, loss, val_loss) " if named else ""
        rows.append(f"INSERT INTO history {cols}VALUES ({vals});")
    return "\n".join(rows + ["COMMIT;"]) + "\n"


def test_an_html_row_is_a_delimited_row():
    assert markup_row("<tr><th>step</th><th>loss</th></tr>") == "step|loss"
    assert markup_row('<tr><td align="r">3</td><td><i>0.5</i></td></tr>') == "3|0.5"
    assert markup_row("<title>loss curve</title>") is None


def test_an_html_table_is_read():
    log = read_console_text(_html())
    assert {"loss", "val_loss", "val_accuracy"} <= set(log.series)
    assert len(log.series["loss"].points) == 10
    assert abs(log.series["val_accuracy"].points[-1].mean - 0.8) < 1e-9


def test_a_sql_dump_is_read():
    log = read_console_text(_sql())
    assert {"loss", "val_loss"} <= set(log.series)
    assert len(log.series["loss"].points) == 10
    assert abs(log.series["loss"].points[-1].mean - 0.9) < 1e-9


def test_sql_inserts_that_name_their_columns_are_read():
    text = _sql(named=True).replace('CREATE TABLE "history"', "CREATE TABLE unrelated_name")
    log = read_console_text(text)
    assert abs(log.series["val_loss"].points[-1].mean - 1.2) < 1e-9


def test_a_sentence_that_starts_like_sql_is_left_alone():
    assert markup_row("Created vocabulary of 3000 words") is None
    assert markup_row("Inserting 12 rows (0.5 s)") is None
