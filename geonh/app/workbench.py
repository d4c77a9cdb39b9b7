"""Model-level tasks behind the ``geonh`` command, as plain functions that return data.

Here a model (a built-in model or a model file, :func:`load_model`) is analysed, derived,
certified, simulated and linearized: :func:`show_data` (from :func:`frame_view` and
:func:`growth_view`), :func:`relations`, :func:`equations` and :func:`equation_rows`,
:func:`certify_data`, :func:`run_simulation`, :func:`linearize`, :func:`eigenvalue_sweep` and
:func:`bicycle_sweep`; :func:`simplified` is the bounded simplification used for display.
Nothing here prints or knows of click: a task the model cannot do, or an option value it does
not accept, raises :class:`TaskError` (a :class:`~geonh.errors.GeonhError` whose message is
complete), the library's own errors pass through, and long steps report through an optional
``progress`` context-manager factory.  :mod:`geonh.app.cli` formats the results and translates the
errors into exit statuses; :mod:`geonh.app.report` builds its HTML page from them.

One run derives each result once: the tasks take an optional :class:`Session`, which holds the
equations of a model in a form and the model's frame for the run (the report shows the
equations, certifies every form against Lagrange's and simulates, from one derivation per
form; a sweep linearizes one derivation at every value).  Without one, a task makes its own.
A model says what it is by its ``kind`` ("kinematic", "mechanical" or "seed",
:data:`geonh.models.KINDS`); the tasks ask that, never the model's class.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, NamedTuple

import sympy as sp

from .. import models
from ..analysis.certificate import certify_forms
from ..equations.base import Equations
from ..equations.registry import FORMS, derive
from ..errors import BudgetExceededError, GeonhError, IntegrationError
from ..kernel import display
from ..kernel.frames import Frame
from ..kernel.parsing import as_sequence, expr_of, sympy_of
from ..models import files
from ..numerics.constraints import velocity_constraints
from ..systems import analyze_constraints
from ..transposition import ConstrainedSetting, voronets_frame

if TYPE_CHECKING:  # annotations only: the numerics are imported where a simulation runs
    from ..numerics.trajectory import Trajectory

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
    """"seed", "mechanical" or "kinematic": what the model says it is."""
    return model.kind


def is_mechanical(model) -> bool:
    """Is ``model`` a mechanical system with linear constraints (its equations come in the
    registered forms, :data:`FORMS`)?"""
    return model.kind == "mechanical"


def system(model):
    """The model's system; :class:`TaskError` for a model without one (no equations of motion)."""
    sysm = None if model.kind == "kinematic" else model.system
    if sysm is None:
        what = "a kinematic model" if model.kind == "kinematic" else "a set of constraints without a system"
        raise TaskError(f"{model.name} is {what}: it has no kinetic energy, so no equations of motion "
                        "(try: geonh show)")
    return sysm


def _choice(model) -> tuple:
    """(frame, dependent coordinates) that the forms of ``model`` are derived with: a mechanical
    model's own (either may be None: the form's default), none for the other kinds."""
    return (model.frame, model.dependent) if model.kind == "mechanical" else (None, None)


def _extra(model) -> dict:
    """A model file's [values] and [initial] (``model.extra``); empty for the other models."""
    return (model.extra if model.kind == "mechanical" else None) or {}


def frame(model, *, session: Session | None = None):
    """The model's frame, or (mechanical model without one) the Voronets frame of its
    constraints, or the coordinate frame of an unconstrained system; a :class:`TaskError`
    for a seed (its constraints are nonlinear in the velocities: no frame)."""
    return (Session() if session is None else session).frame(model)


def _frame_of(model):
    """:func:`frame`, computed."""
    if model.kind == "seed":
        raise TaskError(f"{model.name} has constraints nonlinear in the velocities: it has no frame")
    if model.frame is not None:
        return model.frame
    sysm = model.system
    if sysm.n_constraints:
        return voronets_frame(sysm.constraints, model.dependent)
    return Frame.coordinate(model.space)


