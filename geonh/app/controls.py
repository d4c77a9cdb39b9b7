"""The control verdicts of a model, for ``geonh control`` and the report's control section.

:func:`control_verdicts` decides, with witnesses (:class:`geonh.control.Verdict`):

* a **kinematic** model (its admissible distribution with the frame's free fields as the
  control fields, :class:`~geonh.control.DriftlessSystem`): the growth vector of the
  distribution at the generic point and the LARC at the point (Chow–Rashevskii);
* a **mechanical** model driven by chosen inputs: the LARC and Sussmann's condition for the
  control-affine system on (q, speeds) at the rest point (q₀, 0)
  (:meth:`~geonh.control.ControlAffineSystem.from_mechanical`, in the model's frame), and, when
  every force is an input (T = ½ G(q̇, q̇), no potential), the verdicts of the affine connection
  form: configuration accessibility, configuration controllability and kinematic
  controllability (:mod:`geonh.control.connection`).

Inputs of a mechanical model (:func:`control_inputs`): each name is either a force symbol of
the model (the generalized force Q is affine in it; its actuator covector is ∂Q/∂u) or a
coordinate (a force or torque along that coordinate, the covector dq).  Without names, the
model's force symbols are the inputs: the symbols of Q that are not declared positive (masses,
lengths, g are) and do not occur in T, Q affine in them; when inputs are named, those of
these force symbols that are not named are set to 0.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from ..control import (AffineConnectionSystem, ControlAffineSystem, DriftlessSystem, Verdict, accessibility,
                       configuration_accessibility, configuration_controllability, kinematic_controllability,
                       sussmann)
from ..errors import DimensionError, GeonhError, NotAdaptedError, ParseError
from ..kernel.generic_point import is_zero
from ..kernel.parsing import as_names, as_values
from ..systems.mechanical import MechanicalSystem

__all__ = ["ControlReport", "control_inputs", "control_verdicts"]


@dataclass
class ControlReport:
    """The verdicts of :func:`control_verdicts` on one model.

    ``kind`` is "kinematic" or "mechanical"; ``inputs`` the input names; ``point`` the
    configuration decided at; ``growth`` the growth vector (kinematic models); ``verdicts`` the
    decided :class:`~geonh.control.Verdict` objects in order; ``skipped`` says, for each verdict
    not computed, why (e.g. the rest point is no equilibrium, the system has a potential)."""

    model: str
    kind: str
    inputs: tuple[str, ...]
    point: dict
    verdicts: list[Verdict] = field(default_factory=list)
    growth: tuple[int, ...] | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)


def control_inputs(model, inputs: Sequence[str] | None = None) -> tuple[MechanicalSystem, list, tuple[str, ...]]:
    """(the system with the inputs removed from its forces, the actuator covectors, the input
    names) of a mechanical ``model``; see the module's docstring for how inputs are named.
    :class:`~geonh.errors.NotAdaptedError` when the model has no force symbol and no input is
    named, :class:`~geonh.errors.ParseError` for a name that is neither a force symbol nor a
    coordinate, or a force that is not affine in its input."""
    system = getattr(model, "system", None)
    if not isinstance(system, MechanicalSystem):
        raise NotAdaptedError(f"inputs are chosen for a mechanical model, not a {getattr(model, 'kind', type(model).__name__)}")
    S = system.space
    forces = set().union(*(Q.free_symbols for Q in system.Q)) - set(S.state_symbols)
    t_syms = system.T.free_symbols
    candidates = tuple(sorted(s.name for s in forces if s.is_positive is not True and s not in t_syms
                              and all(is_zero(sp.diff(Q, s, 2)) for Q in system.Q)))
    if inputs is None:
        names = candidates
        if not names:
            raise NotAdaptedError(f"{getattr(model, 'name', 'the model')} has no force symbol to take as an input: "
                                  "name the inputs (force symbols or coordinates, e.g. --inputs psi,phi)")
    else:
        names = as_names(inputs, "inputs")
        if not names:
            raise DimensionError("at least one input is needed")
        if len(set(names)) != len(names):
            raise DimensionError(f"repeated input in {list(names)}")
    by_name = {s.name: s for s in forces if s.name in candidates}
    coords = {s.name: s for s in S.q}
    rows: list = []
    drop: dict = {by_name[c]: 0 for c in candidates if c not in names}     # force symbols not chosen: 0
    for n in names:
        if n in by_name:
            u = by_name[n]
            row = [sp.diff(Q, u) for Q in system.Q]
            if any(not is_zero(sp.diff(c, u)) for c in row):
                raise ParseError(f"the force is not affine in the input {n}")
            rows.append(row)
            drop[u] = 0
        elif n in coords:
            rows.append([sp.S.One if s == coords[n] else sp.S.Zero for s in S.q])
        else:
            raise ParseError(f"input {n!r} is neither a force symbol of the model ({sorted(by_name)}) nor a "
                             f"coordinate ({sorted(coords)})")
    Q0 = [Q.xreplace(drop) for Q in system.Q]
    base = MechanicalSystem(S, system.T, 0, forces=Q0, constraints=system.constraints, name=system.name,
                            conditions=system.conditions)
    return base, rows, names


def _point(space, at: Mapping | None) -> dict:
    values = as_values({} if at is None else at, space.q, what="point")
    out = {}
    for s in space.q:
        v = values.get(s, values.get(s.name, sp.S.Zero))
        out[s.name] = v
    unknown = [k for k in values if str(k) not in out]
    if unknown:
        raise ParseError(f"the point names {[str(k) for k in unknown]}, which are not coordinates")
    return out


def control_verdicts(model, inputs: Sequence[str] | None = None, at: Mapping | None = None, *,
                     connection: bool = True) -> ControlReport:
    """The control verdicts of ``model`` (a kinematic or mechanical model) at the configuration
    ``at`` ({coordinate: value}, default 0 for each), with the inputs of :func:`control_inputs`
    (mechanical models; ``inputs`` ignored for kinematic ones).  ``connection=False`` skips the
    verdicts of the affine connection form.

    Examples
    --------
        >>> from geonh import models
        >>> from geonh.app.controls import control_verdicts
        >>> rep = control_verdicts(models.get("unicycle"))
        >>> rep.growth, [v.holds for v in rep.verdicts]
        ((2, 3), [True])
    """
    kind = getattr(model, "kind", None)
    if kind == "kinematic":
        dist = model.distribution
        sysd = DriftlessSystem.from_distribution(dist)
        pt = _point(model.space, at)
        rep = ControlReport(model.name, kind, sysd.inputs, pt, growth=tuple(dist.growth_vector()))
        rep.verdicts.append(accessibility(sysd, pt))
        return rep
    if kind != "mechanical":
        raise NotAdaptedError(f"control verdicts are for kinematic and mechanical models, not {kind!r} ones")
    base, rows, names = control_inputs(model, inputs)
    pt = _point(base.space, at)
    rep = ControlReport(model.name, kind, names, pt)
    cas = ControlAffineSystem.from_mechanical(base, rows, inputs=names, frame=model.frame)
    rest = {**pt, **{s.name: 0 for s in cas.space.q[base.space.n:]}}
    rep.verdicts.append(accessibility(cas, rest))
    if cas.is_equilibrium(rest):
        rep.verdicts.append(sussmann(cas, rest))
    else:
        rep.skipped.append(("Sussmann's condition", "the rest point is no equilibrium of the drift"))
    if not connection:
        return rep
    try:
        acs = AffineConnectionSystem(base, rows, names)
    except NotAdaptedError as e:
        rep.skipped.append(("affine connection form", str(e)))
        return rep
    for f in (configuration_accessibility, configuration_controllability, kinematic_controllability):
        try:
            rep.verdicts.append(f(acs, pt))
        except GeonhError as e:       # e.g. a point singular for the products
            rep.skipped.append((f.__name__.replace("_", " "), str(e)))
    return rep
