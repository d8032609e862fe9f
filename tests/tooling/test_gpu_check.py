"""scripts/gpu_check.py on the CPU with tiny models: every model kind runs, the report has its fields."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_check"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_tiny_check_on_cpu_writes_a_complete_report(tmp_path):
    gpu_check = load_script()
    out = tmp_path / "report.json"
    assert gpu_check.main(["--tiny", "--steps", "2", "--device", "cpu", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["device"] == "cpu" and report["tiny"] and report["ok"]
    assert {"api", "float32_matmul_precision"} <= set(report["precision_flags"])
    assert report["tolerances"] == {"output_rel": gpu_check.OUTPUT_RTOL, "grad_rel": gpu_check.GRAD_RTOL}
    names = [m["name"] for m in report["models"]]
    # every trained kind of chapters 03, 04 and 06
    for name in ("binary RNN", "binary LSTM", "binary Transformer", "char LSTM", "word Transformer",
                 "Gaussian transformer", "Gaussian mamba", "char Mamba (L2M)", "task relrnn", "task full",
                 "MiniGrid agent relevancy"):
        assert name in names
    for m in report["models"]:
        c, t = m["compare"], m["timing"]
        assert c["output_rel_diff"] == 0.0 and c["grad_rel_diff"] == 0.0  # the CPU against itself
        assert c["output_ok"] and c["grad_ok"]
        assert t["steps"] == 2 and t["seconds_per_step"] > 0 and t["tokens_per_s"] > 0 and t["parameters"] > 0
        assert not t["bf16_autocast"]


def test_unknown_model_name_is_an_error(tmp_path):
    gpu_check = load_script()
    with pytest.raises(SystemExit, match=r"unknown model names \['LSTMs'\]; choose from"):
        gpu_check.main(["--tiny", "--device", "cpu", "--only", "LSTMs", "--out", str(tmp_path / "r.json")])


def test_full_sizes_follow_the_profiles():
    import yaml

    gpu_check = load_script()
    full = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text())["full"]
    cases = {c.name: c for c in gpu_check.cases(full, tiny=False)}
    assert cases["binary RNN"].length == full["03_rnn_transformer_mi"]["length"]
    assert cases["Gaussian mamba"].batch == full["04_bipartite_mi_l2m"]["batch"]
    assert cases["Gaussian mamba"].length == max(full["04_bipartite_mi_l2m"]["l2m_lengths"])
    assert cases["task relrnn"].length == max(full["06_attention_gradients"]["task_lengths"])
