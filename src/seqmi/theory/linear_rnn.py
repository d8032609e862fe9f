"""Linear Elman RNNs with Gaussian output (Shen 2019, Sec. 4.1 and Appendix A).

The network of eqs. (10)-(11) is

    h_t = W_h x_{t-1} + U_h h_{t-1} (+ b_h),    o_t = U_o h_{t-1} (+ b_o),
    x_t ~ N(o_t, sigma^2 I_d),

with a Gaussian initial pair ``(h_0, x_0)`` of joint covariance ``Sigma_0`` (eq. 14, rows
ordered ``h_0`` then ``x_0``). ``W_h`` is ``m x d``, ``U_h`` is ``m x m``, ``U_o`` is ``d x m``.

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
  ``Sigma_t = C U_h^{t-1} Sigma_{h0x0} + sum_{i=0}^{t-2} C U_h^{t-2-i} W_h Sigma_i``, and the
  generating function (eq. 35 with ``C``) is
  ``Sigma(z) = [I_d - C (I_m - U_h z)^{-1} W_h z^2]^{-1} [C (I_m - U_h z)^{-1} Sigma_{h0x0} z
  + Sigma_{x0x0}]``. With ``C = U_o U_h`` these are the printed formulas.
* State-space form (used as the independent check): ``s_t = (h_t, x_t)`` obeys
  ``s_t = M s_{t-1} + (0, eps_t)`` with ``M = [[U_h, W_h], [C, 0]]``, so
  ``Cov(s_t, s_0) = M^t Sigma_0`` and ``Sigma(z) = E_x^T (I - M z)^{-1} (Sigma_{h0x0};
  Sigma_{x0x0})``: every pole of ``Sigma(z)`` is ``1/lambda`` for an eigenvalue ``lambda`` of
  ``M``, and the decay ratio is ``rho = 1/|z_0|``, at most the spectral radius of ``M``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import solve_discrete_lyapunov
from sympy.polys.matrices import DomainMatrix

from seqmi.info import gaussian_mi
from seqmi.validate import check_choice, check_float, check_int

CONVENTIONS = ("eq11", "printed")
Convention = Literal["eq11", "printed"]
"""The form of the output equation, ``"eq11"`` (as derived) or ``"printed"`` (as printed in the paper)."""


@dataclass(frozen=True)
class PoleInfo:
    """Poles of a generating function.

    Attributes
    ----------
    poles : ndarray of complex
        Distinct poles, sorted by modulus.
    orders : ndarray of int
        The order of each pole (the largest over the matrix entries).
    z0 : complex
        A pole of smallest modulus (the one that sets the asymptotics).
    order : int
        The largest order among the poles of modulus ``|z0|``: ``|Sigma_t| ~ t^(order-1) |z0|^-t``.
    """

    poles: NDArray[np.complex128]
    orders: NDArray[np.int64]
    z0: complex
    order: int

    @property
    def rho(self) -> float:
        """The predicted asymptotic ratio ``1/|z0|`` (``0`` when there is no pole)."""
        return 0.0 if not np.isfinite(abs(self.z0)) else 1.0 / abs(self.z0)


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
    Entries given as integers, :class:`fractions.Fraction` or sympy rationals are kept
    exactly for the symbolic methods; floats are converted to the rational number they
    represent exactly (their binary value), which is exact but slow for large systems.
    """

    def __init__(self, W_h: ArrayLike, U_h: ArrayLike, U_o: ArrayLike, sigma: float, *,
                 b_h: ArrayLike | None = None, b_o: ArrayLike | None = None,
                 convention: Convention = "eq11") -> None:
        check_choice("convention", convention, CONVENTIONS)
        self.convention = convention
        self._raw = {name: _as_object_matrix(name, a) for name, a in
                     (("W_h", W_h), ("U_h", U_h), ("U_o", U_o))}
        self.W_h, self.U_h, self.U_o = (self._raw[k].astype(float) for k in ("W_h", "U_h", "U_o"))
        m, d = self.W_h.shape
        if self.U_h.shape != (m, m) or self.U_o.shape != (d, m):
            raise ValueError(f"shapes must be W_h (m, d), U_h (m, m), U_o (d, m); got {self.W_h.shape}, "
                             f"{self.U_h.shape}, {self.U_o.shape}")
        self.m, self.d = m, d
        self.sigma = check_float("sigma", sigma, 0.0, low_open=True)
        self.b_h = np.zeros(m) if b_h is None else _vector("b_h", b_h, m)
        self.b_o = np.zeros(d) if b_o is None else _vector("b_o", b_o, d)
        self.C = self.U_o @ self.U_h if convention == "printed" else self.U_o
        self._exact_cache: dict[str, sp.Matrix] | None = None

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
    def cross_covariances(self, t_max: int, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike,
                          exact: bool = False) -> NDArray[np.float64] | list[sp.Matrix]:
        """``Sigma_{x_t x_0}`` for ``t = 0..t_max`` from the recurrence (eq. 15, see module notes).

        Parameters
        ----------
        t_max : int
            Last lag, ``>= 0``.
        Sigma_h0x0 : array_like, shape (m, d)
            ``Cov(h_0, x_0)``.
        Sigma_x0x0 : array_like, shape (d, d)
            ``Cov(x_0, x_0)``.
        exact : bool
            ``True``: exact rational arithmetic, returning a list of sympy matrices.

        Returns
        -------
        ndarray, shape (t_max + 1, d, d), or list of sympy.Matrix

        Notes
        -----
        In floating point the convolution is unstable when ``U_h`` alone is unstable (even if
        ``M`` is stable): its terms grow like ``rho(U_h)^t`` and cancel only in exact
        arithmetic. :meth:`cross_covariances_state_space` is the stable numerical route.
        """
        check_int("t_max", t_max, 0)
        if exact:
            mats = self._exact()
            shx, sxx = (_exact_matrix(*a) for a in (("Sigma_h0x0", Sigma_h0x0), ("Sigma_x0x0", Sigma_x0x0)))
            self._check_initial_blocks(np.empty(shx.shape), np.empty(sxx.shape))
            uh, wh, c, shx, sxx = (_to_fraction_array(a) for a in (mats["U_h"], mats["W_h"], mats["C"], shx, sxx))
            out = self._recurrence(t_max, uh, wh, c, shx, sxx)
            return [sp.Matrix(s.shape[0], s.shape[1], [sp.Rational(v.numerator, v.denominator)
                                                       for v in s.ravel()]) for s in out]
        shx = np.asarray(Sigma_h0x0, dtype=float)
        sxx = np.asarray(Sigma_x0x0, dtype=float)
        self._check_initial_blocks(shx, sxx)
        return np.stack(self._recurrence(t_max, self.U_h, self.W_h, self.C, shx, sxx))

    def _check_initial_blocks(self, shx: NDArray, sxx: NDArray) -> None:
        if shx.shape != (self.m, self.d) or sxx.shape != (self.d, self.d):
            raise ValueError(f"Sigma_h0x0 must be ({self.m}, {self.d}) and Sigma_x0x0 ({self.d}, {self.d}); "
                             f"got {shx.shape} and {sxx.shape}")

    @staticmethod
    def _recurrence(t_max: int, uh: Any, wh: Any, c: Any, shx: Any, sxx: Any) -> list[Any]:
        # with cu[k] = C U_h^k, the coefficients of A(z) and B(z) (eqs. 23 and 26, for
        # o_t = C h_{t-1}) are a_n = cu[n-2] W_h (n >= 2) and b_t = cu[t-1] Sigma_h0x0 (t >= 1)
        cu = [c]
        a: list[Any] = [None, None]
        sig = [sxx]
        for t in range(1, t_max + 1):
            if t >= 2:
                cu.append(cu[-1] @ uh)
                a.append(cu[t - 2] @ wh)
            term = cu[t - 1] @ shx
            for n in range(2, t + 1):
                term = term + a[n] @ sig[t - n]
            sig.append(term)
        return sig

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

    # ------------------------------------------------------------------ symbolic
    def _exact(self) -> dict[str, sp.Matrix]:
        if self._exact_cache is None:
            mats = {k: sp.Matrix(v.shape[0], v.shape[1], [_rational(e) for e in v.ravel()])
                    for k, v in self._raw.items()}
            mats["C"] = mats["U_o"] * mats["U_h"] if self.convention == "printed" else mats["U_o"]
            self._exact_cache = mats
        return self._exact_cache

    def generating_function(self, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike
                            ) -> tuple[sp.Symbol, sp.Matrix]:
        """The closed form ``Sigma(z)`` of eq. (35) (with ``C``, see the module notes).

        Parameters
        ----------
        Sigma_h0x0 : array_like, shape (m, d)
        Sigma_x0x0 : array_like, shape (d, d)
            Exact (rational) entries give an exact result.

        Returns
        -------
        z : sympy.Symbol
        Sigma_z : sympy.Matrix, shape (d, d)
            Entries are reduced rational functions of ``z``.
        """
        z = sp.Symbol("z")
        mats = self._exact()
        shx, sxx = _exact_matrix("Sigma_h0x0", Sigma_h0x0), _exact_matrix("Sigma_x0x0", Sigma_x0x0)
        self._check_initial_blocks(np.empty(shx.shape), np.empty(sxx.shape))
        field = sp.QQ.frac_field(z)

        def dm(expr: sp.Matrix) -> DomainMatrix:
            return DomainMatrix.from_Matrix(expr).convert_to(field)

        # R W_h and R Sigma_h0x0 with R = (I_m - U_h z)^{-1}, by one solve each
        lhs = dm(sp.eye(self.m) - mats["U_h"] * z)
        r_w = lhs.lu_solve(dm(mats["W_h"]))
        r_s = lhs.lu_solve(dm(shx))
        c = dm(mats["C"])
        zf = field.from_sympy(z)
        f_inv = DomainMatrix.eye(self.d, field) - (c * r_w) * (zf * zf)
        rhs = (c * r_s) * zf + dm(sxx)
        return z, f_inv.lu_solve(rhs).to_Matrix()

    def transfer_generating_function(self, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike
                                     ) -> tuple[sp.Symbol, sp.Matrix]:
        """``Sigma(z) = E_x^T (I - M z)^{-1} (Sigma_h0x0; Sigma_x0x0)``: the state-space closed form."""
        z = sp.Symbol("z")
        shx, sxx = _exact_matrix("Sigma_h0x0", Sigma_h0x0), _exact_matrix("Sigma_x0x0", Sigma_x0x0)
        self._check_initial_blocks(np.empty(shx.shape), np.empty(sxx.shape))
        return z, self._transfer(z, sp.Matrix.vstack(shx, sxx))

    def _transfer(self, z: sp.Symbol, rhs: sp.Matrix) -> sp.Matrix:
        mats = self._exact()
        mat = sp.Matrix(sp.BlockMatrix([[mats["U_h"], mats["W_h"]], [mats["C"], sp.zeros(self.d, self.d)]]))
        field = sp.QQ.frac_field(z)
        lhs = DomainMatrix.from_Matrix(sp.eye(self.m + self.d) - mat * z).convert_to(field)
        sol = lhs.lu_solve(DomainMatrix.from_Matrix(rhs).convert_to(field)).to_Matrix()
        return sol[self.m:, :]

    def poles(self, Sigma_h0x0: ArrayLike | None = None, Sigma_x0x0: ArrayLike | None = None) -> PoleInfo:
        """Poles of ``Sigma(z)``, the one closest to the origin, and its order (exact arithmetic).

        Without an initial condition, the poles of the map from ``(Sigma_h0x0; Sigma_x0x0)`` to
        ``Sigma(z)``, i.e. of ``E_x^T (I - M z)^{-1}``: every pole that some initial
        condition excites, independent of ``p(h_0, x_0)`` (the paper's bound). A specific
        initial condition can only remove poles (a zero ``Sigma_{h0x0}`` block, say).

        Returns
        -------
        PoleInfo
        """
        z = sp.Symbol("z")
        if Sigma_h0x0 is None and Sigma_x0x0 is None:
            sig = self._transfer(z, sp.eye(self.m + self.d))
        elif Sigma_h0x0 is None or Sigma_x0x0 is None:
            raise ValueError("give both Sigma_h0x0 and Sigma_x0x0, or neither")
        else:
            z, sig = self.generating_function(Sigma_h0x0, Sigma_x0x0)
        return rational_poles(sig, z)

    def decay_rate(self, method: Literal["auto", "exact", "numeric"] = "auto") -> tuple[float, int]:
        """Predicted asymptotic ratio ``rho = 1/|z_0|`` and the pole order ``n``.

        ``|Sigma_{x_t x_0}| ~ t^(n-1) rho^t`` for large ``t`` and a generic initial condition.

        Parameters
        ----------
        method : {"auto", "exact", "numeric"}
            ``"exact"``: :meth:`poles` in rational arithmetic (pole orders are exact).
            ``"numeric"``: the spectral radius of ``M``, with ``n`` the number of eigenvalues
            numerically equal to the dominant one (an upper bound on the pole order; it also
            assumes the dominant mode is visible in ``x``, true for generic weights).
            ``"auto"``: exact when the weights were given as rationals and ``m + d <= 8``.

        Returns
        -------
        rho : float
        order : int
        """
        check_choice("method", method, ("auto", "exact", "numeric"))
        if method == "auto":
            rational = all(not isinstance(e, float) for a in self._raw.values() for e in a.ravel())
            method = "exact" if rational and self.m + self.d <= 8 else "numeric"
        if method == "exact":
            info = self.poles()
            return info.rho, info.order
        lam = np.linalg.eigvals(self.state_matrix())
        top = lam[np.argmax(np.abs(lam))]
        return float(abs(top)), int(np.sum(np.abs(lam - top) <= 1e-6 * max(1.0, abs(top))))


