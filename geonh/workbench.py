"""Model-level tasks behind the ``geonh`` command, as plain functions that return data.

Here a model (a built-in model or a model file, :func:`load_model`) is analysed, derived,
certified, simulated and linearized: :func:`show_data`, :func:`relations`, :func:`equations`
and :func:`equation_rows`, :func:`certify_data`, :func:`run_simulation`, :func:`linearize`,
:func:`eigenvalue_sweep` and :func:`bicycle_sweep`; :func:`simplified` is the bounded
simplification used for display.  Nothing here prints or knows of click: a task the model
cannot do, or an option value it does not accept, raises :class:`TaskError` (a
:class:`~geonh.errors.GeonhError` whose message is complete), the library's own errors pass
through, and long steps report through an optional ``progress`` context-manager factory.
:mod:`geonh.cli` formats the results and translates the errors into exit statuses;
:mod:`geonh.report` builds its HTML page from them.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from importlib import metadata
from typing import NamedTuple

import sympy as sp

from . import display, models
from .certificate import certify_forms
from .equations.registry import FORMS, derive
from .errors import BudgetExceededError, GeonhError, IntegrationError
from .kernel.frames import Frame
from .kernel.elementary import TRIG_FUNCTIONS
from .kernel.trig import shorten_trig
from .models import files
from .systems import analyze_constraints
from .transposition import ConstrainedSetting, voronets_frame
from .kernel.parsing import expr_of, sympy_of

#: a progress reporter: called with what is being done, returns a context manager around the work
Progress = Callable[[str], AbstractContextManager]


def quiet(what: str) -> AbstractContextManager:
    """The default :data:`Progress`: reports nothing."""
    return nullcontext()


class TaskError(GeonhError, ValueError):
    """A task the model cannot do (no equations of a kinematic model, an unknown form, a
    parameter the equations do not have, ...), with a complete message naming the problem."""


def version() -> str:
    """The installed version of geonh ("unknown" when run from a source tree)."""
    try:
        return metadata.version("geonh")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


# -- the model -------------------------------------------------------------------------------------------------
def load_model(arg: str):
    """A built-in model by name, or a model file (``*.toml`` or an existing path).  Raises the
    library's errors (:class:`~geonh.errors.ParseError`, :class:`~geonh.errors.NotFoundError`, ...)."""
    if files.is_model_file(arg):
        return files.load(arg)
    return models.get(arg)


def kind(model) -> str:
    """"seed", "mechanical" or "kinematic"."""
    if isinstance(model, models.SeedModel):
        return "seed"
    if isinstance(model, models.MechanicalModel):
        return "mechanical"
    return "kinematic"


def is_mechanical(model) -> bool:
    return isinstance(model, models.MechanicalModel)


def system(model):
    """The model's system; :class:`TaskError` for a model without one (no equations of motion)."""
    sysm = getattr(model, "system", None)
    if sysm is None:
        what = "a kinematic model" if kind(model) == "kinematic" else "a set of constraints without a system"
        raise TaskError(f"{model.name} is {what}: it has no kinetic energy, so no equations of motion "
                        "(try: geonh show)")
    return sysm


def frame(model):
    """The model's frame, or (mechanical model without one) the Voronets frame of its
    constraints, or the coordinate frame of an unconstrained system."""
    F = getattr(model, "frame", None)
    if F is not None:
        return F
    sysm = getattr(model, "system", None)
    if sysm is not None and getattr(sysm, "n_constraints", 0):
        return voronets_frame(sysm.constraints, getattr(model, "dependent", None))
    return Frame.coordinate(model.space)


#: frames whose fields have more tree nodes than this in all are "big": show skips the growth
#: vector unless asked (the Whipple bicycle's takes 80 s), the report the certificate
BIG_FRAME = 3000


def is_big(F) -> bool:
    """Whether the fields of frame ``F`` have more than :data:`BIG_FRAME` tree nodes in all."""
    n = 0
    for X in F.fields:
        for c in X.components:
            n += sum(1 for _ in sp.preorder_traversal(c))
            if n > BIG_FRAME:
                return True
    return False


# -- simplification for display -------------------------------------------------------------------------------
#: trig_reduce (polynomial reduction modulo sin² + cos² = 1) is tried on expressions up to this
#: many tree nodes with at most this many angles and no roots; measured: the heavy top's
#: forcing, 1623 operations, comes out at 12 in 0.7 s
REDUCE_NODES = 4000
REDUCE_ANGLES = 3


