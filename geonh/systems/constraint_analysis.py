"""Constraint analysis: rank of ∂b/∂ẋ, hidden holonomic constraints, full-rank replacement.

Aumann (seed 001, § 3) requires of the kinematic conditions b*_μ(x, ẋ, t) = 0 (4*):

1. a value system (x0, ẋ0, t0) satisfying them (4**);
2. a condition g(x, t) = 0 without ẋ is replaced by its derivative ∂g/∂x_i ẋ_i + ∂g/∂t = 0,
   giving the set b_μ = 0 (4);
3. the Jacobian ∂b_μ/∂ẋ has the maximal rank m.

When 3 fails, the set may hide holonomic constraints.  Example 3.1: x1 + x2 = 0 and
ẋ1 + ẋ2 + x3 = 0 give ẋ1 + ẋ2 = 0, hence x3 = 0, so the system is holonomic and
{ẋ1 + ẋ2 = 0, ẋ3 = 0} is the proper set (4).  :func:`analyze_constraints` automates this:

* B = ∂b/∂ẋ at the generic point; if rank B < m, every left null vector y (y B = 0) gives
  a combination h = y·b.  For constraints linear in ẋ, h is free of ẋ: either h ≡ 0 (a
  redundant constraint, dropped) or h(x, t) = 0 is a **hidden holonomic constraint**: it is
  added as a configuration constraint, its derivative ḣ = 0 replaces one of the dependent
  rows (the dropped row follows from the others and h = 0), and the analysis repeats.
* h a non-zero constant (or a function of t alone) means no motion satisfies the set:
  :class:`InconsistentStateError`.  A combination that still contains ẋ (rank deficiency of
  constraints nonlinear in ẋ) cannot be reduced this way: :class:`RankError` with the reason.

Never a silent pseudo-inverse: in example 3.1 the Moore–Penrose solution of the raw set leaves
ẍ3 = f3 free and the motion leaves x3 = 0 (shown in tests/systems/test_constraint_analysis.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import sympy as sp

from ..errors import InconsistentStateError, NotLinearError, RankError
from ..kernel.evaluation import to_sympy, value_at
from ..kernel.generic_point import generic_rank, is_zero, nullspace
from ..kernel.parsing import as_float, as_sequence, as_values
from ..kernel.space import ConfigurationSpace, as_expression

__all__ = ["ConstraintReport", "analyze_constraints"]


def _clean(h: sp.Expr) -> sp.Expr:
    """Numerator of h, with its constant content removed (a readable holonomic constraint)."""
    h = sp.together(sp.expand(h))
    num = sp.numer(h)
    num = sp.expand(num)
    c, prim = num.as_content_primitive()
    if prim.free_symbols and prim.is_polynomial():
        # g^p = 0 ⇔ g = 0: keep the square-free part, whose derivative does not vanish on g = 0
        prim = sp.sqf_part(prim)
    if prim.could_extract_minus_sign():
        prim = -prim
    return prim


@dataclass
class ConstraintReport:
    """Result of :func:`analyze_constraints`.

    Attributes
    ----------
    original : the constraints as given (4*).
    raw : the set (4) with velocity-free conditions replaced by their derivatives.
    raw_rank : rank of ∂b/∂ẋ of the raw set at the generic point.
    velocity_constraints : the full-rank replacement set (4), to be used by Gauss's principle,
        Lagrange's equations etc.; derivatives of configuration constraints included.
    configuration_constraints : the holonomic constraints g(x, t) = 0 (given and hidden).
    hidden : the hidden holonomic constraints found.
    redundant : raw rows dropped as consequences of the others.
    steps : a readable log.
    """

    space: ConfigurationSpace
    original: list
    raw: list
    raw_rank: int
    velocity_constraints: list
    configuration_constraints: list
    hidden: list = field(default_factory=list)
    redundant: list = field(default_factory=list)
    steps: list = field(default_factory=list)

    @property
    def full_rank(self) -> bool:
        """Did the raw set (4) satisfy Aumann's rank condition?"""
        return self.raw_rank == len(self.raw)

    @property
    def rank(self) -> int:
        return len(self.velocity_constraints)

    def jacobian(self, raw: bool = False) -> sp.Matrix:
        rows = self.raw if raw else self.velocity_constraints
        if not rows:
            return sp.zeros(0, self.space.n)
        return sp.Matrix([[sp.diff(b, v) for v in self.space.qd] for b in rows])

    def explain(self) -> str:
        lines = [f"{len(self.raw)} velocity constraint(s), ∂b/∂ẋ of rank {self.raw_rank}"]
        lines += self.steps
        if self.hidden:
            lines.append("hidden holonomic constraint(s): " + ", ".join(f"{h} = 0" for h in self.hidden))
        lines.append("full-rank set (4): " + ", ".join(f"{b} = 0" for b in self.velocity_constraints))
        return "; ".join(lines)

    def __str__(self) -> str:
        """The report's own text form: :meth:`explain`."""
        return self.explain()

    def violations(self, state: Mapping, tol: float = 1e-9) -> list[str]:
        """Constraints (configuration and velocity, given and hidden) violated at ``state``."""
        bad = []
        tol = as_float(tol, "tol", minimum=0)
        st = as_values(state, self.space.state_symbols, what="state")
        for label, group in (("configuration", self.configuration_constraints),
                             ("velocity", list(self.original) + list(self.velocity_constraints))):
            for g in group:
                v = to_sympy(value_at(g, st))
                if abs(v) > tol:
                    bad.append(f"{label} constraint {g} = {sp.N(v, 6)}")
        return sorted(set(bad))

    def check_state(self, state: Mapping, tol: float = 1e-9) -> None:
        """Aumann's (4**): raise :class:`InconsistentStateError` if the initial data violate any
        constraint, the hidden holonomic ones included."""
        bad = self.violations(state, tol)
        if bad:
            raise InconsistentStateError("inconsistent initial data: " + "; ".join(bad))


