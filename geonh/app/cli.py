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
``geonh linearize MODEL``  A and eigenvalues about an operating point (--at, --speed, --sweep, --generator)
``geonh steady MODEL``     steady motions of a symmetry: families, stability boundary, verdicts (--plot)
``geonh control MODEL``    control verdicts with witnesses: LARC, Sussmann, symmetric products (--inputs, --at)
``geonh report MODEL``     one self-contained HTML page (-o FILE): math as MathML, plots as PNG
``geonh audit``            the seeds' numbered formulas: printed, computed, verdict (--source)
=========================  ==================================================================

Every command takes ``--format text|latex|json`` (also before the command).  Errors in the
input (unknown model, bad model file, bad option value) exit with status 2 and a message that
names the problem; ``main(argv)`` returns the exit status.  Output files (``report -o``,
``--plot``) are checked before any work (:func:`check_output`: never a directory, never the
model file read) and written whole or not at all (:func:`write_output`); a failed read or write
(a full disk, a permission) is status 2 with one line on stderr, a closed pipe ends quietly
(:data:`EXIT_PIPE`).  ``geonh --budget SECONDS COMMAND`` stops long symbolic work after SECONDS
(:func:`geonh.budget`; status :data:`EXIT_BUDGET`, naming the step and how far it got) and
``--progress`` reports long steps on stderr.  What the run changed from what was asked (an initial state projected onto
the constraints) is a ``geonh: warning:`` line on stderr.

This module holds the click group and its commands only: it parses the arguments, calls
:mod:`geonh.app.workbench` (the model-level tasks) and :mod:`geonh.app.report` (the HTML page), formats
their results as text, LaTeX or JSON, and turns their errors into exit statuses.  It is the
``geonh`` entry point (``geonh.app.cli:main``, also ``python -m geonh``); nothing in the library
imports it.
"""
from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import BinaryIO, cast

import click
import sympy as sp
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

from .. import models
from ..kernel import display
from . import workbench
from ..equations.registry import FORMS
from ..errors import BudgetExceededError, GeonhError
from ..kernel.budget import budget
from ..kernel.progress import phase
from ..models import files
from .report import report_html
from .terminal_progress import terminal_progress
from ..sources import SOURCES, audit
from .workbench import TaskError, for_display

FORMATS = ("text", "latex", "json")


class InputError(click.ClickException):
    """Bad input on the command line or in a model file: exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        _say(f"geonh: error: {self.format_message()}")


class _OSFailure(Exception):
    """An :class:`OSError` met while a command ran (writing standard output, mostly), carried
    past click's own handling of ``EPIPE`` to :func:`main`, which decides the exit status."""

    def __init__(self, error: OSError):
        super().__init__(error)
        self.error = error


