"""One-dimensional Ising chains by exact enumeration (Shen 2019, Appendix G and Sec. 6).

The open chain of ``N`` spins ``s_i = +-1`` has the Hamiltonian of eq. (56),

    H = sum_{i<j} J(j - i) s_i s_j,

and the Boltzmann distribution ``p(s) = exp(-beta H(s)) / Z``. Eq. (57) prints the sum over
all ordered pairs ``i, j = 1..N``; that would count every pair twice (doubling ``beta``) and
add the constant diagonal. We follow eq. (56) and eq. (62), which both use each pair once.
With this sign, ``J < 0`` is ferromagnetic.

Configurations are indexed so that ``s_1`` is the most significant bit (``+1`` is bit 0):
summing the probability table over its trailing axis marginalises the last spin, which
makes every prefix marginal ``p(s_1, ..., s_t)`` a reshape and a sum.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.info import mi_from_joint
from seqmi.validate import check_float, check_int, check_lags

MAX_SPINS = 22


def configurations(n_spins: int) -> NDArray[np.int8]:
    """All ``2^N`` spin configurations, shape ``(2^N, N)``, ``s_1`` the most significant bit."""
    check_int("n_spins", n_spins, 1, MAX_SPINS)
    bits = (np.arange(2**n_spins)[:, None] >> np.arange(n_spins - 1, -1, -1)) & 1
    return (1 - 2 * bits).astype(np.int8)


def nearest_neighbour_couplings(n_spins: int, J: float) -> NDArray[np.float64]:
    """``J(d)`` for ``d = 1..N-1`` of eq. (60): ``J`` at ``d = 1``, zero beyond."""
    check_int("n_spins", n_spins, 2, MAX_SPINS)
    couplings = np.zeros(n_spins - 1)
    couplings[0] = check_float("J", J)
    return couplings


def power_law_couplings(n_spins: int, J: float, alpha: float) -> NDArray[np.float64]:
    """``J(d) = J d^(-alpha)`` for ``d = 1..N-1`` (the long-range chain of Sec. 6)."""
    check_int("n_spins", n_spins, 2, MAX_SPINS)
    check_float("alpha", alpha, 0.0, low_open=True)
    return check_float("J", J) * np.arange(1, n_spins, dtype=float) ** (-alpha)


def energies(couplings: ArrayLike) -> NDArray[np.float64]:
    """``H(s) = sum_{i<j} J(j-i) s_i s_j`` (eq. 56) for every configuration.

    Parameters
    ----------
    couplings : array_like, shape (N - 1,)
        ``J(d)`` for ``d = 1..N-1``.

    Returns
    -------
    ndarray, shape (2^N,)
    """
    j = np.asarray(couplings, dtype=float)
    if j.ndim != 1 or j.size < 1:
        raise ValueError(f"couplings must be a 1-D array of J(1..N-1), got shape {j.shape}")
    s = configurations(j.size + 1).astype(float)
    h = np.zeros(s.shape[0])
    for dist in range(1, j.size + 1):
        if j[dist - 1] != 0.0:
            h += j[dist - 1] * (s[:, :-dist] * s[:, dist:]).sum(axis=1)
    return h


def boltzmann(couplings: ArrayLike, beta: float) -> NDArray[np.float64]:
    """Boltzmann probabilities ``exp(-beta H) / Z`` of all configurations, shape ``(2^N,)``."""
    check_float("beta", beta, 0.0)
    e = -beta * energies(couplings)
    w = np.exp(e - e.max())
    return w / w.sum()


def conditionals(probs: ArrayLike) -> list[NDArray[np.float64]]:
    """``p(s_t = +1 | s_1..s_{t-1})`` for ``t = 1..N`` from the joint table (Bayes, eq. 58).

    Parameters
    ----------
    probs : array_like, shape (2^N,)

    Returns
    -------
    list of ndarray
        Entry ``t - 1`` has shape ``(2^(t-1),)``, indexed by the prefix ``s_1..s_{t-1}``
        (most significant bit first, ``+1`` is bit 0).
    """
    p = np.asarray(probs, dtype=float)
    n = int(round(np.log2(p.size)))
    if p.ndim != 1 or 2**n != p.size:
        raise ValueError(f"probs must have 2^N entries, got shape {p.shape}")
    out = []
    for t in range(1, n + 1):
        prefix = p.reshape(2 ** (t - 1), 2, 2 ** (n - t)).sum(axis=2)  # p(s_1..s_{t-1}, s_t)
        out.append(prefix[:, 0] / prefix.sum(axis=1))
    return out


def eq62_conditional(beta: float, J: float, s_prev: ArrayLike) -> NDArray[np.float64]:
    """``p(s_t = +1 | s_{t-1})`` of eq. (62): ``exp(-beta J s_{t-1}) / (2 cosh(beta J s_{t-1}))``."""
    s = np.asarray(s_prev, dtype=float)
    return np.exp(-beta * J * s) / (2.0 * np.cosh(beta * J * s))


def eq62_deviation(beta: float, J: float, n_spins: int) -> float:
    """Largest ``|p_Boltzmann(s_t | s_<t) - eq. (62)|`` over all ``t >= 2`` and prefixes.

    The first spin is compared with ``1/2`` (the chain's spin-flip symmetry).
    """
    conds = conditionals(boltzmann(nearest_neighbour_couplings(n_spins, J), beta))
    dev = abs(conds[0][0] - 0.5)
    for t in range(2, n_spins + 1):
        s_prev = 1 - 2 * (np.arange(2 ** (t - 1)) & 1)  # the last spin of each prefix
        dev = max(dev, float(np.abs(conds[t - 1] - eq62_conditional(beta, J, s_prev)).max()))
    return float(dev)


def past_dependence(probs: ArrayLike, t: int) -> NDArray[np.float64]:
    """How much ``p(s_t | s_<t)`` depends on the spin ``k`` steps back, for ``k = 1..t-1``.

    Entry ``k - 1`` is the largest change of ``p(s_t = +1 | s_<t)`` when only ``s_{t-k}``
    of the prefix is flipped: exactly zero for ``k >= 2`` in a chain whose conditional is
    that of eq. (62).
    """
    conds = conditionals(probs)
    check_int("t", t, 2, len(conds))
    c = conds[t - 1]
    idx = np.arange(c.size)
    return np.array([np.abs(c - c[idx ^ (1 << (k - 1))]).max() for k in range(1, t)])


def pair_mi(probs: ArrayLike, i: int, j: int) -> float:
    """Exact ``I(s_i; s_j)`` (nats, spins numbered from 1) from the joint table."""
    p = np.asarray(probs, dtype=float)
    n = int(round(np.log2(p.size)))
    check_int("i", i, 1, n)
    check_int("j", j, 1, n)
    if i == j:
        raise ValueError("i and j must differ")
    table = p.reshape((2,) * n)
    others = tuple(k for k in range(n) if k not in (i - 1, j - 1))
    joint = table.sum(axis=others)
    return mi_from_joint(joint if i < j else joint.T)


def nn_two_point_mi(beta_J: float, lags: ArrayLike) -> NDArray[np.float64]:
    """Exact ``I(s_t; s_{t+tau})`` of the nearest-neighbour chain.

    By eq. (62) the chain is Markov with flip probability
    ``q = e^{beta J} / (2 cosh beta J) = (1 + tanh beta J) / 2``, so
    ``c = <s_t s_{t+tau}> = (-tanh beta J)^tau`` and ``I`` is that of the binary symmetric
    chain, ``ln 2 - H_b((1 - c)/2)``, evaluated here as the equal
    ``c artanh(c) + log1p(-c^2) / 2``, whose two terms (``~ c^2`` and ``~ -c^2/2``) keep full
    relative accuracy when ``I ~ c^2 / 2`` is far below machine epsilon, where the
    difference form cancels to zero.
    """
    check_float("beta_J", beta_J)
    tau = check_lags(lags)
    c = (-np.tanh(beta_J)) ** tau
    return c * np.arctanh(c) + 0.5 * np.log1p(-c * c)


def nn_correlation_length(beta_J: float) -> float:
    """Correlation length ``xi = -1 / (2 ln|tanh beta J|)`` of Shen 2019 eq. (9), ``I(tau) ~ exp(-tau / xi)``.

    The spin correlation ``(-tanh beta J)^tau`` decays with ``zeta = -1 / ln|tanh beta J| = 2 xi``,
    and ``I(tau) ~ c^2 / 2`` (:func:`nn_two_point_mi`) decays twice as fast.
    """
    r = abs(np.tanh(check_float("beta_J", beta_J)))
    if r == 0.0:
        return 0.0
    return float(-0.5 / np.log(r))
