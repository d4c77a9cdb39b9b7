"""The self-contained HTML report on a model (``geonh report``).

:func:`report_html` builds one page from the results of :mod:`geonh.app.workbench` — system,
frame and structure coefficients, growth vector, equations of motion in every certified form,
the cross-form certificate, the control verdicts (:mod:`geonh.app.controls`) and a simulation — with the mathematics as MathML and the plots
(:mod:`geonh.app.plotting`, when matplotlib is installed) as inline base64 PNG: no scripts, no
files beside it, nothing loaded from the network.  :mod:`geonh.app.cli` writes it to a file;
errors are those of the workbench.

The page is built from Jinja2 templates shipped in ``geonh/app/templates`` (the page,
``report.html``, and one template per object), with autoescaping on: every string that comes
from a model (its name, description, form names, notes) is escaped, and only the MathML made
here from sympy expressions (whose printer escapes symbol names) is inserted as markup.

Equations are laid out in aligned blocks (:func:`aligned`): one ``<math display="block">``
per group (the system, the quasi-velocities, the structure coefficients, a form's equations),
a three-column ``<mtable>`` whose ``=`` signs share a column, the right side of a long row
broken before a ``+`` or ``−`` onto continuation rows (no scrolling box beside an equation),
minus signs as U+2212, and the block's LaTeX (``aligned``) as its TeX annotation.

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
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache, singledispatch

import jinja2
import sympy as sp
from markupsafe import Markup

from ..analysis.certificate import Certificate
from ..equations.base import Equations
from ..errors import BudgetExceededError, GeonhError
from ..kernel import display
from ..systems import MechanicalSystem, analyze_constraints
from . import workbench
from .controls import ControlReport, control_verdicts
from .steadies import SteadyReport, declared_arguments, steady_report
from .workbench import FrameView, GrowthView, Progress, Session, SimulationRun, for_display, quiet

#: U+2212, the minus sign of typeset numbers and formulas
MINUS = "\u2212"

#: a right side whose MathML shows more characters than this is broken onto continuation rows
ROW_CHARS = 72


# -- numbers and text ------------------------------------------------------------------------------------------
def minus_signs(text: str) -> str:
    """``text`` with the hyphen-minus of each negative number as a minus sign (U+2212):
    ``-0.3`` and ``x -1`` change, ``60-digit``, ``tzenoff-II`` and ``1e-5`` do not."""
    return re.sub(r"(?<![\w.])-(?=\.?\d)", MINUS, str(text))


def number(x: float, digits: int = 6) -> Markup:
    """``x`` to ``digits`` significant digits as HTML, typeset: a minus sign (U+2212) if
    negative, and a power of ten as ``× 10`` with a superscript exponent
    (``2.97 × 10<sup>−61</sup>``, never ``2.97e-61``)."""
    mantissa, _, exponent = f"{float(x):.{digits}g}".partition("e")
    if not exponent:
        return Markup(minus_signs(mantissa))
    return Markup("{} \u00d7 10<sup>{}</sup>").format(minus_signs(mantissa), minus_signs(str(int(exponent))))


@lru_cache(maxsize=1)
def _templates() -> jinja2.Environment:
    """The report's templates (package data of geonh.app), autoescaped."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("geonh.app", "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["minus"] = minus_signs
    env.filters["num"] = number
    return env


def render(template: str, **values) -> Markup:
    """The HTML of template ``template`` (a file of ``geonh/app/templates``) with ``values``;
    strings among them are escaped, ``markupsafe.Markup`` is inserted as it is."""
    return Markup(_templates().get_template(template).render(**values))


# -- MathML ----------------------------------------------------------------------------------------------------
_MATH = re.compile(r'^<math[^>]*><semantics>(?P<body>.*)<annotation encoding="application/x-tex">'
                   r'(?P<tex>[^<]*)</annotation></semantics></math>$', re.S)


_PAREN = re.compile(r"<mo>([()])</mo>")
#: content that a fence should grow around (a fraction or a table); other fences keep the line's height
_TALL = ("<mfrac", "<mtable")


