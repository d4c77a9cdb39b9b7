"""Decisions at the generic point: every verdict of geonh — zero, rank, independence,
regularity, positive definiteness — is answered here, once, for both backends.

sympy's ``simplify`` does not close many trigonometric identities of this subject, and its
default zero test (``expr.is_zero``) answers ``None`` on unexpanded zeros.  geonh therefore
decides "is this expression identically zero?" and "what is the rank of this matrix at the
generic point?" by **evaluation at random points**:

* every free symbol (coordinates, velocities and parameters alike) gets a random positive
  rational value, drawn from a fixed-seed generator so results are reproducible; expressions
  that are not analytic (``Abs``, ``sign``, ``Piecewise``, non-integer powers, see
  :func:`is_nonanalytic`) are also evaluated at points of either sign (symbols declared
  positive stay positive), since for them agreement on the positive orthant proves nothing;
* a purely rational expression is then evaluated **exactly** (``Rational`` arithmetic);
  anything with functions is evaluated with mpmath at ``PRECISION`` decimal digits and
  compared with a tolerance far below any value a non-zero expression of moderate size takes
  (values by :func:`~geonh.kernel.evaluation.value_at` with ``strict=False, tree=True``: a
  point where the expression is singular is skipped, big trees are evaluated in one pass);
* a rank is the **maximum** rank over ``TRIALS`` points;
* functions of time — dynamicsymbols q(t) and their derivatives q'(t), q''(t) — are
  independent symbols at the generic point (:func:`generic_symbols`), so matrices such as
  ∂kdes/∂u of a ``KanesMethod`` are sampled like any other;
* regularity of a square matrix is one verdict for both backends,
  :func:`regular_pivot_order`: a pivot order found at the sample points, or a refusal that
  states the rank :func:`generic_rank` finds (never "rank n < n"); the solve/inverse
  functions (:func:`lu_solve` = :func:`generic_solve`, :func:`lu_inverse`, :func:`inverse`)
  are built on it;
* positive definiteness of a symmetric matrix over a parameter domain is
  :func:`not_positive_definite_at` (the mass matrix of a
  :class:`~geonh.systems.MechanicalSystem`);
* a **float screen** comes first for ranks, independent rows and positive definiteness:
  the matrix is compiled once
  and evaluated in double precision at the same points (:func:`float_values`), and a verdict
  that double precision proves beyond doubt — a singular value or Cholesky pivot above
  :data:`~geonh.kernel.linalg.FLOAT_CLEAR` of the largest, so full rank, an independent row, a positive definite
  matrix — is accepted; everything else (every "zero", "dependent", "rank deficient" verdict)
  is decided at PRECISION digits as before.  The PRECISION-digit values of large trees come
  from symengine's MPFR arithmetic where symengine takes the expression.

Each verdict goes one way down and nothing calls back: points from
:mod:`geonh.kernel.sampling` (the one sampler), values from :mod:`geonh.kernel.evaluation`
(a whole matrix at a point in one call, :func:`~geonh.kernel.evaluation.values_at`), linear
algebra on the numbers from :mod:`geonh.kernel.linalg` (the pivot rule, the row echelon, the
rank of a sample).  PRECISION is the working precision,
:func:`geonh.kernel.evaluation.precision`, read at every use.

Soundness.  A non-zero value, or a non-zero minor, at one point *proves* the expression (the
determinant) is not identically zero, so full-rank and non-zero verdicts are certain (in the
exact case) or certain up to 10^-(PRECISION/2) round-off.  The opposite verdicts ("zero",
"rank deficient") are probabilistic: they fail only if every trial point lies on the zero set
of a non-zero analytic function, a set of measure zero (Schwartz-Zippel for polynomials).
The failure mode is therefore a *special* parameter value hidden in a symbol the user meant to
be generic, or a genuinely singular expression whose size exceeds the tolerance scale; pass
explicit ``subs`` to pin parameters, or call :func:`is_zero` with ``certify=True`` to add a
symbolic confirmation (``simplify``) on top of the numerical one.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator, Mapping, Sequence

import mpmath
import sympy as sp

from ..moved import package_getattr
from ..errors import DimensionError, SingularMapError
from . import evaluation
from .evaluation import term_scale, to_mp, value_at, values_at
from .jets import directional_derivative  # noqa: F401 - the generic-point decisions' differentiator (home: kernel/jets.py)
from . import linalg
from .linalg import as_sample, cramer_solve, float_positive_definite, float_rank, sample_rank
from .parsing import as_matrix, expr_of, sympy_of
from .sampling import TRIALS, sample_points

_NONANALYTIC = (sp.Abs, sp.sign, sp.Piecewise, sp.Heaviside, sp.Max, sp.Min, sp.floor, sp.ceiling,
                sp.atan2, sp.re, sp.im, sp.arg)


def is_nonanalytic(expr: sp.Basic) -> bool:
    """Does ``expr`` contain a function that is not analytic on the reals (Abs, sign,
    Piecewise, Min/Max, ...) or a non-integer power?  For analytic expressions agreement on
    the positive orthant implies agreement everywhere (identity theorem), so the positive
    sample points suffice; for the others :func:`is_zero` and :func:`generic_rank` add
    points of either sign."""
    if expr.has(*_NONANALYTIC):
        return True
    return any(not p.exp.is_Integer for p in expr.atoms(sp.Pow))


#: sympy's generic ``free_symbols`` (the union over the arguments), which :func:`_free` walks itself
_UNION_OF_ARGS = sp.Basic.__dict__["free_symbols"]


_OPENS: dict = {}


def _opens(cls: type) -> bool:
    """Does ``cls`` keep sympy's generic ``free_symbols``?  (Read from the class's MRO: on a
    function class, ``cls.free_symbols`` would be its metaclass's attribute.)"""
    r = _OPENS.get(cls)
    if r is None:
        own = next((vars(k)["free_symbols"] for k in cls.__mro__ if "free_symbols" in vars(k)), None)
        r = _OPENS[cls] = own is _UNION_OF_ARGS
    return r


def _free(exprs: Iterable[sp.Expr]) -> set:
    """The union of the ``free_symbols`` of ``exprs``, each distinct subexpression visited
    once: a node whose class keeps sympy's generic ``free_symbols`` (the union over its
    arguments: sums, products, powers, functions) is opened, any other (a symbol, a
    derivative, an integral: classes with their own rule for bound variables) answers for
    itself.  The same set as sympy's recursion, which walks shared subexpressions again
    at every occurrence (the entries of the dynamic 32-trailer's mass matrix share most of theirs)."""
    out: set = set()
    seen: set = set()
    stack: list = []
    for e in exprs:
        stack.append(e if isinstance(e, sp.Basic) else sympy_of(e))
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if _opens(type(x)):
                stack.extend(x.args)
            else:
                out |= x.free_symbols
    return out