class _Group(click.Group):
    """The ``geonh`` group: an :class:`OSError` in a command or in click's own output (help)
    reaches :func:`main` as :class:`_OSFailure` (click would turn ``EPIPE`` into ``exit 1``)."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except OSError as e:
            raise _OSFailure(e) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GeonhError:   # BudgetExceededError is a TimeoutError, an OSError: not a failed write
            raise
        except OSError as e:
            raise _OSFailure(e) from None


class FiniteFloat(click.ParamType):
    """A finite number (NaN and ±inf refused: click's FloatRange lets NaN through), optionally
    bounded below: ``low`` and whether the bound itself is allowed (``low_open``)."""

    name = "number"

    def __init__(self, low: float | None = None, low_open: bool = False):
        self.low, self.low_open = low, low_open

    def convert(self, value, param, ctx):
        """``value`` as a float, checked finite and against the bound; a bad value is click's
        usage error (``self.fail``)."""
        if isinstance(value, float):
            x = value
        else:
            try:
                x = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.low is not None and (x <= self.low if self.low_open else x < self.low):
            self.fail(f"{value!r} must be {'>' if self.low_open else '>='} {self.low:g}", param, ctx)
        return x


def _say(message: str) -> None:
    """Write one line to stderr; if stderr itself cannot be written, there is nobody to tell."""
    try:
        click.echo(message, err=True)
    except (OSError, ValueError):
        pass


# -- helpers -------------------------------------------------------------------------------------
@contextmanager
def progress(what: str):
    """Report ``what`` and the steps inside it (:mod:`geonh.kernel.progress`) on stderr with
    tqdm bars — only when stderr is a terminal (or ``GEONH_PROGRESS=1``) and only for work that
    lasts over a second (:func:`geonh.app.terminal_progress.terminal_progress`)."""
    with terminal_progress(), phase(what):
        yield


def load_model(arg: str):
    """A built-in model by name, or a model file (``*.toml`` or an existing path); any error
    in it is bad input (exit status 2)."""
    try:
        return workbench.load_model(arg)
    except BudgetExceededError:
        raise
    except GeonhError as e:
        raise InputError(str(e)) from None


@contextmanager
def _about(model):
    """An error of the computation on ``model`` is bad input naming the model (exit status 2);
    a :class:`~geonh.app.workbench.TaskError` (complete already) passes on to :func:`main`."""
    try:
        yield
    except (TaskError, BudgetExceededError):
        raise
    except GeonhError as e:
        raise InputError(f"{model.name}: {e}") from None


# -- output files: checked before any work, written atomically ------------------------------------
def model_inputs(arg: str) -> list[str]:
    """The files a MODEL argument reads: the model file, none for a built-in model."""
    return [arg] if files.is_model_file(arg) else []


def _same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (the same resolved path, or by device and
    inode: a hard link, another mount of the same directory)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_output(path: str, option: str, inputs: Sequence[str] = ()) -> str:
    """The file that ``option`` asks to write, checked before any work is done, so that a long
    computation is not thrown away on a typo: it is not a directory, not one of the ``inputs``
    (a model file is never overwritten by its own report), it can be written and its directory
    exists and can be written.  Returns the resolved path (a symbolic link is followed, so the
    file it points to is replaced, not the link).  Bad paths are :class:`InputError` (exit 2)."""
    if not path:
        raise InputError(f"{option}: give a file name")
    if "\0" in path:
        raise InputError(f"{option} {path!r}: a file name cannot contain a NUL character")
    if path.endswith(("/", os.sep)):
        raise InputError(f"{option} {path}: names a directory; give a file name")
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise InputError(f"{option} {path}: is a directory; give a file name")
    for inp in inputs:
        if _same_file(real, inp):
            raise InputError(f"{option} {path}: is the model file {inp}; refusing to overwrite an input "
                             "(write to another file)")
    if os.path.exists(real):
        if not os.access(real, os.W_OK):
            raise InputError(f"{option} {path}: cannot write it (permission denied)")
        if not os.path.isfile(real):
            return real  # a device or a pipe: written in place (write_output)
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        raise InputError(f"{option} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot create files in {parent} (permission denied)")
    return real


def _new_file_mode() -> int:
    """The permissions ``open(path, "w")`` would give a new file (0o666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_output(real: str, shown: str, write: Callable[[BinaryIO], object]) -> None:
    """Write a file checked by :func:`check_output`: ``write(fh)`` fills a temporary file in
    the same directory, which then replaces ``real`` in one step (``os.replace``), so a failed
    write (disk full, permission, an error in ``write``) leaves the old file or none, never half
    a file.  A device or a pipe (``/dev/stdout``) is written in place.  An :class:`OSError`
    becomes :class:`InputError` naming ``shown`` (exit 2)."""
    try:
        if os.path.exists(real) and not os.path.isfile(real):
            with open(real, "wb") as fh:
                write(fh)
            return
        parent, base = os.path.split(real)
        mode = stat.S_IMODE(os.stat(real).st_mode) if os.path.exists(real) else _new_file_mode()
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".part", dir=parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                write(fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, real)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise InputError(f"cannot write {shown}: {e.strerror or e}") from None


#: image formats ``--plot`` refuses although matplotlib lists them: pgf needs a LaTeX installation
_PLOT_EXCLUDED = {"pgf"}


def plot_format(path: str, option: str = "--plot") -> str:
    """The image format of a ``--plot`` file, from its extension, checked before any work
    (matplotlib installed, a format it writes)."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:  # pragma: no cover - depends on the installation
        raise InputError(f"{option} needs matplotlib: pip install 'geonh[plot]'") from None
    kinds = sorted(set(FigureCanvasBase.get_supported_filetypes()) - _PLOT_EXCLUDED)
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in kinds:
        what = f"unknown image format {ext!r}" if ext else "no extension to tell the image format"
        raise InputError(f"{option} {path}: {what}; end the name in one of .{', .'.join(kinds)}")
    return ext


def _save_figure(fig, real: str, shown: str, fmt: str) -> None:
    write_output(real, shown, lambda fh: fig.savefig(fh, format=fmt))


def _emit(obj) -> None:
    click.echo(json.dumps(obj, indent=2, default=str))


def _pairs(items, what: str) -> dict:
    out: dict[str, sp.Expr] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"{what} {item!r}: write NAME=VALUE")
        if name in out:   # one of the two would silently be dropped
            raise InputError(f"{what} {name} is given twice ({out[name]} and {value.strip()}): give each name once")
        try:
            out[name] = _number(value, f"{what} {name}")
        except GeonhError as e:
            raise InputError(str(e)) from None
    return out


def _number(text: str, what: str) -> sp.Expr:
    """A real number given on the command line: exact (``pi/2`` stays pi/2) but of floating-point
    size, since every value feeds the numerics (``10**400`` would turn into inf there)."""
    from ..kernel.parsing import parse
    e = parse(text, (), what=what)
    if not (e.is_number and e.is_real):
        raise InputError(f"{what}: {_clip(text)!r} is not a real number")
    try:
        finite = math.isfinite(float(e))
    except (OverflowError, TypeError, ValueError):
        finite = False
    if not finite:
        raise InputError(f"{what}: {_clip(text)!r} is too large for a floating-point number")
    return e


def _clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, for a message that stays one readable line."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


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
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             no_args_is_help=True)
@click.version_option(workbench.version(), "--version", prog_name="geonh", message="%(prog)s %(version)s")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="output format of every command: text (default), latex or json")
@click.option("--budget", "seconds", type=FiniteFloat(0.0, low_open=True), default=None, metavar="SECONDS",
              help="stop the symbolic work after SECONDS (exit 3, naming the step and how far it got)")
@click.option("--progress", is_flag=True, default=False,
              help="report the progress of long symbolic steps on stderr")
@click.pass_context
def cli(ctx, fmt, seconds, progress):
    """Geometric analytical mechanics of nonholonomic systems.

    MODEL is a built-in model (see: geonh list) or a model file (TOML: the format is the
    page "Model files" of the documentation, docs/model-files.md).  Run "geonh COMMAND --help"
    for a command's options.
    """
    ctx.ensure_object(dict)
    ctx.obj["fmt"] = fmt
    if seconds is not None or progress:
        ctx.with_resource(budget(seconds=seconds, progress=_progress_line() if progress else None))


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
        _emit([{"name": n, "route": e.route.value, "inputs": e.inputs.value, "source": e.source,
                "sources": [c.as_dict() for c in e.sources]} for n, e in FORMS.items()])
    elif fmt == "latex":
        click.echo(r"\begin{tabular}{lll}")
        for n, e in FORMS.items():
            click.echo(rf"\texttt{{{n}}} & {e.route.value} & {_tex_text(e.source)} \\")
        click.echo(r"\end{tabular}")
    else:
        for n, e in FORMS.items():
            click.echo(f"{n:16s} {e.route.value:12s} {e.source}")
    return 0


# -- show ----------------------------------------------------------------------------------------------
def _t(e, full: bool = False) -> str:
    """str(e), or a placeholder for an expression too big to read."""
    if not full and display.too_big(e):
        return f"<expression of more than {display.DISPLAY_NODES} nodes; --full prints it>"
    return str(e)



def show(name: str, out=None, fmt: str = "text", *, full: bool = False, growth: bool | None = None) -> None:
    """Print what geonh knows of a model (a built-in name, a model file or a model object).
    ``full``: print big expressions too; ``growth``: see :func:`geonh.app.workbench.show_data`."""
    model = name if not isinstance(name, str) else load_model(name)
    w = (out or sys.stdout).write
    data = workbench.show_data(model, growth=growth, progress=progress)
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
            if workbench.is_mechanical(model):
                w(display.system_latex(model.system, simplify=for_display) + "\n")
            w(display.frame_latex(data["frame"], simplify=for_display) + "\n")
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
    mdl = load_model(model)
    with _about(mdl):
        show(mdl, fmt=_fmt(ctx, fmt), full=full, growth=growth)
    return 0


# -- relations -------------------------------------------------------------------------------------------
class _DifferentialsPrinter(StrPrinter):
    """sympy's text, with the differentials of each product written last and side by side, as
    the books write them: ``(dtheta δx - dx δtheta)/cos(theta)**2`` and ``-Omega*sin(psi) dt δphi``,
    not ``dtheta*δx`` and ``-Omega*dt*δphi*sin(psi)``."""

    def __init__(self, differentials: set):
        super().__init__()
        self.differentials = differentials

    def _print_Mul(self, expr):
        diffs = [a for a in expr.args if a in self.differentials]
        if not diffs:
            return super()._print_Mul(expr)
        rest = sp.Mul(*(a for a in expr.args if a not in self.differentials))
        d = " ".join(self._print(a) for a in diffs)
        sign = ""
        if rest.could_extract_minus_sign():
            sign, rest = "-", -rest
        if rest == 1:
            return sign + d
        r = self._print(rest)
        if precedence(rest) < precedence(expr) or sp.fraction(rest)[1] != 1:   # (x/R) dx δy, never x/R dx δy
            r = f"({r})"
        return f"{sign}{r} {d}"


def _differentials_text(expr, rel) -> str:
    """An expression of the transpositional relations ``rel`` (a
    :class:`~geonh.TranspositionalRelations`) as plain text, its d and δ symbols side by side
    (:class:`_DifferentialsPrinter`)."""
    syms = (*rel.d_symbols.values(), *rel.delta_symbols.values(), *rel.dpi, *rel.deltapi)
    return _DifferentialsPrinter({s for s in syms if s is not None}).doprint(expr)


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
    with _about(mdl):
        data = workbench.relations(mdl, k, progress=progress)
    k, rel = data["k"], data["relations"]
    n, m = mdl.space.n, mdl.m
    if fmt == "latex":
        click.echo(display.relations_latex(rel, simplify=for_display))
        return 0
    rows = [(q, for_display(e)) for q, e in data["coordinates"]]
    gam = [(a, b, c, for_display(v)) for a, b, c, v in data["gamma"]]
    if fmt == "json":
        _emit({"model": mdl.name, "k": k, "free": [s.name for s in rel.free], "rho": [s.name for s in rel.rho],
               "sigma": [s.name for s in rel.sigma], "coordinates": {q: str(e) for q, e in rows},
               "gamma": [{"nu": a, "lambda": b, "mu": c, "value": str(v)} for a, b, c, v in gam]})
        return 0
    click.echo(f"{mdl.name}: transpositional relations, k = {k} "
               f"({'Hamel/Volterra' if k == n - m else 'Suslov' if k == 0 else 'intermediate'})")
    click.echo(f"free: {', '.join(s.name for s in rel.free)}; rho: {', '.join(s.name for s in rel.rho) or '-'}; "
               f"sigma: {', '.join(s.name for s in rel.sigma) or '-'}")
    click.echo("on the motion, dδq - δdq:")
    for q, e in rows:
        click.echo(f"  {q}: {_differentials_text(e, rel)}")
    click.echo("gamma_(nu,lambda,mu), dδπ_lambda - δdπ_lambda = gamma_(nu,lambda,mu) dπ_mu δπ_nu (non-zero):")
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
    with _about(mdl):
        eqs = workbench.equations(mdl, form, progress=progress)
    if fmt == "latex":
        click.echo(display.equations_latex(eqs, simplify=for_display))
        return 0
    x = list(eqs.unknowns)
    rows, kin = workbench.equation_rows(eqs)
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
@cli.command("certify")
@click.argument("model")
@_fmt_option
@click.pass_context
def certify_cmd(ctx, model, fmt):
    """Every applicable form of MODEL against Lagrange's equations (exit 1 if one differs)."""
    fmt = _fmt(ctx, fmt)
    mdl = load_model(model)
    certs = workbench.certify_data(mdl, progress=progress)
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


#: the most output times ``simulate --points`` takes (10⁶ times of a 10-variable state are 80 MB)
MAX_POINTS = 1_000_000


@cli.command("simulate")
@click.argument("model")
@click.option("--t", "t_end", type=FiniteFloat(0.0, low_open=True), default=10.0, show_default=True,
              help="end time (> 0)")
@click.option("--form", default=None, help="equation form (default boltzmann-hamel, or lagrange without a frame)")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter value (repeatable)")
@click.option("--init", "inits", multiple=True, metavar="NAME=VALUE", help="an initial value (repeatable)")
@click.option("--points", type=click.IntRange(2, MAX_POINTS), default=201, show_default=True,
              help=f"output times, 2 … {MAX_POINTS}")
@click.option("--plot", "plot_file", type=str, metavar="FILE", default=None,
              help="save trajectory, energy and constraint residual plots (PNG, PDF, SVG)")
@_fmt_option
@click.pass_context
def simulate_cmd(ctx, model, t_end, form, params, inits, points, plot_file, fmt):
    """Integrate the equations of motion of MODEL from t = 0 to T."""
    fmt = _fmt(ctx, fmt)
    if fmt == "latex":
        raise InputError("simulate has no LaTeX output; use --format text or json")
    plot = None
    if plot_file is not None:
        plot = (check_output(plot_file, "--plot", model_inputs(model)), plot_format(plot_file))
    param_values, init_values = _pairs(params, "--param"), _pairs(inits, "--init")
    mdl = load_model(model)
    with _about(mdl):
        run = workbench.run_simulation(mdl, t_end=t_end, form=form, params=param_values, initial=init_values,
                                       points=points, progress=progress)
    traj, values, notes = run.trajectory, run.values, run.notes
    for warning in run.warnings:
        _say(f"geonh: warning: {warning}")
    E = _energy(traj)
    res = _residual(traj)
    if plot:
        from . import plotting
        _save_figure(plotting.overview(traj, title=mdl.name), plot[0], plot_file, plot[1])
    names = ("t",) + tuple(traj.function.state_names)
    if fmt == "json":
        _emit({"model": mdl.name, "form": traj.equations.form, "parameters": {str(k): str(v) for k, v in values.items()},
               "notes": notes, "warnings": run.warnings, "columns": names, "t": traj.t.tolist(),
               "y": traj.y.tolist(),
               "energy": None if E is None else E.tolist(), "max_constraint_residual": res,
               "plot": plot_file, "success": bool(traj.success)})
        return 0 if traj.success else 1
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
    if plot:
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
    if not (math.isfinite(a) and math.isfinite(b)):
        raise InputError(f"--sweep {text!r}: START and STOP must be finite numbers")
    if n < 2 or n > 2000:
        raise InputError(f"--sweep {text!r}: COUNT must lie in 2 … 2000")
    return name.strip(), [a + (b - a) * i / (n - 1) for i in range(n)]


@cli.command("linearize")
@click.argument("model")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE",
              help="operating point: coordinates, speeds or velocities (repeatable; default 0)")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter value (default 1)")
@click.option("--form", default=None, help="equation form (default boltzmann-hamel, or lagrange without a frame)")
@click.option("--speed", type=FiniteFloat(), default=None,
              help="whipple-bicycle only: the upright steady motion at this speed, benchmark parameters")
@click.option("--sweep", default=None, metavar="NAME=START:STOP:COUNT",
              help="eigenvalues against a parameter (whipple-bicycle: v=0:10:51, the forward speed)")
@click.option("--plot", "plot_file", type=str, metavar="FILE", default=None,
              help="with --sweep: save the eigenvalue plot")
@click.option("--generator", "generators", multiple=True, metavar="X1,X2,...",
              help="a symmetry generator, its components over the coordinates (repeatable): the point is "
                   "a relative equilibrium, linearized reduced by the symmetry in any form")
@_fmt_option
@click.pass_context
def linearize_cmd(ctx, model, at, params, form, speed, sweep, plot_file, generators, fmt):
    """Linear equations δy' = A δy about an operating point of MODEL, and their eigenvalues."""
    fmt = _fmt(ctx, fmt)
    plot = None
    if plot_file is not None:
        if sweep is None:
            raise InputError("--plot draws the eigenvalues of a sweep: give --sweep NAME=START:STOP:COUNT too")
        plot = (check_output(plot_file, "--plot", model_inputs(model)), plot_format(plot_file))
    if sweep is not None:
        name, grid = _parse_sweep(sweep)
    pv, op = _pairs(params, "--param"), _pairs(at, "--at")
    mdl = load_model(model)
    bike = mdl.name == "whipple-bicycle"
    if sweep is not None:
        if bike and name == "v":
            mats, eigs = workbench.bicycle_sweep(grid, mdl, progress=progress)
        else:
            eigs = workbench.eigenvalue_sweep(mdl, name, grid, op, pv, form, progress=progress)
        if plot:
            from . import plotting
            if bike and name == "v":
                from ..models import bicycle
                fig = plotting.bicycle_figure(grid, eigs, weave_speed=float(bicycle.weave_speed(mats)),
                                              capsize_speed=float(bicycle.capsize_speed(mats)))
            else:
                fig = plotting.eigenvalues_figure(grid, eigs, parameter=name,
                                                  title=f"{mdl.name}: eigenvalues against {name}")
            _save_figure(fig, plot[0], plot_file, plot[1])
        if fmt == "json":
            _emit({"model": mdl.name, "parameter": name, "values": grid,
                   "eigenvalues": [[[z.real, z.imag] for z in row] for row in eigs], "plot": plot_file})
            return 0
        click.echo(f"{mdl.name}: eigenvalues against {name}")
        for val, row in zip(grid, eigs):
            click.echo(f"  {name} = {val:8.4g}: " + ", ".join(_fnum(z) for z in row))
        if plot:
            click.echo(f"plot written to {plot_file}")
        return 0
    if speed is not None and not bike:
        raise InputError("--speed is for the whipple-bicycle model; give the operating point with --at")
    if generators and (speed is not None or sweep is not None):
        raise InputError("--generator linearizes one relative equilibrium: give it without --speed or --sweep")
    gens = [g.split(",") for g in generators] or None
    lin = workbench.linearize(mdl, op, pv, form, speed, progress=progress, generators=gens)
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
    for row in cast("list[list[float]]", A):  # numeric: workbench.linearize is never symbolic
        click.echo("  [" + "  ".join(f"{x:11.5g}" for x in row) + "]")
    click.echo("eigenvalues: " + ", ".join(_fnum(z) for z in eig))
    return 0


# -- steady -------------------------------------------------------------------------------------------------------
def _sympy_text(e) -> str:
    return str(e)


@cli.command("steady")
@click.argument("model")
@click.option("--generator", "generators", multiple=True, metavar="X1,X2,...",
              help="a symmetry generator, its components over the coordinates (repeatable, as in linearize); "
                   "default: the model's own symmetry, with its fixed coordinates, parameters and diagram")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE",
              help="a coordinate fixed (theta=0: the upright disk) or a family parameter's value (xi1=2) at which "
                   "the verdict is taken (repeatable)")