def _fences(body: str) -> str:
    """``body`` with the parentheses around content without a fraction not stretched (the
    browser's stretched fence around θ or a² is taller than the line)."""
    fixed: set[int] = set()
    stack: list[re.Match] = []
    for m in _PAREN.finditer(body):
        if m.group(1) == "(":
            stack.append(m)
        elif stack:
            opening = stack.pop()
            if not any(t in body[opening.end():m.start()] for t in _TALL):
                fixed.update((opening.start(), m.start()))
    if not fixed:
        return body
    return _PAREN.sub(lambda m: f'<mo stretchy="false">{m.group(1)}</mo>' if m.start() in fixed else m.group(0),
                      body)


def _math_minus(body: str) -> str:
    """MathML with its minus operators and negative numbers written with U+2212, and its
    parentheses sized (:func:`_fences`)."""
    return _fences(body.replace("<mo>-</mo>", f"<mo>{MINUS}</mo>").replace("<mn>-", f"<mn>{MINUS}"))


@lru_cache(maxsize=2048)
def _parts(expr) -> tuple[str, str]:
    """(presentation MathML body, LaTeX) of ``expr`` (:func:`geonh.kernel.display.mathml`, its
    TeX annotation); cached, as a row's width, its pieces and its LaTeX print the same terms."""
    m = _MATH.match(display.mathml(expr, display=False))
    if m is None:  # pragma: no cover - display.mathml's format is fixed (a test pins it)
        raise GeonhError("display.mathml returned no <math><semantics> element")
    return _math_minus(m.group("body")), _html.unescape(m.group("tex"))


def inline(expr) -> Markup:
    """An inline ``<math>`` of ``expr`` (with its LaTeX annotation)."""
    body, tex = _parts(expr)
    return Markup('<math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow>{}</mrow>'
                  '<annotation encoding="application/x-tex">{}</annotation></semantics></math>').format(
        Markup(body), tex)


def _visible_chars(mathml_body: str) -> int:
    """How many characters a MathML body shows (its text, an entity counting as one)."""
    text = re.sub(r"<[^>]*>", "", mathml_body).replace("&InvisibleTimes;", "")
    return len(re.sub(r"&#?\w+;", "x", text))


def _wide(expr) -> bool:
    return isinstance(expr, sp.Basic) and not display.too_big(expr) and _visible_chars(_parts(expr)[0]) > ROW_CHARS


def _terms(rhs) -> list:
    """The terms of ``rhs``, a wide product with a sum among its factors multiplied out (at its
    top level: c (a + b) -> c a + c b; at most three rounds), so that a long right side has
    places to break."""
    terms = list(sp.Add.make_args(rhs))
    for _ in range(3):
        out = []
        for t in terms:
            if isinstance(t, sp.Mul) and any(isinstance(f, sp.Add) for f in t.args) and _wide(t):
                out += sp.Add.make_args(t.expand(deep=False, mul=True, multinomial=False, power_exp=False,
                                                 power_base=False, log=False))
            else:
                out.append(t)
        if len(out) == len(terms):
            break
        terms = out
    return terms


def _pieces(rhs) -> list:
    """The right side ``rhs`` cut before terms (:func:`_terms`) so that each piece's MathML
    shows at most :data:`ROW_CHARS` characters (a piece of one term may show more); one piece
    if it fits."""
    if not _wide(rhs):
        return [rhs]
    terms = _terms(rhs)
    if len(terms) == 1:
        return [rhs]
    terms = sp.Add(*terms, evaluate=False).as_ordered_terms()
    pieces: list[list] = [[]]
    width = 0
    for term in terms:
        w = _visible_chars(_parts(term)[0]) + 3
        if pieces[-1] and width + w > ROW_CHARS:
            pieces.append([])
            width = 0
        pieces[-1].append(term)
        width += w
    return [sp.Add(*p, evaluate=False) if len(p) > 1 else p[0] for p in pieces]


def _negative_first(piece) -> bool:
    """Does ``piece`` print with a leading minus (its first term, in the printer's order, negative)?"""
    first = piece.as_ordered_terms()[0] if isinstance(piece, sp.Add) else piece
    return bool(first.could_extract_minus_sign())


