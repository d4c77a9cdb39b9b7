"""The ``geonh`` command: analyse, derive, certify, simulate, linearize and report on a model.

MODEL is a built-in model (``geonh list``) or a model file (TOML, read safely by
:mod:`geonh.models.files`; see ``examples/models/``).  Commands:

=========================  ==================================================================
``geonh list``             every built-in model with its kind and a one-line description
``geonh show MODEL``       frame, structure coefficients, growth vector, integrability verdict
``geonh relations MODEL``  transpositional relations of the Neimark–Fufaev k-family (--k K)
``geonh equations MODEL``  equations of motion in a registered form (--form, --latex)
``geonh forms``            the registered equation forms, their route and source
``geonh certify MODEL``    every applicable form against Lagrange's, by the certificate
``geonh simulate MODEL``   integrate the equations (--t, --param, --init, --plot FILE)
``geonh linearize MODEL``  A and eigenvalues about an operating point (--at, --speed, --sweep)
``geonh report MODEL``     one self-contained HTML page (-o FILE): math as MathML, plots as PNG
=========================  ==================================================================

Every command takes ``--format text|latex|json`` (also before the command).  Errors in the
input (unknown model, bad model file, bad option value) exit with status 2 and a message that
names the problem; ``main(argv)`` returns the exit status.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import sys
import threading
import time
from contextlib import contextmanager
from importlib import metadata

import click
import sympy as sp

from . import display, models
from .certificate import certify_forms
from .equations.registry import FORMS, derive
from .errors import GeonhError
from .kernel.frames import Frame
from .models import files
from .systems import analyze_constraints
from .transposition import ConstrainedSetting, voronets_frame

FORMATS = ("text", "latex", "json")


def _version() -> str:
    try:
        return metadata.version("geonh")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


class InputError(click.ClickException):
    """Bad input on the command line or in a model file: exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"geonh: error: {self.format_message()}", err=True)


# -- helpers -------------------------------------------------------------------------------------
@contextmanager
def progress(what: str):
    """Report on stderr, once a second, how long ``what`` has run — only when stderr is a
    terminal and only after the first second."""
    stream = sys.stderr
    if not (hasattr(stream, "isatty") and stream.isatty()):
        yield
        return
    done = threading.Event()
    start = time.monotonic()
    shown = []

    def tick():
        while not done.wait(1.0):
            shown.append(True)
            stream.write(f"\rgeonh: {what} … {time.monotonic() - start:.0f} s")
            stream.flush()

    th = threading.Thread(target=tick, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()
        if shown:
            stream.write(f"\rgeonh: {what}: done in {time.monotonic() - start:.1f} s\n")
            stream.flush()


def load_model(arg: str):
    """A built-in model by name, or a model file (``*.toml`` or an existing path)."""
    try:
        if files.is_model_file(arg):
            return files.load(arg)
        return models.get(arg)
    except GeonhError as e:
        raise InputError(str(e)) from None


def _kind(model) -> str:
    if isinstance(model, models.SeedModel):
        return "seed"
    if isinstance(model, models.MechanicalModel):
        return "mechanical"
    return "kinematic"


def _system(model):
    system = getattr(model, "system", None)
    if system is None:
        what = "a kinematic model" if _kind(model) == "kinematic" else "a set of constraints without a system"
        raise InputError(f"{model.name} is {what}: it has no kinetic energy, so no equations of motion "
                         "(try: geonh show)")
    return system


def _frame(model):
    """The model's frame, or (mechanical model without one) the Voronets frame of its
    constraints, or the coordinate frame of an unconstrained system."""
    F = getattr(model, "frame", None)
    if F is not None:
        return F
    system = getattr(model, "system", None)
    if system is not None and getattr(system, "n_constraints", 0):
        return voronets_frame(system.constraints, getattr(model, "dependent", None))
    return Frame.coordinate(model.space)


def _is_mechanical(model) -> bool:
    return isinstance(model, models.MechanicalModel)


def _default_form(model) -> str:
    return "boltzmann-hamel" if getattr(model, "frame", None) is not None else "lagrange"


def _equations(model, form: str | None):
    system = _system(model)
    if not _is_mechanical(model):
        from .equations import chetaev_lagrange
        if form not in (None, "chetaev-lagrange"):
            raise InputError(f"{model.name} has constraints nonlinear in the velocities; its equations come in "
                             "the form chetaev-lagrange")
        return chetaev_lagrange(system)
    form = form or _default_form(model)
    if form not in FORMS:
        raise InputError(f"unknown form {form!r}; known forms: {', '.join(FORMS)}")
    with progress(f"deriving the {form} equations of {model.name}"):
        return derive(form, system, model.frame, model.dependent)



# -- simplification for display -------------------------------------------------------------------------
#: trig_reduce (polynomial reduction modulo sin² + cos² = 1) is tried on expressions up to this
#: many tree nodes with at most this many angles and no roots; measured: the heavy top's
#: forcing, 1623 operations, comes out at 12 in 0.7 s
REDUCE_NODES = 4000
REDUCE_ANGLES = 3


def simplified(e) -> tuple:
    """(expression for display, whether it was simplified): :func:`geonh.display.tidy` for small
    expressions, then :func:`geonh.models.trig_reduce` for mid-sized trigonometric ones; big
    ones (the Whipple bicycle's) stay as computed."""
    e = sp.sympify(e)
    out, ok = display.tidy(e)
    if ok or not isinstance(e, sp.Expr) or e.is_number or display.too_big(e, REDUCE_NODES):
        return out, ok
    trig = e.atoms(sp.sin, sp.cos, sp.tan, sp.cot)
    args = {f.args[0] for f in trig}
    if not trig or len(args) > REDUCE_ANGLES or not all(isinstance(a, sp.Symbol) for a in args) \
            or any(not p.exp.is_Integer for p in e.atoms(sp.Pow)):
        return out, False
    try:
        r = models.trig_reduce(e)
    except (sp.PolynomialError, sp.polys.polyerrors.PolificationFailed, ValueError, TypeError,
            NotImplementedError):
        return out, False
    return (r, True) if sp.count_ops(r) <= sp.count_ops(e) else (out, False)


def _simp(e):
    return simplified(e)[0]


def _simp_all(exprs) -> tuple[list, int]:
    out, skipped = [], 0
    for e in exprs:
        t, ok = simplified(e)
        out.append(t)
        skipped += (not ok) and isinstance(t, sp.Expr) and not t.is_number
    return out, skipped


def _emit(obj) -> None:
    click.echo(json.dumps(obj, indent=2, default=str))


def _s(e) -> str:
    return str(e)


def _pairs(items, what: str) -> dict:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"{what} {item!r}: write NAME=VALUE")
        try:
            out[name] = _number(value, f"{what} {name}")
        except GeonhError as e:
            raise InputError(str(e)) from None
    return out