@click.option("--param", "params", multiple=True, metavar="NAME=FORMULA",
              help="a system parameter: a number or a formula in the others (I_d=m*r**2/4); the rest stay "
                   "symbols in the boundary and take 1 (or the model file's value) in the verdicts")
@click.option("--form", default=None, help="equation form (default boltzmann-hamel, or lagrange without a frame)")
@click.option("--parameter", default=None, metavar="NAME",
              help="the verdicts and eigenvalues along this parameter (a family or system parameter; with --range)")
@click.option("--range", "span", type=(FiniteFloat(), FiniteFloat()), default=None, metavar="A B",
              help="the interval of --parameter")
@click.option("--points", type=click.IntRange(2, 400), default=21, show_default=True,
              help="values of --parameter on the interval")
@click.option("--boundary/--no-boundary", default=None,
              help="the stability conditions in closed form (symbolic work; default: yes, or as the model's "
                   "symmetry says)")
@click.option("--plot", "plot_file", type=str, metavar="FILE", default=None,
              help="save the eigenvalue diagram along --parameter (PNG, PDF, SVG)")
@_fmt_option
@click.pass_context
def steady_cmd(ctx, model, generators, at, params, form, parameter, span, points, boundary, plot_file, fmt):
    """The steady motions (relative equilibria) of MODEL for a symmetry: each family in closed
    form, its stability boundary (conditions, all > 0) and the stability verdicts, at the
    member given with --at or along --parameter (the eigenvalue diagram, --plot).  Without
    --generator, the model's declared symmetry (geonh.models.Symmetry) gives the generators
    and the defaults of the other options."""
    from .steadies import declared_arguments, steady_report
    fmt = _fmt(ctx, fmt)
    if (parameter is None) != (span is None):
        raise InputError("--parameter and --range go together: --parameter NAME --range A B")
    if span is not None and not span[0] < span[1]:
        raise InputError(f"--range {span[0]:g} {span[1]:g}: the interval needs A < B")
    if plot_file is not None and parameter is None and generators:
        raise InputError("--plot draws the eigenvalues along --parameter NAME --range A B: give them")
    plot = None
    if plot_file is not None:
        plot = (check_output(plot_file, "--plot", model_inputs(model)), plot_format(plot_file))
    fixed = _pairs(at, "--at")
    formulas = {}
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"--param {item!r}: write NAME=FORMULA")
        formulas[name.strip()] = value
    grid = [] if span is None else [span[0] + (span[1] - span[0]) * i / (points - 1) for i in range(points)]
    mdl = load_model(model)
    coords = {q.name for q in workbench.system(mdl).space.q} if workbench.is_mechanical(mdl) else set()
    member = {k: v for k, v in fixed.items() if k not in coords}
    fixed = {k: v for k, v in fixed.items() if k in coords}
    gens, source = [g.split(",") for g in generators], ""
    if not generators:      # the model's own symmetry; the options given override its defaults
        with _about(mdl):
            own = declared_arguments(mdl)
        gens, fixed, formulas = own["generators"], {**own["at"], **fixed}, {**own["params"], **formulas}
        member, source = {**own["member"], **member}, own["source"]
        boundary = own["boundary"] if boundary is None else boundary
        if parameter is None and not member.keys() - own["member"].keys():
            parameter, grid = own["parameter"], own["grid"]
    if plot_file is not None and parameter is None:
        raise InputError("--plot draws the eigenvalues along --parameter NAME --range A B: give them")
    boundary = True if boundary is None else boundary
    with _about(mdl):
        rep = steady_report(mdl, gens, fixed, formulas, form, member=member,
                            parameter=parameter, grid=grid, boundary=boundary, progress=progress, source=source)
    if plot:
        from . import plotting
        for i, fam in enumerate(rep.families):
            if fam.grid:
                fig = plotting.eigenvalues_figure(fam.grid, fam.eigenvalues, parameter=str(parameter),
                                                  title=f"{mdl.name}: steady motions ({i + 1}), eigenvalues "
                                                        f"against {parameter}")
                _save_figure(fig, plot[0], plot_file, plot[1])
                break
    if fmt == "json":
        _emit({"model": rep.model, "form": rep.form, "generators": rep.generators,
               "at": {k: str(v) for k, v in rep.at.items()},
               "parameters": {str(k): str(v) for k, v in rep.params.items()}, "parameter": rep.parameter,
               "source": rep.source,
               "families": [{"xi": [str(x) for x in f.motion.xi],
                             "parameters": [p.name for p in f.motion.parameters],
                             "point": {str(k): str(v) for k, v in f.motion.point.items()},
                             "boundary": None if f.boundary is None else {
                                 "kind": f.boundary.kind, "polynomial": str(f.boundary.polynomial),
                                 "conditions": [str(c) for c in f.conditions],
                                 "zeros": f.boundary.zeros, "family_zeros": f.boundary.family_zeros},
                             "boundary_note": f.boundary_note, "values": f.grid, "verdicts": f.verdicts,
                             "eigenvalues": [[[z.real, z.imag] for z in row] for row in f.eigenvalues]}
                            for f in rep.families], "plot": plot_file})
        return 0
    if fmt == "latex":
        for i, f in enumerate(rep.families, 1):
            xi = ", ".join(display.latex(x) for x in f.motion.xi)
            click.echo(rf"\xi^{{({i})}} = \left({xi}\right)")
            for c in f.conditions:
                click.echo(rf"{display.latex(c)} > 0")
        return 0
    click.echo(f"{rep.model}: steady motions in the {rep.form} form, {len(rep.families)} "
               f"famil{'y' if len(rep.families) == 1 else 'ies'}")
    if rep.at:
        click.echo("fixed: " + ", ".join(f"{k} = {v}" for k, v in rep.at.items()))
    if rep.params:
        click.echo("parameters: " + ", ".join(f"{k} = {_sympy_text(v)}" for k, v in rep.params.items()))
    if rep.source:
        click.echo(f"source: {rep.source}")
    for i, f in enumerate(rep.families, 1):
        click.echo(f"family {i}: xi = ({', '.join(_sympy_text(x) for x in f.motion.xi)}); "
                   f"parameters {', '.join(p.name for p in f.motion.parameters) or 'none'}")
        if f.boundary is not None:
            b = f.boundary
            if f.conditions:
                click.echo(f"  stability boundary ({b.kind}, {b.zeros} zero eigenvalue"
                           f"{'' if b.zeros == 1 else 's'}, {b.family_zeros} from the family): "
                           + " and ".join(f"{_sympy_text(c)} > 0" for c in f.conditions))
            else:
                click.echo(f"  stability boundary: none (characteristic polynomial {_sympy_text(b.polynomial)})")
        elif f.boundary_note:
            click.echo(f"  stability boundary: no closed form ({f.boundary_note})")
        if rep.parameter is None and f.verdicts:
            click.echo(f"  verdict: {f.verdicts[0]}; eigenvalues " + ", ".join(_fnum(z) for z in f.eigenvalues[0]))
        for val, verdict, row in zip(f.grid, f.verdicts, f.eigenvalues):
            click.echo(f"  {rep.parameter} = {val:8.4g}: {verdict:22s} " + ", ".join(_fnum(z) for z in row))
    if plot:
        click.echo(f"plot written to {plot_file}")
    return 0