def _side(expr) -> tuple[str, str]:
    """(MathML, LaTeX) of one side of a row; a placeholder for an expression too big to show."""
    if display.too_big(expr):
        text = f"[expression of more than {display.DISPLAY_NODES} nodes, not shown]"
        return f"<mtext>{text}</mtext>", rf"\text{{{text}}}"
    return _parts(expr)


def _block(pairs: Iterable[tuple]) -> tuple[Markup, list[str]]:
    """(the display block of :func:`aligned`, each equation's LaTeX ``lhs = rhs`` on its own)."""
    rows, tex_rows, equations = [], [], []
    for lhs, rhs in pairs:
        if rhs == 0 and _wide(lhs):            # a long constraint reads 0 = …, broken like a right side
            lhs, rhs = sp.S.Zero, lhs
        left, left_tex = _side(lhs)
        pieces = [rhs] if display.too_big(rhs) else _pieces(rhs)
        for k, piece in enumerate(pieces):
            right, right_tex = _side(piece)
            if k == 0:
                rows.append(f"<mtr><mtd>{left}</mtd><mtd><mo>=</mo></mtd><mtd>{right}</mtd></mtr>")
                tex_rows.append(f"{left_tex} &= {right_tex}")
                continue
            sign = "" if _negative_first(piece) else "<mo>+</mo>"
            rows.append(f"<mtr><mtd></mtd><mtd></mtd><mtd><mrow>{sign}<mspace width=\"0.5em\"></mspace>"
                        f"{right}</mrow></mtd></mtr>")
            tex_rows.append(rf"&\quad {'' if sign == '' else '+ '}{right_tex}")
        equations.append(f"{left_tex} = {_side(rhs)[1] if len(pieces) > 1 else right_tex}")
    if not rows:
        return Markup(""), []
    tex = r"\begin{aligned}" + r" \\ ".join(tex_rows) + r"\end{aligned}"
    return Markup('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics>'
                  '<mtable class="aligned" columnalign="right center left">{}</mtable>'
                  '<annotation encoding="application/x-tex">{}</annotation></semantics></math>').format(
        Markup("".join(rows)), tex), equations


def aligned(pairs: Iterable[tuple]) -> Markup:
    """One display block of the equations ``lhs = rhs`` of ``pairs``, their ``=`` in one
    column (a three-column ``<mtable class="aligned">``); a right side wider than
    :data:`ROW_CHARS` characters continues on the next rows, broken before a term, each
    continuation starting with its ``+`` or ``−`` (so no equation needs a scrolling box).  The
    TeX annotation is the block as LaTeX's ``aligned``.  Empty for no pairs."""
    return _block(pairs)[0]


def _png(fig, alt: str) -> Markup:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return render("figure.html", alt=alt, data=base64.b64encode(buf.getvalue()).decode("ascii"))


# -- how each object shows on the page: one table, keyed by type ----------------------------------------------
@singledispatch
def html(obj) -> str:
    """The HTML of one object of the report page.  Registered: :class:`~geonh.MechanicalSystem`
    (T, V, the forces and the constraints), :class:`~geonh.Equations` (M x = F row by row and
    the kinematics), a :class:`~geonh.Certificate` (the cells of its row), and the workbench's
    :class:`~geonh.app.workbench.FrameView`, :class:`~geonh.app.workbench.GrowthView` and
    :class:`~geonh.app.workbench.SimulationRun`.  Any other object shows its own text form
    (``str``), preformatted."""
    return render("text.html", text=str(obj))


@html.register
def _system(sysm: MechanicalSystem) -> str:
    S = sysm.space
    rows = [(sp.Symbol("T"), for_display(sysm.T)), (sp.Symbol("V"), sysm.V)]
    rows += [(sp.Symbol(f"Q_{q.name}"), f) for q, f in zip(S.q, sysm.Q) if f != 0]
    cons = [(sum((c * v for c, v in zip(form.covector, S.velocities)), sp.S.Zero), 0)
            for form in (sysm.constraints.forms if sysm.n_constraints else ())]
    cons += [(h, 0) for h in sysm.holonomic]
    return render("system.html", energies=aligned(rows),
                  constraints=aligned((for_display(a), b) for a, b in cons))