# -- functions of time at the generic point --------------------------------------------------
_APPLIED = sp.core.function.AppliedUndef
_JETS: dict = {}


def _jet_node(e) -> bool:
    """Is ``e`` an applied undefined function of symbols (q(t), a dynamicsymbol) or a
    derivative of one with respect to those symbols (q'(t), q''(t))?"""
    if isinstance(e, sp.Derivative):
        e = e.expr
    return isinstance(e, _APPLIED) and all(a.is_Symbol for a in e.args)


def _jet_symbol(node) -> sp.Dummy:
    """The symbol standing for ``node`` (one per node for the whole process, so the sample
    points of a matrix are the same at every call); its sign assumptions are the node's."""
    s = _JETS.get(node)
    if s is None:
        kw = {"positive": True} if node.is_positive else {"real": True} if node.is_real else {}
        if len(_JETS) > 4096:
            _JETS.clear()
        s = _JETS[node] = sp.Dummy(str(node), **kw)
    return s


def generic_symbols(expr):
    """``expr`` (an expression or a matrix) with every function of time — an applied
    undefined function of symbols such as a dynamicsymbol q(t), and each derivative of one,
    q'(t), q''(t) — replaced by a symbol of its own.

    The rule and why: at a generic instant the values q(t₀), q'(t₀), q''(t₀), … of functions
    of time are independent numbers (any jet is the jet of some function), so an expression
    in them vanishes identically exactly when it vanishes as a function of independent
    symbols.  The generic-point decisions can then sample it like any other expression
    (they cannot give q(t) a value otherwise).  An expression with any other node built on
    such a function (a derivative of a compound expression, f(q(t)), ``Subs``) is left as
    it is."""
    if isinstance(expr, sp.MatrixBase):
        if not any(isinstance(e, sp.Basic) and e.has(_APPLIED) for e in expr):
            return expr
        return expr.applyfunc(generic_symbols)
    expr = sympy_of(expr)
    if not expr.has(_APPLIED):
        return expr
    nodes = expr.atoms(_APPLIED, sp.Derivative, sp.Subs)
    if not all(_jet_node(n) for n in nodes):
        return expr
    # derivatives first (xreplace matches whole subtrees top-down, so q'(t) is one symbol)
    return expr.xreplace({n: _jet_symbol(n) for n in nodes})




def is_zero(expr: sp.Expr, *, trials: int = TRIALS, certify: bool = False) -> bool:
    """Is ``expr`` identically zero (as a function of all its free symbols)?

    Numerical verdict by evaluation at random points (see the module docstring); with
    ``certify=True`` a "zero" verdict must also be confirmed by ``sympy.simplify``.
    Functions of time (dynamicsymbols and their derivatives) are independent symbols at the
    generic point (:func:`generic_symbols`).
    """
    expr = generic_symbols(expr_of(expr, what="is_zero"))
    if expr == 0:
        return True
    if expr.is_number and expr.is_Rational:
        return False
    free = expr.free_symbols
    tol = _roundoff()
    seen = 0
    for pt in sample_points(free, trials + 3):
        v = value_at(expr, pt, strict=False, tree=True)
        if v is None:
            continue
        seen += 1
        if _nonzero_value(v, expr, pt, tol):
            return False
        if seen >= trials:
            break
    if seen == 0:
        # singular everywhere we looked: fall back on symbolic simplification
        return sp.simplify(expr) == 0
    if is_nonanalytic(expr):
        # Abs, sign, sqrt of squares, ...: zero on the positive orthant says nothing elsewhere
        for pt in sample_points(free, trials, signs=True):
            v = value_at(expr, pt, strict=False, tree=True)
            if v is None:
                continue
            if _nonzero_value(v, expr, pt, tol):
                return False
    if certify:
        return sp.simplify(expr) == 0
    return True


def _nonzero_value(v, expr, pt: Mapping, tol) -> bool:
    """Does the value ``v`` of ``expr`` at ``pt`` prove expr ≢ 0?  An exact value when it is not
    0; a PRECISION-digit value when it exceeds ``tol`` (10^-(PRECISION/2)) times the size of
    expr's terms there (:func:`~geonh.kernel.evaluation.term_scale`, at least 1).  The term
    scale is evaluated only for a value above ``tol``: below it the verdict is "zero" whatever
    the scale (scale ≥ 1), so the costly per-term evaluation is skipped for every true zero."""
    if isinstance(v, sp.Basic):
        return v != 0
    return abs(v) > tol and abs(v) > tol * term_scale(expr, pt)


def all_zero(exprs: Sequence, *, natives: Sequence | None = None, trials: int = TRIALS) -> bool:
    """Is every expression of ``exprs`` identically zero?  The verdict of :func:`is_zero` on
    each, taken in one batch: all entries evaluated together at each sample point
    (:func:`~geonh.kernel.evaluation.values_at`, symengine's MPFR arithmetic on the entries'
    symengine images ``natives`` — given, or converted once here) at PRECISION digits, each
    value compared with 10^-(PRECISION/2) times its terms' size exactly as :func:`is_zero`
    does (``_nonzero_value``), at ``trials`` points where every entry has a value.

    Which direction is proven how: a value above the tolerance *proves* its entry non-zero
    (up to PRECISION-digit round-off); "zero" is the generic-point verdict (every trial point
    on the zero set of a non-zero analytic function has probability 0; module docstring).
    No double-precision screen is run first: a double can prove only the "non-zero"
    direction, and building its error bound (:func:`float_values`) costs more than the batched
    PRECISION-digit evaluation that a "zero" verdict needs anyway.  Structural zeros are not
    evaluated; entries that are not analytic (:func:`is_nonanalytic`), or a batch with too few
    points where every entry has a value, are decided entry by entry by :func:`is_zero`."""
    items = [generic_symbols(expr_of(e, what="all_zero")) for e in exprs]
    if natives is not None:
        natives = list(natives)
        if len(natives) != len(items):
            raise DimensionError(f"all_zero: {len(natives)} natives for {len(items)} expressions")
    keep = [k for k, e in enumerate(items) if e != 0]
    rest = [items[k] for k in keep]
    if not rest:
        return True
    if any(e.is_number and e.is_Rational for e in rest):
        return False
    if any(is_nonanalytic(e) for e in rest):
        return all(is_zero(e, trials=trials) for e in rest)
    nat = [natives[k] for k in keep] if natives is not None else _native(rest)
    if nat is not None and (any(e.has(_APPLIED) for e in rest) or _names_clash(_free(rest))):
        nat = _native(rest)   # the jets' symbols (generic_symbols), not q(t); no clash of names
    tol = _roundoff()
    seen = 0
    for pt in sample_points(_free(rest), trials + 3):
        vals = values_at(rest, pt, nat)
        if any(v is None for v in vals):
            continue
        seen += 1
        if any(_nonzero_value(v, e, pt, tol) for v, e in zip(vals, rest)):
            return False
        if seen >= trials:
            return True
    return all(is_zero(e, trials=trials) for e in rest)


