"""A log of a reinforcement-learning run (an agent's rewards per episode) is out of traindx's scope:
it is handed on to the deep-RL pack, whether the log holds a loss beside the rewards or nothing but
rewards, in a CSV or in printed console lines. A supervised log that merely has a word like
"reward" or "return" in one name is not read as RL."""
import math

from conftest import diagnose_json

from traindx.probes.readers.logs import rl_metric_names, rl_names_in_text


def _diagnose(path):
    return diagnose_json("--log", str(path))


def _deferred_to_rl(report):
    return report["status"] == "out_of_scope" and (report.get("deferral") or {}).get("id") == "rl_training"


def test_a_csv_of_episode_rewards_is_deferred_not_refused(tmp_path):
    rows = ["ep,total_reward,avg_return,actor_loss"]
    for i in range(60):
        rows.append(f"{i},{10 + i * 0.7:.1f},{8 + i * 0.5:.2f},{0.4 / (1 + i * 0.05):.4f}")
    p = tmp_path / "progress.csv"
    p.write_text("\n".join(rows) + "\n")
    rep = _diagnose(p)
    assert _deferred_to_rl(rep), rep["status"]
    assert not rep["root_causes"]


def test_printed_rewards_beside_a_loss_put_the_run_out_of_scope(tmp_path):
    # a DQN-style print: a TD loss that plateaus would otherwise read as a supervised plateau
    lines = [f"[ep {i:3d}] td_loss={1.0 / (1 + i) + 0.05:.4f}  score: {15 + i}  eps {max(0.05, 1 - i * 0.02):.3f}"
             for i in range(80)]
    text = "\n".join(lines).replace("eps ", "epsilon ")
    p = tmp_path / "dqn_train.log"
    p.write_text("Starting training\n" + text + "\n")
    assert not _deferred_to_rl(_diagnose(p))  # 'score' is not a reward word: epsilon alone does not decide
    p.write_text("Starting training\n" + text.replace("score:", "episode_reward:") + "\n")
    rep = _diagnose(p)
    assert _deferred_to_rl(rep), rep["status"]


def test_a_supervised_log_with_one_reward_like_name_is_still_diagnosed(tmp_path):
    lines = ["step,loss,val_loss,reward_model_acc"]
    for i in range(200):
        lines.append(f"{i},{2.3 * math.exp(-i / 60) + 0.05:.4f},{2.3 * math.exp(-i / 60) + 0.1:.4f},0.{60 + i % 30}")
    p = tmp_path / "metrics.csv"
    p.write_text("\n".join(lines) + "\n")
    rep = _diagnose(p)
    assert rep["status"] != "out_of_scope"
    assert rl_metric_names(["loss", "return_code", "epoch"]) == []
    assert rl_names_in_text("Epoch 3 | loss 0.41 | rewards/chosen 0.2 | rewards/margins 0.1") == []


def test_the_reward_search_stays_linear_on_hostile_text():
    # one unbroken run of letters, or of spaced words, as long as the searched head: a name pattern
    # without bounds backtracks quadratically here (minutes for 64 KB)
    import time
    for text in ("a" * 65536, "ab_" * 21000, ("x" * 47 + " ") * 1300):
        t0 = time.process_time()
        assert rl_names_in_text(text) == []
        assert time.process_time() - t0 < 5.0
