"""RL libraries print their metric names in CamelCase (Spinning Up's ``AverageEpRet`` / ``EpLen`` /
``Entropy`` table, DeepRM's ``MeanRew`` / ``NumTimesteps`` blocks). Such a log is an agent's, handed on
as out of scope, not read as a supervised loss or refused as holding no metric; a supervised log whose
CamelCase names hold no reward stays diagnosed."""
from conftest import diagnose_json

from traindx.probes.readers.logs import rl_metric_names


def _deferred_to_rl(report):
    return report["status"] == "out_of_scope" and (report.get("deferral") or {}).get("id") == "rl_training"


def test_a_spinning_up_epoch_table_is_an_rl_run(tmp_path):
    blocks = []
    for ep in range(6):
        rows = [("Epoch", ep), ("AverageEpRet", 20 + 3 * ep), ("StdEpRet", 11.5), ("EpLen", 20 + 3 * ep),
                ("AverageVVals", 9.1 + ep), ("TotalEnvInteracts", 4000 * (ep + 1)), ("LossPi", -0.01),
                ("LossV", 150 - 4 * ep), ("Entropy", 0.69 - 0.01 * ep), ("KL", 0.002), ("Time", 12 * ep + 3)]
        blocks.append("-" * 40 + "\n" + "\n".join(f"|{k:>18s} |{v:>16} |" for k, v in rows) + "\n" + "-" * 40)
    p = tmp_path / "progress.out"
    p.write_text("\n".join(blocks) + "\n")
    rep = diagnose_json("--log", str(p))
    assert _deferred_to_rl(rep), rep.get("status")


def test_camel_case_rewards_beside_timesteps_are_an_rl_run(tmp_path):
    out = []
    for it in range(12):
        out += [f"Iteration: \t {it}", "NumTrajs: \t 200", f"NumTimesteps: \t {32000 + 90 * it}",
                f"Loss:     \t {0.12 + 0.01 * (it % 3):.4f}", f"MaxRew: \t {-199.9 - it:.3f}",
                f"MeanRew: \t {-257.4 + 0.5 * it:.3f} +- 63.1", f"MeanEntropy \t {2.39 - 0.01 * it:.4f}",
                "-----------------"]
    p = tmp_path / "pg_train.log"
    p.write_text("\n".join(out) + "\n")
    rep = diagnose_json("--log", str(p))
    assert _deferred_to_rl(rep), rep.get("status")


def test_camel_case_names_without_a_reward_are_not_rl():
    assert rl_metric_names(["TrainLoss", "ValAcc", "EpochTime", "LearningRate", "NumSteps"]) == []
    assert rl_metric_names(["MeanRew", "NumTimesteps"]) == ["MeanRew", "NumTimesteps"]