@html.register
def _frame_view(view: FrameView) -> str:
    return render("frame.html",
                  quasi_velocities=aligned((sp.Symbol(n), v) for n, v in view.quasi_velocities.items()),
                  coefficients=aligned((sp.Symbol(f"c^{d}_{a}{b}"), v) for d, a, b, v in view.structure_coefficients),
                  unsimplified=view.unsimplified)


def _growth_text(growth) -> str:
    return "not computed" if growth is None else "(" + ", ".join(str(int(g)) for g in growth) + ")"


@html.register
def _growth_view(grown: GrowthView) -> str:
    figure = None
    if grown.growth_vector is not None:
        try:
            from . import plotting
        except ImportError:
            plotting = None  # type: ignore[assignment]
        if plotting is not None:
            figure = _png(plotting.growth_vector_figure(grown.growth_vector, grown.n,
                                                        title=f"{grown.name}: derived flag"), "growth vector")
    return render("growth.html", growth=_growth_text(grown.growth_vector), verdict=grown.verdict, figure=figure)


@html.register
def _control(rep: ControlReport) -> str:
    rows = [{"question": v.question, "answer": "holds" if v.holds else ("fails" if v.final else "not decided"),
             "witness": [(n, ", ".join(str(c) for c in vals)) for n, vals in zip(v.witness, v.values)],
             "reason": v.reason, "legend": v.legend, "source": v.source, "seconds": v.seconds}
            for v in rep.verdicts]
    return render("control.html", inputs=", ".join(rep.inputs), point=", ".join(f"{k} = {v}" for k, v in rep.point.items()),
                  growth=_growth_text(rep.growth) if rep.growth else None, verdicts=rows, skipped=rep.skipped)


#: the report's control section is automatic for mechanical models of at most this many coordinates
CONTROL_MAX_COORDINATES = 3


def _control_section(model, asked: "_Asked") -> Iterator[str]:
    """The control verdicts (:func:`~geonh.app.controls.control_verdicts`) with the model's own
    inputs: always for a kinematic model, for a mechanical one with force symbols when asked
    (``control=True``) or, by default, when it has at most ``CONTROL_MAX_COORDINATES``
    coordinates (the symmetric products of bigger systems take minutes)."""
    want = asked.control
    if want is False:
        return
    if model.kind == "mechanical" and want is None and model.space.n > CONTROL_MAX_COORDINATES:
        return
    try:
        rep = control_verdicts(model)
    except BudgetExceededError:
        raise
    except GeonhError as e:
        if want:
            yield Markup('<h2>Control</h2><p class="note">no control verdicts: {}</p>').format(minus_signs(str(e)))
        return
    yield html(rep)


@html.register
def _equations(eqs: Equations) -> str:
    """M x = F row by row and the kinematics in one aligned block (without the rows that say
    q̇ = q̇: a speed that is a coordinate's velocity, as in Voronets' form), and their LaTeX,
    one equation a line."""
    rows, kinematics = workbench.equation_rows(eqs)
    block, tex = _block(rows + [(v, k) for v, k in kinematics if v != k])
    return render("equations.html", form=eqs.form, block=block, tex="\n".join(tex))


def _method(cert: Certificate) -> str:
    """The certificate's method, with the number of its random states."""
    if cert.method.startswith("random states"):
        return f"{cert.states} {cert.method}"
    return cert.method


@html.register
def _certificate(cert: Certificate) -> str:
    return render("certificate.html", verdict="same motion" if cert.same else "DIFFERENT",
                  residual=number(cert.max_residual, 3), method=_method(cert))


def _state(names: Iterable[str]) -> Markup:
    """The state variables as an inline tuple (x, y, θ, …)."""
    return inline(sp.Tuple(*(sp.Symbol(n) for n in names)))


