"""Display: LaTeX and MathML of geonh's objects, with dot accents, and bounded simplification.

Velocity and acceleration symbols are plain sympy Symbols named ``<q>_dot`` and ``<q>_ddot``
(:class:`~geonh.kernel.space.ConfigurationSpace`); sympy would print ``x_dot`` as
``x_{dot}``.  Here a symbol prints by its *role*, never by its name: the objects that create
rate symbols register them (:func:`register_rate`: the space its q̇ and q̈, the equations their
speeds' rates u̇ and speeds that are coordinate velocities), and a rate prints as a dot over
what it is the rate of — ``\\dot{x}``, ``\\ddot{x}`` for a rate of a rate (the Voronets
speeds' rates ``x_dot_dot`` too), ``\\dot{\\theta}_{R}`` for ``theta_R_dot``, ``\\dot{v}``
for a quasi-velocity's rate; any other symbol prints by its own name.  Frames' quasi-velocity
names follow the same rule (:func:`frame_name_latex`: a quasi-velocity that is a coordinate's
velocity prints as its dot).  In LaTeX (:func:`latex`) and in presentation MathML
(:func:`mathml`, used by ``geonh report``).

:func:`render_latex` renders an :class:`~geonh.Equations`, a :class:`~geonh.Frame` (its
quasi-velocities, fields and structure coefficients), a
:class:`~geonh.TranspositionalRelations` or a :class:`~geonh.MechanicalSystem`; the classes'
``_repr_latex_`` hooks (Jupyter) delegate to it.  The objects are recognised by their
attributes, so this module imports nothing of geonh above the errors and may be called from
every layer.

Everything shown to a user goes through one tidying step, :func:`simplified_for_display`
(:func:`for_display` for expressions, matrices and arrays): ``cancel`` and ``trigsimp`` on small
expressions (:func:`shorten_for_display`, at most DISPLAY_LIMIT operations), the reduction
modulo sin² + cos² = 1 (:func:`~geonh.kernel.trig.shorten_trig`) on mid-sized trigonometric
ones; an expression beyond REDUCE_NODES tree nodes, REDUCE_ANGLES angles or with a fractional
power is shown as computed (sympy's ``trigsimp`` on the frame of the Whipple bicycle runs for
minutes).  The step is display only: the ``_repr_latex_``/``_repr_html_`` hooks, the renderers
here, the LaTeX and pretty printing of a frame's structure coefficients
(:class:`~geonh.kernel.backend.LazyArray`), the command line and the report; the engine's
results are never replaced.  Unicode Greek letters in symbol names print as TeX
(:func:`name_latex`: ``π1`` → ``\\pi_{1}``).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter

from ..moved import package_getattr
from ..errors import DimensionError, ParseError
from .elementary import TRIG_FUNCTIONS
from .parsing import as_sequence, expr_of, sympy_of
from .trig import shorten_trig

__all__ = ["DISPLAY_LIMIT", "DISPLAY_NODES", "REDUCE_ANGLES", "REDUCE_NODES", "balanced", "for_display",
           "simplified_for_display", "short_number", "dotted_names", "equations_latex", "field_text",
           "frame_latex", "frame_name_latex", "latex", "name_latex", "mathml", "rate_role", "register_rate", "relations_latex",
           "render_latex", "repr_latex", "structure_latex", "system_latex", "shorten_for_display", "shorten_all_for_display", "too_big"]

# not in __all__: the renderers of the classes' _repr_latex_/_repr_html_ (field_latex, form_latex,
# span_latex, matrix_latex, html_table, short_text, short_numbers), called by those classes only

#: expressions with more operations than this are displayed unsimplified
DISPLAY_LIMIT = 150

#: rate symbol -> the symbol it is the time derivative of (filled by the objects that create the
#: symbols: ConfigurationSpace for q̇ and q̈, the speed symbols and Equations for u and u̇)
_RATE_OF: dict = {}

#: LaTeX accents by order of the time derivative
_TEX_ACCENTS = {1: "dot", 2: "ddot", 3: "dddot", 4: "ddddot"}
#: MathML accent characters by order
_ML_ACCENTS = {1: "\u02d9", 2: "\u00a8", 3: "\u20db", 4: "\u20dc"}


def register_rate(rate: sp.Symbol, of: sp.Symbol) -> None:
    """Record the role of ``rate``: it is the time derivative of ``of``.  Display follows roles,
    never names: a rate prints as a dot over what it is the rate of, a rate of a rate as a
    double dot (q̈ of a coordinate whatever the symbol is called: the Voronets speeds' rates
    ``x_dot_dot`` print as ẍ), any other symbol by its own name."""
    if isinstance(rate, sp.Symbol) and isinstance(of, sp.Symbol) and rate != of:
        _RATE_OF[rate] = of


def rate_role(sym) -> tuple[sp.Symbol, int] | None:
    """(the symbol ``sym`` is a time derivative of, the order), following registered rates to
    the first symbol that is no rate; None for a symbol that is no registered rate."""
    if not isinstance(sym, sp.Symbol):
        return None
    order, s = 0, sym
    while s in _RATE_OF and order < 8:
        s = _RATE_OF[s]
        order += 1
    return (s, order) if order else None


#: expressions with more tree nodes than this are not printed by the display functions
DISPLAY_NODES = 2000


def too_big(expr, nodes: int = DISPLAY_NODES) -> bool:
    """Has ``expr`` more than ``nodes`` tree nodes?  (Stops counting there: cheap on huge
    expressions, unlike ``count_ops`` or ``str``.)"""
    if not isinstance(expr, sp.Basic):
        return False
    for i, _ in enumerate(sp.preorder_traversal(expr)):
        if i >= nodes:
            return True
    return False


def _tex(expr) -> str:
    """:func:`latex`, or a placeholder for an expression with more than DISPLAY_NODES nodes."""
    if too_big(expr):
        return rf"	ext{{[expression of more than {DISPLAY_NODES} nodes, not shown]}}"
    return latex(expr)


#: at most this many distinct arguments of sin/cos/tan for trigsimp (its cost grows fast with them)
_TRIG_ARGUMENTS = 3


def _cheap(expr: sp.Expr, limit: int) -> bool:
    """Will ``trigsimp`` finish quickly?  Measured on the Whipple bicycle's frame: entries of
    130–150 operations with 5–6 angles and a square root run for minutes, while entries with few
    angles and no roots finish in milliseconds."""
    if sp.count_ops(expr) > limit:
        return False
    if len({f.args[0] for f in expr.atoms(*TRIG_FUNCTIONS)}) > _TRIG_ARGUMENTS:
        return False
    return not any(not p.exp.is_Integer for p in expr.atoms(sp.Pow))


def shorten_for_display(expr, limit: int = DISPLAY_LIMIT) -> tuple[sp.Expr, bool]:
    """(expression for display, whether it was simplified).  Small expressions are
    simplified (``cancel`` then ``trigsimp``, the smaller of the candidates kept); expressions
    with more than ``limit`` operations, more than three angles or a fractional power are
    returned as they are (their simplification can run for minutes)."""
    expr = sympy_of(expr)
    if not isinstance(expr, sp.Expr) or expr.is_number or not _cheap(expr, limit):
        return expr, False
    best = expr
    try:
        for cand in (sp.trigsimp(sp.cancel(expr)), sp.trigsimp(expr)):
            if sp.count_ops(cand) < sp.count_ops(best):
                best = cand
    except (sp.PolynomialError, TypeError, ValueError, NotImplementedError):  # pragma: no cover
        return expr, False
    return best, True


def shorten_all_for_display(exprs: Iterable, limit: int = DISPLAY_LIMIT) -> tuple[list, int]:
    """:func:`shorten_for_display` of each expression; returns (expressions, number left unsimplified)."""
    out, skipped = [], 0
    for e in as_sequence(exprs, "expressions"):
        t, ok = shorten_for_display(e, limit)
        out.append(t)
        skipped += (not ok) and isinstance(t, sp.Expr) and not t.is_number
    return out, skipped


#: the reduction modulo sin² + cos² = 1 (:func:`~geonh.kernel.trig.shorten_trig`) is tried on
#: expressions up to this many tree nodes with at most REDUCE_ANGLES angles and no roots;
#: measured: the heavy top's forcing, 1623 operations, comes out at 12 in 0.7 s
REDUCE_NODES = 4000
REDUCE_ANGLES = 3


def simplified_for_display(expr) -> tuple[sp.Expr, bool]:
    """(expression shown to a user, whether it was simplified): the one tidying step of
    everything geonh displays.  Small expressions (at most DISPLAY_LIMIT operations) go through
    :func:`shorten_for_display` (``cancel``, ``trigsimp``); mid-sized trigonometric ones (at most
    REDUCE_NODES tree nodes, REDUCE_ANGLES angles, no fractional powers) are reduced modulo
    sin² + cos² = 1 (:func:`~geonh.kernel.trig.shorten_trig`); larger ones (the Whipple bicycle's)
    stay as computed.  Never run on the engine's results: only by display and by
    :func:`for_display`, which a user calls."""
    e = sympy_of(expr)
    out, ok = shorten_for_display(e)
    if ok or not isinstance(e, sp.Expr) or e.is_number or too_big(e, REDUCE_NODES):
        return out, ok
    args = {f.args[0] for f in e.atoms(*TRIG_FUNCTIONS)}
    if len(args) > REDUCE_ANGLES or any(not p.exp.is_Integer for p in e.atoms(sp.Pow)):
        return out, False
    r, reduced = shorten_trig(e)
    if reduced and sp.count_ops(r) <= DISPLAY_LIMIT:
        r = shorten_for_display(r)[0]   # the reduced form is small: cancel and trigsimp it too
    return (r, True) if reduced else (out, False)


def for_display(obj):
    """``obj`` (an expression, a Matrix, an Array or a list or tuple of them) as shown to a user:
    each entry through :func:`simplified_for_display` (size-bounded; an entry too big to simplify
    quickly stays as computed).  A new object: the engine's results are never changed."""
    if isinstance(obj, (list, tuple)):
        return type(obj)(for_display(e) for e in obj)
    obj = sympy_of(obj, what="expression to display")
    if isinstance(obj, sp.MatrixBase):
        return sp.ImmutableMatrix(obj.rows, obj.cols, [for_display(e) for e in obj])
    if isinstance(obj, sp.NDimArray):
        flat = sp.flatten(obj.tolist()) if obj.rank() else [obj[()]]
        return sp.ImmutableDenseNDimArray([for_display(e) for e in flat], obj.shape)
    if isinstance(obj, (list, tuple)):  # sympy_of of a sequence of expressions
        return type(obj)(for_display(e) for e in obj)
    if not isinstance(obj, sp.Basic):
        raise ParseError(f"for_display takes expressions, matrices or arrays, not {type(obj).__name__}")
    return simplified_for_display(obj)[0]


def short_number(x, digits: int = 6) -> str:
    """A number as text with ``digits`` significant digits (``1.36029e-60``, ``0.5+2j``): what
    short reprs show instead of 60-digit values."""
    if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 30:
        raise ParseError(f"digits is a whole number from 1 to 30, not {digits!r:.40}")
    if isinstance(x, sp.Basic):
        if not x.is_number:
            return str(x)
        x = complex(x) if not x.is_real else float(x)
    try:
        z = complex(x)
    except (TypeError, ValueError):
        return str(x)
    if z.imag == 0:
        return f"{z.real:.{digits}g}"
    return f"{z.real:.{digits}g}{z.imag:+.{digits}g}j"


def short_numbers(xs, digits: int = 6, most: int = 8) -> str:
    """``[a, b, …]`` of :func:`short_number`, the first ``most`` and a count of the rest."""
    xs = list(xs)
    body = ", ".join(short_number(x, digits) for x in xs[:most])
    more = f", … ({len(xs) - most} more)" if len(xs) > most else ""
    return f"[{body}{more}]"


def _accented(inner: str, order: int) -> str:
    """``inner`` (the LaTeX of a symbol) with an order-``order`` time-derivative accent on its
    head: ``\\theta_{R}`` -> ``\\dot{\\theta}_{R}``."""
    acc = _TEX_ACCENTS.get(order)
    m = re.match(r"^(\\[A-Za-z]+|[^_^\\{]+)(.*)$", inner)
    head, rest = (m.group(1), m.group(2)) if m else (inner, "")
    if acc is None:
        return rf"\overset{{({order})}}{{{head}}}{rest}"
    return rf"\{acc}{{{head}}}{rest}"


def _greek_word(ch: str) -> str | None:
    """``pi`` for π, ``Omega`` for Ω (the TeX name of a Greek letter), None for another character."""
    words = unicodedata.name(ch, "").split()
    if len(words) < 4 or words[0] != "GREEK" or words[2] != "LETTER":
        return None
    word = words[-1].lower()
    return word.capitalize() if words[1] == "CAPITAL" else word


def name_latex(name: str) -> str:
    """LaTeX of a symbol's name, Greek letters written in Unicode included: ``π1`` ->
    ``\\pi_{1}``, ``δx`` -> ``\\delta x``, ``δtheta`` -> ``\\delta \\theta`` (TeX has no
    Unicode letters; sympy would print ``π_{1}``)."""
    word = _greek_word(name[0]) if name else None
    if word is None:
        return sp.latex(sp.Symbol(name))
    rest = name[1:]
    if not rest or rest[0].isdigit() or rest[0] == "_":
        return sp.latex(sp.Symbol(word + rest))
    return "\\" + word + " " + name_latex(rest)


def _plain_latex(sym) -> str:
    """LaTeX of a symbol by its name (Unicode Greek letters as TeX)."""
    if isinstance(sym, sp.Symbol) and not sym.name.isascii():
        return name_latex(sym.name)
    return sp.latex(sym)


def _symbol_latex(sym: sp.Symbol) -> str:
    role = rate_role(sym)
    if role is None:
        return _plain_latex(sym)
    base, order = role
    return _accented(_plain_latex(base), order)


def dotted_names(exprs) -> dict:
    """``symbol_names`` for :func:`sympy.latex <sympy.printing.latex.latex>`: every rate symbol of ``exprs`` (by its
    registered role, :func:`register_rate`) with its dot accent."""
    if isinstance(exprs, sp.Basic):
        exprs = [exprs]
    out = {}
    for e in as_sequence(exprs, "expressions"):
        e = sympy_of(e, what="expression")
        for s in (e.free_symbols if isinstance(e, (sp.Basic, sp.MatrixBase)) else dotted_names(e)):
            if isinstance(s, sp.Symbol) and (rate_role(s) is not None or not s.name.isascii()):
                out[s] = _symbol_latex(s)
    return out


def latex(expr, **settings) -> str:
    """``sympy.latex(expr)`` with dot accents on rate symbols (by role, :func:`register_rate`)."""
    expr = sympy_of(expr, what="expression")
    names = dotted_names(expr if isinstance(expr, sp.Basic) else [expr])
    names.update(settings.pop("symbol_names", {}))
    return sp.latex(expr, symbol_names=names, **settings)


#: an ampersand that starts no character reference (sympy's MathML text carries ``&InvisibleTimes;``, ``&#xB7;``)
_BARE_AMPERSAND = re.compile(r"&(?!#?\w+;)")


class _DotPrinter(MathMLPresentationPrinter):
    """Presentation MathML with ``<mover>`` dot accents on rate symbols (by role), its text
    escaped: sympy's printer writes text nodes raw (so that its entities survive), and a
    symbol named ``<script>`` or the ``<`` of a relation would be markup."""

    def __init__(self, settings=None):
        super().__init__(settings)
        raw = self.dom.createTextNode
        self.dom.createTextNode = lambda data: raw(
            _BARE_AMPERSAND.sub("&amp;", str(data)).replace("<", "&lt;").replace(">", "&gt;"))

    def _print_Symbol(self, sym, style="plain"):
        role = rate_role(sym)
        if role is None:
            return super()._print_Symbol(sym, style)
        base, order = role
        el = super()._print_Symbol(base, style)
        target = el
        if el.nodeName in ("msub", "msup", "msubsup") and el.childNodes:
            target = el.childNodes[0]
        over = self.dom.createElement("mover")
        over.setAttribute("accent", "true")
        mo = self.dom.createElement("mo")
        mo.appendChild(self.dom.createTextNode(_ML_ACCENTS.get(order, "(" + str(order) + ")")))
        parent = target.parentNode
        if target is el:
            over.appendChild(el)
            over.appendChild(mo)
            return over
        parent.replaceChild(over, target)
        over.appendChild(target)
        over.appendChild(mo)
        return el

    _print_Dummy = _print_Symbol


def mathml(expr, *, display: bool = True) -> str:
    """Presentation MathML of ``expr`` (a ``<math>`` element that browsers render without
    scripts), with its LaTeX (:func:`latex`) as the TeX annotation."""
    expr = sympy_of(expr, what="expression")
    if isinstance(expr, (list, tuple)):
        raise ParseError("mathml takes one expression or matrix, not a sequence")
    body = _DotPrinter().doprint(expr)
    tex = latex(expr).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    mode = ' display="block"' if display else ""
    return (f'<math xmlns="http://www.w3.org/1998/Math/MathML"{mode}><semantics><mrow>{body}</mrow>'
            f'<annotation encoding="application/x-tex">{tex}</annotation></semantics></math>')


def balanced(tex: str) -> bool:
    """Are the braces of ``tex`` balanced (escaped braces ``\\{ \\}`` aside)?"""
    if not isinstance(tex, str):
        raise ParseError(f"balanced takes a LaTeX string, not {type(tex).__name__}")
    depth = 0
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\" and i + 1 < len(tex) and tex[i + 1] in "{}":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


# -- objects ------------------------------------------------------------------------------------
def _names_latex(name: str) -> str:
    return name_latex(name)


def frame_name_latex(frame, a: int) -> str:
    """LaTeX of the name of ``frame``'s quasi-velocity ``a`` by its role: a quasi-velocity that
    is a coordinate's velocity (its coframe row is that coordinate's dq) and carries that
    velocity's name (the Voronets frame's ``x_dot``, a coordinate frame's ``t_dot``) prints as
    the velocity, ``\\dot{x}``; any other by its own name (``w`` stays w even where w = θ̇)."""
    name = frame.names[a]
    try:
        row = list(frame.B[a, :])
        space = frame.space
    except (AttributeError, TypeError, IndexError):  # pragma: no cover - not a geonh Frame
        return _names_latex(name)
    ones = [j for j, e in enumerate(row) if e != 0]
    if len(ones) == 1 and row[ones[0]] == 1:
        j = ones[0]
        coord = space.coords[j]
        if name == f"{coord.name}_dot":   # named as that velocity (a name of the user's own stays)
            return _accented(sp.latex(coord), 1)
    return _names_latex(name)


def _simp(simplify, limit):
    """The simplifier of the renderers: ``simplify`` if given, else the one tidying step
    :func:`simplified_for_display` (:func:`shorten_for_display` within another ``limit``)."""
    if simplify is not None:
        return simplify
    if limit == DISPLAY_LIMIT:
        return lambda e: simplified_for_display(e)[0]
    return lambda e: shorten_for_display(e, limit)[0]


def field_text(components, coords) -> str:
    """A vector field as text: ``R*cos(theta) ∂_x + R*sin(theta) ∂_y + ∂_phi`` (zero terms
    left out)."""
    terms = []
    for c, q in zip(as_sequence(components, "components"), as_sequence(coords, "coordinates")):
        c = expr_of(c, what="component")
        if c == 0:
            continue
        if c == 1:
            terms.append(f"∂_{q}")
        elif c == -1:
            terms.append(f"-∂_{q}")
        else:
            s = str(c)
            if c.is_Add:
                s = f"({s})"
            terms.append(f"{s} ∂_{q}")
    return " + ".join(terms).replace("+ -", "- ") or "0"


def equations_latex(eqs, *, limit: int = DISPLAY_LIMIT, simplify=None) -> str:
    """LaTeX (an ``aligned`` block) of M x = F row by row and the kinematics q̇ = K (without the
    trivial rows q̇ = q̇ of the speeds that are coordinate velocities); entries simplified by
    ``simplify`` (default the one tidying step, :func:`simplified_for_display`)."""
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((_simp(simplify, limit)(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append(rf"{_tex(lhs)} &= {_tex(_simp(simplify, limit)(F[i]))}")
    for v, k in zip(eqs.space.qd, eqs.kinematics):
        if k == v:    # a trivial row q̇ = q̇ (a speed that is the coordinate's velocity: Voronets)
            continue
        rows.append(rf"{_tex(v)} &= {_tex(_simp(simplify, limit)(k))}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def structure_latex(frame, c=None, *, limit: int = DISPLAY_LIMIT, simplify=None) -> str:
    """The non-zero structure coefficients c^d_ab (a < b) of ``frame`` as LaTeX."""
    n = frame.dim
    if c is None:
        c = frame.structure_coefficients()
    elif not isinstance(c, sp.NDimArray):
        c = sp.Array(sympy_of(c.tolist() if hasattr(c, "tolist") else as_sequence(c, "structure coefficients"),
                              what="structure coefficients"))
    if c.shape != (n, n, n):
        raise DimensionError(f"structure coefficients c[d, a, b] of shape {(n, n, n)} needed, got {c.shape}")
    rows = []
    for a in range(n):
        for b in range(a + 1, n):
            for d in range(n):
                v = _simp(simplify, limit)(c[d, a, b])
                if v != 0:
                    nm = [frame_name_latex(frame, i) for i in (d, a, b)]
                    rows.append(rf"c^{{{nm[0]}}}_{{{nm[1]}\,{nm[2]}}} &= {_tex(v)}")
    if not rows:
        return r"\text{all structure coefficients vanish}"
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def frame_latex(frame, *, limit: int = DISPLAY_LIMIT, coefficients: bool = True, simplify=None) -> str:
    """Quasi-velocities ω^a = B^a_i q̇^i, the fields X_a and (optionally) the structure
    coefficients of ``frame`` as LaTeX."""
    S = frame.space
    rows = []
    names = [frame_name_latex(frame, a) for a in range(frame.dim)]
    for nm, om in zip(names, frame.quasi_velocities()):
        rows.append(rf"{nm} &= {_tex(_simp(simplify, limit)(om))}")
    for nm, X in zip(names, frame.fields):
        terms = []
        for comp, q in zip(X.components, S.coords):
            comp = _simp(simplify, limit)(comp)
            if comp != 0:
                d = rf"\partial_{{{sp.latex(q)}}}"
                terms.append(d if comp == 1 else rf"\left({_tex(comp)}\right) {d}")
        rows.append(rf"X_{{{nm}}} &= {' + '.join(terms) or '0'}")
    out = r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"
    if coefficients:
        out += r" \quad " + structure_latex(frame, limit=limit, simplify=simplify)
    return out


def _relation_names(rel) -> dict:
    """symbol_names of the d and δ symbols of a TranspositionalRelations: ``d\\theta``,
    ``\\delta x``, ``d\\pi_{1}``, ``\\delta\\pi_{1}`` (by role, from the relations' own tables)."""
    names = {}
    for table, prefix in ((getattr(rel, "d_symbols", {}), "d"), (getattr(rel, "delta_symbols", {}), r"\delta ")):
        for q, sym in table.items():
            names[sym] = prefix + _plain_latex(q)
    for i, (dp, xp) in enumerate(zip(getattr(rel, "dpi", ()), getattr(rel, "deltapi", ()))):
        names.setdefault(dp, rf"d\pi_{{{i + 1}}}")
        names.setdefault(xp, rf"\delta\pi_{{{i + 1}}}")
    return names


def relations_latex(rel, *, limit: int = DISPLAY_LIMIT, simplify=None) -> str:
    """Transpositional relations dδq − δdq on the coordinates (on the motion) and the
    non-zero γ_νλμ of a :class:`~geonh.TranspositionalRelations`; the differentials typeset
    (``d\\theta\\,\\delta x``, never the symbols' names ``dtheta δx``)."""
    rows = []
    names_dd = _relation_names(rel)
    for q, e in zip(rel.space.coords, rel.coordinates(on_motion=True)):
        v = _simp(simplify, limit)(e)
        tex = _tex(v) if too_big(v) else latex(v, symbol_names=names_dd, mul_symbol=r"\,")
        qt = _plain_latex(q)
        rows.append(rf"d\delta {qt} - \delta d {qt} &= {tex}")
    g = rel.gamma
    p = rel.p
    names = [frame_name_latex(rel.frame, a) for a in range(len(rel.frame.names))]
    for nu in range(p):
        for lam in range(p):
            for mu in range(p):
                v = _simp(simplify, limit)(g[nu, lam, mu])
                if v != 0:
                    rows.append(rf"\gamma_{{{names[nu]}\,{names[lam]}\,{names[mu]}}} &= {_tex(v)}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def system_latex(system, *, limit: int = DISPLAY_LIMIT, simplify=None) -> str:
    """T, V, the generalized forces and the constraints of a mechanical system as LaTeX."""
    S = system.space
    rows = [rf"T &= {_tex(_simp(simplify, limit)(system.T))}", rf"V &= {_tex(_simp(simplify, limit)(system.V))}"]
    for q, f in zip(S.q, system.Q):
        if f != 0:
            rows.append(rf"Q_{{{sp.latex(q)}}} &= {_tex(f)}")
    for h in system.holonomic:
        rows.append(rf"0 &= {_tex(_simp(simplify, limit)(h))}")
    if system.n_constraints:
        vel = list(S.velocities)
        for form in system.constraints.forms:
            e = sum((c * v for c, v in zip(form.covector, vel)), sp.S.Zero)
            rows.append(rf"0 &= {_tex(_simp(simplify, limit)(e))}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def _coefficient_latex(c, basis: str) -> str:
    """``c basis`` with parentheses around a sum, ``basis`` alone for 1, ``-basis`` for −1."""
    if c == 1:
        return basis
    if c == -1:
        return "-" + basis
    tex = _tex(c)
    if isinstance(c, sp.Add):
        tex = rf"\left({tex}\right)"
    return rf"{tex}\, {basis}"


def _sum_latex(terms: list[str]) -> str:
    return " + ".join(terms).replace("+ -", "- ") if terms else "0"


def field_latex(X) -> str:
    """A vector field Σ Xⁱ ∂_i as LaTeX, its components tidied (:func:`simplified_for_display`)."""
    terms = []
    for c, q in zip(X.components, X.space.coords):
        c = simplified_for_display(c)[0]
        if c != 0:
            terms.append(_coefficient_latex(c, rf"\partial_{{{_plain_latex(q)}}}"))
    return _sum_latex(terms)


def form_latex(w) -> str:
    """A k-form Σ ω_I dq^{i1} ∧ … ∧ dq^{ik} as LaTeX, its components tidied."""
    names = [_plain_latex(q) for q in w.space.coords]
    terms = []
    for idx, c in sorted(w.components.items()):
        c = simplified_for_display(c)[0]
        if c != 0:
            basis = r" \wedge ".join(rf"d{names[i]}" for i in idx) or "1"
            terms.append(_coefficient_latex(c, basis) if idx else _tex(c))
    return _sum_latex(terms)


def span_latex(items, render) -> str:
    """``\\operatorname{span}\\{…\\}`` of ``items`` (fields or forms) rendered by ``render``."""
    body = r",\; ".join(render(x) for x in items)
    return rf"\operatorname{{span}}\left\{{ {body} \right\}}"


def matrix_latex(M, digits: int = 6) -> str:
    """A matrix as LaTeX, its floating-point entries to ``digits`` significant digits and the
    others tidied (what a Linearization shows instead of PRECISION-digit numbers)."""
    M = sympy_of(M, what="matrix")
    if not isinstance(M, sp.MatrixBase):
        raise ParseError(f"matrix_latex takes a sympy Matrix, not {type(M).__name__}")

    def entry(e):
        if isinstance(e, sp.Basic) and e.is_number and e.atoms(sp.Float):
            return sp.Float(e, digits) if e.is_real else sp.N(e, digits)
        return simplified_for_display(e)[0]
    return latex(M.applyfunc(entry))


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_table(rows, caption: str = "") -> str:
    """An HTML table of (label, value) rows (values as text, escaped): the ``_repr_html_`` of
    result objects (Certificate, Trajectory) in a notebook."""
    cap = f"<caption>{_html_escape(caption)}</caption>" if caption else ""
    body = "".join(f"<tr><th style='text-align:left'>{_html_escape(str(k))}</th>"
                   f"<td style='text-align:left'>{_html_escape(str(v))}</td></tr>" for k, v in rows)
    return f"<table>{cap}{body}</table>"


def short_text(text: str, most: int = 300) -> str:
    """``text`` cut at ``most`` characters with ``…`` (short reprs never print whole equations)."""
    return text if len(text) <= most else text[:most - 1] + "…"


def render_latex(obj, *, limit: int = DISPLAY_LIMIT) -> str:
    """LaTeX (without math delimiters) of an Equations, Frame, TranspositionalRelations,
    MechanicalSystem or sympy object, recognised by their attributes."""
    if hasattr(obj, "mass_matrix") and hasattr(obj, "kinematics") and hasattr(obj, "unknowns"):
        return equations_latex(obj, limit=limit)
    if hasattr(obj, "gamma") and hasattr(obj, "coordinates") and hasattr(obj, "frame"):
        return relations_latex(obj, limit=limit)
    if hasattr(obj, "structure_coefficients") and hasattr(obj, "quasi_velocities"):
        return frame_latex(obj, limit=limit)
    if hasattr(obj, "T") and hasattr(obj, "constraints") and hasattr(obj, "space"):
        return system_latex(obj, limit=limit)
    return latex(obj)


def repr_latex(obj) -> str:
    """``$$…$$`` for Jupyter's ``_repr_latex_``."""
    return f"$${render_latex(obj)}$$"


#: a name that moved from here names its new home (geonh.moved)
__getattr__ = package_getattr(__name__)