def simplified(e) -> tuple:
    """(expression for display, whether it was simplified): :func:`geonh.display.shorten_for_display`
    for small expressions, then :func:`geonh.kernel.trig.shorten_trig` for mid-sized trigonometric ones; big
    ones (the Whipple bicycle's) stay as computed."""
    e = sympy_of(e)
    out, ok = display.shorten_for_display(e)
    if ok or not isinstance(e, sp.Expr) or e.is_number or display.too_big(e, REDUCE_NODES):
        return out, ok
    args = {f.args[0] for f in e.atoms(*TRIG_FUNCTIONS)}
    if len(args) > REDUCE_ANGLES or any(not p.exp.is_Integer for p in e.atoms(sp.Pow)):
        return out, False
    r, reduced = shorten_trig(e)
    return (r, True) if reduced else (out, False)


def for_display(e):
    """The expression of :func:`simplified`, without the flag."""
    return simplified(e)[0]


def _simplified_all(exprs) -> tuple[list, int]:
    out, skipped = [], 0
    for e in exprs:
        t, ok = simplified(e)
        out.append(t)
        skipped += (not ok) and isinstance(t, sp.Expr) and not t.is_number
    return out, skipped


# -- show ------------------------------------------------------------------------------------------------------
def show_data(model, *, growth: bool | None = None, progress: Progress = quiet) -> dict:
    """What `geonh show` prints, as data (expressions as sympy objects).  ``growth``: compute
    the growth vector and verdict (None: unless the frame is big, :data:`BIG_FRAME`)."""
    S = model.space
    out = {"name": model.name, "description": model.description, "kind": kind(model),
           "coordinates": [s.name for s in S.coords]}
    if isinstance(model, models.SeedModel):
        out["constraints"] = list(model.constraints)
        if model.system is None:
            out["analysis"] = analyze_constraints(S, list(model.constraints)).explain()
        else:
            out["system"] = repr(model.system)
            out["dof"] = model.system.dof
            out["virtual"] = str(model.system.virtual)
        return out
    if is_mechanical(model):
        sysm = model.system
        out["system"] = repr(sysm)
        out["T"] = for_display(sysm.T)
        out["V"] = sysm.V
        out["forces"] = {q.name: f for q, f in zip(S.q, sysm.Q) if f != 0}
    F = frame(model)
    skipped = 0
    qv, sk = _simplified_all(F.quasi_velocities())
    skipped += sk
    out["quasi_velocities"] = dict(zip(F.names, qv))
    fields = {}
    for nm, X in zip(F.names, F.fields):
        comps, sk = _simplified_all(X.components)
        skipped += sk
        fields[nm] = display.field_text([sp.Symbol(f"<{display.DISPLAY_NODES}+ nodes>") if display.too_big(c) else c
                                         for c in comps], S.coords)
    out["fields"] = fields
    with progress(f"structure coefficients of {model.name}"):
        c = F.structure_coefficients()
    coeffs = []
    n = F.dim
    for a in range(n):
        for b in range(a + 1, n):
            for d in range(n):
                if c[d, a, b] != 0:
                    v, ok = simplified(c[d, a, b])
                    skipped += not ok and not v.is_number
                    if v != 0:
                        coeffs.append((F.names[d], F.names[a], F.names[b], v))
    out["structure_coefficients"] = coeffs
    out["unsimplified"] = skipped
    m = model.m if hasattr(model, "m") else S.n
    if growth is None:
        growth = not is_big(F)
    if not growth:
        out["growth_vector"] = None
        out["verdict"] = ("not decided: the frame is big, so the growth vector was skipped "
                          "(pass --growth to compute it; it can take minutes)")
        out["frame"] = F
        return out
    with progress(f"growth vector of {model.name}"):
        gv = tuple(model.distribution.growth_vector())
        out["growth_vector"] = gv
        if m >= S.n:
            out["verdict"] = "none (holonomic system in quasi-velocities)"
        elif S.t is None and len(set(gv)) > 1:
            # the flag already decides: no second (annihilator) computation, which is slow on big frames
            out["verdict"] = (f"not integrable (nonholonomic): {S.n - m} constraint(s) on {S.dim} coordinates, "
                              f"growth vector {gv}"
                              + (", bracket generating (completely nonholonomic)" if gv[-1] == S.dim else ""))
        else:
            out["verdict"] = str(model.constraints.verdict())
    out["frame"] = F
    return out