@html.register
def _simulation(run: SimulationRun) -> str:
    traj = run.trajectory
    values = dict(warnings=run.warnings, notes=run.notes, error=None, times=len(traj.t), start=0.0, end=0.0,
                  projected=False, state="", figure="")
    try:
        from . import plotting
        values.update(start=float(traj.t[0]), end=float(traj.t[-1]), projected=bool(traj.projected),
                      state=_state(list(traj.q_names) + list(traj.u_names)))
        values["figure"] = _png(plotting.overview(traj, title=run.name), "simulation")
    except BudgetExceededError:
        raise
    except (GeonhError, ImportError) as e:
        values["error"] = str(e)
    return render("simulation.html", **values)


def _runs(grid: list, verdicts: list) -> list[tuple[str, float, float]]:
    """(verdict, first value, last value) of each run of equal verdicts along the grid."""
    runs: list = []
    for x, v in zip(grid, verdicts):
        if runs and runs[-1][0] == v:
            runs[-1][2] = x
        else:
            runs.append([v, x, x])
    return [tuple(r) for r in runs]


def _assignments(values: dict) -> Markup:
    """{name or symbol: expression} as inline equations, comma separated."""
    return Markup(", ").join(inline(sp.Eq(sp.Symbol(str(k)), v, evaluate=False)) for k, v in values.items())


@html.register
def _steady(rep: SteadyReport) -> str:
    """The families of relative equilibria, each with ξ, its stability conditions (all > 0, one
    aligned block), the runs of equal verdicts along the swept parameter and the eigenvalue
    diagram."""
    fams = []
    for f in rep.families:
        xi = inline(sp.Eq(sp.Symbol("xi"), sp.Tuple(*f.motion.xi), evaluate=False))
        b = f.boundary
        row = {"xi": xi, "conditions": [inline(sp.StrictGreaterThan(c, 0)) for c in f.conditions],
               "kind": b.kind if b else "", "zeros": b.zeros if b else 0, "family_zeros": b.family_zeros if b else 0,
               "note": f.boundary_note, "parameter": inline(sp.Symbol(rep.parameter)) if rep.parameter else "",
               "runs": [], "verdict": "",
               "given": _assignments(rep.member) if rep.member else "", "figure": ""}
        if f.grid:
            row["runs"] = _runs(f.grid, f.verdicts)
            try:
                from . import plotting
                row["figure"] = _png(plotting.eigenvalues_figure(
                    f.grid, f.eigenvalues, parameter=str(rep.parameter),
                    title=f"{rep.model}: eigenvalues against {rep.parameter}"), "eigenvalue diagram")
            except ImportError:
                pass
        elif f.verdicts:
            row["verdict"] = f.verdicts[0]
        fams.append(row)
    parsed = rep.families[0].motion.generators if rep.families else ()
    gens = Markup(", ").join(inline(sp.Eq(sp.Symbol(f"X_{a}"), sp.Tuple(*g), evaluate=False))
                             for a, g in enumerate(parsed, 1))
    count = f"{len(rep.families)} famil{'y' if len(rep.families) == 1 else 'ies'}"
    return render("steady.html", generators=gens, form=rep.form, fixed=_assignments(rep.at) if rep.at else "",
                  params=_assignments(rep.params) if rep.params else "", count=count, source=rep.source,
                  families=fams)


def _steady_section(model, asked: "_Asked") -> Iterator[str]:
    """The steady motions of the model's declared symmetry (:func:`~geonh.app.steadies.declared_arguments`):
    by default for a model that declares one, on request (``steady=True``) with a note when it
    declares none."""
    if asked.steady is False:
        return
    if getattr(model, "symmetry", None) is None:
        if asked.steady:
            yield Markup('<h2>Steady motions</h2><p class="note">{} declares no symmetry (geonh steady {} '
                         '--generator … computes them for given generators).</p>').format(model.name, model.name)
        return
    try:
        rep = steady_report(model, form=asked.form, progress=asked.progress, session=asked.session,
                            **declared_arguments(model))
    except BudgetExceededError:
        raise
    except GeonhError as e:
        yield Markup('<h2>Steady motions</h2><p class="note">no steady motions: {}</p>').format(minus_signs(str(e)))
        return
    yield html(rep)


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
    control: bool | None = None
    steady: bool | None = None


