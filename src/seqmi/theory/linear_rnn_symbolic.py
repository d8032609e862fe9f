"""The exact side of the linear-RNN proof: generating functions and poles (Shen 2019, Appendix A).

:class:`SymbolicLinearRNN` views a :class:`~seqmi.theory.linear_rnn.LinearGaussianRNN` in
rational arithmetic (sympy), with the conventions stated in :mod:`seqmi.theory.linear_rnn`:
``Sigma_t = Sigma_{x_t x_0}`` has rows indexed by ``x_t``, and the output equation is
``o_t = C h_{t-1}`` with the read-out ``C = U_o`` (eq. 11, the default) or ``C = U_o U_h``
(the model that the printed eqs. 12, 15 and 35 describe).

The steps of the proof, each computed exactly:

* The recurrence of eq. (15) with ``C``, in rational arithmetic
  (:meth:`SymbolicLinearRNN.cross_covariances`).
* Its generating function (eq. 35 with ``C``),
  ``Sigma(z) = sum_t Sigma_t z^t = [I_d - C (I_m - U_h z)^{-1} W_h z^2]^{-1}
  [C (I_m - U_h z)^{-1} Sigma_{h0x0} z + Sigma_{x0x0}]``
  (:meth:`SymbolicLinearRNN.generating_function`), whose Taylor coefficients
  (:func:`taylor_coefficients`) reproduce the recurrence term by term.
* The state-space form of the same function,
  ``Sigma(z) = E_x^T (I - M z)^{-1} (Sigma_{h0x0}; Sigma_{x0x0})`` with
  ``M = [[U_h, W_h], [C, 0]]`` (:meth:`SymbolicLinearRNN.transfer_generating_function`):
  every pole of ``Sigma(z)`` is ``1/lambda`` for an eigenvalue ``lambda`` of ``M``.
* Singularity analysis: ``|Sigma_t| ~ t^(n-1) |z_0|^(-t)``, with ``z_0`` the pole nearest
  the origin and ``n`` its order (:func:`rational_poles`), so the decay ratio is
  ``rho = 1/|z_0|``, at most the spectral radius of ``M``
  (:meth:`SymbolicLinearRNN.decay_rate`).

Entries given as integers, :class:`fractions.Fraction` or sympy rationals are used exactly;
floats are converted to the rational number they represent exactly (their binary value),
which is exact but slow for large systems.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike, NDArray
from sympy.polys.matrices import DomainMatrix

from seqmi.theory.linear_rnn import Convention, LinearGaussianRNN, cross_covariance_recurrence
from seqmi.validate import check_float, check_int


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


class SymbolicLinearRNN:
    """A :class:`~seqmi.theory.linear_rnn.LinearGaussianRNN` in exact rational arithmetic.

    Parameters
    ----------
    rnn : LinearGaussianRNN
        The network. Its weights as given (``rnn.given_weights``) are converted to sympy
        rationals once, here.

    Attributes
    ----------
    rnn : LinearGaussianRNN
        The network.
    W_h, U_h, U_o : sympy.Matrix
        Its weights, exactly.
    C : sympy.Matrix
        The effective read-out, ``U_o`` or ``U_o U_h`` by the network's ``convention``.
    """

    def __init__(self, rnn: LinearGaussianRNN) -> None:
        if not isinstance(rnn, LinearGaussianRNN):
            raise TypeError(f"rnn must be a LinearGaussianRNN, got {type(rnn).__name__}")
        self.rnn = rnn
        self.W_h, self.U_h, self.U_o = (_exact_matrix(k, rnn.given_weights[k]) for k in ("W_h", "U_h", "U_o"))
        self.C = self.U_o * self.U_h if rnn.convention == "printed" else self.U_o

    def cross_covariances(self, t_max: int, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike) -> list[sp.Matrix]:
        """``Sigma_{x_t x_0}`` for ``t = 0..t_max`` from the recurrence of eq. (15), exactly.

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
        list of sympy.Matrix
        """
        check_int("t_max", t_max, 0)
        shx, sxx = self._initial_blocks(Sigma_h0x0, Sigma_x0x0)
        # Fractions rather than sympy: the convolution is hundreds of small products
        uh, wh, c, shx, sxx = (_to_fraction_array(a) for a in (self.U_h, self.W_h, self.C, shx, sxx))
        out = cross_covariance_recurrence(t_max, uh, wh, c, shx, sxx)
        return [sp.Matrix(s.shape[0], s.shape[1], [sp.Rational(v.numerator, v.denominator) for v in s.ravel()])
                for s in out]

    def generating_function(self, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike) -> tuple[sp.Symbol, sp.Matrix]:
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
        shx, sxx = self._initial_blocks(Sigma_h0x0, Sigma_x0x0)
        field = sp.QQ.frac_field(z)

        def dm(expr: sp.Matrix) -> DomainMatrix:
            return DomainMatrix.from_Matrix(expr).convert_to(field)

        m, d = self.rnn.m, self.rnn.d
        # R W_h and R Sigma_h0x0 with R = (I_m - U_h z)^{-1}, by one solve each
        lhs = dm(sp.eye(m) - self.U_h * z)
        r_w = lhs.lu_solve(dm(self.W_h))
        r_s = lhs.lu_solve(dm(shx))
        c = dm(self.C)
        zf = field.from_sympy(z)
        f_inv = DomainMatrix.eye(d, field) - (c * r_w) * (zf * zf)
        rhs = (c * r_s) * zf + dm(sxx)
        return z, f_inv.lu_solve(rhs).to_Matrix()

    def transfer_generating_function(self, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike
                                     ) -> tuple[sp.Symbol, sp.Matrix]:
        """``Sigma(z) = E_x^T (I - M z)^{-1} (Sigma_h0x0; Sigma_x0x0)``: the state-space closed form."""
        z = sp.Symbol("z")
        shx, sxx = self._initial_blocks(Sigma_h0x0, Sigma_x0x0)
        return z, self._transfer(z, sp.Matrix.vstack(shx, sxx))

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
            sig = self._transfer(z, sp.eye(self.rnn.m + self.rnn.d))
        elif Sigma_h0x0 is None or Sigma_x0x0 is None:
            raise ValueError("give both Sigma_h0x0 and Sigma_x0x0, or neither")
        else:
            z, sig = self.generating_function(Sigma_h0x0, Sigma_x0x0)
        return rational_poles(sig, z)

    def decay_rate(self) -> tuple[float, int]:
        """Predicted asymptotic ratio ``rho = 1/|z_0|`` and the pole order ``n``, exactly.

        ``|Sigma_{x_t x_0}| ~ t^(n-1) rho^t`` for large ``t`` and a generic initial
        condition; :meth:`poles` without an initial condition, so the orders are exact.
        :meth:`LinearGaussianRNN.decay_rate
        <seqmi.theory.linear_rnn.LinearGaussianRNN.decay_rate>` is the numerical estimate.

        Returns
        -------
        rho : float
        order : int
        """
        info = self.poles()
        return info.rho, info.order

    def _initial_blocks(self, Sigma_h0x0: ArrayLike, Sigma_x0x0: ArrayLike) -> tuple[sp.Matrix, sp.Matrix]:
        shx, sxx = _exact_matrix("Sigma_h0x0", Sigma_h0x0), _exact_matrix("Sigma_x0x0", Sigma_x0x0)
        m, d = self.rnn.m, self.rnn.d
        if shx.shape != (m, d) or sxx.shape != (d, d):
            raise ValueError(f"Sigma_h0x0 must be ({m}, {d}) and Sigma_x0x0 ({d}, {d}); "
                             f"got {shx.shape} and {sxx.shape}")
        return shx, sxx

    def _transfer(self, z: sp.Symbol, rhs: sp.Matrix) -> sp.Matrix:
        m, d = self.rnn.m, self.rnn.d
        mat = sp.Matrix(sp.BlockMatrix([[self.U_h, self.W_h], [self.C, sp.zeros(d, d)]]))
        field = sp.QQ.frac_field(z)
        lhs = DomainMatrix.from_Matrix(sp.eye(m + d) - mat * z).convert_to(field)
        sol = lhs.lu_solve(DomainMatrix.from_Matrix(rhs).convert_to(field)).to_Matrix()
        return sol[m:, :]


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


def random_rational_rnn(m: int, d: int, rng: np.random.Generator, max_radius: float = 0.95,
                        min_radius: float = 0.3, sigma: int = 1, convention: Convention = "eq11",
                        max_tries: int = 1000) -> LinearGaussianRNN:
    """A network with random rational weights (:func:`random_rational_matrix`), redrawn until
    the spectral radius of ``M`` is in ``[min_radius, max_radius)`` (a stable, "working"
    network whose correlations are not trivially short) and the exact decay ratio
    (:meth:`SymbolicLinearRNN.decay_rate`) is at least ``min_radius``, i.e. the decay is
    visible in ``x``."""
    check_int("m", m, 1)
    check_int("d", d, 1)
    check_float("max_radius", max_radius, 0.0, low_open=True)
    for _ in range(max_tries):
        mats = [random_rational_matrix(r, c, rng) for r, c in ((m, d), (m, m), (d, m))]
        rnn = LinearGaussianRNN(*mats, sigma, convention=convention)
        if min_radius <= rnn.spectral_radius() < max_radius and SymbolicLinearRNN(rnn).decay_rate()[0] >= min_radius:
            return rnn
    raise ValueError(f"no network with spectral radius < {max_radius} in {max_tries} draws")


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
        if not math.isfinite(e):
            raise ValueError(f"entry {e!r} is not finite")
        return sp.Rational(float(e))  # the exact binary value of the float
    raise ValueError(f"entry {e!r} is not a real number")


def _exact_matrix(name: str, a: ArrayLike) -> sp.Matrix:
    # dtype=object keeps exact entries (sympy matrices convert through their __array__)
    arr = np.array(a, dtype=object)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {arr.shape}")
    try:
        entries = [_rational(e) for e in arr.ravel()]
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from err
    return sp.Matrix(arr.shape[0], arr.shape[1], entries)


def _to_fraction_array(mat: sp.Matrix) -> NDArray[Any]:
    out = np.empty(mat.shape, dtype=object)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            r = _rational(mat[i, j])
            out[i, j] = Fraction(int(r.p), int(r.q))
    return out