# -- control ----------------------------------------------------------------------------------------------------------
def _verdict_json(v) -> dict:
    return {"question": v.question, "holds": v.holds, "final": v.final, "rank": v.rank, "dim": v.dim,
            "reason": v.reason, "source": v.source, "legend": v.legend,
            "witness": [{"name": n, "value": [str(c) for c in vals]} for n, vals in zip(v.witness, v.values)],
            "seconds": v.seconds}


@cli.command("control")
@click.argument("model")
@click.option("--inputs", default=None, metavar="NAME,...",
              help="mechanical models: the inputs, force symbols of the model or coordinates (a force or torque "
                   "along it); default: the model's force symbols")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE",
              help="the configuration decided at: a coordinate's value (repeatable; default 0, speeds 0)")
@click.option("--no-connection", is_flag=True, default=False,
              help="mechanical models: skip the verdicts of the affine connection form")
@_fmt_option
@click.pass_context
def control_cmd(ctx, model, inputs, at, no_connection, fmt):
    """Control verdicts of MODEL with their witnesses: for a kinematic model the growth vector and
    the LARC (Chow–Rashevskii); for a mechanical model with inputs the LARC and Sussmann's
    condition at rest, then configuration accessibility and controllability and kinematic
    controllability (affine connection form, when every force is an input).  Exit 1 if a
    verdict does not hold."""
    from .controls import control_verdicts
    fmt = _fmt(ctx, fmt)
    names = None
    if inputs is not None:
        names = [n.strip() for n in inputs.split(",")]
        if not all(names):
            raise InputError(f"--inputs {_clip(inputs)!r}: write NAME,NAME,...")
    op = _pairs(at, "--at")
    mdl = load_model(model)
    with _about(mdl):
        with progress("control verdicts"):
            rep = control_verdicts(mdl, names, op, connection=not no_connection)
    ok = all(v.holds for v in rep.verdicts)
    if fmt == "json":
        _emit({"model": rep.model, "kind": rep.kind, "inputs": list(rep.inputs),
               "point": {k: str(v) for k, v in rep.point.items()},
               "growth_vector": list(rep.growth) if rep.growth else None,
               "verdicts": [_verdict_json(v) for v in rep.verdicts],
               "skipped": [{"verdict": a, "reason": b} for a, b in rep.skipped]})
        return 0 if ok else 1
    if fmt == "latex":
        click.echo(r"\begin{tabular}{lll}")
        for v in rep.verdicts:
            answer = "holds" if v.holds else ("fails" if v.final else "undecided")
            click.echo(rf"{_tex_text(v.question)} & {answer} & {_tex_text(', '.join(v.witness))} \\")
        click.echo(r"\end{tabular}")
        return 0 if ok else 1
    at_text = ", ".join(f"{k}={v}" for k, v in rep.point.items())
    click.echo(f"{rep.model}: {rep.kind} model, inputs {', '.join(rep.inputs)}; at ({at_text})")
    if rep.growth:
        click.echo(f"growth vector: ({', '.join(map(str, rep.growth))})")
    for v in rep.verdicts:
        click.echo(str(v))
        click.echo(f"  ({v.seconds:.2f} s)")
    for what, why in rep.skipped:
        click.echo(f"not decided: {what}: {why}")
    return 0 if ok else 1