def _seed_page(model, asked: _Asked) -> Iterator[str]:
    """A seed: its constraints, then their analysis (no system) or its equations of motion."""
    yield Markup("<h2>Constraints</h2>") + aligned((c, 0) for c in model.constraints)
    if model.system is None:
        yield html(analyze_constraints(model.space, list(model.constraints)))
    else:
        yield html(workbench.equations(model, None, progress=asked.progress, session=asked.session))


def _frame_page(model, asked: _Asked) -> Iterator[str]:
    """A kinematic model: its frame, structure coefficients and growth vector."""
    yield html(workbench.frame_view(model, progress=asked.progress, session=asked.session))
    yield html(workbench.growth_view(model, progress=asked.progress, session=asked.session))


def _kinematic_page(model, asked: _Asked) -> Iterator[str]:
    """A kinematic model: the frame page and the control section."""
    yield from _frame_page(model, asked)
    yield from _control_section(model, asked)


def _mechanical_page(model, asked: _Asked) -> Iterator[str]:
    """A mechanical model: its system, the frame page, the equations of motion (with their
    LaTeX), the certificate (unless the frame is big) with the equations in every certified
    form, and a simulation."""
    session, progress = asked.session, asked.progress
    yield html(model.system)
    yield from _frame_page(model, asked)
    eqs = workbench.equations(model, asked.form, progress=progress, session=session)
    yield html(eqs)
    certify = asked.certify
    if certify is None:
        certify = not workbench.is_big(workbench.frame(model, session=session))
        if not certify:
            yield Markup('<p class="note">Certificate skipped: the frame is big, deriving every form takes '
                         'minutes (geonh report --certify includes it).</p>')
    if certify:
        certs = workbench.certify_data(model, progress=progress, session=session)
        yield render("certificates.html", rows=[(n, html(c)) for n, c in certs.items()])
    yield from _control_section(model, asked)
    yield from _steady_section(model, asked)
    if asked.simulate_t:
        yield Markup("<h2>Simulation, 0 &le; t &le; {}</h2>").format(number(asked.simulate_t))
        try:
            run = workbench.run_simulation(model, t_end=asked.simulate_t, form=asked.form, progress=progress,
                                           session=session)
        except BudgetExceededError:
            raise
        except (GeonhError, ImportError) as e:
            yield Markup('<p class="note">no simulation: {}</p>').format(minus_signs(str(e)))
            return
        for w in run.warnings:
            if asked.warn is not None:
                asked.warn(w)
        yield html(run)


#: the sections of a model's page by its kind (:data:`geonh.models.KINDS`)
PAGES: dict[str, Callable[[object, _Asked], Iterator[str]]] = {
    "seed": _seed_page, "kinematic": _kinematic_page, "mechanical": _mechanical_page}


def report_html(model, *, certify: bool | None = None, simulate_t: float | None = 10.0,
                form: str | None = None, progress: Progress = quiet,
                warn: Callable[[str], None] | None = None, session: Session | None = None,
                control: bool | None = None, steady: bool | None = None) -> str:
    """The HTML page of `geonh report` (template ``report.html``): self-contained (MathML, no
    scripts; plots as base64 PNG).  ``certify``: include the cross-form certificate (None:
    unless the frame is big).  The simulation's warnings (an initial state projected onto the
    constraints, ...) are shown on the page and, if given, passed to ``warn`` too.
    ``session``: the run's derived results (default: a new one, so that the page derives each
    form once).  ``control``: include the control verdicts with the model's own inputs
    (None: for kinematic models, and mechanical ones with force symbols and at most
    ``CONTROL_MAX_COORDINATES`` coordinates).  ``steady``: include the steady motions of the
    model's declared symmetry (:class:`geonh.models.Symmetry`) with their stability boundary
    and eigenvalue diagram (None: when the model declares one)."""
    asked = _Asked(certify, simulate_t, form, progress, warn, Session() if session is None else session, control,
                   steady)
    sections = [Markup(s) for s in PAGES[model.kind](model, asked)]
    coordinates = Markup(", ").join(inline(s) for s in model.space.coords)
    return str(render("report.html", name=model.name, description=model.description, coordinates=coordinates,
                      version=workbench.version(), sections=sections))