def analyze_constraints(space: ConfigurationSpace, constraints: Sequence, holonomic: Sequence = (),
                        *, max_steps: int | None = None) -> ConstraintReport:
    """Analyse kinematic conditions b*(x, ẋ, t) = 0 (seed 001, § 3): see the module docstring.

    ``constraints`` may mix velocity constraints and velocity-free (holonomic) ones;
    ``holonomic`` adds more velocity-free ones.  Returns a :class:`ConstraintReport`.
    """
    S = space
    original = [as_expression(c, S.state_symbols, what="constraint")
                for c in as_sequence(constraints, "constraints") + as_sequence(holonomic, "holonomic")]
    for c in original:
        if c.has(*S.qdd):
            raise NotLinearError(f"constraint {c} = 0 contains accelerations")
    config = [c for c in original if not c.has(*S.qd)]
    vel = [c for c in original if c.has(*S.qd)]
    raw = vel + [S.total_derivative(g) for g in config]
    steps: list[str] = []
    hidden: list = []
    redundant: list = []
    if config:
        steps.append("velocity-free condition(s) " + ", ".join(f"{g} = 0" for g in config)
                     + " replaced by their derivative(s)")

    def jac(rows):
        return sp.Matrix([[sp.diff(b, v) for v in S.qd] for b in rows]) if rows else sp.zeros(0, S.n)

    raw_rank = generic_rank(jac(raw)) if raw else 0
    limit = max_steps if max_steps is not None else 2 * (S.n + len(raw)) + 2
    for _ in range(limit):
        rows = vel + [S.total_derivative(g) for g in config]
        if not rows:
            break
        B = jac(rows)
        r = generic_rank(B)
        if r == len(rows):
            break
        ys = nullspace(B.T)
        if not ys:  # pragma: no cover - generic rank and rref disagree
            raise RankError("∂b/∂ẋ is rank deficient but no left null vector was found")
        y = ys[0]
        h = sp.expand(sum((y[k] * rows[k] for k in range(len(rows)) if y[k] != 0), sp.S.Zero))
        if any(not is_zero(sp.diff(h, v)) for v in S.qd if h.has(v)):
            raise RankError(
                f"∂b/∂ẋ has rank {r} < {len(rows)}, but the dependent combination {h} still contains "
                "velocities (constraints nonlinear in ẋ): no hidden holonomic constraint can be read "
                "off; rewrite the constraints with independent velocity gradients")
        # drop a velocity row with a non-zero coefficient (prefer the last one)
        cand = [k for k in range(len(vel)) if not is_zero(y[k])]
        if is_zero(h):
            if cand:
                k = cand[-1]
                redundant.append(vel[k])
                steps.append(f"{vel[k]} = 0 is a consequence of the others: dropped")
                vel.pop(k)
            else:
                # dependent holonomic derivatives: drop the last dependent configuration constraint
                kk = [k - len(vel) for k in range(len(vel), len(rows)) if not is_zero(y[k])][-1]
                redundant.append(config[kk])
                steps.append(f"{config[kk]} = 0 is a consequence of the others: dropped")
                config.pop(kk)
            continue
        g = _clean(h)
        if not (g.free_symbols & set(S.q)):
            raise InconsistentStateError(
                f"the constraints imply {g} = 0, which no configuration satisfies (∂b/∂ẋ has rank "
                f"{r} < {len(rows)} and the dependent combination is {h})")
        hidden.append(g)
        steps.append(f"∂b/∂ẋ has rank {r} < {len(rows)}; the combination {sp.factor(h)} of the constraints "
                     f"contains no velocity, so {g} = 0 is a hidden holonomic constraint")
        if cand:
            k = cand[-1]
            steps.append(f"{vel[k]} = 0 follows from the others and {g} = 0: replaced by d/dt({g}) = 0")
            vel.pop(k)
        config.append(g)
    else:
        raise RankError(f"constraint analysis did not terminate in {limit} steps")
    final = vel + [S.total_derivative(g) for g in config]
    return ConstraintReport(S, original, raw, raw_rank, final, config, hidden, redundant, steps)