# ---------------------------------------------------------------------- helpers
def rational_poles(matrix: sp.Matrix, z: sp.Symbol, tol: float = 1e-9) -> PoleInfo:
    """Poles (with orders) of a matrix of rational functions of ``z`` with rational coefficients.

    Each entry is reduced, its denominator factored square-free (exact multiplicities) and
    each factor's roots found numerically to 30 digits.

    Parameters
    ----------
    matrix : sympy.Matrix
    z : sympy.Symbol
    tol : float
        Relative distance under which two roots of different entries are the same pole,
        and two moduli are equal.

    Returns
    -------
    PoleInfo
    """
    found: list[tuple[complex, int]] = []
    for entry in matrix:
        _, den = sp.fraction(sp.cancel(sp.together(entry)))
        poly = sp.Poly(den, z)
        if poly.degree() <= 0:
            continue
        for factor, mult in poly.sqf_list()[1]:
            for root in sp.Poly(factor, z).nroots(n=30):
                found.append((complex(root), int(mult)))
    poles: list[complex] = []
    orders: list[int] = []
    for root, mult in found:
        for k, p in enumerate(poles):
            if abs(root - p) <= tol * max(1.0, abs(p)):
                orders[k] = max(orders[k], mult)
                break
        else:
            poles.append(root)
            orders.append(mult)
    if not poles:
        return PoleInfo(np.empty(0, complex), np.empty(0, np.int64), complex(np.inf), 0)
    idx = np.argsort(np.abs(poles), kind="stable")
    pa, oa = np.asarray(poles)[idx], np.asarray(orders, dtype=np.int64)[idx]
    nearest = np.abs(pa) <= abs(pa[0]) * (1 + tol)
    return PoleInfo(pa, oa, complex(pa[0]), int(oa[nearest].max()))