def product_is_zero(A: sp.MatrixBase, X: sp.MatrixBase, *, trials: int = TRIALS) -> bool:
    """Is the matrix product A·X identically zero?  Decided without forming it: A and X are
    evaluated at each sample point (one batched :func:`~geonh.kernel.evaluation.values_at` at
    PRECISION digits) and multiplied there; the entry (AX)_ij = Σ_k A_ik X_kj is zero at the
    point when |Σ_k A_ik X_kj| ≤ 10^-(PRECISION/2) · max(1, Σ_k |A_ik X_kj|) — the term-size
    rule of :func:`is_zero` applied to the product's terms.  Directions as in
    :func:`all_zero`: a value above the tolerance proves (AX)_ij ≢ 0; "zero" at ``trials``
    points is the generic-point verdict.  With a non-analytic entry (:func:`is_nonanalytic`) a
    "zero" verdict on the positive points is tried again at points of either sign, as
    :func:`is_zero` does (never the symbolic product: its entries are sums of products of the
    factors' large entries, each then evaluated alone); with too few points where every entry
    has a value, the symbolic product goes to :func:`all_zero`."""
    A = as_matrix(A, what="matrix")
    X = as_matrix(X, what="matrix")
    if A.cols != X.rows:
        raise DimensionError(f"product_is_zero: {A.shape} times {X.shape}")
    if A.rows == 0 or X.cols == 0:
        return True
    A, X = generic_symbols(A), generic_symbols(X)
    entries = list(A) + list(X)
    nat = _native(entries)
    free = _free(entries)
    verdict = _product_zero_at(sample_points(free, trials + 3), entries, nat, A.shape, X.cols, trials)
    if verdict and any(is_nonanalytic(e) for e in entries):
        # Abs, sign, sqrt of squares, …: zero on the positive orthant says nothing elsewhere
        # (as :func:`is_zero`): the factors at points of either sign too
        verdict = _product_zero_at(sample_points(free, trials, signs=True), entries, nat, A.shape, X.cols,
                                   trials)
    return verdict if verdict is not None else all_zero(list(A * X), trials=trials)


def _product_zero_at(points, entries: list, nat, shape: tuple, m: int, trials: int) -> bool | None:
    """The numeric verdict of :func:`product_is_zero` at ``points``: False when an entry of A·X
    exceeds the tolerance at one of them, True when none does at ``trials`` points where every
    factor has a value, None with fewer such points."""
    r, n = shape
    tol = _roundoff()
    seen = 0
    for pt in points:
        vals = values_at(entries, pt, nat)
        if any(v is None for v in vals):
            continue
        seen += 1
        if all(isinstance(v, sp.Basic) for v in vals):   # rational data: the product exactly
            a, x = vals[:r * n], vals[r * n:]
            if any(sp.Add(*[a[i * n + k] * x[k * m + j] for k in range(n)]) != 0
                   for i in range(r) for j in range(m)):
                return False
            if seen >= trials:
                return True
            continue
        with mpmath.workdps(evaluation.precision()):
            a = [to_mp(v) for v in vals[:r * n]]
            x = [to_mp(v) for v in vals[r * n:]]
            for i in range(r):
                for j in range(m):
                    terms = [a[i * n + k] * x[k * m + j] for k in range(n)]
                    if abs(mpmath.fsum(terms)) > tol * max(1, mpmath.fsum(abs(t) for t in terms)):
                        return False
        if seen >= trials:
            return True
    return None


# -- a float screen in front of the PRECISION-digit decisions ------------------------------------
#: safety factor on the first-order rounding-error bound u·A(e) of a float evaluation (it
#: absorbs the number of operations along a path, γ_N ≈ N·u; u the unit round-off)
FLOAT_SAFETY = 1e4


class _NoBound(Exception):
    """A node whose rounding error ``_magnitude`` does not model."""


def _magnitude(e: sp.Expr, memo: dict) -> sp.Expr:
    """A(e): an expression whose value bounds the rounding error of evaluating e in floating
    point, |fl(e) − e| ≲ N·u·A(e) (running error analysis to first order; Higham, *Accuracy
    and Stability of Numerical Algorithms*, §3): A = |x| for a number or symbol, Σ A(aᵢ) for a
    sum, Π A(aᵢ) for a product, A(b)^n for a positive integer power, n·|b|^(n−1)·A(b)·|b|^(−2n)…
    in general |∂f/∂a|·A(a) + |f(a)| for a function or power of one argument.  An identically
    zero sum evaluates to round-off, but its A is the size of its terms, so no screen ever
    mistakes it for a non-zero value."""
    r = memo.get(e)
    if r is not None:
        return r
    if e.is_Symbol or e.is_Number:
        r = sp.Abs(e)
    elif e.is_Add:
        r = sp.Add(*[_magnitude(a, memo) for a in e.args])
    elif e.is_Mul:
        r = sp.Mul(*[_magnitude(a, memo) for a in e.args])
    elif e.is_Pow and e.exp.is_Integer and e.exp > 0:
        r = _magnitude(e.base, memo) ** e.exp
    elif e.is_Pow and e.exp.is_Number:
        b, x = e.base, e.exp
        r = sp.Abs(x) * sp.Abs(b) ** (x - 1) * _magnitude(b, memo) + sp.Abs(e)
    elif isinstance(e, sp.Function) and len(e.args) == 1 and not e.has(*_NONANALYTIC):
        z = sp.Dummy("z")
        d = sp.diff(e.func(z), z)
        if d.has(sp.Derivative, sp.Subs):
            raise _NoBound(e)
        r = sp.Abs(d.xreplace({z: e.args[0]})) * _magnitude(e.args[0], memo) + sp.Abs(e)
    else:
        raise _NoBound(e)
    memo[e] = r
    return r


