"""Cross-form certificate: do two Equations objects describe the same motion?

Two equation sets describe the same motion iff they give the same accelerations q̈ at every
state (t, q, q̇) allowed by the constraints.  :func:`same_motion` draws random consistent
states (rational coordinates and parameters; the dependent velocities solved from the
constraints), computes q̈ from each set — exactly in rational arithmetic when the state makes
every entry rational, otherwise with mpmath at the working precision (:func:`geonh.kernel.evaluation.precision` digits) — and
reports the largest residual.  A symbolic comparison is attempted first when it is cheap
(identical residual expressions).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from ..equations.base import Equations
from ..equations.registry import FORMS, derive
from ..errors import DimensionError, NotFoundError, ParseError, SpaceMismatchError
from ..kernel.budget import check
from ..kernel.display import html_table, short_number, short_numbers
from ..kernel.evaluation import precision, to_mp
from ..kernel.parsing import as_sequence

__all__ = ["Certificate", "same_motion", "certify_forms"]


@dataclass
class Certificate:
    """Result of :func:`same_motion`."""

    same: bool
    max_residual: float
    method: str
    states: int
    details: list = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.same

    def __str__(self) -> str:
        verdict = "same motion" if self.same else "DIFFERENT motion"
        return f"{verdict}: max |Δq̈| = {self.max_residual:.3g} over {self.states} states ({self.method})"

    def __repr__(self) -> str:
        return (f"Certificate(same={self.same}, max_residual={short_number(self.max_residual)}, "
                f"method={self.method!r}, states={self.states}, details={short_numbers(self.details)})")

    def _repr_html_(self) -> str:
        """Jupyter: the verdict and the residuals as a table."""
        return html_table([("verdict", "same motion" if self.same else "DIFFERENT motion"),
                           ("max |Δq̈|", short_number(self.max_residual)),
                           ("states", self.states), ("method", self.method),
                           ("residual per state", short_numbers(self.details))], caption="Certificate")


def _own(eq: Equations, state: dict) -> dict:
    """The part of a drawn state that names ``eq``'s symbols (the state may carry the other
    equations' parameters too; user keys go through ``accelerations``' own rule)."""
    names = {s.name for s in eq.value_symbols}
    return {k: v for k, v in state.items() if (k.name if isinstance(k, sp.Symbol) else k) in names}


def same_motion(eq1: Equations, eq2: Equations, *, states: int = 3, tol: float = 1e-30, seed: int = 1,
                sampler=None) -> Certificate:
    """Decide whether ``eq1`` and ``eq2`` describe the same motion (see module docstring).

    ``sampler(rng, extra_symbols) -> state`` draws the consistent random states; default:
    ``eq1.system.sample_state`` (every system kind has one, :class:`~geonh.systems.SystemLike`).
    """
    for nm, eq in (("eq1", eq1), ("eq2", eq2)):
        if not isinstance(eq, Equations):
            raise ParseError(f"same_motion compares two Equations; {nm} is {type(eq).__name__}")
    if sampler is not None and not callable(sampler):
        raise ParseError(f"sampler must be a function (rng, extra_symbols) -> state, not {sampler!r}")
    if isinstance(states, bool) or not isinstance(states, int) or states < 1:
        raise DimensionError(f"same_motion needs states ≥ 1 (an integer), got {states!r}: a certificate "
                             "over no state certifies nothing")
    if isinstance(tol, bool) or not (isinstance(tol, (int, float)) and 0 <= tol < 1):
        raise DimensionError(f"tol must be a number in [0, 1), got {tol!r}")
    if eq1.space != eq2.space:
        raise SpaceMismatchError("the two equation sets live on different configuration spaces")
    if eq1.residuals == eq2.residuals and eq1.u == eq2.u and eq1.kinematics == eq2.kinematics:
        return Certificate(True, 0.0, "symbolic (identical equations)", 0)
    rng = random.Random(seed)
    if sampler is None:
        sampler = eq1.system.sample_state
    extra = set()
    for eq in (eq1, eq2):
        for e in list(eq.mass_matrix) + list(eq.forcing) + list(eq.kinematics):
            extra |= e.free_symbols
    extra -= set(eq1.u) | set(eq2.u) | set(eq1.unknowns) | set(eq2.unknowns)
    worst = mpmath.mpf(0)
    exact = True
    details = []
    for k in range(states):
        check("certificate", k, states, "states")
        vals = sampler(rng, extra)
        a1 = eq1.accelerations(_own(eq1, vals), exact=True)
        a2 = eq2.accelerations(_own(eq2, vals), exact=True)
        diffs = []
        for x, y in zip(a1, a2):
            if isinstance(x, sp.Basic) and isinstance(y, sp.Basic) and x.is_Rational and y.is_Rational:
                diffs.append(to_mp(abs(x - y)))
            else:
                exact = False
                with mpmath.workdps(precision()):
                    xx, yy = to_mp(x), to_mp(y)
                    diffs.append(abs(xx - yy) / max(1, abs(xx)))
        m = max(diffs) if diffs else mpmath.mpf(0)
        details.append(float(m))
        worst = max(worst, m)
    method = "exact rational states" if exact else f"random states, {precision()}-digit arithmetic"
    return Certificate(bool(worst <= tol), float(worst), method, states, details)


def certify_forms(system, *, frame=None, dependent=None, forms=None, reference: str = "lagrange",
                  states: int = 2, seed: int = 1,
                  derived: Callable[[str], Equations] | None = None) -> dict[str, Certificate]:
    """Every registered form (:data:`geonh.equations.FORMS`) that applies to ``system``,
    against the ``reference`` form, by :func:`same_motion`: {form name: Certificate}.
    ``frame``/``dependent`` go to the forms that take them; ``forms`` restricts the names.
    ``derived(name)``: the equations of ``system`` in the form ``name`` with this frame and
    these dependent coordinates, where a caller holds them already (the application derives
    each form once per run); default: derived here."""
    if derived is not None and not callable(derived):
        raise ParseError(f"derived must be a function (form name) -> Equations, not {derived!r}")
    if dependent is not None:  # names or symbols of coordinates, checked before any derivation
        space = getattr(system, "space", None)
        dependent = [space.coordinate(c) if space is not None else c for c in as_sequence(dependent, "dependent")]
    if forms is not None:
        forms = [forms] if isinstance(forms, str) else as_sequence(forms, "forms")
        if not all(isinstance(f, str) for f in forms):
            raise ParseError("forms are given by their names (strings)")
        unknown = [f for f in forms if f not in FORMS]
        if unknown:
            raise NotFoundError(f"unknown form(s) {unknown}; registered: {', '.join(FORMS)}")
    ref = derive(reference, system, frame, dependent) if derived is None else derived(reference)
    out: dict[str, Certificate] = {}
    names = [name for name in FORMS if name != reference and (forms is None or name in forms)]
    for k, (name, entry) in enumerate((name, FORMS[name]) for name in names):
        check("certify forms", k, len(names), "forms")
        if not entry.applies(system, dependent):
            continue
        eq = entry(system, frame, dependent) if derived is None else derived(name)
        out[name] = same_motion(ref, eq, states=states, seed=seed)
    return out