# -- one run: every result derived once -------------------------------------------------------------------------
class Session:
    """The results derived in one run of the application (one ``geonh`` command, one report),
    each derived at its first use and then shared: the equations of a model in a form
    (:meth:`equations`) and the model's frame (:meth:`frame`).  A result is keyed by the model
    object (its identity: a model is a record, not a value), the form, and the frame and
    dependent coordinates it is derived with; the session holds the objects of its keys, so an
    identity is not reused while it lives.  Make one per run and drop it with the run: it keeps
    every derivation it made."""

    def __init__(self) -> None:
        self._equations: dict[tuple, tuple] = {}
        self._frames: dict[int, tuple] = {}

    def equations(self, model, form: str, *, progress: Progress = quiet) -> Equations:
        """The equations of ``model`` in ``form``: a registered form (:data:`FORMS`) in the
        model's frame with its dependent coordinates, or "chetaev-lagrange" for a seed (its
        only form).  Derived at the first call; the form is not checked here (:func:`equations`
        checks it)."""
        chosen = _choice(model)
        key = (id(model), form, id(chosen[0]), chosen[1])
        held = self._equations.get(key)
        if held is None:
            sysm = system(model)
            with progress(f"deriving the {form} equations of {model.name}"):
                if model.kind == "seed":
                    from ..equations import chetaev_lagrange
                    eqs = chetaev_lagrange(sysm)
                else:
                    eqs = derive(form, sysm, *chosen)
            held = self._equations[key] = (model, chosen, eqs)
        return held[-1]

    def frame(self, model):
        """:func:`frame` of ``model``, computed at the first call."""
        held = self._frames.get(id(model))
        if held is None:
            held = self._frames[id(model)] = (model, _frame_of(model))
        return held[-1]


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
def simplified(e) -> tuple:
    """(expression for display, whether it was simplified): the kernel's one tidying step,
    :func:`geonh.kernel.display.simplified_for_display`."""
    return display.simplified_for_display(e)


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
@dataclass(frozen=True)
class FrameView:
    """A model's frame as ``geonh show`` and the report show it, simplified for display
    (:func:`simplified`): the quasi-velocities {name: ω^a}, the fields {name: X_a as text}, the
    non-zero structure coefficients c^d_ab (a < b) as (d, a, b, value), and how many of these
    expressions are shown unsimplified (too big to simplify quickly)."""

    frame: Frame
    quasi_velocities: dict
    fields: dict
    structure_coefficients: list
    unsimplified: int


@dataclass(frozen=True)
class GrowthView:
    """The growth vector of a model's admissible distribution on ``n`` coordinates (None: not
    computed, the frame is big) and the verdict on its constraints."""

    name: str
    n: int
    growth_vector: tuple | None
    verdict: str


def frame_view(model, *, progress: Progress = quiet, session: Session | None = None) -> FrameView:
    """The :class:`FrameView` of a kinematic or mechanical model's :func:`frame`."""
    S = model.space
    F = frame(model, session=session)
    skipped = 0
    qv, sk = _simplified_all(F.quasi_velocities())
    skipped += sk
    fields = {}
    for nm, X in zip(F.names, F.fields):
        comps, sk = _simplified_all(X.components)
        skipped += sk
        fields[nm] = display.field_text([sp.Symbol(f"<{display.DISPLAY_NODES}+ nodes>") if display.too_big(c) else c
                                         for c in comps], S.coords)
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
    return FrameView(F, dict(zip(F.names, qv)), fields, coeffs, skipped)


def growth_view(model, compute: bool | None = None, *, progress: Progress = quiet,
                session: Session | None = None) -> GrowthView:
    """The :class:`GrowthView` of a kinematic or mechanical model.  ``compute``: compute the
    growth vector and verdict (None: unless the frame is big, :data:`BIG_FRAME`)."""
    S = model.space
    m = model.m
    if compute is None:
        compute = not is_big(frame(model, session=session))
    if not compute:
        return GrowthView(model.name, S.n, None, "not decided: the frame is big, so the growth vector was skipped "
                                                 "(pass --growth to compute it; it can take minutes)")
    with progress(f"growth vector of {model.name}"):
        gv = tuple(model.distribution.growth_vector())
        if m >= S.n:
            verdict = "none (holonomic system in quasi-velocities)"
        elif S.t is None and len(set(gv)) > 1:
            # the flag already decides: no second (annihilator) computation, which is slow on big frames
            k = S.n - m
            verdict = (f"not integrable (nonholonomic): {k} constraint{'' if k == 1 else 's'} on {S.dim} coordinates, "
                       f"growth vector {gv}" + (", bracket generating (completely nonholonomic)" if gv[-1] == S.dim
                                                else ""))
        else:
            verdict = str(model.constraints.verdict())
    return GrowthView(model.name, S.n, gv, verdict)


def show_data(model, *, growth: bool | None = None, progress: Progress = quiet,
              session: Session | None = None) -> dict:
    """What `geonh show` prints, as data (expressions as sympy objects): the model, its system
    and the fields of :func:`frame_view` and :func:`growth_view`.  ``growth``: compute the
    growth vector and verdict (None: unless the frame is big, :data:`BIG_FRAME`)."""
    S = model.space
    out = {"name": model.name, "description": model.description, "kind": model.kind,
           "coordinates": [s.name for s in S.coords]}
    if model.kind == "seed":
        out["constraints"] = list(model.constraints)
        if model.system is None:
            out["analysis"] = analyze_constraints(S, list(model.constraints)).explain()
        else:
            out["system"] = repr(model.system)
            out["dof"] = model.system.dof
            out["virtual"] = str(model.system.virtual)
        return out
    if model.kind == "mechanical":
        sysm = model.system
        out["system"] = repr(sysm)
        out["T"] = for_display(sysm.T)
        out["V"] = sysm.V
        out["forces"] = {q.name: f for q, f in zip(S.q, sysm.Q) if f != 0}
    session = Session() if session is None else session
    view = frame_view(model, progress=progress, session=session)
    out.update(quasi_velocities=view.quasi_velocities, fields=view.fields,
               structure_coefficients=view.structure_coefficients, unsimplified=view.unsimplified)
    grown = growth_view(model, growth, progress=progress, session=session)
    out.update(growth_vector=grown.growth_vector, verdict=grown.verdict, frame=view.frame)
    return out


