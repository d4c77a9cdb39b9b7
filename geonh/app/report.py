"""The self-contained HTML report on a model (``geonh report``).

:func:`report_html` builds one page from the results of :mod:`geonh.app.workbench` — system,
frame and structure coefficients, growth vector, equations of motion, the cross-form
certificate and a simulation — with the mathematics as MathML and the plots
(:mod:`geonh.app.plotting`, when matplotlib is installed) as inline base64 PNG: no scripts, no
files beside it.  :mod:`geonh.app.cli` writes it to a file; errors are those of the workbench.

One page is one run: its sections share one :class:`~geonh.app.workbench.Session`, so each form
is derived once (the equations shown, the certificate and the simulation use the same
derivation).  Which sections a model gets follows from what it says it is (its ``kind``,
:data:`PAGES`); each object on the page is rendered by :func:`html`, one table keyed by the
object's type (an object without an entry shows its own text form, ``str``).
"""
from __future__ import annotations

import base64
import html as _html
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import singledispatch

import sympy as sp

from ..analysis.certificate import Certificate
from ..equations.base import Equations
from ..errors import BudgetExceededError, GeonhError
from ..kernel import display
from ..systems import MechanicalSystem, analyze_constraints
from . import workbench
from .workbench import FrameView, GrowthView, Progress, Session, SimulationRun, for_display, quiet