# -- relations -------------------------------------------------------------------------------------------------
def relations(model, k: int | None = None, *, progress: Progress = quiet) -> dict:
    """Transpositional relations of the Neimark–Fufaev k-family (default k = n − m,
    Hamel/Volterra): {"k", "relations" (the TranspositionalRelations), "coordinates" ((name,
    dδq − δdq on the motion) per coordinate), "gamma" ((ν, λ, μ, γ) non-zero)}, as computed
    (not simplified).  A failure of the computation is a :class:`TaskError` naming the model."""
    if isinstance(model, models.SeedModel):
        raise TaskError(f"{model.name} has nonlinear constraints; transpositional relations need linear ones")
    F = frame(model)
    m = model.m
    n = model.space.n
    k = n - m if k is None else k
    if not 0 <= k <= n - m:
        raise TaskError(f"--k must lie in 0 … {n - m} (n − m) for {model.name}, got {k}")
    with progress(f"transpositional relations of {model.name}"):
        try:
            setting = ConstrainedSetting.from_frame(F, m, getattr(model, "dependent", None))
            rel = setting.transposition(k)
            coords = rel.coordinates(on_motion=True)
            gamma = rel.gamma
        except BudgetExceededError:
            raise
        except GeonhError as e:
            raise TaskError(f"{model.name}: {e}") from None
    names = rel.frame.names
    p = rel.p
    return {"k": k, "relations": rel, "coordinates": [(q.name, e) for q, e in zip(model.space.coords, coords)],
            "gamma": [(names[nu], names[lam], names[mu], gamma[nu, lam, mu])
                      for nu in range(p) for lam in range(p) for mu in range(p) if gamma[nu, lam, mu] != 0]}


# -- equations -------------------------------------------------------------------------------------------------
def default_form(model) -> str:
    """boltzmann-hamel in the model's frame, lagrange without one."""
    return "boltzmann-hamel" if getattr(model, "frame", None) is not None else "lagrange"


def equations(model, form: str | None = None, *, progress: Progress = quiet):
    """The equations of motion of ``model`` in a registered form (None: :func:`default_form`;
    chetaev-lagrange, the only one, for constraints nonlinear in the velocities)."""
    sysm = system(model)
    if not is_mechanical(model):
        from .equations import chetaev_lagrange
        if form not in (None, "chetaev-lagrange"):
            raise TaskError(f"{model.name} has constraints nonlinear in the velocities; its equations come in "
                            "the form chetaev-lagrange")
        return chetaev_lagrange(sysm)
    form = form or default_form(model)
    if form not in FORMS:
        raise TaskError(f"unknown form {form!r}; known forms: {', '.join(FORMS)}")
    with progress(f"deriving the {form} equations of {model.name}"):
        return derive(form, sysm, model.frame, model.dependent)