# -- relations -------------------------------------------------------------------------------------------------
def relations(model, k: int | None = None, *, progress: Progress = quiet, session: Session | None = None) -> dict:
    """Transpositional relations of the Neimark–Fufaev k-family (default k = n − m,
    Hamel/Volterra): {"k", "relations" (the TranspositionalRelations), "coordinates" ((name,
    dδq − δdq on the motion) per coordinate), "gamma" ((ν, λ, μ, γ) non-zero)}, as computed
    (not simplified).  A failure of the computation is a :class:`TaskError` naming the model."""
    if model.kind == "seed":
        raise TaskError(f"{model.name} has nonlinear constraints; transpositional relations need linear ones")
    F = frame(model, session=session)
    m = model.m
    n = model.space.n
    k = n - m if k is None else k
    if not 0 <= k <= n - m:
        raise TaskError(f"--k must lie in 0 … {n - m} (n − m) for {model.name}, got {k}")
    with progress(f"transpositional relations of {model.name}"):
        try:
            setting = ConstrainedSetting.from_frame(F, m, _choice(model)[1])
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
    """boltzmann-hamel in the model's frame, lagrange without one (chetaev-lagrange for a seed)."""
    if model.kind == "seed":
        return "chetaev-lagrange"
    return "boltzmann-hamel" if _choice(model)[0] is not None else "lagrange"


def equations(model, form: str | None = None, *, progress: Progress = quiet, session: Session | None = None):
    """The equations of motion of ``model`` in a registered form (None: :func:`default_form`;
    chetaev-lagrange, the only one, for constraints nonlinear in the velocities), from
    ``session`` (derived there at the first request)."""
    system(model)
    if model.kind == "seed" and form not in (None, "chetaev-lagrange"):
        raise TaskError(f"{model.name} has constraints nonlinear in the velocities; its equations come in "
                        "the form chetaev-lagrange")
    form = form or default_form(model)
    if model.kind != "seed" and form not in FORMS:
        raise TaskError(f"unknown form {form!r}; known forms: {', '.join(FORMS)}")
    return (Session() if session is None else session).equations(model, form, progress=progress)


