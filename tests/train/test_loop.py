"""The one training loop: autocast for the training losses, float32 for validation."""

import numpy as np
import torch

from seqmi.models.lm import TransformerLM
from seqmi.train import Member, Sequences, TrainConfig, fit, language_model_task, order_rng

ROWS = np.random.default_rng(0).integers(2, size=(96, 24))
DATA = Sequences(ROWS[:64], ROWS[64:])


class AutocastSpy(TransformerLM):
    """A Transformer that records, per forward pass, whether it trains and whether bf16 autocast is on."""

    def __init__(self):
        super().__init__(2, width=8, depth=1, heads=2, max_len=25)
        self.seen = []

    def forward(self, tokens):
        self.seen.append((self.training, torch.is_autocast_enabled("cpu")))
        return super().forward(tokens)


def test_validation_runs_in_float32_under_bf16_training():
    config = TrainConfig(optimizer="adam", lr=0.003, batch_size=32, max_epochs=1, restarts=1)
    task = language_model_task(DATA, config.batch_size)
    model = AutocastSpy()
    fit([Member(model, config, order_rng(config, 0), task)], task, amp=True, progress=False)
    assert {autocast for training, autocast in model.seen if training} == {True}
    assert {autocast for training, autocast in model.seen if not training} == {False}