def taylor_coefficients(matrix: sp.Matrix, z: sp.Symbol, t_max: int) -> list[sp.Matrix]:
    """Exact Taylor coefficients ``t = 0..t_max`` of a matrix of rational functions at ``z = 0``.

    Each entry ``p(z)/q(z)`` (``q(0) != 0``) is expanded by the power-series division
    ``c_n = (p_n - sum_{k>=1} q_k c_{n-k}) / q_0`` in rational arithmetic.

    Returns
    -------
    list of sympy.Matrix
        The coefficient matrices of ``z^0 .. z^t_max``.
    """
    check_int("t_max", t_max, 0)
    rows, cols = matrix.shape
    series = np.empty((rows, cols, t_max + 1), dtype=object)
    for (i, j), entry in np.ndenumerate(np.empty((rows, cols))):
        num, den = sp.fraction(sp.cancel(sp.together(matrix[i, j])))
        p = [Fraction(int(c.p), int(c.q)) for c in reversed(sp.Poly(num, z).all_coeffs())]
        q = [Fraction(int(c.p), int(c.q)) for c in reversed(sp.Poly(den, z).all_coeffs())]
        if q[0] == 0:
            raise ValueError(f"entry ({i}, {j}) has a pole at z = 0")
        coef: list[Fraction] = []
        for n in range(t_max + 1):
            acc = p[n] if n < len(p) else Fraction(0)
            for k in range(1, min(n, len(q) - 1) + 1):
                acc -= q[k] * coef[n - k]
            coef.append(acc / q[0])
        series[i, j] = coef
    return [sp.Matrix(rows, cols, [sp.Rational(series[i, j][t].numerator, series[i, j][t].denominator)
                                   for i in range(rows) for j in range(cols)]) for t in range(t_max + 1)]


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