#: one-argument functions whose derivative symengine writes in closed form: the only function
#: nodes ``_magnitude_native`` bounds (any other node turns to the sympy route)
_BOUNDED_FUNCTIONS = frozenset({"sin", "cos", "tan", "cot", "sec", "csc", "exp", "log", "sinh", "cosh",
                                "tanh", "coth", "asin", "acos", "atan", "asinh", "acosh", "atanh"})


def _magnitude_native(e, memo: dict, se):
    """``_magnitude`` on a symengine tree ``e`` (the same A(e), node for node: |x| for a
    number or symbol, Σ A(aᵢ), Π A(aᵢ), A(b)^n, |x|·|b|^(x−1)·A(b) + |e| for a power of
    number exponent x, |f'(a)|·A(a) + |f(a)| for a function of :data:`_BOUNDED_FUNCTIONS`);
    built in symengine's C++ (no sympy assumption queries), for :func:`float_values`.
    Raises :class:`_NoBound` on any other node."""
    r = memo.get(e)
    if r is not None:
        return r
    if e.is_Symbol or e.is_Number:
        r = se.Abs(e)
    elif e.is_Add:
        r = se.Add(*[_magnitude_native(a, memo, se) for a in e.args])
    elif e.is_Mul:
        r = se.Mul(*[_magnitude_native(a, memo, se) for a in e.args])
    elif e.is_Pow:
        b, x = e.args
        if x.is_Integer and x > 0:
            r = _magnitude_native(b, memo, se) ** x
        elif x.is_Number:
            r = se.Abs(x) * se.Abs(b) ** (x - 1) * _magnitude_native(b, memo, se) + se.Abs(e)
        else:
            raise _NoBound(e)
    elif isinstance(e, se.Function) and len(e.args) == 1 and type(e).__name__ in _BOUNDED_FUNCTIONS:
        z = se.Dummy("z")
        d = se.diff(e.func(z), z).xreplace({z: e.args[0]})
        r = se.Abs(d) * _magnitude_native(e.args[0], memo, se) + se.Abs(e)
    else:
        raise _NoBound(e)
    memo[e] = r
    return r


def _screen_function(exprs: list, syms: list):
    """The compiled screen x ↦ (values, A-values) of ``exprs`` (see :func:`float_values`): the
    magnitudes built and compiled in symengine when it takes every expression and the
    symbols' names are distinct (symengine's symbols are names), else in sympy."""
    natives = None if _names_clash(syms) else _native(exprs)
    native_syms = _native(syms) if natives is not None else None
    if natives is not None and native_syms is not None:
        import symengine as se
        try:
            memo: dict = {}
            mags = [_magnitude_native(e, memo, se) for e in natives]
            f = se.Lambdify(native_syms, natives + mags, backend="lambda", cse=True, real=True)
            return lambda x: f(x)
        except Exception:  # noqa: BLE001 - a node symengine does not bound: the sympy route
            pass
    memo = {}
    mags = [_magnitude(e, memo) for e in exprs]
    return _compiled(tuple(exprs + mags), tuple(syms))


def float_values(exprs: Sequence[sp.Expr], points: Sequence[Mapping]) -> list:
    """Double-precision values of ``exprs`` at each of ``points`` ({symbol: rational}), with
    a bound of their rounding errors: one pair of numpy arrays (values, error bounds) per
    point, ``None`` where a value is not finite (singular there, or not real).

    The bound is FLOAT_SAFETY · u · A(e), A from ``_magnitude`` (built in symengine by
    ``_magnitude_native`` where it can), evaluated with the values.  One compiled function for all points (symengine's ``Lambdify``, cse, lambda
    backend: no LLVM build cost; sympy's ``lambdify`` on numpy without symengine).  This is
    a *screen*: the callers accept only verdicts that double precision proves — a singular
    value or eigenvalue above both the error bound and :data:`~geonh.kernel.linalg.FLOAT_CLEAR` of the largest —
    and take every other decision at PRECISION digits, exactly as without the screen.  An
    expression the error model does not cover turns the screen off (every entry None)."""
    import numpy as np
    exprs = [e if isinstance(e, sp.Basic) else sympy_of(e) for e in exprs]
    if not points:
        return []
    syms = sorted(_free(exprs), key=lambda s: (s.name, str(s.assumptions0)))
    try:
        fn = _screen_function(exprs, syms)
        k = len(exprs)
        out: list[tuple | None] = []
        for pt in points:
            x = np.array([float(pt[s]) for s in syms], dtype=float)
            with np.errstate(all="ignore"):
                v = np.asarray(fn(x), dtype=float).reshape(-1)
            if v.size != 2 * k or not np.all(np.isfinite(v)):
                out.append(None)
                continue
            out.append((v[:k], FLOAT_SAFETY * np.finfo(float).eps * np.abs(v[k:])))
        return out
    except Exception:  # noqa: BLE001 - any failure of the screen: decide at PRECISION digits
        return [None] * len(points)


def _compiled(exprs: tuple, syms: tuple):
    try:
        import symengine as se
    except ImportError:
        se = None
    if se is not None:
        f = se.Lambdify(list(syms), list(exprs), backend="lambda", cse=True, real=True)
        return lambda x: f(x)
    g = sp.lambdify([list(syms)], list(exprs), modules="numpy", cse=True)
    return lambda x: g(x)


#: points of either sign (or of the conditions' domain) in the positive-definiteness verdict
PD_POINTS = 8


