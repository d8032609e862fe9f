"""Training configs: the learning-rate schedules, and the validation of every setting."""

import pytest

from seqmi.train import TrainConfig, lr_factor


def test_lr_schedule_warmup_then_cosine_to_minimum():
    config = TrainConfig(schedule="cosine", warmup_steps=10, min_lr_ratio=1 / 32)
    assert lr_factor(0, 110, config) == pytest.approx(0.1)
    assert lr_factor(9, 110, config) == pytest.approx(1.0)
    assert lr_factor(60, 110, config) == pytest.approx((1 + 1 / 32) / 2)
    assert lr_factor(110, 110, config) == pytest.approx(1 / 32)
    assert lr_factor(50, 110, TrainConfig(schedule="constant")) == 1.0


def test_config_is_validated():
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig(optimizer="lbfgs")
    with pytest.raises(ValueError, match="plateau_factor"):
        TrainConfig(schedule="plateau", plateau_factor=0.5)
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(lr=0.0)