# -- report -----------------------------------------------------------------------------------------------------------
@cli.command("report")
@click.argument("model")
@click.option("-o", "--output", "output", type=str, metavar="FILE", default="report.html",
              show_default=True, help="the HTML file to write")
@click.option("--t", "t_end", type=FiniteFloat(0.0), default=10.0, show_default=True,
              help="simulated time (0: none)")
@click.option("--form", default=None, help="equation form shown (default boltzmann-hamel, or lagrange)")
@click.option("--certify/--no-certify", default=None,
              help="include the cross-form certificate (default: unless the model is big)")
@click.option("--control/--no-control", default=None,
              help="include the control verdicts with the model's own inputs (default: kinematic models and "
                   "small mechanical ones with force symbols)")
@click.option("--steady/--no-steady", default=None,
              help="include the steady motions of the model's declared symmetry, their stability boundary and "
                   "eigenvalue diagram (default: when the model declares one)")
@click.pass_context
def report_cmd(ctx, model, output, t_end, form, certify, control, steady):
    """Write one self-contained HTML page on MODEL: system, frame, equations, certificate, control
    verdicts, steady motions, plots."""
    real = check_output(output, "-o/--output", model_inputs(model))
    mdl = load_model(model)
    with _about(mdl):
        page = report_html(mdl, certify=certify, simulate_t=t_end, form=form, progress=progress,
                           warn=lambda w: _say(f"geonh: warning: {w}"), control=control, steady=steady)
    write_output(real, output, lambda fh: fh.write(page.encode("utf-8")))
    click.echo(f"report on {mdl.name} written to {output} ({len(page) // 1024} KiB)")
    return 0