def random_rational_matrix(rows: int, cols: int, rng: np.random.Generator, scale: int = 10,
                           max_num: int = 9) -> sp.Matrix:
    """A matrix of rationals ``k / scale`` with integer ``k`` uniform in ``[-max_num, max_num]``."""
    check_int("rows", rows, 1)
    check_int("cols", cols, 1)
    ints = rng.integers(-max_num, max_num + 1, size=(rows, cols))
    return sp.Matrix(rows, cols, [sp.Rational(int(k), scale) for k in ints.ravel()])


def random_rational_covariance(n: int, rng: np.random.Generator, scale: int = 10) -> sp.Matrix:
    """A positive-definite rational matrix ``A A^T + I`` with ``A`` from :func:`random_rational_matrix`."""
    a = random_rational_matrix(n, n, rng, scale)
    return a * a.T + sp.eye(n)


def _rational(e: Any) -> sp.Rational:
    if isinstance(e, sp.Basic):
        r = sp.nsimplify(e) if not e.is_Rational else e
        if not r.is_Rational:
            raise ValueError(f"entry {e!r} is not rational")
        return r
    if isinstance(e, Fraction):
        return sp.Rational(e.numerator, e.denominator)
    if isinstance(e, numbers.Integral):
        return sp.Integer(int(e))
    if isinstance(e, numbers.Real):
        return sp.Rational(float(e))  # the exact binary value of the float
    raise ValueError(f"entry {e!r} is not a real number")