def _number(text: str, what: str) -> sp.Expr:
    from .kernel.parsing import parse
    e = parse(text, (), what=what)
    if not (e.is_number and e.is_real):
        raise InputError(f"{what}: {text!r} is not a real number")
    return e


def _fmt_option(f):
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                        help="output format (default text)")(f)


def _fmt(ctx, fmt):
    return fmt or (ctx.obj or {}).get("fmt") or "text"


def _fnum(x) -> str:
    x = complex(x)
    if abs(x.imag) < 1e-12 * max(1.0, abs(x.real)):
        return f"{x.real:.6g}"
    return f"{x.real:.6g}{x.imag:+.6g}j"


# -- the command group -----------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             no_args_is_help=True)
@click.version_option(_version(), "--version", prog_name="geonh", message="%(prog)s %(version)s")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="output format of every command: text (default), latex or json")
@click.pass_context
def cli(ctx, fmt):
    """Geometric analytical mechanics of nonholonomic systems.

    MODEL is a built-in model (see: geonh list) or a model file (TOML; examples in
    examples/models/ of the source tree).  Run "geonh COMMAND --help" for a command's options.
    """
    ctx.ensure_object(dict)
    ctx.obj["fmt"] = fmt


@cli.command("list")
@_fmt_option
@click.pass_context
def list_cmd(ctx, fmt):
    """List the built-in models: name, kind, description."""
    fmt = _fmt(ctx, fmt)
    rows = [(nm, models.kind(nm), models.describe(nm)) for nm in models.names()]
    if fmt == "json":
        _emit([{"name": n, "kind": k, "description": d} for n, k, d in rows])
    elif fmt == "latex":
        click.echo(r"\begin{tabular}{lll}")
        for n, k, d in rows:
            click.echo(rf"\texttt{{{n}}} & {k} & {_tex_text(d)} \\")
        click.echo(r"\end{tabular}")
    else:
        for n, k, d in rows:
            click.echo(f"{n:28s} {k:10s} {d}")
    return 0


