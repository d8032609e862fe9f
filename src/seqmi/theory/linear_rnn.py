"""Linear Elman RNNs with Gaussian output, numerically (Shen 2019, Sec. 4.1 and Appendix A).

The network of eqs. (10)-(11) is

    h_t = W_h x_{t-1} + U_h h_{t-1} (+ b_h),    o_t = U_o h_{t-1} (+ b_o),
    x_t ~ N(o_t, sigma^2 I_d),

with a Gaussian initial pair ``(h_0, x_0)`` of joint covariance ``Sigma_0`` (eq. 14, rows
ordered ``h_0`` then ``x_0``). ``W_h`` is ``m x d``, ``U_h`` is ``m x m``, ``U_o`` is ``d x m``.

This module is the model in floating point: covariances, the stationary state, the mutual
information of eq. (41), sampling, and fits of the decay. The exact side of the proof (the
generating function of eq. 35 and its poles, in rational arithmetic) is
:mod:`seqmi.theory.linear_rnn_symbolic`, which follows the conventions below.

Conventions (decided here, stated in the chapter)
-------------------------------------------------
* ``Sigma_{x_t x_0} = Cov(x_t, x_0) = E[x_t x_0^T] - E[x_t] E[x_0]^T`` (a ``d x d`` matrix,
  rows indexed by ``x_t``); ``Sigma_{x_0 x_t}`` is its transpose, which is what eq. (41)
  uses. ``Sigma_{h_0 x_0} = Cov(h_0, x_0)`` is ``m x d``.
* Off-by-one in the printed derivation: iterating eq. (10) gives
  ``h_t = U_h^t h_0 + sum_{i<t} U_h^{t-1-i} W_h x_i``, so the model of eq. (11),
  ``o_t = U_o h_{t-1}``, has ``o_t = U_o U_h^{t-1} h_0 + sum_{i<=t-2} U_o U_h^{t-2-i} W_h x_i``.
  The printed eq. (12) and everything derived from it (eqs. 15, 21, 23, 26, 31, 34, 35)
  carry one more factor ``U_h``: they are exact for the model ``o_t = U_o U_h h_{t-1}``,
  not for eq. (11). Both models share the proof's structure (a rational generating
  function, exponential decay); only the pole positions differ. ``convention="eq11"``
  (the default) implements eq. (11) with the corrected recurrence and generating
  function; ``convention="printed"`` implements the model for which the printed eqs. (12),
  (15) and (35) hold verbatim. Internally both are ``o_t = C h_{t-1}`` with the
  effective read-out ``C = U_o`` or ``C = U_o U_h``.
* The recurrence (eq. 15 with ``C``): for ``t >= 1``,
  ``Sigma_t = C U_h^{t-1} Sigma_{h0x0} + sum_{i=0}^{t-2} C U_h^{t-2-i} W_h Sigma_i``
  (:func:`cross_covariance_recurrence`); with ``C = U_o U_h`` it is the printed eq. (15).
* State-space form (used as the independent check and as the stable numerical route):
  ``s_t = (h_t, x_t)`` obeys ``s_t = M s_{t-1} + (0, eps_t)`` with
  ``M = [[U_h, W_h], [C, 0]]``, so ``Cov(s_t, s_0) = M^t Sigma_0``. The decay ratio of
  ``Sigma_{x_t x_0}`` is at most the spectral radius of ``M``, and equal to it for
  generic weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import solve_discrete_lyapunov

from seqmi.info import gaussian_mi
from seqmi.validate import check_choice, check_float, check_int

CONVENTIONS = ("eq11", "printed")
Convention = Literal["eq11", "printed"]
"""The form of the output equation, ``"eq11"`` (as derived) or ``"printed"`` (as printed in the paper)."""


@dataclass(frozen=True)
class MIResult:
    """``I(x_0; x_t)`` for ``t = 1..t_max`` in three forms (nats).

    Attributes
    ----------
    lags : ndarray of int
    exact : ndarray of float
        ``seqmi.info.gaussian_mi`` on the joint covariance of ``(x_0, x_t)`` (log-determinants).
    eq41 : ndarray of float
        The first form of eq. (41), ``-1/2 ln det(I - S00^-1 S0t Stt^-1 S0t^T)``, evaluated as
        ``-1/2 sum log1p(-mu_k)`` over the eigenvalues ``mu_k``, so it keeps full relative
        accuracy when the MI is far below machine epsilon.
    trace : ndarray of float
        The trace approximation of eq. (41), ``1/2 tr(S00^-1 S0t Stt^-1 S0t^T)``.
    """

    lags: NDArray[np.int64]
    exact: NDArray[np.float64]
    eq41: NDArray[np.float64]
    trace: NDArray[np.float64]


class LinearGaussianRNN:
    """A linear Elman RNN with Gaussian output, as a Gaussian process.

    Parameters
    ----------
    W_h : array_like, shape (m, d)
        Input-to-hidden weights.
    U_h : array_like, shape (m, m)
        Hidden-to-hidden weights.
    U_o : array_like, shape (d, m)
        Hidden-to-output weights.
    sigma : float
        Standard deviation of the output noise, ``> 0``.
    b_h, b_o : array_like, optional
        Bias vectors of eqs. (10) and (11); they shift the mean only.
    convention : {"eq11", "printed"}
        ``"eq11"``: ``o_t = U_o h_{t-1}`` as in eq. (11). ``"printed"``: ``o_t = U_o U_h h_{t-1}``,
        the model that the printed eqs. (12), (15) and (35) describe (see the module notes).

    Notes
    -----
    The weights are used in floating point here; ``given_weights`` keeps them as given
    (object arrays), so that :class:`~seqmi.theory.linear_rnn_symbolic.SymbolicLinearRNN`
    can use integer, :class:`fractions.Fraction` and sympy-rational entries exactly.
    """

    def __init__(self, W_h: ArrayLike, U_h: ArrayLike, U_o: ArrayLike, sigma: float, *,
                 b_h: ArrayLike | None = None, b_o: ArrayLike | None = None,
                 convention: Convention = "eq11") -> None:
        check_choice("convention", convention, CONVENTIONS)
        self.convention = convention
        self.given_weights = {name: _as_object_matrix(name, a) for name, a in
                              (("W_h", W_h), ("U_h", U_h), ("U_o", U_o))}
        self.W_h, self.U_h, self.U_o = (self.given_weights[k].astype(float) for k in ("W_h", "U_h", "U_o"))
        m, d = self.W_h.shape
        if self.U_h.shape != (m, m) or self.U_o.shape != (d, m):
            raise ValueError(f"shapes must be W_h (m, d), U_h (m, m), U_o (d, m); got {self.W_h.shape}, "
                             f"{self.U_h.shape}, {self.U_o.shape}")
        self.m, self.d = m, d
        self.sigma = check_float("sigma", sigma, 0.0, low_open=True)
        self.b_h = np.zeros(m) if b_h is None else _vector("b_h", b_h, m)
        self.b_o = np.zeros(d) if b_o is None else _vector("b_o", b_o, d)
        self.C = self.U_o @ self.U_h if convention == "printed" else self.U_o

    # ------------------------------------------------------------------ state space
    def state_matrix(self) -> NDArray[np.float64]:
        """``M = [[U_h, W_h], [C, 0]]``: ``(h_t, x_t) = M (h_{t-1}, x_{t-1}) + (b_h, b_o + eps_t)``."""
        return np.block([[self.U_h, self.W_h], [self.C, np.zeros((self.d, self.d))]])

    def spectral_radius(self) -> float:
        """Largest eigenvalue modulus of :meth:`state_matrix`."""
        return float(np.abs(np.linalg.eigvals(self.state_matrix())).max())

    def stationary_covariance(self) -> NDArray[np.float64]:
        """Covariance of ``(h, x)`` in the stationary state, ``P = M P M^T + diag(0, sigma^2 I)``.

        Raises
        ------
        ValueError
            If the spectral radius of ``M`` is ``>= 1`` (no stationary state).
        """
        rho = self.spectral_radius()
        if rho >= 1.0:
            raise ValueError(f"no stationary state: spectral radius of M is {rho:.6g} >= 1")
        p = solve_discrete_lyapunov(self.state_matrix(), self._noise_cov())
        return 0.5 * (p + p.T)

    def stationary_mean(self) -> NDArray[np.float64]:
        """Mean of ``(h, x)`` in the stationary state, ``(I - M)^{-1} (b_h, b_o)``."""
        n = self.m + self.d
        return np.linalg.solve(np.eye(n) - self.state_matrix(), np.concatenate([self.b_h, self.b_o]))

    def _noise_cov(self) -> NDArray[np.float64]:
        q = np.zeros((self.m + self.d,) * 2)
        q[self.m:, self.m:] = self.sigma**2 * np.eye(self.d)
        return q

    def _initial(self, Sigma0: ArrayLike | None) -> NDArray[np.float64]:
        n = self.m + self.d
        if Sigma0 is None:
            return self.stationary_covariance()
        s = np.asarray(Sigma0, dtype=float)
        if s.shape != (n, n) or not np.allclose(s, s.T):
            raise ValueError(f"Sigma0 must be a symmetric ({n}, {n}) matrix (h_0 then x_0), got shape {s.shape}")
        if np.linalg.eigvalsh(s).min() < -1e-12 * max(1.0, np.abs(s).max()):
            raise ValueError("Sigma0 must be positive semi-definite")
        return s

    # ------------------------------------------------------------------ covariances
    def cross_covariances(self, t_max: int, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike
                          ) -> NDArray[np.float64]:
        """``Sigma_{x_t x_0}`` for ``t = 0..t_max`` from the recurrence (eq. 15, see module notes).

        Parameters
        ----------
        t_max : int
            Last lag, ``>= 0``.
        Sigma_h0x0 : array_like, shape (m, d)
            ``Cov(h_0, x_0)``.
        Sigma_x0x0 : array_like, shape (d, d)
            ``Cov(x_0, x_0)``.

        Returns
        -------
        ndarray, shape (t_max + 1, d, d)

        Notes
        -----
        In floating point the convolution is unstable when ``U_h`` alone is unstable (even if
        ``M`` is stable): its terms grow like ``rho(U_h)^t`` and cancel only in exact
        arithmetic (:meth:`SymbolicLinearRNN.cross_covariances
        <seqmi.theory.linear_rnn_symbolic.SymbolicLinearRNN.cross_covariances>`).
        :meth:`cross_covariances_state_space` is the stable numerical route.
        """
        check_int("t_max", t_max, 0)
        shx = np.asarray(Sigma_h0x0, dtype=float)
        sxx = np.asarray(Sigma_x0x0, dtype=float)
        self._check_initial_blocks(shx, sxx)
        return np.stack(cross_covariance_recurrence(t_max, self.U_h, self.W_h, self.C, shx, sxx))

    def _check_initial_blocks(self, shx: NDArray, sxx: NDArray) -> None:
        if shx.shape != (self.m, self.d) or sxx.shape != (self.d, self.d):
            raise ValueError(f"Sigma_h0x0 must be ({self.m}, {self.d}) and Sigma_x0x0 ({self.d}, {self.d}); "
                             f"got {shx.shape} and {sxx.shape}")

    def cross_covariances_state_space(self, t_max: int, Sigma_h0x0: ArrayLike,
                                      Sigma_x0x0: ArrayLike) -> NDArray[np.float64]:
        """``Sigma_{x_t x_0}`` from ``Cov(s_t, x_0) = M Cov(s_{t-1}, x_0)``: the independent route."""
        check_int("t_max", t_max, 0)
        shx, sxx = np.asarray(Sigma_h0x0, dtype=float), np.asarray(Sigma_x0x0, dtype=float)
        self._check_initial_blocks(shx, sxx)
        mat = self.state_matrix()
        v = np.vstack([shx, sxx])
        out = np.empty((t_max + 1, self.d, self.d))
        for t in range(t_max + 1):
            out[t] = v[self.m:]
            v = mat @ v
        return out

    def covariance_blocks(self, t_max: int, Sigma0: ArrayLike | None = None
                          ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The blocks that eq. (41) needs, by propagating the joint covariance of ``(h_t, x_t)``.

        Parameters
        ----------
        t_max : int
            Last lag.
        Sigma0 : array_like, shape (m + d, m + d), optional
            Joint covariance of ``(h_0, x_0)`` (eq. 14); default: the stationary one.

        Returns
        -------
        S00 : ndarray (d, d)
            ``Sigma_{x_0 x_0}``.
        St0 : ndarray (t_max + 1, d, d)
            ``Sigma_{x_t x_0}``.
        Stt : ndarray (t_max + 1, d, d)
            ``Sigma_{x_t x_t}``.
        """
        check_int("t_max", t_max, 0)
        p = self._initial(Sigma0)
        mat, q, x = self.state_matrix(), self._noise_cov(), slice(self.m, None)
        cross, cov = p.copy(), p.copy()
        st0 = np.empty((t_max + 1, self.d, self.d))
        stt = np.empty_like(st0)
        for t in range(t_max + 1):
            st0[t], stt[t] = cross[x, x], cov[x, x]
            cross = mat @ cross
            cov = mat @ cov @ mat.T + q
        return p[x, x].copy(), st0, stt

    def mutual_information(self, t_max: int, Sigma0: ArrayLike | None = None) -> MIResult:
        """``I(x_0; x_t)`` for ``t = 1..t_max``: exact (joint covariance) and eq. (41) forms.

        Parameters
        ----------
        t_max : int
            Last lag, ``>= 1``.
        Sigma0 : array_like, optional
            Joint covariance of ``(h_0, x_0)``; default: the stationary one.

        Returns
        -------
        MIResult
        """
        check_int("t_max", t_max, 1)
        s00, st0, stt = self.covariance_blocks(t_max, Sigma0)
        d = self.d
        s0t = np.swapaxes(st0[1:], 1, 2)  # Sigma_{x_0 x_t} = Cov(x_0, x_t), one per lag
        kernel = np.linalg.solve(s00, s0t) @ np.linalg.solve(stt[1:], np.swapaxes(s0t, 1, 2))
        mu = np.linalg.eigvals(kernel).real
        eq41 = -0.5 * np.log1p(-mu).sum(axis=1)
        trace = 0.5 * np.trace(kernel, axis1=1, axis2=2)
        exact = np.empty(t_max)
        for t in range(1, t_max + 1):
            joint = np.block([[s00, s0t[t - 1]], [s0t[t - 1].T, stt[t]]])
            exact[t - 1] = gaussian_mi(0.5 * (joint + joint.T), np.arange(d), np.arange(d, 2 * d))
        return MIResult(np.arange(1, t_max + 1), exact, eq41, trace)

    def sample(self, n: int, T: int, seed: int, Sigma0: ArrayLike | None = None,
               mean0: ArrayLike | None = None, return_hidden: bool = False
               ) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Sample ``n`` independent sequences ``x_0..x_T`` (biases included).

        Parameters
        ----------
        n : int
            Number of sequences.
        T : int
            Last time step.
        seed : int
            Seed of the numpy Generator.
        Sigma0, mean0 : array_like, optional
            Covariance and mean of ``(h_0, x_0)``; default: the stationary ones.
        return_hidden : bool
            Also return the hidden states.

        Returns
        -------
        x : ndarray, shape (n, T + 1, d)
        h : ndarray, shape (n, T + 1, m), only if ``return_hidden``
        """
        check_int("n", n, 1)
        check_int("T", T, 0)
        rng = np.random.default_rng(seed)
        p = self._initial(Sigma0)
        mu = self.stationary_mean() if mean0 is None else np.asarray(mean0, dtype=float)
        if mu.shape != (self.m + self.d,):
            raise ValueError(f"mean0 must have shape ({self.m + self.d},), got {mu.shape}")
        s0 = rng.multivariate_normal(mu, p, size=n, method="eigh")
        h = np.empty((n, T + 1, self.m))
        x = np.empty((n, T + 1, self.d))
        h[:, 0], x[:, 0] = s0[:, :self.m], s0[:, self.m:]
        for t in range(1, T + 1):
            o = h[:, t - 1] @ self.C.T + self.b_o
            h[:, t] = x[:, t - 1] @ self.W_h.T + h[:, t - 1] @ self.U_h.T + self.b_h
            x[:, t] = o + self.sigma * rng.standard_normal((n, self.d))
        return (x, h) if return_hidden else x

    # ------------------------------------------------------------------ decay
    def decay_rate(self) -> tuple[float, int]:
        """Predicted asymptotic ratio ``rho`` and pole order ``n``, from the eigenvalues of ``M``.

        ``|Sigma_{x_t x_0}| ~ t^(n-1) rho^t`` for large ``t`` and a generic initial condition.
        ``rho`` is the spectral radius of :meth:`state_matrix`, and ``n`` the number of
        eigenvalues numerically equal to the dominant one: an upper bound on the pole order,
        which also assumes that the dominant mode is visible in ``x`` (true for generic
        weights). :meth:`SymbolicLinearRNN.decay_rate
        <seqmi.theory.linear_rnn_symbolic.SymbolicLinearRNN.decay_rate>` finds the pole and
        its order exactly.

        Returns
        -------
        rho : float
        order : int
        """
        lam = np.linalg.eigvals(self.state_matrix())
        top = lam[np.argmax(np.abs(lam))]
        return float(abs(top)), int(np.sum(np.abs(lam - top) <= 1e-6 * max(1.0, abs(top))))


# ---------------------------------------------------------------------- helpers
def cross_covariance_recurrence(t_max: int, U_h: Any, W_h: Any, C: Any, Sigma_h0x0: Any,
                                Sigma_x0x0: Any) -> list[Any]:
    """``Sigma_{x_t x_0}`` for ``t = 0..t_max`` by the convolution of eq. (15), with read-out ``C``.

    ``Sigma_t = C U_h^{t-1} Sigma_h0x0 + sum_{i=0}^{t-2} C U_h^{t-2-i} W_h Sigma_i`` for
    ``t >= 1`` (see the module notes), in whatever arithmetic the matrices carry: float
    arrays, or object arrays of :class:`fractions.Fraction` for exact results.

    Parameters
    ----------
    t_max : int
        Last lag, ``>= 0``.
    U_h, W_h, C : array
        ``m x m``, ``m x d`` and ``d x m`` matrices supporting ``@`` and ``+``.
    Sigma_h0x0, Sigma_x0x0 : array
        ``Cov(h_0, x_0)`` (``m x d``) and ``Cov(x_0, x_0)`` (``d x d``).

    Returns
    -------
    list of array
        ``t_max + 1`` matrices of shape ``(d, d)``.
    """
    check_int("t_max", t_max, 0)
    # with cu[k] = C U_h^k, the coefficients of A(z) and B(z) (eqs. 23 and 26, for
    # o_t = C h_{t-1}) are a_n = cu[n-2] W_h (n >= 2) and b_t = cu[t-1] Sigma_h0x0 (t >= 1)
    cu = [C]
    a: list[Any] = [None, None]
    sig = [Sigma_x0x0]
    for t in range(1, t_max + 1):
        if t >= 2:
            cu.append(cu[-1] @ U_h)
            a.append(cu[t - 2] @ W_h)
        term = cu[t - 1] @ Sigma_h0x0
        for n in range(2, t + 1):
            term = term + a[n] @ sig[t - n]
        sig.append(term)
    return sig


def fit_decay_rate(values: ArrayLike, lags: ArrayLike, order: int = 1, power: float = 1.0,
                   window: int = 1) -> float:
    """Fit ``rho`` in ``|values_t| ~ (t^(order-1) rho^t)^power`` by least squares on the log.

    Parameters
    ----------
    values : array_like
        Positive magnitudes (e.g. norms of ``Sigma_t`` with ``power = 1``, or the MI with
        ``power = 2``); zeros are ignored.
    lags : array_like of int
        The ``t`` of each value (``>= 1``).
    order : int
        The predicted pole order; its polynomial factor is divided out before the fit.
    power : float
        The exponent relating ``values`` to ``|Sigma_t|``.
    window : int
        Replace each value by the maximum over the next ``window`` points (an upper
        envelope), so that complex poles' oscillations do not bias the slope.

    Returns
    -------
    float
    """
    check_int("order", order, 1)
    check_int("window", window, 1)
    v = np.abs(np.asarray(values, dtype=float))
    t = np.asarray(lags, dtype=float)
    if window > 1:
        n_env = v.size - window + 1
        if n_env < 2:
            raise ValueError(f"window {window} leaves fewer than 2 points out of {v.size}")
        v = np.lib.stride_tricks.sliding_window_view(v, window).max(axis=1)
        t = t[:n_env]
    keep = v > 0
    if keep.sum() < 2:
        raise ValueError("need at least 2 positive values to fit a decay rate")
    y = np.log(v[keep]) / power - (order - 1) * np.log(t[keep])
    slope = np.polyfit(t[keep], y, 1)[0]
    return float(np.exp(slope))


def random_rnn(m: int, d: int, radius: float, coupling: float, rng: np.random.Generator,
               sigma: float = 1.0, convention: Convention = "eq11", max_tries: int = 1000
               ) -> LinearGaussianRNN:
    """A stable float network whose ``U_h`` has spectral radius ``radius``.

    ``U_h`` is a Gaussian matrix rescaled to the given spectral radius; ``W_h`` and ``U_o``
    have i.i.d. ``N(0, coupling^2 / m)`` entries, so the feedback ``W_h U_o`` through the
    sampled outputs, which moves the poles away from ``1/eig(U_h)``, has a size set by
    ``coupling`` and not by the width ``m``. Draws whose state matrix ``M`` has spectral
    radius ``>= 1`` (the feedback can destabilise a stable ``U_h``) are redrawn.
    """
    check_int("m", m, 1)
    check_int("d", d, 1)
    check_float("radius", radius, 0.0, 1.0, low_open=True, high_open=True)
    check_float("coupling", coupling, 0.0)
    for _ in range(max_tries):
        g = rng.standard_normal((m, m))
        u_h = radius * g / np.abs(np.linalg.eigvals(g)).max()
        w_h = coupling * rng.standard_normal((m, d)) / np.sqrt(m)
        u_o = coupling * rng.standard_normal((d, m)) / np.sqrt(m)
        rnn = LinearGaussianRNN(w_h, u_h, u_o, sigma, convention=convention)
        if rnn.spectral_radius() < 1.0:
            return rnn
    raise ValueError(f"no stable network in {max_tries} draws (radius {radius}, coupling {coupling})")


def fit_cross_covariance_decay(rnn: LinearGaussianRNN, Sigma0: ArrayLike | None = None,
                               floor: float = 1e-100, t_cap: int = 5000, window: int = 10
                               ) -> tuple[float, int]:
    """Fitted ``rho`` of ``||Sigma_{x_t x_0}||_F``, computed numerically in state space.

    The fit runs over ``t`` in ``[T/2, T]``, where ``T`` is where the predicted envelope
    ``rho^t`` reaches ``floor`` (capped at ``t_cap``), so that subdominant poles have died
    out; ``window`` sets the upper envelope that removes the oscillation of complex poles.
    The prediction (``rho`` and the pole order, whose polynomial factor is divided out) is
    :meth:`LinearGaussianRNN.decay_rate`'s.

    The state-space route ``M^t`` is used rather than the convolution of eq. (15) in
    floating point: when ``U_h`` alone is unstable but ``M`` is not, the convolution adds
    terms growing like ``rho(U_h)^t`` that cancel exactly only in exact arithmetic (the
    poles at ``1/eig(U_h)`` cancel in ``Sigma(z)``), and rounding makes it blow up.

    Returns
    -------
    rho_fit : float
    T : int
    """
    rho, order = rnn.decay_rate()
    if not 0.0 < rho < 1.0:
        raise ValueError(f"the fit needs a decaying system, predicted rho = {rho:.6g}")
    t_end = int(min(t_cap, max(4 * window, np.ceil(np.log(floor) / np.log(rho)))))
    p = rnn._initial(Sigma0)
    sig = rnn.cross_covariances_state_space(t_end, p[:rnn.m, rnn.m:], p[rnn.m:, rnn.m:])
    lags = np.arange(t_end // 2, t_end + 1)
    norms = np.linalg.norm(sig[lags], axis=(1, 2))
    return fit_decay_rate(norms, lags, order=order, window=window), t_end


def fit_mi_decay(rnn: LinearGaussianRNN, t_min: int = 1, floor: float = 1e-60, t_cap: int = 5000,
                 window: int = 10) -> tuple[float, float, MIResult]:
    """Fitted ``rho`` of ``I(x_0; x_t) ~ (t^(n-1) rho^t)^2`` in the eq. (41) and trace forms.

    The MI is computed (stationary initial state) up to ``T``, the larger of ``t_min`` and
    the lag where the predicted ``rho^(2t)`` reaches ``floor`` (capped at ``t_cap``), and
    fitted over ``[T/2, T]``: late enough that the subdominant poles have died out even
    when they are close to the dominant one. The prediction (``rho`` and the pole order
    ``n``) is :meth:`LinearGaussianRNN.decay_rate`'s. The eq. (41) form is evaluated from
    its eigenvalues, accurate far below machine epsilon.

    Returns
    -------
    rho_eq41, rho_trace : float
    result : MIResult
        The MI for ``t = 1..T``.
    """
    check_int("t_min", t_min, 1)
    rho, order = rnn.decay_rate()
    if not 0.0 < rho < 1.0:
        raise ValueError(f"the fit needs a decaying system, predicted rho = {rho:.6g}")
    t_end = int(min(t_cap, max(t_min, 4 * window, np.ceil(0.5 * np.log(floor) / np.log(rho)))))
    res = rnn.mutual_information(t_end)
    late = slice(t_end // 2, None)
    fits = [fit_decay_rate(v[late], res.lags[late], order=order, power=2, window=window)
            for v in (res.eq41, res.trace)]
    return fits[0], fits[1], res


def _as_object_matrix(name: str, a: ArrayLike) -> NDArray[Any]:
    # dtype=object keeps exact entries (int, Fraction, sympy rationals, through sympy's
    # __array__) for the symbolic side
    arr = np.array(a, dtype=object)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {arr.shape}")
    try:
        vals = arr.astype(float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must hold real numbers") from err
    if not np.all(np.isfinite(vals)):
        raise ValueError(f"{name} must be finite")
    return arr


def _vector(name: str, v: ArrayLike, n: int) -> NDArray[np.float64]:
    arr = np.asarray(v, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    return arr
