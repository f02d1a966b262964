"""Session 29 (finish29): what finished runs of unfamiliar model kinds and print styles left that the
readers misread."""
from traindx.probes.readers.logs import read_log


def _semicolon_decimal_comma(tmp_path):
    """A ``;``-delimited table with decimal commas (``df.to_csv(sep=";", decimal=",")`` in a German
    or French locale): the loss falls, then climbs."""
    rows = ["iter;loss;valid_loss;rate"]
    for i in range(1, 9):
        loss = 2.5 / i if i < 6 else 0.5 * i
        rows.append(f"{i * 100};{loss:.5f};{loss + 0.25:.5f};0.0100".replace(".", ","))
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_semicolon_table_with_decimal_commas_is_read_as_numbers(tmp_path):
    log = read_log(_semicolon_decimal_comma(tmp_path))
    assert log.format == "csv"
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].head[0][1] == 2.5
    assert abs(log.series["val_loss"].last_value - 4.25) < 1e-9


def test_a_comma_in_a_comma_delimited_table_is_still_a_delimiter(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("step,loss\n" + "".join(f"{i},{1.0 / i}\n" for i in range(1, 6)), encoding="utf-8")
    log = read_log(path)
    assert log.series["loss"].last_value == 0.2
