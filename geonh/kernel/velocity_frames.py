"""Frames on TQ: quasi-velocities nonlinear in the velocities.

A linear frame (:class:`~geonh.kernel.frames.Frame`) has quasi-velocities ω = B(q) q̇.  For
constraints nonlinear in the velocities (Appell 1911; Juschkov, §§ 4–5) the quasi-velocities
are any functions v*^ρ(t, q, q̇) with a nonsingular Jacobian ∂v*/∂q̇, and the frame lives on
TQ:

* **coframe** (Chetaev's forms) θ^ρ = ∂v*^ρ/∂q̇^σ dq^σ, velocity-dependent one-forms;
* **frame** ε_τ = ∂q̇^σ/∂v*^τ ∂_σ (Juschkov, eq. (26)), from the inverse q̇(t, q, v*) (eq. (25));
  θ^ρ(ε_τ) = δ^ρ_τ;
* **virtual displacements** δπ^ρ := θ^ρ(δq) (Chetaev's rule; δt = 0), and the motion dπ^ρ = v*^ρ dt.

**Transpositional relations on TQ.**  With d and δ commuting on the true coordinates
(Hamel's point of view, dδq = δdq):

    d(δπ^ρ) − δ(dπ^ρ) = Γ^ρ_τ δπ^τ dt,     Γ^ρ_τ = E_σ(v*^ρ) ε^σ_τ,
    E_σ(f) = d/dt ∂f/∂q̇^σ − ∂f/∂q^σ

(the Euler–Lagrange operator applied to the quasi-velocity).  Γ depends on (t, q, q̇, q̈) in
general.  For linear quasi-velocities v* = B q̇ it is Γ^ρ_τ = c^ρ_τb ω^b, Hamel's
β_{τ,b,ρ} dπ^b of eq. (16) (CONVENTIONS.md): :meth:`VelocityFrame.transposition` reduces to
:meth:`Frame.structure_coefficients`, which the tests check on random frames.  With Γ the
Boltzmann–Hamel equations carry over unchanged in form (Novoselov's equations):

    d/dt ∂T*/∂v*^τ + Γ^ρ_τ ∂T*/∂v*^ρ − ε_τ(T*) = Q_σ ε^σ_τ,     T*(t, q, v*) = T(t, q, q̇(t, q, v*)),

ε_τ(T*) the derivative along ε_τ at constant v*.  :mod:`geonh.equations.nonlinear` declares
Maggi's, Appell's and these equations on a :class:`VelocityFrame`.
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import DimensionError, SingularMapError
from .evaluation import real_value, state_tolerance
from .sampling import sample_points
from .parsing import as_expr, as_matrix, as_sequence, as_symbols, as_values
from .space import ConfigurationSpace

__all__ = ["VelocityFrame", "singular_at"]

def singular_at(jacobian: sp.Matrix, states: Sequence[dict]) -> bool:
    """Is the square ``jacobian`` (e.g. ∂v*/∂q̇) singular, or not real, at one of ``states``?"""
    jacobian = as_matrix(jacobian, what="jacobian")
    if not jacobian.is_square:
        raise DimensionError(f"singular_at takes a square jacobian, not {jacobian.rows}x{jacobian.cols}")
    for st in as_sequence(states, "states"):
        J = sp.Matrix(jacobian.rows, jacobian.cols, [real_value(e, st) for e in jacobian])
        if any(x is None for x in J) or abs(J.det()) < state_tolerance():
            return True
    return False


class VelocityFrame:
    """A frame on TQ from quasi-velocities v*(t, q, q̇) and their inverse q̇(t, q, v*).

    Parameters
    ----------
    space : the configuration space.
    quasi : the n quasi-velocities v*^ρ, expressions in (t, q, q̇).
    symbols : n symbols standing for the values of v*.
    inverse : the n expressions q̇^σ(t, q, v*) (one branch); checked at sample states: v*(q̇(v*))
        = v* and q̇(v*(q̇)) = q̇ on the given ``states`` (default: random positive states).
    states : states {t, q, q̇, parameters} on which to check the inverse (the branch is chosen
        by the caller, e.g. on a system's consistent states).
    """

    def __init__(self, space: ConfigurationSpace, quasi: Sequence[sp.Expr], symbols: Sequence[sp.Symbol],
                 inverse: Sequence[sp.Expr], *, states: Sequence[dict] | None = None):
        n = space.n
        symbols = as_symbols(symbols, what="quasi-velocity symbols")
        quasi = [as_expr(e, space.state_symbols, what="quasi-velocity") for e in as_sequence(quasi, "quasi")]
        inverse = [as_expr(e, space.state_symbols + symbols, what="inverse q̇(t, q, v*)")
                   for e in as_sequence(inverse, "inverse")]
        if states is not None:
            states = [as_values(st, space.state_symbols, what="state") for st in as_sequence(states, "states")]
        if not (len(quasi) == len(symbols) == len(inverse) == n):
            raise DimensionError(f"a frame on TQ needs {n} quasi-velocities, symbols and inverse expressions; "
                                 f"got {len(quasi)}, {len(symbols)}, {len(inverse)}")
        self.space = space
        self.quasi = tuple(quasi)
        self.v = symbols
        self.inverse = tuple(inverse)
        #: the coframe θ^ρ_σ = ∂v*^ρ/∂q̇^σ, in (t, q, q̇)
        self.coframe = sp.Matrix([[sp.diff(w, qd) for qd in space.qd] for w in quasi])
        #: the frame ε^σ_τ = ∂q̇^σ/∂v*^τ (column τ is ε_τ), in (t, q, v*)
        self.basis = sp.Matrix([[sp.diff(e, w) for w in symbols] for e in inverse])
        self._check(states)

    # -- construction checks ------------------------------------------------------------------
    def _check(self, states) -> None:
        S = self.space
        if states is None:
            free = set().union(*(e.free_symbols for e in self.quasi)) | set(S.qd) | set(S.q)
            states = sample_points(free, 2)
        if singular_at(self.coframe, states):
            raise SingularMapError("the Jacobian ∂v*/∂q̇ of the quasi-velocities is singular at a sample "
                                   "state: no frame on TQ")
        for st in states:
            vs = {w: real_value(e, st) for w, e in zip(self.v, self.quasi)}
            if any(x is None for x in vs.values()):
                raise SingularMapError("the quasi-velocities are not real at a sample state")
            pt = {**{k: x for k, x in st.items() if k not in S.qd}, **vs}
            for qd, e in zip(S.qd, self.inverse):
                x = real_value(e, pt)
                if x is None or abs(x - st[qd]) > state_tolerance() * max(1, abs(st[qd])):
                    raise SingularMapError(f"the inverse does not invert the quasi-velocities: {qd} = {e} gives "
                                           f"{x}, not {st[qd]}, at a sample state")

    # -- data ------------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.space.n

    @property
    def is_linear(self) -> bool:
        """Quasi-velocities linear and homogeneous in q̇ (then :meth:`to_frame` exists)."""
        qd = self.space.qd
        return all(sp.diff(e, a, b) == 0 for e in self.quasi for a in qd for b in qd) and \
            all(e.xreplace({v: 0 for v in qd}) == 0 for e in self.quasi)

    def to_frame(self):
        """The linear :class:`~geonh.kernel.frames.Frame` with coframe B = ∂v*/∂q̇ (linear frames only)."""
        from .frames import Frame
        if not self.is_linear:
            raise DimensionError("the quasi-velocities are nonlinear in the velocities: no frame on Q")
        return Frame.from_quasi_velocities(self.space, list(self.quasi))

    def in_velocities(self, expr: sp.Expr) -> sp.Expr:
        """expr(t, q, v*) with v* = v*(t, q, q̇) substituted."""
        return as_expr(expr, what="expression").xreplace(dict(zip(self.v, self.quasi)))

    def in_quasi(self, expr: sp.Expr) -> sp.Expr:
        """expr(t, q, q̇) with q̇ = q̇(t, q, v*) substituted."""
        return as_expr(expr, what="expression").xreplace(dict(zip(self.space.qd, self.inverse)))

    # -- transpositional relations -----------------------------------------------------------
    def euler_lagrange(self, f: sp.Expr) -> list[sp.Expr]:
        """E_σ(f) = d/dt ∂f/∂q̇^σ − ∂f/∂q^σ for f(t, q, q̇); in (t, q, q̇, q̈)."""
        S = self.space
        f = as_expr(f, S.state_symbols, what="euler_lagrange f")
        return [S.total_derivative(sp.diff(f, qd)) - sp.diff(f, q) for q, qd in zip(S.q, S.qd)]

    def transposition(self) -> sp.Matrix:
        """Γ^ρ_τ(t, q, q̇, q̈) = E_σ(v*^ρ) ε^σ_τ: d(δπ^ρ) − δ(dπ^ρ) = Γ^ρ_τ δπ^τ dt (module doc);
        row ρ, column τ."""
        eps = self.basis.applyfunc(self.in_velocities)
        E = sp.Matrix([self.euler_lagrange(w) for w in self.quasi])   # row ρ, column σ
        return E * eps

    def __repr__(self) -> str:
        return f"VelocityFrame({[str(e) for e in self.quasi]})"