# -- audit ------------------------------------------------------------------------------------------------------
@cli.command("audit")
@click.option("--source", type=click.Choice(list(SOURCES)), default=None, help="one seed only")
@click.option("--number", default=None, help="one equation number, e.g. 17 or 1.5 (with --source)")
@click.option("--markdown", is_flag=True, help="the full table (printed, computed, verdict, difference) as Markdown")
@_fmt_option
@click.pass_context
def audit_cmd(ctx, source, number, markdown, fmt):
    """Every audited numbered formula of the seeds: its printed form, the form geonh computes
    from brackets, and the verdict (agrees / misprint / hypothesis), decided on an example.
    Exit 1 if a verdict differs from the one the docs record."""
    fmt = _fmt(ctx, fmt)
    if number is not None and source is None:
        raise InputError("--number needs --source")
    with progress("auditing the seeds"):
        rep = audit(source, number)
    if fmt == "json":
        _emit({"ok": rep.ok, "counts": rep.counts(), "formulas": [r.as_dict() for r in rep]})
    elif markdown:
        click.echo(rep.to_markdown())
    elif fmt == "latex":
        click.echo(r"\begin{tabular}{llll}")
        for r in rep:
            click.echo(rf"{_tex_text(SOURCES[r.formula.source][0])} & {r.formula.number} & {r.status} & "
                       rf"{_tex_text(r.formula.topic)} \\")
        click.echo(r"\end{tabular}")
    else:
        for src, (cite, seed) in SOURCES.items():
            rows = [r for r in rep if r.formula.source == src]
            if not rows:
                continue
            click.echo(f"{cite} (seed {seed})")
            for r in rows:
                flag = "" if r.ok else f"   <-- recorded: {r.formula.expected}"
                click.echo(f"  {r.formula.number:7s} {r.status:10s} {r.formula.topic}{flag}")
                if r.finding is not None and r.status != "agrees":
                    click.echo(f"  {'':7s} {'':10s} on {r.finding.example}: printed − computed: {r.finding.shown}")
                    if r.finding.detail:
                        click.echo(f"  {'':7s} {'':10s} {r.finding.detail}")
                elif r.finding is None:
                    click.echo(f"  {'':7s} {'':10s} {r.error}")
        counts = {s: sum(1 for r in rep if r.status == s) for s in ("agrees", "misprint", "hypothesis", "error")}
        click.echo(f"{len(rep)} formulas: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)
                   + ("" if rep.ok else f"; {len(rep.unexpected)} DIFFER FROM THE RECORD"))
    return 0 if rep.ok else 1