def equation_rows(eqs) -> tuple[list, list]:
    """(lhs, rhs) pairs of M x = F row by row, and (velocity, rhs) of the kinematics q' = K
    without the trivial rows q̇ = q̇ (the Voronets speeds that are coordinate velocities),
    simplified for display."""
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((for_display(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append((lhs, for_display(F[i])))
    return rows, [(v, for_display(k)) for v, k in zip(eqs.space.qd, eqs.kinematics) if k != v]


# -- certificate -----------------------------------------------------------------------------------------------
def certify_data(model, *, progress: Progress = quiet, session: Session | None = None) -> dict:
    """Every applicable form of a mechanical model against Lagrange's equations: form name →
    :class:`~geonh.analysis.certificate.Certificate`, from the equations of ``session`` (each form
    derived there at its first request).  A failure is a :class:`TaskError` naming the model."""
    sysm = system(model)
    if model.kind != "mechanical":
        raise TaskError(f"{model.name}: the certificate compares the registered forms of a mechanical system")
    session = Session() if session is None else session
    with progress(f"deriving and comparing every form of {model.name}"):
        try:
            return certify_forms(sysm, frame=model.frame, dependent=model.dependent,
                                 derived=lambda form: session.equations(model, form))
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
    (defaults that were filled in), warnings (the run is not what was asked for: an initial
    state moved onto the constraints, [initial] entries that are not state variables) and the
    model's name."""

    trajectory: Trajectory
    values: dict
    notes: list
    warnings: list
    name: str = ""


def run_simulation(model, *, t_end: float = 10.0, form: str | None = None, params: dict | None = None,
                   initial: dict | None = None, points: int = 201, progress: Progress = quiet,
                   session: Session | None = None) -> SimulationRun:
    """Simulate ``model`` (a :class:`SimulationRun`).  Parameters default to the model file's
    [values], else 1; coordinates to its [initial], else 0.3; speeds to 0.5.  An initial state
    off the constraints is projected onto them (forms with multipliers keep every velocity in
    the state) and the correction is reported in the warnings, naming the values that moved."""
    from ..numerics import simulate
    eqs = equations(model, form, progress=progress, session=session)
    f = eqs.ode_function()
    extra = _extra(model)
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
    project = bool(eqs.lam_vec) and eqs.system.n_constraints > 0
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
    return SimulationRun(traj, values, notes, warnings, model.name)


def _moved(names, before, after) -> list[tuple[str, float, float]]:
    """(name, given, used) for every value changed by more than :data:`PROJECTION_REPORT_TOL`."""
    return [(nm, float(a), float(b)) for nm, a, b in zip(names, before, after)
            if abs(b - a) > PROJECTION_REPORT_TOL * max(1.0, abs(a))]


def _constraint_parameters(eqs, f) -> list:
    """Parameters that only the constraints contain (the simulation checks the constraints)."""
    sysm = eqs.system
    exprs = velocity_constraints(sysm) + list(sysm.holonomic)
    S = eqs.space
    known = set(S.state_symbols) | set(eqs.u) | set(eqs.unknowns) | set(f.parameters)
    syms = set()
    for e in exprs:
        syms |= {s for s in sympy_of(e).free_symbols if s not in known}
    return sorted(syms, key=lambda s: s.name)


# -- linearization ---------------------------------------------------------------------------------------------
def linearize(model, at: dict | None = None, params: dict | None = None, form: str | None = None,
              speed: float | None = None, *, progress: Progress = quiet, session: Session | None = None,
              generators: Sequence | None = None):
    """The :class:`~geonh.analysis.linearize.Linearization` of ``model`` about an operating
    point: ``at`` (coordinates, speeds, velocities; default 0) with ``params`` (default the
    model file's [values], else 1).  ``speed``: the Whipple bicycle's upright steady motion at
    that forward speed instead.  ``generators``: the infinitesimal generators of a symmetry
    (component sequences over the coordinates, strings parsed): the point is a relative
    equilibrium, linearized reduced by the symmetry (:func:`~geonh.analysis.linearize.linearize`
    with ``generators``).  A failure is a :class:`TaskError` naming the model."""
    at = at or {}
    params = params or {}
    try:
        if speed is not None:
            from ..models import bicycle
            eqs = equations(model, form, progress=progress, session=session)
            op = bicycle.benchmark_operating_point(model, sp.nsimplify(expr_of(speed, what="speed")))
            names = {str(s) for s in model.parameters}
            with progress("linearizing the Whipple bicycle"):
                return eqs.linearize(op, ignorable="auto", dependent=("theta",),
                                     inputs=[x for x in ("T_phi", "T_delta") if x in names])
        eqs = equations(model, form, progress=progress, session=session)
        extra = _extra(model)
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
        open_speeds = [u.name for u in eqs.u if u.name not in at]
        if generators is not None and eqs.multipliers:
            # a relative equilibrium: the last speeds not given follow from the velocity constraints
            open_speeds = open_speeds[:max(0, len(open_speeds) - len(eqs.multipliers))]
        for name in open_speeds:
            op.setdefault(name, sp.Integer(0))
        op.update(at)
        if generators is not None:
            with progress(f"linearizing {model.name} about a relative equilibrium"):
                return eqs.linearize(op, generators=list(as_sequence(generators, "generators")))
        with progress(f"linearizing {model.name}"):
            return eqs.linearize(op, ignorable="auto")
    except (TaskError, BudgetExceededError):
        raise
    except GeonhError as e:
        raise TaskError(f"{model.name}: {e}") from None


def eigenvalue_sweep(model, name: str, grid, at: dict | None = None, params: dict | None = None,
                     form: str | None = None, *, progress: Progress = quiet, session: Session | None = None) -> list:
    """Eigenvalues of :func:`linearize` (complex numbers) with the parameter ``name`` set to
    each value of ``grid`` in turn, from one derivation of the equations."""
    session = Session() if session is None else session
    eigs = []
    for val in grid:
        pv = dict(params or {})
        pv[name] = sp.Float(val)
        lin = linearize(model, at, pv, form, None, progress=progress, session=session)
        eigs.append([complex(z) for z in lin.eigenvalues()])
    return eigs


def bicycle_sweep(speeds, model=None, *, progress: Progress = quiet):
    """Eigenvalues of the Whipple bicycle's lean–steer system at each speed (benchmark
    parameters): (benchmark matrices, list of eigenvalue lists)."""
    from ..models import bicycle
    model = model or models.get("whipple-bicycle")
    with progress("linearizing the Whipple bicycle (benchmark matrices)"):
        mats = bicycle.benchmark_matrices(model=model)
    return mats, [[complex(z) for z in bicycle.eigenvalues_at(mats, v)] for v in speeds]