def not_positive_definite_at(M: sp.MatrixBase, conditions: Sequence = ()) -> tuple[dict, list] | None:
    """The definiteness verdict on a symmetric matrix over a parameter domain: None when M is
    positive definite at every sample point of the domain, else ``(point, values)`` — the
    first sample point where it is not (``values``: M's entries there, row-major, ``None``
    entries where undefined), for the caller's refusal.

    The domain is the symbols' sympy assumptions and ``conditions`` (sympy relationals such as
    ``J > J0``): with conditions, :data:`PD_POINTS` + 3 points of that domain
    (:func:`sample_points` with ``conditions``); without, 3 positive points and
    :data:`PD_POINTS` of either sign (symbols without a sign get either).  At each point a
    float screen first (:func:`float_values`; :func:`~geonh.kernel.linalg.float_positive_definite`:
    the least eigenvalue proven positive beyond the rounding-error bound), else Cholesky at
    the working precision, every pivot above 10^-(precision/3) (Sylvester's criterion in
    its Cholesky form: M = LLᵀ with L_ii > 0 exactly when M is positive definite); a point
    where an entry has no value is skipped."""
    import numpy as np
    M = as_matrix(M, what="matrix")
    free = _free(list(M))
    n = M.rows
    if conditions:
        points = sample_points(free, PD_POINTS + 3, conditions=conditions)
    else:
        points = sample_points(free, 3) + sample_points(free, PD_POINTS, signs=True)
    upper = [(i, j) for i in range(n) for j in range(i, n)]
    screens = float_values([M[i, j] for i, j in upper], points)
    for pt, fv in zip(points, screens):
        if fv is not None:
            A, E = np.empty((n, n)), np.empty((n, n))
            for (i, j), v, e in zip(upper, *fv):
                A[i, j] = A[j, i] = v
                E[i, j] = E[j, i] = e
            if float_positive_definite(A, E):
                continue
        vals = values_at(list(M), pt)
        if any(v is None for v in vals):
            continue
        digits = evaluation.precision()
        with mpmath.workdps(digits):
            A = mpmath.matrix(n, n)
            for k, v in enumerate(vals):
                A[k // n, k % n] = to_mp(v)
            try:
                L = mpmath.cholesky(A)
                ok = all(L[i, i] > mpmath.mpf(10) ** (-digits // 3) for i in range(n))
            except (ValueError, ZeroDivisionError):
                ok = False
        if not ok:
            return pt, vals
    return None


def _roundoff() -> mpmath.mpf:
    """10^-(precision/2): the relative size below which a value is round-off."""
    return mpmath.mpf(10) ** (-(evaluation.precision() // 2))


def _native(exprs: Sequence[sp.Expr]):
    """``exprs`` converted once to symengine for :func:`~geonh.kernel.evaluation.values_at`
    (None without symengine or where a conversion fails, or when two of their free symbols
    share a name: symengine's symbols are names, so ``x`` positive and a plain ``x`` would
    become one symbol and get one value at every point — a difference of them would look
    identically zero)."""
    if _names_clash(_free(exprs)):
        return None
    try:
        import symengine as se
        return [se.sympify(e) for e in exprs]
    except Exception:  # noqa: BLE001 - no symengine, or an expression it does not take
        return None


def _names_clash(symbols) -> bool:
    """Do two of ``symbols`` print the same (same name, other assumptions or Dummy)?"""
    return len({str(s) for s in symbols}) < len(symbols)


def _numeric_values(exprs: Sequence[sp.Expr], pt: Mapping, native=None) -> list | None:
    """Values of ``exprs`` at ``pt`` (Rationals where exact, mpmath numbers otherwise), with
    round-off zeros set to exact 0; None if an expression is singular at ``pt``.  One call
    down for the values (:func:`~geonh.kernel.evaluation.values_at`).

    An entry at round-off level is zero if it is tiny against the size of its terms (a
    singular value test alone is only relative: it would count a matrix of round-off zeros
    as full rank)."""
    vals = values_at(exprs, pt, native)
    if any(v is None for v in vals):
        return None
    tol = _roundoff()
    for k, v in enumerate(vals):
        if not isinstance(v, sp.Basic) and abs(v) < mpmath.mpf(10) ** -20 \
                and abs(v) <= tol * term_scale(exprs[k], pt):
            vals[k] = sp.S.Zero
    return vals


def _native_matrix_values(entries: list, point: Mapping) -> list | None:
    """Values of symengine ``entries`` at ``point`` ({sympy symbol: Rational}): exact
    Rationals where no function needs evaluating, mpmath numbers at the working precision
    otherwise (symengine's MPFR, read **at the working precision**: read at mpmath's default
    15 digits, the round-off of an identity such as sin²x + cos²x − 1 survived the
    elimination as a "pivot" and a dependent frame got an inverse full of ``zoo``); an entry
    symengine cannot evaluate (not real there, ...) is evaluated by sympy/mpmath from its
    plain sympy image; round-off zeros (below 10^-(precision/2)) become exact 0; None where
    an entry is singular."""
    plain = {sp.Symbol(str(k)): v for k, v in point.items()}
    vals = values_at(lambda k: entries[k]._sympy_(), plain, entries)
    tol = _roundoff()
    out = []
    with mpmath.workdps(evaluation.precision()):
        for mv in vals:
            if mv is None:
                return None
            if isinstance(mv, sp.Basic):
                out.append(mv)
                continue
            if not mpmath.isfinite(mv):
                return None
            out.append(sp.S.Zero if abs(mv) < tol else mv)
    return out


def _is_native(M) -> bool:
    try:
        import symengine as se
    except ImportError:
        return False
    return isinstance(M, se.DenseMatrix)


def _samples(M, trials: int, *, positive: bool = True, signed: bool | None = None,
             symbols: Mapping | None = None) -> Iterator[tuple[bool, list]]:
    """The one sample stream of the verdicts: values of M at random points where it has
    values, each sample an ``(exact, rows)`` pair (:func:`~geonh.kernel.linalg.as_sample`),
    produced lazily (a search that stops at the first sample never evaluates the others).

    ``positive``: at up to ``trials`` points of :func:`sample_points` (of ``trials + 3``
    drawn) where every entry has a value; ``signed``: then at ``trials`` points of either sign
    (``sample_points(..., signs=True)``), by default when an entry is not analytic
    (:func:`is_nonanalytic`).  M is a sympy matrix (values by
    :func:`~geonh.kernel.evaluation.values_at`, symengine's MPFR where it takes the entries)
    or a symengine ``DenseMatrix`` (evaluated in symengine, never converted as a whole;
    ``symbols`` maps names to the original sympy symbols, so the points are the sympy
    route's points; positive points only)."""
    if _is_native(M):
        rows, cols = M.nrows(), M.ncols()
        entries = list(M)
        names = dict(symbols or {})
        fs: set = set()
        for e in entries:
            fs |= e.free_symbols
        to_native = {names.get(str(x), sp.Symbol(str(x))): x for x in fs}
        free = set(to_native)
        evaluate = lambda pt: _native_matrix_values(entries, pt)  # noqa: E731
        signed = False
    else:
        rows, cols = M.rows, M.cols
        entries = list(M)
        free = _free(entries)
        native = _native(entries)
        evaluate = lambda pt: _numeric_values(entries, pt, native)  # noqa: E731
        if signed is None:
            signed = any(is_nonanalytic(e) for e in entries)

    def shaped(vals):
        return as_sample([vals[i * cols:(i + 1) * cols] for i in range(rows)])

    if positive:
        got = 0
        for pt in sample_points(free, trials + 3):
            vals = evaluate(pt)
            if vals is None:
                continue
            got += 1
            yield shaped(vals)
            if got >= trials:
                break
    if signed:
        for pt in sample_points(free, trials, signs=True):
            vals = evaluate(pt)
            if vals is not None:
                yield shaped(vals)


class RowRank:
    """Generic rank of a growing list of rows, each row evaluated once at fixed random points
    (the points are drawn for ``symbols``, which must contain every symbol the rows use).
    :meth:`add` keeps a row only if it raises the rank."""

    def __init__(self, symbols, trials: int = TRIALS):
        self.points = list(sample_points(set(symbols), trials + 3))
        self.rows: list[list] = [[] for _ in self.points]
        self.alive = [True] * len(self.points)
        self.trials = trials
        self.rank = 0

    def _ranks(self, extra=None) -> list[int]:
        out = []
        for k in range(len(self.points)):
            if not self.alive[k]:
                out.append(-1)
                continue
            rows = self.rows[k] + ([extra[k]] if extra is not None else [])
            out.append(sample_rank(*as_sample(rows)) if rows else 0)
        return out

    def add(self, row: Sequence[sp.Expr]) -> bool:
        """Keep the symbolic row if it raises the rank."""
        return self.add_numeric(lambda k, pt: _numeric_values(list(row), pt))

    def add_numeric(self, values) -> bool:
        """Keep a row given by its values: ``values(k, point)`` returns the list of numbers
        at the k-th point (or None where singular)."""
        vals = []
        for k, pt in enumerate(self.points):
            v = values(k, pt) if self.alive[k] else None
            if v is None:
                self.alive[k] = False
            vals.append(v)
            if sum(self.alive[:k + 1]) >= self.trials:
                self.alive[k + 1:] = [False] * (len(self.points) - k - 1)
                vals += [None] * (len(self.points) - k - 1)
                break
        ranks = self._ranks(vals)
        new = max(ranks)
        if new > self.rank:
            for k in range(len(self.points)):
                if self.alive[k]:
                    self.rows[k].append(vals[k])
            self.rank = new
            return True
        return False


def generic_rank(matrix: sp.MatrixBase | Sequence[Sequence], *, trials: int = TRIALS) -> int:
    """Rank of a symbolic matrix at the generic point (maximum over random points); functions
    of time are independent symbols there (:func:`generic_symbols`).  The one rank verdict of
    both backends (docs/errors.md, "What a backend may decide")."""
    M = generic_symbols(as_matrix(matrix, what="generic_rank matrix"))
    if M.rows == 0 or M.cols == 0:
        return 0
    full = min(M.shape)
    # float screen: full rank at one point, proven in double precision, is the generic rank
    for v in float_values(list(M), sample_points(_free(M), trials)):
        if v is not None and float_rank(v[0].reshape(M.shape), v[1].reshape(M.shape)) == full:
            return full
    samples = list(_samples(M, trials))
    if not samples:
        return M.rank(iszerofunc=is_zero, simplify=True)
    best = 0
    for exact, rows in samples:
        best = max(best, sample_rank(exact, rows))
        if best == min(M.shape):
            break
    return best


def independent_rows(matrix: sp.MatrixBase) -> list[int]:
    """Indices of a maximal set of rows independent at the generic point (greedy, in order);
    the matrix is evaluated once per sample point (functions of time as in :func:`generic_rank`)."""
    M = generic_symbols(as_matrix(matrix, what="matrix"))
    if M.rows == 0:
        return []
    # float screen: a row is independent of the kept ones if double precision proves it at one
    # point; only the other rows are decided at PRECISION digits (as without the screen)
    screens = [(v.reshape(M.shape), e.reshape(M.shape))
               for v, e in filter(None, float_values(list(M), sample_points(_free(M), TRIALS)))]
    keep: list[int] = []
    samples = None
    for i in range(M.rows):
        trial = keep + [i]
        if any(float_rank(A[trial, :], E[trial, :]) == len(trial) for A, E in screens):
            keep = trial
            continue
        if samples is None:
            samples = list(_samples(M, TRIALS))
        if samples:
            ok = any(sample_rank(ex, [rows[k] for k in trial]) == len(trial) for ex, rows in samples)
        else:
            ok = M.extract(trial, list(range(M.cols))).rank(iszerofunc=is_zero, simplify=True) == len(trial)
        if ok:
            keep = trial
    return keep


def pivot_rows(M, trials: int = TRIALS, *, symbols: Mapping | None = None) -> list[int] | None:
    """The one pivot search of both backends: a row order for which Gaussian elimination
    without row exchanges has non-zero pivots at the generic point, found by elimination
    (:func:`~geonh.kernel.linalg.pivot_order_at`) at the first sample point where M is regular
    over ``_samples``).  ``None`` if M is singular at every sample point: not a verdict
    (:func:`regular_pivot_order` decides then).

    M is a sympy matrix (functions of time sampled as symbols, :func:`generic_symbols`) or a
    symengine ``DenseMatrix``, evaluated in symengine at the same points (``symbols``: names →
    the original sympy symbols, from a :class:`~geonh.kernel.backend.Translation`).

    Each symbolic pivot then equals a numeric pivot that is non-zero at that point, so it is
    not identically zero: the symbolic LU needs only a structural zero test (no expensive
    zero decisions on large pivot expressions)."""
    if not _is_native(M):
        M = generic_symbols(M)
    return _first_pivot_order(_samples(M, trials, symbols=symbols))


def _first_pivot_order(samples: Iterator[tuple[bool, list]]) -> list[int] | None:
    """The :func:`~geonh.kernel.linalg.pivot_order_at` order of the first sample at which the
    matrix is regular (the stream is consumed only that far: later points are never
    evaluated); None if it is singular at every sample."""
    for exact, rows in samples:
        order = linalg.pivot_order_at(exact, rows)
        if order is not None:
            return order
    return None


def singular_error(M: sp.MatrixBase, what: str = "matrix") -> SingularMapError | None:
    """The refusal of a square M as singular, worded by the one rank verdict: a
    :class:`SingularMapError` saying "``what`` is singular at the generic point (rank r < n)"
    with r = :func:`generic_rank`, the rank also kept as the exception's ``rank`` attribute
    (callers that reword the refusal, e.g. :class:`~geonh.kernel.frames.Frame`, read it).
    None when the generic rank is full: there is nothing to refuse then, the caller must find
    the pivots instead."""
    n = M.rows
    r = generic_rank(M)
    if r >= n:
        return None
    exc = SingularMapError(f"{what} is singular at the generic point (rank {r} < {n})")
    exc.rank = r
    return exc


def regular_pivot_order(M: sp.MatrixBase, *, what: str = "matrix") -> list[int] | None:
    """The one regularity verdict for a square matrix, shared by both backends: a row order
    whose LU pivots are non-zero at the generic point, or :class:`SingularMapError`.

    1. the pivot search :func:`pivot_rows` at the sample points (the symengine route runs
       the same search on its own values first, and defers here when it finds nothing);
    2. if that finds none, the rank verdict :func:`generic_rank` decides: rank r < n raises
       ``SingularMapError("… (rank r < n)")`` (:func:`singular_error`), so a refusal always
       agrees with ``generic_rank``;
    3. full rank: the pivots are searched again at more points, signed ones included
       (an entry may vanish on the positive orthant only); ``None`` if none is found even
       so — M is regular and the caller eliminates with :func:`is_zero` as the pivot test.

    Functions of time are independent symbols (:func:`generic_symbols`)."""
    M = sp.Matrix(M)
    n = M.rows
    if n != M.cols:
        raise SingularMapError(f"{what} is {M.rows}x{M.cols}, not square; it has no inverse")
    found = pivot_rows(M)
    if found is not None:
        return found
    exc = singular_error(M, what)
    if exc is not None:
        raise exc
    return _first_pivot_order(_samples(generic_symbols(M), 3 * TRIALS, signed=True))


def _structural_zero(e) -> bool:
    return e == 0


def lu_solve(M: sp.MatrixBase, rhs: sp.MatrixBase, *, what: str = "matrix",
             positive_definite: bool = False) -> sp.Matrix:
    """Solve ``M x = rhs`` by LU decomposition with generic-point pivoting.

    sympy's default ``inv()`` (Gauss elimination with simplification) is ~100x slower on
    trigonometric frames, and its zero test can accept an unexpanded zero as a pivot.  Here
    the row order comes from partial pivoting at a random point (:func:`pivot_rows`), so
    every symbolic pivot is provably non-zero at the generic point; a matrix singular at the
    generic point raises :class:`SingularMapError` naming ``what``.  Sizes ≤ 3 with functions
    are solved by Cramer's rule (cofactors, :func:`~geonh.kernel.linalg.det_small`) once the pivot search has shown
    M regular at the generic point.

    This is the **generic-rank route** (also named :func:`generic_solve`): regularity is the
    one verdict :func:`regular_pivot_order` (a refusal always states the rank r < n that
    :func:`generic_rank` finds; a matrix of full generic rank is always solved), and entries
    may hold functions of time (dynamicsymbols q(t) and their derivatives, sampled as
    independent symbols, :func:`generic_symbols`), e.g. ∂kdes/∂u of a ``KanesMethod``.

    ``positive_definite=True`` carries a verdict the caller has *proven*: M is positive
    definite at the generic point (e.g. the Gram matrix g(X_r, X_s) of independent fields in
    the kinetic metric of a :class:`~geonh.systems.MechanicalSystem`, whose positive
    definiteness its constructor decided).  Then M is regular, and where the solve uses no
    pivot order — Cramer's rule (n ≤ 3 with functions) and the exact rational route — the
    regularity search is not run again; elsewhere the search runs as without the verdict
    (the order shapes the result).
    """
    M = as_matrix(M, what=what)
    n = M.rows
    functions = any(e.has(sp.Function) for e in M)
    carried = positive_definite and M.cols == n and (n <= 3 or not functions)
    order = None if carried else regular_pivot_order(M, what=what)
    rhs = as_matrix(rhs, what=f"right-hand side of {what}")
    if rhs.rows != M.rows:
        raise DimensionError(f"the right-hand side of {what} has {rhs.rows} rows, not {M.rows}")
    if carried and not functions and any(e.has(sp.Function) for e in rhs):
        carried, order = False, regular_pivot_order(M, what=what)   # the symbolic LU below uses the order
    if order is None and not carried:
        # regular (full generic rank) but no numeric pivot order: the zero verdict picks pivots
        return M.LUsolve(rhs, iszerofunc=is_zero)
    if n <= 3 and functions:
        # Cramer's rule with cofactor determinants: flat expressions built without any
        # arithmetic on the (large) entries, where sympy's LUsolve spends seconds on them
        # (unevaluated: sympy's Mul of large sums would query assumptions of every term)
        return cramer_solve(M, rhs)
    if not any(e.has(sp.Function) for e in list(M) + list(rhs)):
        # rational data: exact sparse-polynomial arithmetic (DomainMatrix over the fraction
        # field) gives cancelled entries, far smaller than a symbolic LU's nested fractions
        try:
            from sympy.polys.matrices import DomainMatrix
            dM, dr = DomainMatrix.from_Matrix(M).unify(DomainMatrix.from_Matrix(rhs))
            return dM.to_field().lu_solve(dr.to_field()).to_Matrix()
        except Exception:  # pragma: no cover - unusual domains fall back on the symbolic LU
            pass
    if order is None:  # pragma: no cover - the verdict was carried, the rational route failed
        order = regular_pivot_order(M, what=what)
        if order is None:
            return M.LUsolve(rhs, iszerofunc=is_zero)
    return M.extract(order, list(range(n))).LUsolve(rhs.extract(order, list(range(rhs.cols))),
                                                      iszerofunc=_structural_zero)


#: the generic-rank route by its role's name: solve M x = rhs, or refuse M by its generic rank
generic_solve = lu_solve


def lu_inverse(M: sp.MatrixBase, *, what: str = "matrix", check: bool = True) -> sp.Matrix:
    """Inverse by LU with generic-point pivoting (see :func:`lu_solve`).  ``check`` is kept for
    callers that verified the rank already; the pivot search checks it anyway."""
    M = as_matrix(M, what=what)
    return lu_solve(M, sp.eye(M.rows), what=what)


def rref(M: sp.MatrixBase) -> tuple[sp.Matrix, tuple[int, ...]]:
    """The reduced row echelon form of ``M`` at the generic point and its pivot columns:
    sympy's ``rref`` with :func:`is_zero` as the pivot test (a pivot that is identically zero,
    however unexpanded, is never taken), no simplification.  The one symbolic row echelon;
    :func:`nullspace` reads its basis off the same elimination."""
    M = as_matrix(M, what="matrix")
    return M.rref(iszerofunc=is_zero, simplify=False)


def nullspace(M: sp.MatrixBase) -> list[sp.Matrix]:
    """Right null space basis of ``M`` at the generic point (the elimination of :func:`rref`)."""
    M = as_matrix(M, what="matrix")
    return M.nullspace(iszerofunc=is_zero, simplify=False)


def inverse(M: sp.MatrixBase, what: str = "matrix") -> sp.Matrix:
    """geonh's one inverse policy for a matrix known to be invertible at the generic point: the
    identity is returned as is, adj(M)/det(M) for sizes ≤ 4 (flat expressions, no nested
    quotients), :func:`lu_inverse` with generic pivots beyond.

    The policy: a symbolic inverse that is kept (a frame, a quasi-velocity matrix b = a⁻¹) is
    ``inverse(M, what)``; where only M⁻¹ b is needed, solve ``lu_solve(M, b, what=...)``
    instead (and ``lu_solve(M, eye(n))`` where an explicit LU inverse is wanted).  Never
    sympy's ``inv()`` (slow, and its zero test may accept an unexpanded zero as a pivot).
    A singular M raises :class:`SingularMapError` naming ``what``: singular means
    :func:`regular_pivot_order` refuses it (never a determinant that merely does not look
    like 0, such as y − y(sin²x + cos²x))."""
    M = as_matrix(M, what=what)
    n = M.rows
    if n == 0:
        return sp.zeros(0, 0)
    if n != M.cols:
        raise SingularMapError(f"{what} is {M.rows}x{M.cols}, not square; it has no inverse")
    if all(M[i, j] == (1 if i == j else 0) for i in range(n) for j in range(n)):
        return sp.eye(n)
    if n <= 4:
        regular_pivot_order(M, what=what)  # the regularity verdict: raises when singular
        det = M.det(method="berkowitz")
        if det == 0:
            raise SingularMapError(f"{what} is singular (its determinant vanishes identically)")
        return M.adjugate(method="berkowitz") / det
    return lu_inverse(M, what=what, check=False)


def singleton_pivots(M: sp.MatrixBase) -> list[tuple[int, int]]:
    """The pivots (row, column) of a square M's rows that are singletons, found in turn: a row
    whose only structurally non-zero entry among the columns not yet taken is in column c
    takes c.  With them, after a permutation, M = [[L, 0], [E, F]] with L lower triangular
    (rows and columns of the pivots, in the order found) and F the rest — the elimination of
    sparse LU that pivots on rows of one entry first (no fill-in, no arithmetic on the other
    rows: Duff, Erisman & Reid, *Direct Methods for Sparse Matrices*, §9.2).  Structural only
    (an entry is zero when it is the expression 0): callers clear generically-zero entries
    first when they matter."""
    M = as_matrix(M, what="matrix")
    rows, cols = set(range(M.rows)), set(range(M.cols))
    out: list[tuple[int, int]] = []
    found = True
    while found:
        found = False
        for r in sorted(rows):
            nz = [c for c in sorted(cols) if M[r, c] != 0]
            if len(nz) == 1:
                out.append((r, nz[0]))
                rows.discard(r)
                cols.discard(nz[0])
                found = True
    return out


def singleton_reduced_inverse(M: sp.MatrixBase, pivots: Sequence[tuple[int, int]],
                              inner: Callable[[sp.Matrix], sp.Matrix], *, what: str = "matrix") -> sp.Matrix:
    """M⁻¹ of a square M by its singleton pivots (:func:`singleton_pivots`): with rows and
    columns permuted to M = [[L, 0], [E, F]],

        M⁻¹ = [[L⁻¹, 0], [−F⁻¹ E L⁻¹, F⁻¹]]   (block lower triangular inverse),

    L⁻¹ by forward substitution, F⁻¹ = ``inner(F)`` (the caller's inverse of the rest, which
    decides its regularity).  The large entries then meet only in F: a frame of quasi-velocities
    q̇^i among constraint rows is inverted without pivoting on an entry that is small where the
    system moves (sympy's bicycle: a generic LU pivot 1e-3 at the state where another entry
    is 1; Kane's forcing lost ten digits).  A pivot of L that vanishes at the generic point
    makes M singular: :class:`SingularMapError`."""
    M = as_matrix(M, what=what)
    n = M.rows
    sr = [r for r, _ in pivots]
    sc = [c for _, c in pivots]
    rr = [r for r in range(n) if r not in sr]
    rc = [c for c in range(n) if c not in sc]
    k = len(pivots)
    L = [[M[sr[i], sc[j]] for j in range(k)] for i in range(k)]
    for i in range(k):
        p = L[i][i]
        if not p.is_number and is_zero(p):
            raise _singular_whole(M, what, f"{what} is singular at the generic point (its row {sr[i]} vanishes there)")
    Li = [[sp.S.Zero] * k for _ in range(k)]
    for i in range(k):
        Li[i][i] = 1 / L[i][i]
        for j in range(i + 1, k):
            s = sp.Add(*[L[j][m] * Li[m][i] for m in range(i, j) if L[j][m] != 0 and Li[m][i] != 0])
            Li[j][i] = -s / L[j][j] if s != 0 else sp.S.Zero
    out = sp.zeros(n, n)
    for j in range(k):
        for i in range(k):
            out[sc[j], sr[i]] = Li[j][i]
    if rr:
        F = M.extract(rr, rc)
        try:
            Fi = inner(F)
        except SingularMapError as exc:
            raise _singular_whole(M, what, str(exc)) from None
        G = [[sp.Add(*[M[rr[a], sc[m]] * Li[m][i] for m in range(k) if M[rr[a], sc[m]] != 0 and Li[m][i] != 0])
              for i in range(k)] for a in range(len(rr))]
        for b in range(len(rc)):
            for a in range(len(rr)):
                out[rc[b], rr[a]] = Fi[b, a]
            for i in range(k):
                s = sp.Add(*[Fi[b, a] * G[a][i] for a in range(len(rr)) if Fi[b, a] != 0 and G[a][i] != 0])
                out[rc[b], sr[i]] = -s
    return out


def _singular_whole(M: sp.Matrix, what: str, fallback: str) -> SingularMapError:
    """The refusal of M itself (:func:`singular_error`: worded with M's generic rank, kept as
    ``rank``) when a block of its singleton elimination was singular — never the block's rank
    or size, which would misstate M's (rank(M) = k + rank(F) for k singleton pivots)."""
    exc = singular_error(M, what)
    return exc if exc is not None else SingularMapError(fallback)


#: a name that moved from here names its new home (geonh.moved)
__getattr__ = package_getattr(__name__)

