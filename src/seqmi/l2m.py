"""The L2M condition (Chen et al. 2025, Sec. 5): history-state sizes and the Theorem 5.2 bound.

* :func:`history_state_size` counts the history state ``dim(z_ell)`` of a model from its
  actual modules: the key/value cache of every attention layer (grows with ``ell``), the
  recurrent state of RNN/LSTM/GRU layers and Mamba blocks (constant in ``ell``).
* :func:`l2m_bound` and :func:`crossover_length` evaluate Theorem 5.2,
  ``I_bp(L/2; L) <= C dim(z_(L/2)) + ln M``, against a bipartite-MI curve.

The models of the experiments that test it live in :mod:`seqmi.models.gaussian_lm`
(continuous tokens, Fig. 4) and :mod:`seqmi.models.mamba` (the SSMs).
"""

from __future__ import annotations

import math

from torch import nn

from seqmi.validate import check_float, check_int

FLOAT32_NATS = 32 * math.log(2.0)
"""Most information one float32 number can hold, in nats; a hard ceiling on ``C`` in Thm. 5.2."""

# ---------------------------------------------------------------------- history state
def history_state_size(model: nn.Module, ell: int) -> int:
    """Number of real numbers in the history state ``z_ell`` after ``ell`` tokens.

    Counted from the model's modules, so that the number follows its actual widths:

    * attention (``nn.MultiheadAttention``, or any module owning a fused ``qkv`` linear
      map, as :class:`seqmi.models.lm.TransformerBlock` does): keys and values of every past token,
      ``2 * d * ell`` per layer (the KV cache);
    * ``nn.RNN``/``nn.GRU``: ``hidden * layers * directions``; ``nn.LSTM`` adds the cell
      state (``(h + c) * layers * directions``, ``h`` the projection size if any);
      the ``*Cell`` modules likewise for one layer;
    * Mamba blocks (``mambapy``): the SSM state ``d_inner * d_state`` plus the convolution
      buffer ``d_inner * (d_conv - 1)``.
    * any module declaring its state size as an integer attribute ``d_state_total`` (a
      linear recurrence such as :class:`seqmi.models.gaussian_lm.LinearSSMBackbone`):
      that many numbers.

    Parameters
    ----------
    model : torch.nn.Module
    ell : int
        Number of tokens seen, ``>= 0``.

    Returns
    -------
    int
    """
    check_int("ell", ell, 0)
    total = 0
    for module in model.modules():
        if isinstance(module, nn.MultiheadAttention):
            total += (module.kdim + module.vdim) * ell
        elif isinstance(getattr(module, "qkv", None), nn.Linear):
            # fused query/key/value projection: keys and values are two thirds of its output
            total += 2 * (module.qkv.out_features // 3) * ell
        elif isinstance(module, nn.LSTM):
            dirs = 2 if module.bidirectional else 1
            h = module.proj_size or module.hidden_size
            total += (h + module.hidden_size) * module.num_layers * dirs
        elif isinstance(module, (nn.GRU, nn.RNN)):
            total += module.hidden_size * module.num_layers * (2 if module.bidirectional else 1)
        elif isinstance(module, nn.LSTMCell):
            total += 2 * module.hidden_size
        elif isinstance(module, (nn.GRUCell, nn.RNNCell)):
            total += module.hidden_size
        elif type(module).__name__ == "MambaBlock" and hasattr(module, "config"):
            cfg = module.config
            total += cfg.d_inner * (cfg.d_state + cfg.d_conv - 1)
        elif isinstance(getattr(module, "d_state_total", None), int):
            total += module.d_state_total
    return total


def l2m_bound(state_size: float, nats_per_dim: float, log_vocab: float = 0.0) -> float:
    """Right-hand side of Theorem 5.2, ``C dim(z) + ln M`` (nats).

    Parameters
    ----------
    state_size : float
        ``dim(z_(L/2))``.
    nats_per_dim : float
        ``C``, the information one state dimension can carry; at most
        :data:`FLOAT32_NATS` for a float32 state.
    log_vocab : float
        ``ln M`` (0 for the continuous tokens of the Gaussian family, whose current
        token enters every model alike).

    Returns
    -------
    float
    """
    check_float("state_size", state_size, 0.0)
    check_float("nats_per_dim", nats_per_dim, 0.0, low_open=True)
    return float(nats_per_dim * state_size + log_vocab)


def crossover_length(state_size: float, nats_per_dim: float, amplitude: float, exponent: float,
                     log_vocab: float = 0.0) -> float:
    """Length beyond which a fixed-size state cannot hold ``I_bp = amplitude * L**exponent``.

    Solves ``amplitude * L**exponent = C dim(z) + ln M`` for ``L``.

    Parameters
    ----------
    state_size, nats_per_dim, log_vocab : float
        As in :func:`l2m_bound`.
    amplitude, exponent : float
        The power law of the bipartite MI (``exponent > 0``).

    Returns
    -------
    float
    """
    check_float("amplitude", amplitude, 0.0, low_open=True)
    check_float("exponent", exponent, 0.0, low_open=True)
    return float((l2m_bound(state_size, nats_per_dim, log_vocab) / amplitude) ** (1.0 / exponent))