# -- entry point ------------------------------------------------------------------------------------------------------
#: the exit status after the reader of standard output went away (``geonh list | head``): what
#: a shell reports for a process ended by SIGPIPE (128 + 13), so ``set -o pipefail`` sees it
EXIT_PIPE = 141
#: exit status of a run stopped by ``--budget``
EXIT_BUDGET = 3


def _progress_line(interval: float = 0.5) -> Callable[[str, int, int | None], None]:
    """A progress callback for :func:`geonh.budget` writing ``geonh: step done/total`` to
    stderr, at most every ``interval`` seconds (and at the end of each step)."""
    last = [0.0]

    def report(step: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last[0] >= interval or (total is not None and done == total):
            last[0] = now
            _say(f"geonh: {step}: {done}" + (f"/{total}" if total is not None else ""))
    return report


def _settle_stdout() -> None:
    """Flush stdout; if that fails (disk full, closed pipe), point its file descriptor at
    /dev/null, so that what is left in the buffer goes there at exit instead of failing again
    with a message from Python."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)


def _os_message(e: OSError) -> str:
    """One line for an OSError: the file (if any), the reason and its errno name."""
    reason = e.strerror or str(e) or type(e).__name__
    code = errno.errorcode.get(e.errno, "") if e.errno else ""
    where = f"{e.filename}: " if e.filename else "cannot write the output: " if code in ("ENOSPC", "EIO") else ""
    return f"{where}{reason}" + (f" ({code})" if code else "")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``geonh`` command; returns the exit status: 0 success, 1 a failed
    check (certify, simulate) or an error in the computation, 2 bad input (unknown model, bad
    model file, bad option, an output file that cannot be written, a task the model cannot do)
    or a failed read or write (disk full, permission denied), with a one-line message on stderr
    and no traceback.  A closed output pipe (``geonh list | head``) ends quietly with
    :data:`EXIT_PIPE`."""
    try:
        with terminal_progress():  # tqdm bars on stderr when it is a terminal (GEONH_PROGRESS=0/1 decides)
            rv = cli.main(args=list(argv) if argv is not None else None, prog_name="geonh", standalone_mode=False)
        sys.stdout.flush()  # a failed write of buffered output is reported here, not at exit
        return rv if isinstance(rv, int) else 0
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        _say("geonh: aborted")
        return 1
    except TaskError as e:
        # what the model cannot do, or an option value it does not take: bad input
        bad = InputError(str(e))
        bad.show()
        return bad.exit_code
    except BudgetExceededError as e:
        _say(f"geonh: error: stopped by --budget: {e.step}: stopped after {e.done}"
             + (f" of {e.total}" if e.total is not None else "") + f" {e.unit} (raise it with geonh --budget N)")
        return EXIT_BUDGET
    except GeonhError as e:
        _say(f"geonh: error: {e}")
        return 1
    except (_OSFailure, OSError) as e:
        error = e.error if isinstance(e, _OSFailure) else e
        _settle_stdout()
        if error.errno == errno.EPIPE:
            # the reader went away: nothing to tell it, exit like `head` expects
            return EXIT_PIPE
        _say(f"geonh: error: {_os_message(error)}")
        return 2
    except (RecursionError, MemoryError) as e:
        _say(f"geonh: error: {type(e).__name__}: the input is too big or too deeply nested, or geonh met a case "
             "it does not handle (please report it)")
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
