"""Console shapes read in session 44 (issue 13, paste44). Each sample is written for this test
(invented lines in the print shapes named) and asserts what a user reads off ``traindx diagnose
--log FILE``. Torch-free.

- metrics printed as a tuple of names beside a tuple of values (``Loss:(pitch, yaw)/(4.0, 2.4)``);
- a second Keras ``fit`` whose ``Epoch 1/N`` follows an earlier fit's records over a different
  number of batches: a new run, whose curve alone is judged;
- a C++ exception that ended the process (``terminate called after throwing ...`` / ``what(): ...``);
- a traceback as IPython prints it (frames at the line's start), cut before its exception's line;
- a JSON-lines log whose ``iter`` counts within each epoch (mmcv's ``{"epoch": 2, "iter": 5}``).
"""

import json

from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.probes.readers.console_tuples import split_named_tuples


def test_a_tuple_of_names_beside_a_tuple_of_values_is_read(tmp_path):
    lines = []
    for e in range(1, 9):
        for b in (100, 200, 300):
            loss = 3.0 * 0.85 ** (e + b / 300)
            lines.append(f"Epoch[{e}] Batch[{b}/300] Speed: 512.3 samples/sec, "
                         f"Loss:(cls, box, iou)/({loss:.3f}, {loss / 2:.3f}, {loss / 3:.3f})")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_fact(rep, "train_loss") is not None
    assert report_fact(rep, "run_length_steps") > 1


def test_tuples_of_numbers_alone_or_of_unequal_length_stay_as_they_are():
    assert split_named_tuples("lr (0.1, 0.01) / (0.2, 0.3)") == "lr (0.1, 0.01) / (0.2, 0.3)"
    assert split_named_tuples("Loss:(a, b)/(1.0, 2.0, 3.0)") == "Loss:(a, b)/(1.0, 2.0, 3.0)"
    assert split_named_tuples("MAE:(x, y)/(1.5, nan)") == "MAE_x: 1.5, MAE_y: nan"


def _second_fit(first_total: int) -> str:
    lines = [f"{first_total}/{first_total} [==============================] - 1s 1ms/step - loss: 1.2000"
             " - val_loss: 1.7000",
             "Epoch 00007: early stopping", "", "Trial 3 Complete [00h 00m 07s]", "val_loss: 1.70", "",
             "Best val_loss So Far: 1.70"]
    for e in range(1, 11):
        lines += [f"Epoch {e}/20", f"581/581 [==============================] - 1s 1ms/step - loss: "
                  f"{1.3 + 1.6 * 0.6 ** e:.4f}"]
    return "\n".join(lines) + "\n"


def test_a_second_fit_over_another_loop_is_a_new_run(tmp_path):
    # the first fit ran 465 batches an epoch and ended at 1.20; the second, over 581, falls
    # 2.26 -> 1.31: judged alone it is learning, not a loss that rose from 1.20
    rep, _ = diagnose_log_report(tmp_path, _second_fit(465))
    assert report_symptom(rep) == "healthy"
    assert report_fact(rep, "initial_loss") > 2


def test_cpp_exception_that_ended_the_run_is_out_of_scope(tmp_path):
    text = ("[06/02 14:10:24 main-logger]: Epoch: [1/50][10/1758] Loss 1.7657 Accuracy 0.4674.\n"
            "[06/02 14:10:39 main-logger]: Epoch: [1/50][20/1758] Loss 1.3113 Accuracy 0.5326.\n"
            "terminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: an illegal memory access was encountered\n"
            "Exception raised from create_event_internal at CUDACachingAllocator.cpp:733\n")
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_kind") == "cuda_error"


def _ipython_trace(cls: str) -> str:
    return ("Epoch 1/5\n    1/11523 [..............................] - ETA: 33:47:16\n"
            + "-" * 75 + "\n"
            f"{cls}                             Traceback (most recent call last)\n"
            "<ipython-input-29-2ce5b674b8b4> in <module>\n"
            "      6         epochs=EPOCHS,\n"
            "----> 8         validation_steps=steps)\n\n"
            "~\\anaconda3\\lib\\site-packages\\tensorflow\\util\\deprecation.py in new_func(*args, **kwargs)\n"
            "    323               instructions)\n"
            "--> 324       return func(*args, **kwargs)\n")


def test_an_ipython_traceback_cut_short_names_its_class(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _ipython_trace("InternalError"))
    assert report_symptom(rep) == "out_of_scope"
    assert report_fact(rep, "error_message").startswith("InternalError")


def test_an_interrupted_notebook_is_no_crash(tmp_path):
    text = "".join(f"epoch {k} loss nan acc 0.95\n" for k in range(4)) + _ipython_trace("KeyboardInterrupt")
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "explosion"


def test_json_lines_whose_iter_counts_within_each_epoch(tmp_path):
    recs = [{"mode": "train", "epoch": e, "iter": 5, "lr": 0.0001, "loss": round(2.6 * 0.8 ** e, 4)}
            for e in range(1, 7)]
    rep, _ = diagnose_log_report(tmp_path, "".join(json.dumps(r) + "\n" for r in recs), name="log.json")
    assert report_fact(rep, "run_length_steps") > 1
    assert report_fact(rep, "single_record") is None
