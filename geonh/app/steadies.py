"""The steady motions of a model, for ``geonh steady``: the families of relative equilibria of a
symmetry, their stability boundaries in closed form and the verdicts along a parameter.

:func:`steady_report` runs :func:`~geonh.analysis.steady.steady_motions` on the model's
equations for the given symmetry generators (components over the coordinates, as ``geonh
linearize --generator`` takes them), then for each family

* :func:`~geonh.analysis.steady.stability_boundary` at the parameter values given (the others
  stay symbols): the conditions, all > 0, with the factors that are positive for every value
  (numbers, powers of positive parameters) divided out (:func:`positive_part`), so that the
  thin uniform disk's upright rolling reads ``3*xi1**2 - g*r > 0``, i.e. Ω² > g/(3R) with
  Ω = ξ₁/R (docs/linearization.md, "Relative equilibria");
* the verdicts of :meth:`~geonh.analysis.steady.SteadyMotion.stability` at each value of a
  grid of one parameter (the eigenvalue diagram), the others from the values given, a system
  parameter given no number taking the model file's value or 1 (as :func:`geonh.app.workbench.linearize`).

Parameter values may be formulas in the other parameters (``I_d=m*r**2/4``), parsed safely
(:func:`geonh.kernel.parsing.parse`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from ..analysis.steady import SteadyMotion, StabilityBoundary, stability_boundary, steady_motions
from ..errors import BudgetExceededError, GeonhError
from ..kernel.parsing import as_expr, as_floats, as_mapping, as_names, as_sequence, parse
from .workbench import Progress, Session, TaskError, equations, quiet

__all__ = ["FamilyReport", "SteadyReport", "declared_arguments", "positive_part", "steady_report"]


@dataclass
class FamilyReport:
    """One family of steady motions: ``motion`` (:class:`~geonh.analysis.steady.SteadyMotion`),
    ``boundary`` (:class:`~geonh.analysis.steady.StabilityBoundary` or None), ``conditions``
    its conditions reduced by :func:`positive_part` (each > 0), ``boundary_note`` why there is
    no closed form; ``grid`` the values of the swept parameter and, per value, ``verdicts`` and
    ``eigenvalues`` (complex numbers)."""

    motion: SteadyMotion
    boundary: StabilityBoundary | None = None
    conditions: tuple = ()
    boundary_note: str = ""
    grid: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)
    eigenvalues: list = field(default_factory=list)


@dataclass
class SteadyReport:
    """What ``geonh steady`` prints: the model, the form, the generators (strings), the fixed
    coordinates ``at``, the parameter values ``params`` (expressions), the swept ``parameter``
    (or None), one :class:`FamilyReport` per family, the values of the verdicts ``member``
    (expressions) and the ``source`` of the steady motions (a declared symmetry's)."""

    model: str
    form: str
    generators: list
    at: dict
    params: dict
    parameter: str | None
    families: list[FamilyReport]
    member: dict = field(default_factory=dict)
    source: str = ""


def positive_part(condition) -> sp.Expr:
    """``condition`` (an expression whose sign is asked, > 0) with the factors of its numerator
    and denominator that are positive for every value divided out (positive numbers, factors
    sympy proves positive: powers of positive symbols, sums of them); a negative number flips
    the sign.  The result is > 0 exactly where ``condition`` is."""
    num, den = sp.fraction(sp.cancel(sp.together(as_expr(condition, what="condition"))))
    sign = 1
    kept = []
    for part in (num, den):
        coeff, factors = sp.factor_list(part)
        sign *= 1 if coeff > 0 else -1
        for f, k in factors:
            if f.is_positive:
                continue
            if f.is_negative:
                sign *= (-1) ** k
                continue
            kept.append(f ** k)
    return sp.expand(sign * sp.Mul(*kept))


def _parameters(eqs) -> list:
    """The parameters of ``eqs``: the symbols a value may name that are not time, coordinates,
    velocities, speeds, their rates or multipliers."""
    S = eqs.space
    state = set(S.coords) | set(S.qd) | set(S.qdd) | set(eqs.u) | set(eqs.ud) | set(eqs.lam_vec)
    if S.t is not None:
        state.add(S.t)
    return sorted(set(eqs.value_symbols) - state, key=lambda s: s.name)


def _values(model, eqs, params: Mapping[str, str]) -> dict:
    """{parameter symbol: expression} from ``params`` ({name: formula in the parameters});
    a name that is no parameter of the equations is a :class:`TaskError`."""
    known = {s.name: s for s in _parameters(eqs)}
    out = {}
    for name, text in params.items():
        s = known.get(name)
        if s is None:
            raise TaskError(f"{model.name}: {name!r} is not a parameter of the equations; "
                            f"they have {', '.join(sorted(known)) or 'none'}")
        out[s] = (parse(text, list(known.values()), what=f"--param {name}") if isinstance(text, str)
                  else as_expr(text, what=f"--param {name}"))
        other = sorted(v.name for v in out[s].free_symbols if v not in set(known.values()))
        if other:
            raise TaskError(f"{model.name}: the formula of the parameter {name} = {out[s]} uses {', '.join(other)}, "
                            "which is no parameter: a parameter's formula is in the other parameters")
    return out


def _numbers(exprs: dict) -> dict:
    """``exprs`` ({symbol: expression in the symbols}) with each value's symbols replaced by
    their own values until none is left (``I_d = m r²/4`` with m, r given)."""
    out = dict(exprs)
    for _ in range(len(out) + 1):
        nxt = {k: v.xreplace(out) for k, v in out.items()}
        if nxt == out:
            break
        out = nxt
    return out


def steady_report(model, generators: Sequence[Sequence[str]], at: Mapping[str, object] | None = None,
                  params: Mapping[str, str] | None = None, form: str | None = None, *,
                  member: Mapping[str, object] | None = None, parameter: str | None = None,
                  grid: Sequence[float] = (), boundary: bool = True,
                  progress: Progress = quiet, session: Session | None = None, source: str = "") -> SteadyReport:
    """The steady motions of ``model`` for the symmetry ``generators`` (module docstring).

    ``at``: coordinates fixed (the upright disk: θ = 0); ``params``: {name: formula} for the
    system's parameters; ``member``: numbers for the family's parameters (ξ components, shape
    coordinates) at which the verdict is taken; ``parameter`` with ``grid``: the verdicts and
    eigenvalues at each value of that parameter (a family or system parameter); ``session``:
    the run's derived equations (:class:`~geonh.app.workbench.Session`).  A failure is a
    :class:`TaskError` naming the model."""
    try:
        generators = [[str(as_expr(c, what="a generator's component")) if not isinstance(c, str) else c
                       for c in as_sequence(g, "a generator")] for g in as_sequence(generators, "generators")]
        member = {str(k): as_expr(v, what=f"value of {k}") for k, v in as_mapping({} if member is None else member, "member").items()}
        if parameter is not None:
            parameter = as_names([parameter], "parameter")[0]
        grid = as_floats(grid, "grid")
        eqs = equations(model, form, progress=progress, session=session)
        given = _values(model, eqs, {str(k): v for k, v in as_mapping({} if params is None else params, "params").items()})
        fixed = {str(k): as_expr(v, what=f"value of {k}") for k, v in as_mapping({} if at is None else at, "at").items()}
        for k, v in fixed.items():
            other = sorted(x.name for x in v.free_symbols if x.name not in {p.name for p in _parameters(eqs)})
            if other:
                raise TaskError(f"{model.name}: the value of {k} = {v} uses {', '.join(other)}: a fixed coordinate "
                                "takes a number or a formula in the parameters")
        with progress(f"steady motions of {model.name}"):
            fams = steady_motions(eqs, [list(g) for g in generators], at=fixed)
        out = []
        for fam in fams:
            rep = FamilyReport(fam)
            if boundary:
                try:
                    with progress("stability boundary"):
                        rep.boundary = stability_boundary(fam, _numbers(given))
                    rep.conditions = tuple(positive_part(c) for c in rep.boundary.conditions)
                except BudgetExceededError:
                    raise
                except GeonhError as e:
                    rep.boundary_note = str(e)
            if parameter is not None or member:
                rep.grid, rep.verdicts, rep.eigenvalues = _verdicts(model, eqs, fam, given, dict(member or {}),
                                                                    parameter, list(grid))
            out.append(rep)
        return SteadyReport(model.name, eqs.form, [list(map(str, g)) for g in generators], fixed,
                            given, parameter, out, member, str(source))
    except (TaskError, BudgetExceededError):
        raise
    except GeonhError as e:
        raise TaskError(f"{model.name}: {e}") from None


def declared_arguments(model) -> dict:
    """The arguments of :func:`steady_report` that ``model`` declares (its ``symmetry``,
    :class:`geonh.models.Symmetry`): ``generators``, ``at`` (fixed coordinates), ``params``
    (parameter formulas), ``member`` (the verdicts' values), ``parameter`` and ``grid`` (the
    eigenvalue diagram), ``boundary`` and ``source``.  ``geonh steady`` without ``--generator`` and the report's steady
    motions use them; the command's own options override them.  A model that declares none
    is a :class:`TaskError` saying how to give the generators."""
    sym = getattr(model, "symmetry", None)
    if sym is None:
        raise TaskError(f"{model.name} declares no symmetry: give its generators (geonh steady {model.name} "
                        "--generator X1,X2,... with the components over the coordinates)")
    grid: list = []
    if sym.span is not None:            # checked by Symmetry: two floats A < B, with a parameter
        lo, hi = sym.span
        grid = [lo + (hi - lo) * i / (sym.points - 1) for i in range(sym.points)]
    return {"generators": [list(g) for g in sym.generators], "at": dict(sym.at), "params": dict(sym.params),
            "member": dict(sym.values), "parameter": sym.parameter if grid else None, "grid": grid,
            "boundary": sym.boundary, "source": sym.source}


def _verdicts(model, eqs, fam: SteadyMotion, given: dict, member: dict, parameter: str | None,
              grid: list) -> tuple[list, list, list]:
    """(grid, verdicts, eigenvalues) of ``fam`` along ``parameter`` (one point, the member,
    without it); system parameters given no value take the model file's value or 1."""
    extra = getattr(model, "extra", None) or {}
    defaults = {str(k): v for k, v in (extra.get("values") or {}).items()} if isinstance(extra, dict) else {}
    names = {p.name for p in fam.parameters}
    if parameter is not None and parameter not in names and parameter not in {s.name for s in _parameters(eqs)}:
        raise TaskError(f"{model.name}: --parameter {parameter!r} is neither a parameter of the family "
                        f"({', '.join(sorted(names))}) nor of the equations")
    member = {str(k): as_expr(v, what=f"value of {k}") for k, v in member.items()}
    values: dict = {}
    for s in _parameters(eqs):      # a number given for the verdict wins over a formula, the formula over a default
        values[s] = member.get(s.name, given.get(s, as_expr(defaults.get(s.name, 1), what=f"value of {s.name}")))
    values = _numbers(values)
    base = {k.name: v for k, v in values.items()}
    base.update({k: v for k, v in member.items() if k not in base})
    points: list = list(grid) if parameter is not None else [None]
    left = sorted(names - set(base) - ({parameter} if parameter else set()))
    if left:
        raise TaskError(f"{model.name}: give the family's parameters {', '.join(left)} "
                        "(--at NAME=VALUE, or sweep one with --parameter)")
    verdicts, eigs = [], []
    for x in points:
        vals = dict(base)
        if parameter is not None and x is not None:
            vals[parameter] = sp.Rational(repr(float(x)))
            sub = {s: vals[s.name] for s in values if s.name in vals}
            vals = {**vals, **{k.name: v for k, v in _numbers({**values, **sub}).items()}}
        st = fam.stability(vals)
        verdicts.append(st.verdict)
        eigs.append([complex(z) for z in st.eigenvalues])
    return (list(points) if parameter is not None else []), verdicts, eigs