def _tex_text(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                 ("^", r"\^{}"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        s = s.replace(a, b)
    return s


@cli.command("forms")
@_fmt_option
@click.pass_context
def forms_cmd(ctx, fmt):
    """List the registered equation forms: name, route, source."""
    fmt = _fmt(ctx, fmt)
    if fmt == "json":
        _emit([{"name": n, "route": e.route, "takes": e.takes, "source": e.source} for n, e in FORMS.items()])
    elif fmt == "latex":
        click.echo(r"\begin{tabular}{lll}")
        for n, e in FORMS.items():
            click.echo(rf"\texttt{{{n}}} & {e.route} & {_tex_text(e.source)} \\")
        click.echo(r"\end{tabular}")
    else:
        for n, e in FORMS.items():
            click.echo(f"{n:16s} {e.route:12s} {e.source}")
    return 0


# -- show ----------------------------------------------------------------------------------------------
#: frames whose fields have more tree nodes than this in all are "big": show skips the growth
#: vector unless asked (the Whipple bicycle's takes 80 s)
BIG_FRAME = 3000


def _frame_size(F) -> int:
    n = 0
    for X in F.fields:
        for c in X.components:
            n += sum(1 for _ in sp.preorder_traversal(c))
            if n > BIG_FRAME:
                return n
    return n


def _t(e, full: bool = False) -> str:
    """str(e), or a placeholder for an expression too big to read."""
    if not full and display.too_big(e):
        return f"<expression of more than {display.DISPLAY_NODES} nodes; --full prints it>"
    return str(e)


def show_data(model, *, growth: bool | None = None) -> dict:
    """What `geonh show` prints, as data (expressions as sympy objects).  ``growth``: compute
    the growth vector and verdict (None: unless the frame is big, BIG_FRAME)."""
    S = model.space
    out = {"name": model.name, "description": model.description, "kind": _kind(model),
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
    if _is_mechanical(model):
        sysm = model.system
        out["system"] = repr(sysm)
        out["T"] = _simp(sysm.T)
        out["V"] = sysm.V
        out["forces"] = {q.name: f for q, f in zip(S.q, sysm.Q) if f != 0}
    F = _frame(model)
    skipped = 0
    qv, sk = _simp_all(F.quasi_velocities())
    skipped += sk
    out["quasi_velocities"] = dict(zip(F.names, qv))
    fields = {}
    for nm, X in zip(F.names, F.fields):
        comps, sk = _simp_all(X.components)
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
        growth = _frame_size(F) <= BIG_FRAME
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


def show(name: str, out=None, fmt: str = "text", *, full: bool = False, growth: bool | None = None) -> None:
    """Print what geonh knows of a model (a built-in name, a model file or a model object).
    ``full``: print big expressions too; ``growth``: see :func:`show_data`."""
    model = name if not isinstance(name, str) else load_model(name)
    w = (out or sys.stdout).write
    data = show_data(model, growth=growth)
    t = (lambda e: _t(e, full))
    if fmt == "json":
        d = {k: v for k, v in data.items() if k != "frame"}
        for key in ("T", "V"):
            if key in d:
                d[key] = t(d[key])
        for key in ("quasi_velocities", "forces"):
            if key in d:
                d[key] = {k: t(v) for k, v in d[key].items()}
        d["structure_coefficients"] = [{"d": a, "a": b, "b": c, "value": t(v)}
                                       for a, b, c, v in data.get("structure_coefficients", [])]
        w(json.dumps(d, indent=2, default=str) + "\n")
        return
    if fmt == "latex":
        if "frame" in data:
            if _is_mechanical(model):
                w(display.system_latex(model.system, simplify=_simp) + "\n")
            w(display.frame_latex(data["frame"], simplify=_simp) + "\n")
        else:
            w(r"\begin{aligned}" + r" \\ ".join(f"0 &= {display.latex(c)}" for c in data["constraints"])
              + r"\end{aligned}" + "\n")
        return
    w(f"{data['name']}: {data['description']}\n")
    w(f"coordinates: {', '.join(data['coordinates'])}\n")
    if data["kind"] == "seed":
        if "system" in data:
            w(f"system: {data['system']}\n")
        w("constraints (= 0):\n")
        for c in data["constraints"]:
            w(f"  {c}\n")
        if "analysis" in data:
            w(data["analysis"] + "\n")
        else:
            w(f"degrees of freedom: {data['dof']}; virtual displacements: {data['virtual']}\n")
        return
    if "system" in data:
        w(f"system: {data['system']}\n")
        w(f"kinetic energy T = {t(data['T'])}\n")
        if data["V"] != 0:
            w(f"potential V = {t(data['V'])}\n")
        for q, f in data["forces"].items():
            w(f"force Q_{q} = {t(f)}\n")
    w("quasi-velocities (free first, then constraints = 0):\n")
    for nm, om in data["quasi_velocities"].items():
        w(f"  {nm} = {t(om)}\n")
    w("frame (X_a dual to the quasi-velocities):\n")
    for nm, X in data["fields"].items():
        w(f"  X_{nm} = {X}\n")
    w("structure coefficients c^d_ab, [X_a, X_b] = c^d_ab X_d (non-zero, a < b):\n")
    for d, a, b, v in data["structure_coefficients"]:
        w(f"  c^{d}_({a},{b}) = {t(v)}\n")
    if not data["structure_coefficients"]:
        w("  (all zero)\n")
    if data["unsimplified"]:
        w(f"note: {data['unsimplified']} expression(s) above are shown unsimplified: simplification is "
          f"skipped for expressions of more than {display.DISPLAY_LIMIT} operations, more than 3 angles or "
          "with roots, to stay fast\n")
    if data["growth_vector"] is not None:
        w(f"growth vector of the admissible distribution: {data['growth_vector']}\n")
    w(f"constraints: {data['verdict']}\n")


@cli.command("show")
@click.argument("model")
@click.option("--full", is_flag=True, help=f"print expressions of more than {display.DISPLAY_NODES} nodes too")
@click.option("--growth/--no-growth", default=None,
              help="compute the growth vector and verdict (default: unless the frame is big)")
@_fmt_option
@click.pass_context
def show_cmd(ctx, model, full, growth, fmt):
    """Frame, structure coefficients, growth vector and integrability verdict of MODEL."""
    show(load_model(model), fmt=_fmt(ctx, fmt), full=full, growth=growth)
    return 0


# -- relations -------------------------------------------------------------------------------------------
@cli.command("relations")
@click.argument("model")
@click.option("--k", "k", type=int, default=None,
              help="Neimark–Fufaev k: 0 = Suslov, n - m = Hamel/Volterra (default)")
@_fmt_option
@click.pass_context
def relations_cmd(ctx, model, k, fmt):
    """Transpositional relations dδq − δdq and γ of MODEL (Neimark–Fufaev k-family)."""
    fmt = _fmt(ctx, fmt)
    mdl = load_model(model)
    if isinstance(mdl, models.SeedModel):
        raise InputError(f"{mdl.name} has nonlinear constraints; transpositional relations need linear ones")
    F = _frame(mdl)
    m = mdl.m
    n = mdl.space.n
    k = n - m if k is None else k
    if not 0 <= k <= n - m:
        raise InputError(f"--k must lie in 0 … {n - m} (n − m) for {mdl.name}, got {k}")
    with progress(f"transpositional relations of {mdl.name}"):
        try:
            setting = ConstrainedSetting.from_frame(F, m, getattr(mdl, "dependent", None))
            rel = setting.transposition(k)
            coords = rel.coordinates(on_motion=True)
            gamma = rel.gamma
        except GeonhError as e:
            raise InputError(f"{mdl.name}: {e}") from None
    if fmt == "latex":
        click.echo(display.relations_latex(rel, simplify=_simp))
        return 0
    rows = [(q.name, _simp(e)) for q, e in zip(mdl.space.coords, coords)]
    names = rel.frame.names
    p = rel.p
    gam = [(names[nu], names[lam], names[mu], _simp(gamma[nu, lam, mu]))
           for nu in range(p) for lam in range(p) for mu in range(p) if gamma[nu, lam, mu] != 0]
    if fmt == "json":
        _emit({"model": mdl.name, "k": k, "free": [s.name for s in rel.free], "rho": [s.name for s in rel.rho],
               "sigma": [s.name for s in rel.sigma], "coordinates": {q: str(e) for q, e in rows},
               "gamma": [{"nu": a, "lambda": b, "mu": c, "value": str(v)} for a, b, c, v in gam]})
        return 0
    click.echo(f"{mdl.name}: transpositional relations, k = {k} "
               f"({'Hamel/Volterra' if k == n - m else 'Suslov' if k == 0 else 'intermediate'})")
    click.echo(f"free: {', '.join(s.name for s in rel.free)}; rho: {', '.join(s.name for s in rel.rho) or '-'}; "
               f"sigma: {', '.join(s.name for s in rel.sigma) or '-'}")
    click.echo("on the motion, d delta q - delta d q:")
    for q, e in rows:
        click.echo(f"  {q}: {e}")
    click.echo("gamma_(nu,lambda,mu), d delta pi_lambda - delta d pi_lambda = gamma dpi_mu deltapi_nu (non-zero):")
    for a, b, c, v in gam:
        click.echo(f"  gamma_({a},{b},{c}) = {v}")
    if not gam:
        click.echo("  (all zero)")
    return 0


# -- equations ---------------------------------------------------------------------------------------------
@cli.command("equations")
@click.argument("model")
@click.option("--form", default=None, help="a registered form (see: geonh forms); default boltzmann-hamel "
              "in the model's frame, lagrange without one")
@click.option("--latex", "as_latex", is_flag=True, help="LaTeX output (same as --format latex)")
@_fmt_option
@click.pass_context
def equations_cmd(ctx, model, form, as_latex, fmt):
    """Equations of motion of MODEL: M x = F and the kinematics q' = K."""
    fmt = "latex" if as_latex else _fmt(ctx, fmt)
    mdl = load_model(model)
    try:
        eqs = _equations(mdl, form)
    except GeonhError as e:
        raise InputError(f"{mdl.name}: {e}") from None
    if fmt == "latex":
        click.echo(display.equations_latex(eqs, simplify=_simp))
        return 0
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((_simp(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append((lhs, _simp(F[i])))
    kin = [(v, _simp(kk)) for v, kk in zip(eqs.space.qd, eqs.kinematics)]
    if fmt == "json":
        _emit({"model": mdl.name, "form": eqs.form, "unknowns": [s.name for s in x],
               "speeds": [s.name for s in eqs.u], "equations": [[str(a), str(b)] for a, b in rows],
               "kinematics": {str(v): str(k) for v, k in kin}, "notes": eqs.notes})
        return 0
    click.echo(f"{mdl.name}: {eqs.form} equations, M x = F with x = ({', '.join(s.name for s in x)})")
    for a, b in rows:
        click.echo(f"  {a} = {b}")
    click.echo("kinematics:")
    for v, k in kin:
        click.echo(f"  {v} = {k}")
    if eqs.notes:
        click.echo(f"notes: {eqs.notes}")
    return 0


# -- certify -------------------------------------------------------------------------------------------------
def certify_data(model) -> dict:
    system = _system(model)
    if not _is_mechanical(model):
        raise InputError(f"{model.name}: the certificate compares the registered forms of a mechanical system")
    with progress(f"deriving and comparing every form of {model.name}"):
        try:
            return certify_forms(system, frame=model.frame, dependent=model.dependent)
        except GeonhError as e:
            raise InputError(f"{model.name}: {e}") from None


@cli.command("certify")
@click.argument("model")
@_fmt_option
@click.pass_context
def certify_cmd(ctx, model, fmt):
    """Every applicable form of MODEL against Lagrange's equations (exit 1 if one differs)."""
    fmt = _fmt(ctx, fmt)
    mdl = load_model(model)
    certs = certify_data(mdl)
    ok = all(certs.values())
    if fmt == "json":
        _emit({"model": mdl.name, "reference": "lagrange", "all_same": ok,
               "forms": {n: {"same": c.same, "max_residual": c.max_residual, "method": c.method}
                         for n, c in certs.items()}})
    elif fmt == "latex":
        click.echo(r"\begin{tabular}{llr}")
        for n, c in certs.items():
            click.echo(rf"\texttt{{{n}}} & {'same' if c.same else 'DIFFERENT'} & ${c.max_residual:.3g}$ \\")
        click.echo(r"\end{tabular}")
    else:
        click.echo(f"{mdl.name}: every applicable form against lagrange")
        for n, c in certs.items():
            click.echo(f"  {n:16s} {c}")
        click.echo(f"verdict: {'all forms describe the same motion' if ok else 'SOME FORMS DIFFER'}")
    return 0 if ok else 1


# -- simulate ---------------------------------------------------------------------------------------------------
def run_simulation(model, *, t_end: float = 10.0, form: str | None = None, params: dict | None = None,
                   initial: dict | None = None, points: int = 201):
    """Simulate ``model``: (trajectory, parameter values used, notes).  Parameters default to
    the model file's [values], else 1; coordinates to its [initial], else 0.3; speeds to 0.5."""
    from .numerics import simulate
    eqs = _equations(model, form)
    f = eqs.ode_function()
    extra = getattr(model, "extra", None) or {}
    given = {str(k): v for k, v in (extra.get("values") or {}).items()}
    given.update({str(k): v for k, v in (params or {}).items()})
    notes = []
    values = {}
    names = [p.name for p in list(f.parameters) + _constraint_parameters(eqs, f)]
    unknown = sorted(set(params or {}) - set(names))
    if unknown:
        raise InputError(f"--param {unknown[0]}: not a parameter of the {eqs.form} equations of {model.name} "
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
        raise InputError(f"--init {bad[0]}: not a state variable of the {eqs.form} equations "
                         f"(state: {', '.join(state)})")
    y0 = []
    for i, nm in enumerate(state):
        y0.append(float(init.get(nm, 0.3 if i < f.n_q else 0.5)))
    defaulted = [nm for nm in state if nm not in init]
    if defaulted:
        notes.append(f"initial values set to 0.3 (coordinates) and 0.5 (speeds): {', '.join(defaulted)}")
    project = bool(eqs.lam_vec) and getattr(eqs.system, "n_constraints", 0) > 0
    import numpy as np
    with progress(f"simulating {model.name}"):
        traj = simulate(f, y0, (0.0, float(t_end)), {k: v for k, v in values.items()},
                        t_eval=np.linspace(0.0, float(t_end), max(2, points)), project=project)
    if not traj.success:
        notes.append(f"the integrator stopped: {traj.message}")
    return traj, values, notes


def _constraint_parameters(eqs, f) -> list:
    """Parameters that only the constraints contain (the simulation checks the constraints)."""
    system = eqs.system
    exprs = list(getattr(system, "phi", ()) or ())
    cons = getattr(system, "constraints", None)
    if hasattr(cons, "matrix"):
        exprs += list(cons.matrix())
    exprs += list(getattr(system, "holonomic", ()) or ())
    S = eqs.space
    known = set(S.state_symbols) | set(eqs.u) | set(eqs.unknowns) | set(f.parameters)
    syms = set()
    for e in exprs:
        syms |= {s for s in sp.sympify(e).free_symbols if s not in known}
    return sorted(syms, key=lambda s: s.name)


def _energy(traj):
    try:
        return traj.energy
    except GeonhError:
        return None


def _residual(traj):
    try:
        r = traj.constraint_residuals
        return float(abs(r).max()) if r.size else 0.0
    except GeonhError:
        return None


@cli.command("simulate")
@click.argument("model")
@click.option("--t", "t_end", type=float, default=10.0, show_default=True, help="end time")
@click.option("--form", default=None, help="equation form (default boltzmann-hamel, or lagrange without a frame)")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter value (repeatable)")
@click.option("--init", "inits", multiple=True, metavar="NAME=VALUE", help="an initial value (repeatable)")
@click.option("--points", type=int, default=201, show_default=True, help="output times")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), default=None,
              help="save trajectory, energy and constraint residual plots (PNG, PDF, SVG)")
@_fmt_option
@click.pass_context
def simulate_cmd(ctx, model, t_end, form, params, inits, points, plot_file, fmt):
    """Integrate the equations of motion of MODEL from t = 0 to T."""
    fmt = _fmt(ctx, fmt)
    if not (math.isfinite(t_end) and t_end > 0):
        raise InputError(f"--t must be a positive number, got {t_end}")
    mdl = load_model(model)
    try:
        traj, values, notes = run_simulation(mdl, t_end=t_end, form=form, params=_pairs(params, "--param"),
                                             initial=_pairs(inits, "--init"), points=points)
    except GeonhError as e:
        raise InputError(f"{mdl.name}: {e}") from None
    E = _energy(traj)
    res = _residual(traj)
    if plot_file:
        from . import plotting
        fig = plotting.overview(traj, title=mdl.name)
        fig.savefig(plot_file)
    names = ("t",) + tuple(traj.function.state_names)
    if fmt == "json":
        _emit({"model": mdl.name, "form": traj.equations.form, "parameters": {str(k): str(v) for k, v in values.items()},
               "notes": notes, "columns": names, "t": traj.t.tolist(), "y": traj.y.tolist(),
               "energy": None if E is None else E.tolist(), "max_constraint_residual": res,
               "plot": plot_file})
        return 0
    if fmt == "latex":
        raise InputError("simulate has no LaTeX output; use --format text or json")
    click.echo(f"{mdl.name}: {traj!r}")
    for nt in notes:
        click.echo(f"note: {nt}")
    click.echo("  ".join(f"{n:>10s}" for n in names))
    step = max(1, (len(traj.t) - 1) // 10)
    for i in list(range(0, len(traj.t), step)) + ([len(traj.t) - 1] if (len(traj.t) - 1) % step else []):
        row = [traj.t[i], *traj.y[:, i]]
        click.echo("  ".join(f"{v:10.5g}" for v in row))
    if E is not None:
        drift = float(abs(E - E[0]).max())
        click.echo(f"energy T + V: {E[0]:.10g} at t = 0, max |drift| {drift:.3g}"
                   + (" (not conserved: forces act or the constraints depend on time)" if drift > 1e-6 else ""))
    if res is not None:
        click.echo(f"max |constraint residual|: {res:.3g}")
    if plot_file:
        click.echo(f"plot written to {plot_file}")
    return 0 if traj.success else 1


# -- linearize ----------------------------------------------------------------------------------------------------
def _parse_sweep(text: str):
    name, sep, rng = text.partition("=")
    parts = rng.split(":") if sep else []
    if len(parts) != 3:
        raise InputError(f"--sweep {text!r}: write NAME=START:STOP:COUNT, e.g. v=0:10:51")
    try:
        a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise InputError(f"--sweep {text!r}: START and STOP must be numbers, COUNT an integer") from None
    if n < 2 or n > 2000:
        raise InputError(f"--sweep {text!r}: COUNT must lie in 2 … 2000")
    return name.strip(), [a + (b - a) * i / (n - 1) for i in range(n)]


def bicycle_sweep(speeds, model=None):
    """Eigenvalues of the Whipple bicycle's lean–steer system at each speed (benchmark
    parameters): (benchmark matrices, list of eigenvalue lists)."""
    from .models import bicycle
    model = model or models.get("whipple-bicycle")
    with progress("linearizing the Whipple bicycle (benchmark matrices)"):
        mats = bicycle.benchmark_matrices(model=model)
    return mats, [[complex(z) for z in bicycle.eigenvalues_at(mats, v)] for v in speeds]


@cli.command("linearize")
@click.argument("model")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE",
              help="operating point: coordinates, speeds or velocities (repeatable; default 0)")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter value (default 1)")
@click.option("--form", default=None, help="equation form (default boltzmann-hamel, or lagrange without a frame)")
@click.option("--speed", type=float, default=None,
              help="whipple-bicycle only: the upright steady motion at this speed, benchmark parameters")
@click.option("--sweep", default=None, metavar="NAME=START:STOP:COUNT",
              help="eigenvalues against a parameter (whipple-bicycle: v=0:10:51, the forward speed)")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), default=None,
              help="with --sweep: save the eigenvalue plot")
@_fmt_option
@click.pass_context
def linearize_cmd(ctx, model, at, params, form, speed, sweep, plot_file, fmt):
    """Linear equations δy' = A δy about an operating point of MODEL, and their eigenvalues."""
    fmt = _fmt(ctx, fmt)
    mdl = load_model(model)
    bike = mdl.name == "whipple-bicycle"
    if sweep is not None:
        name, grid = _parse_sweep(sweep)
        if bike and name == "v":
            mats, eigs = bicycle_sweep(grid, mdl)
        else:
            eigs = []
            for val in grid:
                pv = dict(_pairs(params, "--param"))
                pv[name] = sp.Float(val)
                lin = _linearize(mdl, at, pv, form, None)
                eigs.append([complex(z) for z in lin.eigenvalues()])
        if plot_file:
            from . import plotting
            if bike and name == "v":
                from .models import bicycle
                fig = plotting.bicycle_figure(grid, eigs, weave_speed=float(bicycle.weave_speed(mats)),
                                              capsize_speed=float(bicycle.capsize_speed(mats)))
            else:
                fig = plotting.eigenvalues_figure(grid, eigs, parameter=name,
                                                  title=f"{mdl.name}: eigenvalues against {name}")
            fig.savefig(plot_file)
        if fmt == "json":
            _emit({"model": mdl.name, "parameter": name, "values": grid,
                   "eigenvalues": [[[z.real, z.imag] for z in row] for row in eigs], "plot": plot_file})
            return 0
        click.echo(f"{mdl.name}: eigenvalues against {name}")
        for val, row in zip(grid, eigs):
            click.echo(f"  {name} = {val:8.4g}: " + ", ".join(_fnum(z) for z in row))
        if plot_file:
            click.echo(f"plot written to {plot_file}")
        return 0
    if speed is not None and not bike:
        raise InputError("--speed is for the whipple-bicycle model; give the operating point with --at")
    lin = _linearize(mdl, at, _pairs(params, "--param"), form, speed)
    eig = lin.eigenvalues()
    if fmt == "latex":
        click.echo(rf"A = {display.latex(lin.A.evalf(8))}")
        return 0
    state = [str(s) for s in lin.state]
    A = [[float(sp.re(x)) for x in row] for row in lin.A.evalf(17).tolist()] if not lin.symbolic else None
    if fmt == "json":
        _emit({"model": mdl.name, "state": state, "A": A, "eigenvalues": [[complex(z).real, complex(z).imag]
                                                                           for z in eig],
               "ignorable": [str(s) for s in lin.ignorable], "dependent": [str(s) for s in lin.dependent]})
        return 0
    click.echo(f"{mdl.name}: linearized about the operating point; state ({', '.join(state)})")
    if lin.ignorable:
        click.echo(f"ignorable (left out): {', '.join(str(s) for s in lin.ignorable)}")
    click.echo("A =")
    for row in A:
        click.echo("  [" + "  ".join(f"{x:11.5g}" for x in row) + "]")
    click.echo("eigenvalues: " + ", ".join(_fnum(z) for z in eig))
    return 0


def _linearize(mdl, at, params, form, speed):
    at = _pairs(at, "--at") if not isinstance(at, dict) else at
    try:
        if speed is not None:
            from .models import bicycle
            eqs = _equations(mdl, form)
            op = bicycle.benchmark_operating_point(mdl, sp.nsimplify(speed))
            names = {str(s) for s in mdl.parameters}
            with progress("linearizing the Whipple bicycle"):
                return eqs.linearize(op, ignorable="auto", dependent=("theta",),
                                     inputs=[x for x in ("T_phi", "T_delta") if x in names])
        eqs = _equations(mdl, form)
        extra = getattr(mdl, "extra", None) or {}
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
        with progress(f"linearizing {mdl.name}"):
            return eqs.linearize(op, ignorable="auto")
    except GeonhError as e:
        raise InputError(f"{mdl.name}: {e}") from None


# -- report ---------------------------------------------------------------------------------------------------------
_CSS = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:left}
math{font-size:1.1em}.eq{margin:.4em 0;overflow-x:auto}.note{color:#555;font-size:.9em}
img{max-width:100%}code{background:#f4f4f4;padding:0 .2em}"""


def _eq_rows(pairs) -> str:
    out = []
    for a, b in pairs:
        if display.too_big(a) or display.too_big(b):
            lhs = display.mathml(a, display=False) if not display.too_big(a) else "(big expression)"
            out.append(f'<div class="eq">{lhs} = [expression of more than {display.DISPLAY_NODES} nodes, '
                       'not shown]</div>')
        else:
            out.append(f'<div class="eq">{display.mathml(sp.Eq(a, b, evaluate=False))}</div>')
    return "".join(out)


def report_html(model, *, certify: bool | None = None, simulate_t: float | None = 10.0,
                form: str | None = None) -> str:
    """The HTML page of `geonh report`: self-contained (MathML, no scripts; plots as base64 PNG).
    ``certify``: include the cross-form certificate (None: unless the frame is big)."""
    esc = html.escape
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>geonh report: "
              f"{esc(model.name)}</title><style>{_CSS}</style></head><body>"),
             f"<h1>geonh report: {esc(model.name)}</h1><p>{esc(model.description)}</p>",
             (f"<p>Coordinates: {', '.join(display.mathml(s, display=False) for s in model.space.coords)}"
              f" &mdash; geonh {esc(_version())}</p>")]
    S = model.space
    if isinstance(model, models.SeedModel):
        parts.append("<h2>Constraints</h2>" + _eq_rows((c, 0) for c in model.constraints))
        if model.system is None:
            parts.append(f"<pre>{esc(analyze_constraints(S, list(model.constraints)).explain())}</pre>")
        else:
            eqs = _equations(model, None)
            parts.append(f"<h2>Equations of motion ({esc(eqs.form)})</h2>" + _eq_rows(_rows(eqs)))
        parts.append("</body></html>")
        return "".join(parts)
    if _is_mechanical(model):
        sysm = model.system
        rows = [(sp.Symbol("T"), _simp(sysm.T)), (sp.Symbol("V"), sysm.V)]
        rows += [(sp.Symbol(f"Q_{q.name}"), f) for q, f in zip(S.q, sysm.Q) if f != 0]
        parts.append("<h2>System</h2>" + _eq_rows(rows))
        cons = []
        for form_ in sysm.constraints.forms if sysm.n_constraints else ():
            cons.append((sum((c * v for c, v in zip(form_.covector, S.velocities)), sp.S.Zero), 0))
        cons += [(h, 0) for h in sysm.holonomic]
        if cons:
            parts.append("<p>Constraints:</p>" + _eq_rows((_simp(a), b) for a, b in cons))
    data = show_data(model)
    parts.append("<h2>Frame and structure coefficients</h2><p>Quasi-velocities (free first, then the "
                 "constraints):</p>")
    parts.append(_eq_rows((sp.Symbol(n), v) for n, v in data["quasi_velocities"].items()))
    parts.append("<p>Structure coefficients, [X<sub>a</sub>, X<sub>b</sub>] = c<sup>d</sup><sub>ab</sub> "
                 "X<sub>d</sub> (non-zero, a &lt; b):</p>")
    parts.append(_eq_rows((sp.Symbol(f"c^{d}_{a}{b}"), v) for d, a, b, v in data["structure_coefficients"])
                 or "<p>all zero</p>")
    if data["unsimplified"]:
        parts.append(f'<p class="note">{data["unsimplified"]} large expression(s) shown unsimplified.</p>')
    parts.append(f"<p>Growth vector of the admissible distribution: {esc(str(data['growth_vector']))}. "
                 f"Constraints: {esc(data['verdict'])}.</p>")
    try:
        if data["growth_vector"] is None:
            raise ImportError
        from . import plotting
        fig = plotting.growth_vector_figure(data["growth_vector"], S.n, title=f"{model.name}: derived flag")
        parts.append(_png(fig, "growth vector"))
    except ImportError:
        pass
    if not _is_mechanical(model):
        parts.append("</body></html>")
        return "".join(parts)
    eqs = _equations(model, form)
    parts.append(f"<h2>Equations of motion ({esc(eqs.form)})</h2>" + _eq_rows(_rows(eqs)))
    parts.append(f'<details><summary>LaTeX</summary><pre>{esc(display.equations_latex(eqs, simplify=_simp))}</pre></details>')
    if certify is None:
        certify = _frame_size(_frame(model)) <= BIG_FRAME
        if not certify:
            parts.append('<p class="note">Certificate skipped: the frame is big, deriving every form takes '
                         'minutes (geonh report --certify includes it).</p>')
    if certify:
        certs = certify_data(model)
        parts.append("<h2>Certificate: every form against Lagrange's</h2><table><tr><th>form</th>"
                     "<th>verdict</th><th>max |&Delta;q&#776;|</th><th>method</th></tr>")
        for n, c in certs.items():
            parts.append(f"<tr><td><code>{esc(n)}</code></td><td>{'same motion' if c.same else 'DIFFERENT'}</td>"
                         f"<td>{c.max_residual:.3g}</td><td>{esc(c.method)}</td></tr>")
        parts.append("</table>")
    if simulate_t:
        parts.append(f"<h2>Simulation, 0 &le; t &le; {simulate_t:g}</h2>")
        try:
            traj, _, notes = run_simulation(model, t_end=simulate_t, form=form)
            from . import plotting
            parts.append(f"<p>{esc(repr(traj))}</p>")
            parts += [f'<p class="note">{esc(n)}</p>' for n in notes]
            parts.append(_png(plotting.overview(traj, title=model.name), "simulation"))
        except (GeonhError, click.ClickException, ImportError) as e:
            msg = e.format_message() if isinstance(e, click.ClickException) else str(e)
            parts.append(f'<p class="note">no simulation: {esc(msg)}</p>')
    parts.append("</body></html>")
    return "".join(parts)


def _rows(eqs) -> list:
    """(lhs, rhs) of M x = F row by row, then of the kinematics, simplified for display."""
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((_simp(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append((lhs, _simp(F[i])))
    return rows + [(v, _simp(k)) for v, k in zip(eqs.space.qd, eqs.kinematics)]


def _png(fig, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


@cli.command("report")
@click.argument("model")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default="report.html",
              show_default=True, help="the HTML file to write")
@click.option("--t", "t_end", type=float, default=10.0, show_default=True, help="simulated time (0: none)")
@click.option("--form", default=None, help="equation form shown (default boltzmann-hamel, or lagrange)")
@click.option("--certify/--no-certify", default=None,
              help="include the cross-form certificate (default: unless the model is big)")
@click.pass_context
def report_cmd(ctx, model, output, t_end, form, certify):
    """Write one self-contained HTML page on MODEL: system, frame, equations, certificate, plots."""
    mdl = load_model(model)
    try:
        page = report_html(mdl, certify=certify, simulate_t=t_end, form=form)
    except GeonhError as e:
        raise InputError(f"{mdl.name}: {e}") from None
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(page)
    click.echo(f"report on {mdl.name} written to {output} ({len(page) // 1024} KiB)")
    return 0


# -- entry point ------------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``geonh`` command; returns the exit status: 0 success, 1 a failed
    check (certify, simulate) or an error in the computation, 2 bad input (unknown model, bad
    model file, bad option).  A closed output pipe (``geonh list | head``) ends it quietly."""
    try:
        rv = cli.main(args=list(argv) if argv is not None else None, prog_name="geonh", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("geonh: aborted", err=True)
        return 1
    except GeonhError as e:
        click.echo(f"geonh: error: {e}", err=True)
        return 1
    except BrokenPipeError:
        # the reader went away: silence the interpreter's flush at exit, exit like `head` expects
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
