"""Display: LaTeX and MathML of geonh's objects, with dot accents, and bounded simplification.

Velocity and acceleration symbols are plain sympy Symbols named ``<q>_dot`` and ``<q>_ddot``
(:class:`~geonh.kernel.space.ConfigurationSpace`); sympy would print ``x_dot`` as
``x_{dot}``.  Here they print as ``\\dot{x}`` and ``\\ddot{x}`` (``theta_R_dot`` as
``\\dot{\\theta}_{R}``, ``q_1_dot`` as ``\\dot{q}_{1}``), in LaTeX (:func:`latex`) and in
presentation MathML (:func:`mathml`, used by ``geonh report``).

:func:`render_latex` renders an :class:`~geonh.Equations`, a :class:`~geonh.Frame` (its
quasi-velocities, fields and structure coefficients), a
:class:`~geonh.TranspositionalRelations` or a :class:`~geonh.MechanicalSystem`; the classes'
``_repr_latex_`` hooks (Jupyter) delegate to it.  The objects are recognised by their
attributes, so this module imports nothing of geonh above the errors and may be called from
every layer.

Simplification for display (:func:`tidy`) is bounded by expression size: an expression with
more than ``limit`` operations is shown as computed (sympy's ``trigsimp`` on the frame of the
Whipple bicycle runs for minutes), and :func:`tidy` says whether it simplified.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter

from .errors import DimensionError, ParseError
from .kernel.parsing import as_sequence, expr_of, sympy_of

__all__ = ["DISPLAY_LIMIT", "DISPLAY_NODES", "balanced", "dotted_names", "equations_latex", "field_text",
           "frame_latex", "latex", "mathml", "relations_latex", "render_latex", "repr_latex", "structure_latex",
           "system_latex", "tidy", "tidy_all", "too_big"]

#: expressions with more operations than this are displayed unsimplified
DISPLAY_LIMIT = 150

_ACCENTS = (("_ddot", "ddot"), ("_dot", "dot"))


def _accent(name: str) -> tuple[str, str] | None:
    """(base name, accent) of a velocity/acceleration symbol name, else None."""
    for suffix, acc in _ACCENTS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], acc
    return None


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
    if len({f.args[0] for f in expr.atoms(sp.sin, sp.cos, sp.tan, sp.cot)}) > _TRIG_ARGUMENTS:
        return False
    return not any(not p.exp.is_Integer for p in expr.atoms(sp.Pow))


def tidy(expr, limit: int = DISPLAY_LIMIT) -> tuple[sp.Expr, bool]:
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


def tidy_all(exprs: Iterable, limit: int = DISPLAY_LIMIT) -> tuple[list, int]:
    """:func:`tidy` of each expression; returns (expressions, number left unsimplified)."""
    out, skipped = [], 0
    for e in as_sequence(exprs, "expressions"):
        t, ok = tidy(e, limit)
        out.append(t)
        skipped += (not ok) and isinstance(t, sp.Expr) and not t.is_number
    return out, skipped


def _symbol_latex(sym: sp.Symbol) -> str:
    parts = _accent(sym.name)
    if parts is None:
        return sp.latex(sym)
    base, acc = parts
    inner = sp.latex(sp.Symbol(base))
    m = re.match(r"^(\\[A-Za-z]+|[^_^\\{]+)(.*)$", inner)
    if m is None:  # pragma: no cover - every symbol's latex has a head
        return rf"\{acc}{{{inner}}}"
    return rf"\{acc}{{{m.group(1)}}}{m.group(2)}"


def dotted_names(exprs) -> dict:
    """``symbol_names`` for :func:`sympy.latex`: every ``*_dot``/``*_ddot`` symbol of ``exprs``
    with its dot accent."""
    if isinstance(exprs, sp.Basic):
        exprs = [exprs]
    out = {}
    for e in as_sequence(exprs, "expressions"):
        e = sympy_of(e, what="expression")
        for s in (e.free_symbols if isinstance(e, (sp.Basic, sp.MatrixBase)) else dotted_names(e)):
            if isinstance(s, sp.Symbol) and _accent(s.name) is not None:
                out[s] = _symbol_latex(s)
    return out


def latex(expr, **settings) -> str:
    """``sympy.latex(expr)`` with dot accents on velocity and acceleration symbols."""
    expr = sympy_of(expr, what="expression")
    names = dotted_names(expr if isinstance(expr, sp.Basic) else [expr])
    names.update(settings.pop("symbol_names", {}))
    return sp.latex(expr, symbol_names=names, **settings)


class _DotPrinter(MathMLPresentationPrinter):
    """Presentation MathML with ``<mover>`` dot accents on ``*_dot``/``*_ddot`` symbols."""

    def _print_Symbol(self, sym, style="plain"):
        parts = _accent(sym.name)
        if parts is None:
            return super()._print_Symbol(sym, style)
        base, acc = parts
        el = super()._print_Symbol(sp.Symbol(base), style)
        target = el
        if el.nodeName in ("msub", "msup", "msubsup") and el.childNodes:
            target = el.childNodes[0]
        over = self.dom.createElement("mover")
        over.setAttribute("accent", "true")
        mo = self.dom.createElement("mo")
        mo.appendChild(self.dom.createTextNode("\u02d9" if acc == "dot" else "\u00a8"))
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
    return sp.latex(sp.Symbol(name))


def _simp(simplify, limit):
    """The simplifier of the renderers: ``simplify`` if given, else :func:`tidy` within ``limit``."""
    if simplify is not None:
        return simplify
    return lambda e: tidy(e, limit)[0]


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
    """LaTeX (an ``aligned`` block) of M x = F row by row and the kinematics q̇ = K; entries
    simplified by ``simplify`` (default :func:`tidy` within ``limit``)."""
    M, F = eqs.mass_matrix, eqs.forcing
    x = list(eqs.unknowns)
    rows = []
    for i in range(M.rows):
        lhs = sum((_simp(simplify, limit)(M[i, j]) * x[j] for j in range(M.cols) if M[i, j] != 0), sp.S.Zero)
        rows.append(rf"{_tex(lhs)} &= {_tex(_simp(simplify, limit)(F[i]))}")
    for v, k in zip(eqs.space.qd, eqs.kinematics):
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
                    nm = [_names_latex(frame.names[i]) for i in (d, a, b)]
                    rows.append(rf"c^{{{nm[0]}}}_{{{nm[1]}\,{nm[2]}}} &= {_tex(v)}")
    if not rows:
        return r"\text{all structure coefficients vanish}"
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def frame_latex(frame, *, limit: int = DISPLAY_LIMIT, coefficients: bool = True, simplify=None) -> str:
    """Quasi-velocities ω^a = B^a_i q̇^i, the fields X_a and (optionally) the structure
    coefficients of ``frame`` as LaTeX."""
    S = frame.space
    rows = []
    for nm, om in zip(frame.names, frame.quasi_velocities()):
        rows.append(rf"{_names_latex(nm)} &= {_tex(_simp(simplify, limit)(om))}")
    for nm, X in zip(frame.names, frame.fields):
        terms = []
        for comp, q in zip(X.components, S.coords):
            comp = _simp(simplify, limit)(comp)
            if comp != 0:
                d = rf"\partial_{{{sp.latex(q)}}}"
                terms.append(d if comp == 1 else rf"\left({_tex(comp)}\right) {d}")
        rows.append(rf"X_{{{_names_latex(nm)}}} &= {' + '.join(terms) or '0'}")
    out = r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"
    if coefficients:
        out += r" \quad " + structure_latex(frame, limit=limit, simplify=simplify)
    return out


def relations_latex(rel, *, limit: int = DISPLAY_LIMIT, simplify=None) -> str:
    """Transpositional relations dδq − δdq on the coordinates (on the motion) and the
    non-zero γ_νλμ of a :class:`~geonh.TranspositionalRelations`."""
    rows = []
    for q, e in zip(rel.space.coords, rel.coordinates(on_motion=True)):
        rows.append(rf"d\delta {sp.latex(q)} - \delta d {sp.latex(q)} &= {_tex(_simp(simplify, limit)(e))}")
    g = rel.gamma
    p = rel.p
    names = [_names_latex(n) for n in rel.frame.names]
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