def equation_rows(eqs) -> tuple[list, list]:
    """(lhs, rhs) pairs of M x = F row by row, and (velocity, rhs) of the kinematics q' = K,
    simplified for display."""
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((for_display(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append((lhs, for_display(F[i])))
    return rows, [(v, for_display(k)) for v, k in zip(eqs.space.qd, eqs.kinematics)]


# -- certificate -----------------------------------------------------------------------------------------------
def certify_data(model, *, progress: Progress = quiet) -> dict:
    """Every applicable form of a mechanical model against Lagrange's equations: form name →
    :class:`~geonh.certificate.Certificate`.  A failure is a :class:`TaskError` naming the model."""
    sysm = system(model)
    if not is_mechanical(model):
        raise TaskError(f"{model.name}: the certificate compares the registered forms of a mechanical system")
    with progress(f"deriving and comparing every form of {model.name}"):
        try:
            return certify_forms(sysm, frame=model.frame, dependent=model.dependent)
        except BudgetExceededError:
            raise
        except GeonhError as e:
            raise TaskError(f"{model.name}: {e}") from None


# -- simulation ------------------------------------------------------------------------------------------------
#: an initial value moved by more than this (absolute, or relative to its size) when the state
#: is projected onto the constraints is reported: the default ``constraint_tol`` of
#: :func:`geonh.numerics.simulate`, so what a run without projection would accept goes unreported
PROJECTION_REPORT_TOL = 1e-9


class SimulationRun(NamedTuple):
    """What :func:`run_simulation` returns: the trajectory, the parameter values used, notes
    (defaults that were filled in) and warnings (the run is not what was asked for: an initial
    state moved onto the constraints, [initial] entries that are not state variables)."""

    trajectory: object
    values: dict
    notes: list
    warnings: list


def run_simulation(model, *, t_end: float = 10.0, form: str | None = None, params: dict | None = None,
                   initial: dict | None = None, points: int = 201, progress: Progress = quiet) -> SimulationRun:
    """Simulate ``model`` (a :class:`SimulationRun`).  Parameters default to the model file's
    [values], else 1; coordinates to its [initial], else 0.3; speeds to 0.5.  An initial state
    off the constraints is projected onto them (forms with multipliers keep every velocity in
    the state) and the correction is reported in the warnings, naming the values that moved."""
    from .numerics import simulate
    eqs = equations(model, form, progress=progress)
    f = eqs.ode_function()
    extra = getattr(model, "extra", None) or {}
    given = {str(k): v for k, v in (extra.get("values") or {}).items()}
    given.update({str(k): v for k, v in (params or {}).items()})
    notes: list[str] = []
    warnings: list[str] = []
    values = {}
    names = [p.name for p in list(f.parameters) + _constraint_parameters(eqs, f)]
    unknown = sorted(set(params or {}) - set(names))
    if unknown:
        raise TaskError(f"--param {unknown[0]}: not a parameter of the {eqs.form} equations of {model.name} "
                        f"(parameters: {', '.join(names) or 'none'})")
    defaulted = []
    extra_syms = _constraint_parameters(eqs, f)
    for p in list(f.parameters) + extra_syms:
        if p.name in given:
            values[p] = given[p.name]
        else:
            values[p] = sp.Integer(1)
            defaulted.append(p.name)
    if defaulted:
        notes.append(f"parameters set to 1 (give --param NAME=VALUE): {', '.join(defaulted)}")
    init = {str(k): v for k, v in (extra.get("initial") or {}).items()}
    init.update(initial or {})
    state = list(f.state_names)
    bad = sorted(set(initial or {}) - set(state))
    if bad:
        raise TaskError(f"--init {bad[0]}: not a state variable of the {eqs.form} equations "
                        f"(state: {', '.join(state)})")
    ignored = [nm for nm in init if nm not in state]
    if ignored:
        warnings.append(f"[initial] {', '.join(ignored)} of the model file: not state variables of the {eqs.form} "
                        f"equations (state: {', '.join(state)}), ignored; give the state's own names with --init")
    y0 = []
    for i, nm in enumerate(state):
        y0.append(float(init.get(nm, 0.3 if i < f.n_q else 0.5)))
    defaulted = [nm for nm in state if nm not in init]
    if defaulted:
        notes.append(f"initial values set to 0.3 (coordinates) and 0.5 (speeds): {', '.join(defaulted)}")
    project = bool(eqs.lam_vec) and getattr(eqs.system, "n_constraints", 0) > 0
    import numpy as np
    with progress(f"simulating {model.name}"):
        try:
            traj = simulate(f, y0, (0.0, float(t_end)), {k: v for k, v in values.items()},
                            t_eval=np.linspace(0.0, float(t_end), max(2, points)), project=project)
        except IntegrationError as e:  # show the motion up to where it stopped, and why
            if e.trajectory is None:
                raise
            traj = e.trajectory
            notes.append(f"the integrator stopped: {e}")
    if project and len(traj.t) and traj.t[0] == 0.0:
        moved = _moved(state, y0, traj.y[:, 0])
        if moved:
            worst = max(moved, key=lambda m: abs(m[2] - m[1]))
            changes = ", ".join(f"{nm} {a:.6g} → {b:.6g}" for nm, a, b in moved)
            warnings.append(f"the initial state is off the constraints and was projected onto them: max |Δ| = "
                            f"{abs(worst[2] - worst[1]):.3g} in {worst[0]}; {changes} (give initial values on "
                            "the constraints to start where you mean)")
    return SimulationRun(traj, values, notes, warnings)


def _moved(names, before, after) -> list[tuple[str, float, float]]:
    """(name, given, used) for every value changed by more than :data:`PROJECTION_REPORT_TOL`."""
    return [(nm, float(a), float(b)) for nm, a, b in zip(names, before, after)
            if abs(b - a) > PROJECTION_REPORT_TOL * max(1.0, abs(a))]


def _constraint_parameters(eqs, f) -> list:
    """Parameters that only the constraints contain (the simulation checks the constraints)."""
    sysm = eqs.system
    exprs = list(getattr(sysm, "phi", ()) or ())
    cons = getattr(sysm, "constraints", None)
    if hasattr(cons, "matrix"):
        exprs += list(cons.matrix())
    exprs += list(getattr(sysm, "holonomic", ()) or ())
    S = eqs.space
    known = set(S.state_symbols) | set(eqs.u) | set(eqs.unknowns) | set(f.parameters)
    syms = set()
    for e in exprs:
        syms |= {s for s in sympy_of(e).free_symbols if s not in known}
    return sorted(syms, key=lambda s: s.name)


# -- linearization ---------------------------------------------------------------------------------------------
def linearize(model, at: dict | None = None, params: dict | None = None, form: str | None = None,
              speed: float | None = None, *, progress: Progress = quiet):
    """The :class:`~geonh.equations.linearize.Linearization` of ``model`` about an operating
    point: ``at`` (coordinates, speeds, velocities; default 0) with ``params`` (default the
    model file's [values], else 1).  ``speed``: the Whipple bicycle's upright steady motion at
    that forward speed instead.  A failure is a :class:`TaskError` naming the model."""
    at = at or {}
    params = params or {}
    try:
        if speed is not None:
            from .models import bicycle
            eqs = equations(model, form, progress=progress)
            op = bicycle.benchmark_operating_point(model, sp.nsimplify(expr_of(speed, what="speed")))
            names = {str(s) for s in model.parameters}
            with progress("linearizing the Whipple bicycle"):
                return eqs.linearize(op, ignorable="auto", dependent=("theta",),
                                     inputs=[x for x in ("T_phi", "T_delta") if x in names])
        eqs = equations(model, form, progress=progress)
        extra = getattr(model, "extra", None) or {}
        op = {str(k): v for k, v in (extra.get("values") or {}).items()}
        op.update({str(k): v for k, v in params.items()})
        free = set()
        for e in list(eqs.mass_matrix) + list(eqs.forcing) + list(eqs.kinematics):
            free |= e.free_symbols
        state = {s.name for s in eqs.space.coords + tuple(eqs.u) + tuple(eqs.space.qd) + tuple(eqs.unknowns)}
        for s in sorted(free, key=lambda s: s.name):
            if s.name not in state and s.name not in op:
                op[s.name] = sp.Integer(1)
        for q in eqs.space.q:
            op.setdefault(q.name, sp.Integer(0))
        for u in eqs.u:
            op.setdefault(u.name, sp.Integer(0))
        op.update(at)
        with progress(f"linearizing {model.name}"):
            return eqs.linearize(op, ignorable="auto")
    except (TaskError, BudgetExceededError):
        raise
    except GeonhError as e:
        raise TaskError(f"{model.name}: {e}") from None


def eigenvalue_sweep(model, name: str, grid, at: dict | None = None, params: dict | None = None,
                     form: str | None = None, *, progress: Progress = quiet) -> list:
    """Eigenvalues of :func:`linearize` (complex numbers) with the parameter ``name`` set to
    each value of ``grid`` in turn."""
    eigs = []
    for val in grid:
        pv = dict(params or {})
        pv[name] = sp.Float(val)
        lin = linearize(model, at, pv, form, None, progress=progress)
        eigs.append([complex(z) for z in lin.eigenvalues()])
    return eigs


def bicycle_sweep(speeds, model=None, *, progress: Progress = quiet):
    """Eigenvalues of the Whipple bicycle's lean–steer system at each speed (benchmark
    parameters): (benchmark matrices, list of eigenvalue lists)."""
    from .models import bicycle
    model = model or models.get("whipple-bicycle")
    with progress("linearizing the Whipple bicycle (benchmark matrices)"):
        mats = bicycle.benchmark_matrices(model=model)
    return mats, [[complex(z) for z in bicycle.eigenvalues_at(mats, v)] for v in speeds]