_CSS = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:left}
math{font-size:1.1em}.eq{margin:.4em 0;overflow-x:auto}.note{color:#555;font-size:.9em}
.warning{color:#8a2a00;font-weight:bold}
img{max-width:100%}code{background:#f4f4f4;padding:0 .2em}"""

esc = _html.escape


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


def _png(fig, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<p><img alt="{esc(alt)}" src="data:image/png;base64,{data}"></p>'


# -- how each object shows on the page: one table, keyed by type ----------------------------------------------
@singledispatch
def html(obj) -> str:
    """The HTML of one object of the report page.  Registered: :class:`~geonh.MechanicalSystem`
    (T, V, the forces and the constraints), :class:`~geonh.Equations` (M x = F row by row and
    the kinematics), a :class:`~geonh.Certificate` (the cells of its row), and the workbench's
    :class:`~geonh.app.workbench.FrameView`, :class:`~geonh.app.workbench.GrowthView` and
    :class:`~geonh.app.workbench.SimulationRun`.  Any other object shows its own text form
    (``str``), preformatted."""
    return f"<pre>{esc(str(obj))}</pre>"


@html.register
def _system(sysm: MechanicalSystem) -> str:
    S = sysm.space
    rows = [(sp.Symbol("T"), for_display(sysm.T)), (sp.Symbol("V"), sysm.V)]
    rows += [(sp.Symbol(f"Q_{q.name}"), f) for q, f in zip(S.q, sysm.Q) if f != 0]
    out = "<h2>System</h2>" + _eq_rows(rows)
    cons = [(sum((c * v for c, v in zip(form.covector, S.velocities)), sp.S.Zero), 0)
            for form in (sysm.constraints.forms if sysm.n_constraints else ())]
    cons += [(h, 0) for h in sysm.holonomic]
    if cons:
        out += "<p>Constraints:</p>" + _eq_rows((for_display(a), b) for a, b in cons)
    return out


@html.register
def _frame_view(view: FrameView) -> str:
    out = ["<h2>Frame and structure coefficients</h2><p>Quasi-velocities (free first, then the constraints):</p>",
           _eq_rows((sp.Symbol(n), v) for n, v in view.quasi_velocities.items()),
           "<p>Structure coefficients, [X<sub>a</sub>, X<sub>b</sub>] = c<sup>d</sup><sub>ab</sub> "
           "X<sub>d</sub> (non-zero, a &lt; b):</p>",
           _eq_rows((sp.Symbol(f"c^{d}_{a}{b}"), v) for d, a, b, v in view.structure_coefficients)
           or "<p>all zero</p>"]
    if view.unsimplified:
        out.append(f'<p class="note">{view.unsimplified} large expression(s) shown unsimplified.</p>')
    return "".join(out)


@html.register
def _growth_view(grown: GrowthView) -> str:
    out = (f"<p>Growth vector of the admissible distribution: {esc(str(grown.growth_vector))}. "
           f"Constraints: {esc(grown.verdict)}.</p>")
    if grown.growth_vector is None:
        return out
    try:
        from . import plotting
    except ImportError:
        return out
    fig = plotting.growth_vector_figure(grown.growth_vector, grown.n, title=f"{grown.name}: derived flag")
    return out + _png(fig, "growth vector")


@html.register
def _equations(eqs: Equations) -> str:
    rows, kinematics = workbench.equation_rows(eqs)
    return f"<h2>Equations of motion ({esc(eqs.form)})</h2>" + _eq_rows(rows + kinematics)


@html.register
def _certificate(cert: Certificate) -> str:
    return (f"<td>{'same motion' if cert.same else 'DIFFERENT'}</td><td>{cert.max_residual:.3g}</td>"
            f"<td>{esc(cert.method)}</td>")


@html.register
def _simulation(run: SimulationRun) -> str:
    out = [f'<p class="warning">Warning: {esc(w)}</p>' for w in run.warnings]
    try:
        from . import plotting
        out.append(f"<p>{esc(repr(run.trajectory))}</p>")
        out += [f'<p class="note">{esc(n)}</p>' for n in run.notes]
        out.append(_png(plotting.overview(run.trajectory, title=run.name), "simulation"))
    except BudgetExceededError:
        raise
    except (GeonhError, ImportError) as e:
        out.append(f'<p class="note">no simulation: {esc(str(e))}</p>')
    return "".join(out)


# -- the page --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Asked:
    """What the page was asked for (the options of :func:`report_html`) and the run's session."""

    certify: bool | None
    simulate_t: float | None
    form: str | None
    progress: Progress
    warn: Callable[[str], None] | None
    session: Session


def _seed_page(model, asked: _Asked) -> Iterator[str]:
    """A seed: its constraints, then their analysis (no system) or its equations of motion."""
    yield "<h2>Constraints</h2>" + _eq_rows((c, 0) for c in model.constraints)
    if model.system is None:
        yield html(analyze_constraints(model.space, list(model.constraints)))
    else:
        yield html(workbench.equations(model, None, progress=asked.progress, session=asked.session))


def _frame_page(model, asked: _Asked) -> Iterator[str]:
    """A kinematic model: its frame, structure coefficients and growth vector."""
    yield html(workbench.frame_view(model, progress=asked.progress, session=asked.session))
    yield html(workbench.growth_view(model, progress=asked.progress, session=asked.session))


def _mechanical_page(model, asked: _Asked) -> Iterator[str]:
    """A mechanical model: its system, the frame page, the equations of motion (with their
    LaTeX), the certificate (unless the frame is big) and a simulation."""
    session, progress = asked.session, asked.progress
    yield html(model.system)
    yield from _frame_page(model, asked)
    eqs = workbench.equations(model, asked.form, progress=progress, session=session)
    yield html(eqs)
    yield (f'<details><summary>LaTeX</summary><pre>{esc(display.equations_latex(eqs, simplify=for_display))}'
           '</pre></details>')
    certify = asked.certify
    if certify is None:
        certify = not workbench.is_big(workbench.frame(model, session=session))
        if not certify:
            yield ('<p class="note">Certificate skipped: the frame is big, deriving every form takes '
                   'minutes (geonh report --certify includes it).</p>')
    if certify:
        certs = workbench.certify_data(model, progress=progress, session=session)
        yield ("<h2>Certificate: every form against Lagrange's</h2><table><tr><th>form</th>"
               "<th>verdict</th><th>max |&Delta;q&#776;|</th><th>method</th></tr>"
               + "".join(f"<tr><td><code>{esc(n)}</code></td>{html(c)}</tr>" for n, c in certs.items())
               + "</table>")
    if asked.simulate_t:
        yield f"<h2>Simulation, 0 &le; t &le; {asked.simulate_t:g}</h2>"
        try:
            run = workbench.run_simulation(model, t_end=asked.simulate_t, form=asked.form, progress=progress,
                                           session=session)
        except BudgetExceededError:
            raise
        except (GeonhError, ImportError) as e:
            yield f'<p class="note">no simulation: {esc(str(e))}</p>'
            return
        for w in run.warnings:
            if asked.warn is not None:
                asked.warn(w)
        yield html(run)


#: the sections of a model's page by its kind (:data:`geonh.models.KINDS`)
PAGES: dict[str, Callable[[object, _Asked], Iterator[str]]] = {
    "seed": _seed_page, "kinematic": _frame_page, "mechanical": _mechanical_page}


def report_html(model, *, certify: bool | None = None, simulate_t: float | None = 10.0,
                form: str | None = None, progress: Progress = quiet,
                warn: Callable[[str], None] | None = None, session: Session | None = None) -> str:
    """The HTML page of `geonh report`: self-contained (MathML, no scripts; plots as base64 PNG).
    ``certify``: include the cross-form certificate (None: unless the frame is big).  The
    simulation's warnings (an initial state projected onto the constraints, ...) are shown
    on the page and, if given, passed to ``warn`` too.  ``session``: the run's derived results
    (default: a new one, so that the page derives each form once)."""
    asked = _Asked(certify, simulate_t, form, progress, warn, Session() if session is None else session)
    head = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>geonh report: "
             f"{esc(model.name)}</title><style>{_CSS}</style></head><body>"),
            f"<h1>geonh report: {esc(model.name)}</h1><p>{esc(model.description)}</p>",
            (f"<p>Coordinates: {', '.join(display.mathml(s, display=False) for s in model.space.coords)}"
             f" &mdash; geonh {esc(workbench.version())}</p>")]
    return "".join(head + list(PAGES[model.kind](model, asked)) + ["</body></html>"])
