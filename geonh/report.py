"""The self-contained HTML report on a model (``geonh report``).

:func:`report_html` builds one page from the results of :mod:`geonh.workbench` — system,
frame and structure coefficients, growth vector, equations of motion, the cross-form
certificate and a simulation — with the mathematics as MathML and the plots
(:mod:`geonh.plotting`, when matplotlib is installed) as inline base64 PNG: no scripts, no
files beside it.  :mod:`geonh.cli` writes it to a file; errors are those of the workbench.
"""
from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable

import sympy as sp

from . import display, models, workbench
from .errors import BudgetExceededError, GeonhError
from .systems import analyze_constraints
from .workbench import Progress, for_display, quiet

_CSS = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:left}
math{font-size:1.1em}.eq{margin:.4em 0;overflow-x:auto}.note{color:#555;font-size:.9em}
.warning{color:#8a2a00;font-weight:bold}
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


def _equation_rows(eqs) -> list:
    rows, kinematics = workbench.equation_rows(eqs)
    return rows + kinematics


def _png(fig, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def report_html(model, *, certify: bool | None = None, simulate_t: float | None = 10.0,
                form: str | None = None, progress: Progress = quiet,
                warn: Callable[[str], None] | None = None) -> str:
    """The HTML page of `geonh report`: self-contained (MathML, no scripts; plots as base64 PNG).
    ``certify``: include the cross-form certificate (None: unless the frame is big).  The
    simulation's warnings (an initial state projected onto the constraints, ...) are shown
    on the page and, if given, passed to ``warn`` too."""
    esc = html.escape
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>geonh report: "
              f"{esc(model.name)}</title><style>{_CSS}</style></head><body>"),
             f"<h1>geonh report: {esc(model.name)}</h1><p>{esc(model.description)}</p>",
             (f"<p>Coordinates: {', '.join(display.mathml(s, display=False) for s in model.space.coords)}"
              f" &mdash; geonh {esc(workbench.version())}</p>")]
    S = model.space
    if isinstance(model, models.SeedModel):
        parts.append("<h2>Constraints</h2>" + _eq_rows((c, 0) for c in model.constraints))
        if model.system is None:
            parts.append(f"<pre>{esc(analyze_constraints(S, list(model.constraints)).explain())}</pre>")
        else:
            eqs = workbench.equations(model, None, progress=progress)
            parts.append(f"<h2>Equations of motion ({esc(eqs.form)})</h2>" + _eq_rows(_equation_rows(eqs)))
        parts.append("</body></html>")
        return "".join(parts)
    if workbench.is_mechanical(model):
        sysm = model.system
        rows = [(sp.Symbol("T"), for_display(sysm.T)), (sp.Symbol("V"), sysm.V)]
        rows += [(sp.Symbol(f"Q_{q.name}"), f) for q, f in zip(S.q, sysm.Q) if f != 0]
        parts.append("<h2>System</h2>" + _eq_rows(rows))
        cons = []
        for form_ in sysm.constraints.forms if sysm.n_constraints else ():
            cons.append((sum((c * v for c, v in zip(form_.covector, S.velocities)), sp.S.Zero), 0))
        cons += [(h, 0) for h in sysm.holonomic]
        if cons:
            parts.append("<p>Constraints:</p>" + _eq_rows((for_display(a), b) for a, b in cons))
    data = workbench.show_data(model, progress=progress)
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
    if data["growth_vector"] is not None:
        try:
            from . import plotting
            fig = plotting.growth_vector_figure(data["growth_vector"], S.n, title=f"{model.name}: derived flag")
            parts.append(_png(fig, "growth vector"))
        except ImportError:  # no matplotlib (MissingDependencyError is an ImportError): no figure
            pass
    if not workbench.is_mechanical(model):
        parts.append("</body></html>")
        return "".join(parts)
    eqs = workbench.equations(model, form, progress=progress)
    parts.append(f"<h2>Equations of motion ({esc(eqs.form)})</h2>" + _eq_rows(_equation_rows(eqs)))
    parts.append(f'<details><summary>LaTeX</summary><pre>{esc(display.equations_latex(eqs, simplify=for_display))}'
                 '</pre></details>')
    if certify is None:
        certify = not workbench.is_big(workbench.frame(model))
        if not certify:
            parts.append('<p class="note">Certificate skipped: the frame is big, deriving every form takes '
                         'minutes (geonh report --certify includes it).</p>')
    if certify:
        certs = workbench.certify_data(model, progress=progress)
        parts.append("<h2>Certificate: every form against Lagrange's</h2><table><tr><th>form</th>"
                     "<th>verdict</th><th>max |&Delta;q&#776;|</th><th>method</th></tr>")
        for n, c in certs.items():
            parts.append(f"<tr><td><code>{esc(n)}</code></td><td>{'same motion' if c.same else 'DIFFERENT'}</td>"
                         f"<td>{c.max_residual:.3g}</td><td>{esc(c.method)}</td></tr>")
        parts.append("</table>")
    if simulate_t:
        parts.append(f"<h2>Simulation, 0 &le; t &le; {simulate_t:g}</h2>")
        try:
            run = workbench.run_simulation(model, t_end=simulate_t, form=form, progress=progress)
            traj = run.trajectory
            for w in run.warnings:
                parts.append(f'<p class="warning">Warning: {esc(w)}</p>')
                if warn is not None:
                    warn(w)
            from . import plotting
            parts.append(f"<p>{esc(repr(traj))}</p>")
            parts += [f'<p class="note">{esc(n)}</p>' for n in run.notes]
            parts.append(_png(plotting.overview(traj, title=model.name), "simulation"))
        except BudgetExceededError:
            raise
        except (GeonhError, ImportError) as e:
            parts.append(f'<p class="note">no simulation: {esc(str(e))}</p>')
    parts.append("</body></html>")
    return "".join(parts)