def _as_object_matrix(name: str, a: ArrayLike) -> NDArray[Any]:
    if isinstance(a, sp.MatrixBase):
        arr = np.array(a.tolist(), dtype=object)
    else:
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


def _exact_matrix(name: str, a: ArrayLike) -> sp.Matrix:
    arr = _as_object_matrix(name, a)
    return sp.Matrix(arr.shape[0], arr.shape[1], [_rational(e) for e in arr.ravel()])


def _to_fraction_array(mat: sp.Matrix) -> NDArray[Any]:
    out = np.empty(mat.shape, dtype=object)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            r = _rational(mat[i, j])
            out[i, j] = Fraction(int(r.p), int(r.q))
    return out


def _vector(name: str, v: ArrayLike, n: int) -> NDArray[np.float64]:
    arr = np.asarray(v, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    return arr


def random_rational_rnn(m: int, d: int, rng: np.random.Generator, max_radius: float = 0.95,
                        min_radius: float = 0.3, sigma: int = 1, convention: Convention = "eq11",
                        max_tries: int = 1000) -> LinearGaussianRNN:
    """A network with random rational weights (:func:`random_rational_matrix`), redrawn until
    the spectral radius of ``M`` is in ``[min_radius, max_radius)`` (a stable, "working"
    network whose correlations are not trivially short) and the decay is visible in ``x``."""
    check_int("m", m, 1)
    check_int("d", d, 1)
    check_float("max_radius", max_radius, 0.0, low_open=True)
    for _ in range(max_tries):
        mats = [random_rational_matrix(r, c, rng) for r, c in ((m, d), (m, m), (d, m))]
        rnn = LinearGaussianRNN(*mats, sigma, convention=convention)
        if min_radius <= rnn.spectral_radius() < max_radius and rnn.decay_rate()[0] >= min_radius:
            return rnn
    raise ValueError(f"no network with spectral radius < {max_radius} in {max_tries} draws")


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
    The predicted pole order's polynomial factor is divided out.

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
    when they are close to the dominant one. The eq. (41) form is evaluated from its
    eigenvalues, accurate far below machine epsilon.

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
