"""The expression backend of geonh's symbolic hot paths: symengine (fast) or sympy (reference).

geonh's public objects hold **sympy** expressions: users give sympy and get sympy.  The hot
paths (Jacobians, directional derivatives and Lie brackets of vector fields, structure
coefficients, the frame inverse, the transpositional coefficients) may run on symengine, a
C++ engine with the same expression language and no assumptions system.  Each hot path
converts its inputs **once** on the way in (:func:`to_symengine`) and its results **once** on
the way out (:func:`to_sympy`); nothing in between touches sympy.

Choosing the backend
--------------------
* :func:`set_backend` ``("symengine" | "sympy")``, :func:`get_backend`, and the context
  manager :func:`using_backend` (restores the previous backend on exit).
* The choice is **scoped** (a :class:`contextvars.ContextVar`): ``set_backend`` and
  ``using_backend`` act on the current context only — this thread, or this asyncio task
  (tasks it creates copy it).  Another thread, or a concurrent task, keeps its own backend.
  A new thread starts from the **process default**, which :func:`set_default_backend`
  changes (threaded sweep workers use it).
* The environment variable ``GEONH_BACKEND`` is read once, at import (the process default).
* Default: ``"symengine"`` when the ``symengine`` module imports, otherwise ``"sympy"``
  (:data:`SYMENGINE_AVAILABLE` says which).  Asking for symengine when it is missing, or for
  an unknown name, raises :class:`BackendError` (a :class:`~geonh.errors.GeonhError`).

The sympy backend is the pure-sympy route, kept for comparison and for tests that run both.
The two backends give the same results as functions: identical at random rational points,
and usually identical expressions up to ``expand`` (symengine distributes numeric factors
over sums: 2(x + y) → 2x + 2y).

Conversion
----------
:func:`to_symengine` converts an expression, a matrix or a (nested) list; :func:`to_sympy`
converts back.  Both go through a :class:`Translation` that remembers the sympy symbols it
saw, because symengine symbols carry **no assumptions**: the way back puts the original
symbols (``real=True``, ``positive=True``, ...) back in place, and sympy re-applies its
automatic evaluations on them (``Abs(x) → x`` for positive x, ``sqrt(x**2) → x``, ...).
Dummies map to symengine dummies and back to themselves.

Fallbacks to sympy (each explicit: :func:`supports` says no and the hot path computes with
sympy; ``to_symengine`` itself raises :class:`UnsupportedExpressionError`):

1. **Functions outside the supported set** :data:`SUPPORTED_FUNCTIONS` (the elementary
   functions whose derivatives both engines agree on: sin, cos, tan, cot, sec, csc, their
   inverses, sinh, cosh, tanh, coth, exp, log, atan2).  ``Abs``, ``sign``, ``Piecewise``,
   ``Heaviside``, ``Min``/``Max``, special functions, ``Derivative``, ``Subs``, ``Integral``:
   symengine differentiates them differently or not at all (``d|x|/dx`` stays an unevaluated
   ``Derivative`` in symengine, sympy gives ``sign(x)`` for real x).
2. **Undefined functions** (``f(t)``, dynamicsymbols): their names could carry assumptions
   and derivatives of them are ``Derivative`` objects; the kernel works in plain symbols
   (``ConfigurationSpace.from_dynamic``), so anything with an applied undefined function
   stays in sympy.
3. **Two different symbols with the same name** (``Symbol("x")`` and ``Symbol("x",
   real=True)``): symengine identifies symbols by name only and would merge them.
4. **Constants other than** π, E, I and numbers (e.g. ``GoldenRatio``, ``EulerGamma``,
   ``oo``, ``nan``, ``zoo``) and non-expression objects (Relational, Boolean, sets).
5. **Assumptions, simplification and zero decisions** are never asked of symengine:
   geonh decides zeros and ranks numerically at the generic point
   (:mod:`geonh.kernel.generic_point`), and a structural zero (the expression ``0``) is the
   only zero test used inside the hot paths.

6. **The inverse of rational (function-free) matrices**: a frame or coframe matrix without
   functions is inverted by sympy's exact fraction-field LU (as in
   :func:`geonh.kernel.generic_point.lu_solve`: cancelled entries instead of a symbolic
   LU's nested quotients, so both backends hold the *same* B = C⁻¹), see
   :func:`fraction_field_inverse`: the cancelled numerators and denominators go straight to
   symengine (no sympy expressions in between), and the sympy B is built only when asked
   for; symengine takes over from B on (brackets, products).  With functions the LU runs
   in symengine.
7. **Entries not real at a sample point** (``log`` of a negative value, ...): the numeric
   pivot search (:func:`generic_pivot_order`, i.e. :func:`geonh.kernel.generic_point.pivot_rows`)
   evaluates that entry with sympy/mpmath.

:func:`supports` returns whether (and :func:`unsupported_reason` why not) an expression can
go to symengine.  Where the hot paths use the backend: a :class:`~geonh.kernel.fields.VectorField` applied to a function, and
:meth:`VectorField.bracket` (hence distributions' involutivity and the transpositional
relations' brackets and quasi relations), the frame and coframe inverses and the duality
check of :class:`~geonh.kernel.frames.Frame`, and :meth:`Frame.structure_coefficients`
(hence Hamel's β and Neimark–Fufaev's γ of :mod:`geonh.transposition.relations`).

Results that stay in symengine
------------------------------
Rebuilding canonical sympy objects (argument sorting, sympy's automatic evaluation) costs
more than the symengine computation itself.  Results that are often read only in part are
therefore handed out lazily: :class:`LazyArray` is a sympy ``ImmutableDenseNDimArray`` (same
type tests, shape, printing, equality, hashing, ``tolist``, ``applyfunc``, pickling, ...)
whose entries are converted from symengine by the :class:`Translation` of their computation
on first access, ``c[d, a, b]`` one entry at a time, anything else (iteration, slices,
``args``, equality) all at once.  The converted entries are exactly those an eager
conversion would give.  :class:`~geonh.kernel.frames.Frame` keeps its inverse the same way
(``Frame.B`` is converted on first access).

Primitives
----------
:func:`jacobian`, :func:`directional_derivative`, :func:`lie_bracket`, :func:`matmul`,
:func:`lu_solve`, :func:`lu_inverse` and :func:`inverse` work on *native* objects of the
active backend (symengine ``DenseMatrix``/expressions, or sympy ``Matrix``/expressions) and
follow geonh's inverse policy (:func:`geonh.kernel.generic_point.inverse`): the identity as
is, adj(M)/det(M) up to size 4, LU with generic-point pivots beyond (the row order is found
at random points, so every symbolic pivot is provably non-zero at the generic point).

Verdicts (docs/errors.md, "What a backend may decide")
-------------------------------------------------------
A verdict — zero, rank, independence, regularity, definiteness — is decided once, by the
function of :mod:`geonh.kernel.generic_point` both backends call, never by a backend on its
own.  The symengine route may prove a matrix regular (its pivot search
:func:`generic_pivot_order` is the shared search :func:`~geonh.kernel.generic_point.pivot_rows`,
with the rule :func:`~geonh.kernel.linalg.pivot_order_at`, at the same points and precision,
the matrix evaluated in symengine)
and may skip structural zeros; anything it cannot prove — no pivot order, a pivot that is
structurally 0, a result holding ``zoo``/``nan``/``±oo`` — is re-decided by the reference
route (:func:`~geonh.kernel.generic_point.regular_pivot_order`: a refusal states the rank
:func:`~geonh.kernel.generic_point.generic_rank` finds, full generic rank is always solved),
never returned.
"""
from __future__ import annotations

import contextvars
import os
from contextlib import contextmanager
from typing import Any, Sequence

import sympy as sp

from ..errors import DimensionError, GeonhError, ParseError, SingularMapError
from .budget import check
from .display import for_display
from .elementary import SYMENGINE_FUNCTIONS
from .linalg import det_small
from .parsing import as_mapping, as_matrix, as_sequence, expr_of, sympy_of


class _LazySymengine:
    """The ``symengine`` module, imported on first use: ``se.Basic``, ``se.DenseMatrix``, ...
    import it (and with it numpy, ~0.1 s) the first time a hot path needs it, not at
    ``import geonh`` (issue 22, fixed costs)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        import symengine
        global se
        se = symengine  # from now on the module itself: no indirection on the hot paths
        return getattr(symengine, name)

    def __repr__(self) -> str:
        return "<symengine, imported on first use>"


def _symengine_installed() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("symengine") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


#: the symengine module (imported lazily), or None when it is not installed
se: Any = _LazySymengine() if _symengine_installed() else None
#: whether symengine is installed (the fast paths are on); without it sympy/numpy do the work
SYMENGINE_AVAILABLE = se is not None

BACKENDS = ("symengine", "sympy")


class BackendError(GeonhError, ValueError):
    """An unknown or unavailable expression backend."""


class UnsupportedExpressionError(BackendError):
    """An expression that has no faithful symengine image (see the module's fallback list)."""


def _check_name(name) -> str:
    if not isinstance(name, str) or name.strip().lower() not in BACKENDS:
        raise BackendError(f"unknown expression backend {name!r}; choose one of {list(BACKENDS)}")
    name = name.strip().lower()
    if name == "symengine" and not SYMENGINE_AVAILABLE:
        raise BackendError("the symengine backend was requested but the symengine module does "
                           "not import; install symengine or use set_backend('sympy')")
    return name


def _initial() -> str:
    env = os.environ.get("GEONH_BACKEND", "").strip()
    if env:
        return _check_name(env)
    return "symengine" if SYMENGINE_AVAILABLE else "sympy"


#: the process default: what a context that never chose a backend uses (new threads included)
_DEFAULT = _initial()
#: the choice of the current context (thread, asyncio task); None: the process default
_CHOICE: contextvars.ContextVar[str | None] = contextvars.ContextVar("geonh_backend", default=None)


def get_backend() -> str:
    """The active backend of the current context: ``"symengine"`` or ``"sympy"``."""
    return _CHOICE.get() or _DEFAULT


def set_backend(name: str) -> str:
    """Make ``name`` (``"symengine"`` or ``"sympy"``) the active backend **of the current
    context** (this thread, or this asyncio task and the tasks it creates); returns the
    previous one.  Other threads keep theirs; a new thread starts from the process default
    (:func:`set_default_backend`).  An unknown or unavailable name raises
    :class:`BackendError`."""
    name = _check_name(name)
    old = get_backend()
    _CHOICE.set(name)
    return old


def set_default_backend(name: str) -> str:
    """Make ``name`` the process default: the backend of every context that has not chosen
    one with :func:`set_backend` / :func:`using_backend` (new threads, worker threads of a
    threaded sweep); returns the previous default.  Initially ``GEONH_BACKEND`` or the
    module default."""
    global _DEFAULT
    name = _check_name(name)
    old, _DEFAULT = _DEFAULT, name
    return old


@contextmanager
def using_backend(name: str):
    """``with using_backend("sympy"): ...`` runs the block on ``name`` and restores the
    previous backend afterwards (also on error).  Scoped to the current context: other
    threads and asyncio tasks running meanwhile keep their own backend."""
    token = _CHOICE.set(_check_name(name))
    try:
        yield name
    finally:
        _CHOICE.reset(token)


def use_symengine() -> bool:
    """True when the active backend of the current context is symengine."""
    return get_backend() == "symengine"


# -- what symengine may see -------------------------------------------------------------------
#: the functions symengine may see: the rows of the one table of elementary functions
#: (:mod:`geonh.kernel.elementary`) whose derivatives both engines agree on
SUPPORTED_FUNCTIONS = SYMENGINE_FUNCTIONS
_CONSTANTS = (sp.core.numbers.Pi, sp.core.numbers.Exp1, sp.core.numbers.ImaginaryUnit)
_OK_CACHE: dict = {}


def _reason_node(e) -> str | None:
    """Why the single node ``e`` cannot go to symengine (None if it can)."""
    if e.is_Symbol:
        return None
    if e.is_Number:
        if e.is_Rational or e.is_Float:
            return None
        return f"the number {e} has no symengine image"
    if e.is_Add or e.is_Mul or e.is_Pow:
        return None
    if isinstance(e, _CONSTANTS):
        return None
    if isinstance(e, sp.core.function.AppliedUndef):
        return f"undefined function {e.func} (functions of time stay in sympy)"
    if isinstance(e, sp.Function):
        if e.func in SUPPORTED_FUNCTIONS:
            return None
        return f"function {e.func} is not in geonh's symengine set"
    return f"{type(e).__name__} objects stay in sympy"


def _scan(expr, funcs: list | None = None) -> tuple[str | None, dict]:
    """(reason or None, {name: sympy symbol}) for an expression, matrix or sequence; the
    function nodes met are appended to ``funcs`` when given."""
    names: dict = {}
    for e in _flatten(expr):
        e = sympy_of(e)
        hit = _OK_CACHE.get(e)
        if hit is None:
            stack, seen, found, fn = [e], set(), [], []
            while stack:
                a = stack.pop()
                if a in seen:
                    continue
                seen.add(a)
                r = _reason_node(a)
                if r is not None:
                    return r, names
                if a.is_Symbol:
                    found.append(a)
                else:
                    if a.is_Function:
                        fn.append(a)
                    stack.extend(a.args)
            if len(_OK_CACHE) > 4096:
                _OK_CACHE.clear()
            hit = _OK_CACHE[e] = (tuple(found), tuple(fn))
        syms = hit[0]
        if funcs is not None:
            funcs.extend(hit[1])
        for s in syms:
            if isinstance(s, sp.Dummy):
                continue
            other = names.setdefault(s.name, s)
            if other != s:
                return f"two different symbols are both named {s.name!r} ({other!r} and {s!r})", names
    return None, names


def unsupported_reason(expr) -> str | None:
    """Why ``expr`` (an expression, matrix or sequence of them) cannot go to symengine, or
    ``None`` when it can (see the module docstring for the fallback list)."""
    return _scan(expr)[0]


def supports(expr) -> bool:
    """Can ``expr`` (expression, matrix or sequence) be computed on with symengine?"""
    return SYMENGINE_AVAILABLE and unsupported_reason(expr) is None


def _flatten(obj) -> list:
    if isinstance(obj, sp.MatrixBase) or (se is not None and isinstance(obj, se.DenseMatrix)):
        return list(obj)
    if isinstance(obj, sp.NDimArray):
        return list(obj)
    if isinstance(obj, (list, tuple)):
        out = []
        for o in obj:
            out.extend(_flatten(o))
        return out
    return [obj]


# -- conversion -------------------------------------------------------------------------------
class Translation:
    """A two-way dictionary of symbols between sympy and symengine.

    ``to_symengine`` records every sympy symbol it converts; ``to_sympy`` replaces the
    assumption-free symbols symengine returns by those originals.  Use one translation for
    the inputs and outputs of one computation."""

    def __init__(self):
        self.symbols: dict[str, sp.Symbol] = {}
        self._funcs: list = []
        self._memo: dict = {}
        self._keys: dict = {}   # sympy node -> its canonical sort key (see _sort_key)

    def _record(self, exprs) -> None:
        funcs: list = []
        reason, names = _scan(exprs, funcs)
        if reason is None:
            for k, v in names.items():
                other = self.symbols.setdefault(k, v)
                if other != v:
                    reason = f"two different symbols are both named {k!r} ({other!r} and {v!r})"
                    break
        if reason is not None:
            raise UnsupportedExpressionError(f"cannot convert to symengine: {reason}")
        self._funcs.extend(funcs)

    def to_symengine(self, obj):
        """sympy expression / Matrix / (nested) list → symengine (a Matrix becomes a
        ``DenseMatrix``, a list stays a list)."""
        if not SYMENGINE_AVAILABLE:
            raise BackendError("symengine is not installed")
        if not _is_se(obj):
            obj = sympy_of(obj, what="to_symengine")  # strings parsed here, never by symengine's own parser
        self._record(obj)
        return _to_se(obj)

    def _prepare(self) -> None:
        if self._funcs:
            for f in self._funcs:
                self._memo.setdefault(se.sympify(f), f)
            self._funcs = []

    def to_sympy(self, obj):
        """symengine (or sympy) expression / DenseMatrix / list → sympy with the recorded
        original symbols (a DenseMatrix becomes a mutable sympy ``Matrix``).

        Distinct subexpressions are converted once (memo shared by every call on this
        translation), function nodes of the inputs come back as the very input objects, and
        sums and products are assembled in sympy's canonical argument order without
        re-running sympy's flattening (symengine has already collected terms)."""
        if not _is_se(obj) and not isinstance(obj, (sp.Basic, sp.MatrixBase, list, tuple)):
            obj = expr_of(obj, what="to_sympy")  # strings parsed, never by symengine's own parser
        if se is None:
            return _to_sp(obj, {})
        self._prepare()
        if isinstance(obj, se.DenseMatrix):
            return sp.Matrix(obj.nrows(), obj.ncols(), [self._conv(e) for e in obj])
        if isinstance(obj, sp.MatrixBase):
            return sp.Matrix(obj.rows, obj.cols, [self.to_sympy(e) for e in obj])
        if isinstance(obj, (list, tuple)):
            return [self.to_sympy(o) for o in obj]
        if isinstance(obj, sp.Basic):
            rep = {sp.Symbol(k): v for k, v in self.symbols.items() if v != sp.Symbol(k)}
            return obj.xreplace(rep) if rep else obj
        return self._conv(se.sympify(obj))

    def _conv(self, e):
        memo = self._memo
        r = memo.get(e)
        if r is not None:
            return r
        if e.is_Symbol:
            r = e._sympy_() if e.is_Dummy else self.symbols.get(str(e)) or e._sympy_()
        elif e.is_Number or not e.args:
            r = e._sympy_()
        elif e.is_Add:
            r = _canonical(sp.Add, [self._conv(a) for a in e.args], self._keys)
        elif e.is_Mul:
            r = _canonical(sp.Mul, [self._conv(a) for a in e.args], self._keys)
        elif e.is_Pow:
            b, x = e.args
            r = sp.Pow(self._conv(b), self._conv(x))
        else:
            f = _SE_FUNCS.get(type(e).__name__)
            if f is None:
                rep = {sp.Symbol(k): v for k, v in self.symbols.items() if v != sp.Symbol(k)}
                r = e._sympy_()
                r = r.xreplace(rep) if rep else r
            else:
                r = f(*[self._conv(a) for a in e.args])
        memo[e] = r
        return r


_SE_FUNCS = {f.__name__: f for f in SUPPORTED_FUNCTIONS}
_SORTKEY = sp.core.basic._args_sortkey if hasattr(sp.core.basic, "_args_sortkey") else None


class _Unsortable(Exception):
    """A node whose order :func:`_sort_key` cannot reproduce: sort with ``Basic.compare``."""


_ORDER = {name: i for i, name in enumerate(getattr(sp.core.basic, "ordering_of_classes", ()))}
_CLASS_KEYS: dict = {}


def _class_key(cls: type) -> tuple:
    """The rank of a class in ``Basic.compare``'s order as a tuple: (0, index) for a class
    named in ``ordering_of_classes`` with a capitalised name (ranked by index), (1, name) for
    a class named nowhere there whose name starts in lower case (``sin``, ``cos``, ``exp``:
    ranked by name, after every capitalised name).  ``_cmp_name`` is a total order on such
    classes; any other class (``Dummy``, an undefined function ``F``, ``factorial``) can
    break transitivity against them and raises :class:`_Unsortable`."""
    k = _CLASS_KEYS.get(cls)
    if k is None:
        name = cls.__name__
        i = _ORDER.get(name)
        if i is not None and name[:1].isupper():
            k = (0, i)
        elif i is None and name[:1].islower():
            k = (1, name)
        else:
            k = ()
        _CLASS_KEYS[cls] = k
    if not k:
        raise _Unsortable(cls.__name__)
    return k


def _sort_key(e, keys: dict) -> tuple:
    """A tuple that orders sympy nodes as ``Basic.compare`` does (sympy 1.x, ``core/basic.py``):
    (class rank, length of ``_hashable_content()``, then its entries, a Basic entry by its own
    key, any other entry as it is), so Python's tuple comparison — class, then length, then
    entry by entry — is ``compare``.  Memoized in ``keys`` (nodes shared by many sums and
    products get their key once); raises :class:`_Unsortable` for a class or entry the tuple
    cannot rank (then the caller sorts with ``Basic.compare`` itself)."""
    k = keys.get(e)
    if k is None:
        hc = e._hashable_content()
        parts: list = [_class_key(type(e)), len(hc)]
        for x in hc:
            if isinstance(x, sp.Basic):
                parts.append(_sort_key(x, keys))
            elif isinstance(x, (frozenset, float)):
                raise _Unsortable(type(x).__name__)
            else:
                parts.append(x)
        k = keys[e] = tuple(parts)
    return k


def _sorted(rest: list, keys: dict | None) -> list:
    """``rest`` in sympy's canonical order of commutative arguments (``_args_sortkey``): by
    the memoized tuple keys when every node has one, else by ``Basic.compare``."""
    if keys is not None:
        try:
            return sorted(rest, key=lambda a: _sort_key(a, keys))
        except (_Unsortable, TypeError, RecursionError):
            pass
    return sorted(rest, key=_SORTKEY)


def _flat_mul(num: list, rest: list):
    """The factors of a product some of whose factors are products themselves (a converted
    function node that sympy rewrote, e.g. sin(θ₂ − θ₁) → −sin(θ₁ − θ₂)), merged: (number,
    factors) when ``Mul.flatten`` would do nothing but merge them — one rational
    coefficient, no base twice (x·x⁻¹, exp(a)·exp(b), I·I combine), no number raised to a
    power (√2·√3 combine), not a lone sum left with a coefficient (distributed) — else None."""
    nums = list(num)
    flat: list = []
    for a in rest:
        if isinstance(a, sp.Mul):
            for f in a.args:
                (nums if f.is_Number else flat).append(f)
        else:
            flat.append(a)
    if not all(n.is_Rational for n in nums):
        return None
    c = sp.S.One
    for n in nums:
        c = c * n
    bases = set()
    for f in flat:
        b = f.as_base_exp()[0]
        if b.is_Number or b in bases or f.is_Add and c != 1 and len(flat) == 1:
            return None
        bases.add(b)
    if c == 0 or not flat:
        return None
    return c, flat


def _canonical(cls, args: list, keys: dict | None = None):
    """cls(*args) for the Add/Mul of a canonical symengine node: numbers first, the rest in
    sympy's canonical order (``Basic.compare``, through memoized tuple keys when ``keys``
    is given: :func:`_sort_key`), built without sympy's flattening; factors that are products
    themselves are merged when that is all flattening would do (:func:`_flat_mul`).  Falls
    back on ``cls(*args)`` when the converted arguments need more (several numbers of a sum,
    an identity, a product of powers of one base, a coefficient on a lone sum)."""
    num = [a for a in args if a.is_Number]
    rest = [a for a in args if not a.is_Number]
    if _SORTKEY is None or (num and (num[0] == (0 if cls is sp.Add else 1))):
        return cls(*args)
    if any(isinstance(a, cls) for a in rest):
        merged = _flat_mul(num, rest) if cls is sp.Mul else None
        if merged is None:
            return cls(*args)
        c, rest = merged
        if c == 1 and len(rest) == 1:
            return rest[0]
        num = [] if c == 1 else [c]
    elif len(num) > 1 or (cls is sp.Mul and num and len(rest) == 1 and rest[0].is_Add):
        return cls(*args)
    elif cls is sp.Mul and any(a.is_Pow and a.base in rest for a in rest):
        return cls(*args)
    return cls._from_args(num + _sorted(rest, keys))


def _to_se(obj):
    if isinstance(obj, sp.MatrixBase):
        return se.DenseMatrix(obj.rows, obj.cols, [se.sympify(e) for e in obj])
    if isinstance(obj, (list, tuple)):
        return [_to_se(o) for o in obj]
    return se.sympify(obj)


def _to_sp(obj, rep: dict):
    if se is not None and isinstance(obj, se.DenseMatrix):
        return sp.Matrix(obj.nrows(), obj.ncols(), [_to_sp(e, rep) for e in obj])
    if isinstance(obj, sp.MatrixBase):
        return sp.Matrix(obj.rows, obj.cols, [_to_sp(e, rep) for e in obj])
    if isinstance(obj, (list, tuple)):
        return [_to_sp(o, rep) for o in obj]
    if isinstance(obj, sp.Basic):
        return obj.xreplace(rep) if rep else obj
    e = obj._sympy_() if hasattr(obj, "_sympy_") else sympy_of(obj)
    if rep and not e.is_Number:
        e = e.xreplace(rep)
    return e


def to_symengine(obj, translation: Translation | None = None):
    """Convert a sympy expression, Matrix or list to symengine (raises
    :class:`UnsupportedExpressionError` for the fallback cases of the module docstring).
    Pass a :class:`Translation` to convert results back with :func:`to_sympy`."""
    return (translation or Translation()).to_symengine(obj)


def to_sympy(obj, translation: Translation | None = None):
    """Convert a symengine expression, DenseMatrix or list back to sympy; with the
    ``translation`` used on the way in, the original (assumption-carrying) symbols return."""
    return (translation or Translation()).to_sympy(obj)


def to_native(obj, translation: Translation | None = None):
    """``obj`` as the active backend's object: symengine when active and supported (else
    :class:`UnsupportedExpressionError`), sympy (Matrix for matrices) otherwise."""
    if use_symengine():
        return to_symengine(obj, translation)
    if isinstance(obj, sp.MatrixBase):
        return sp.Matrix(obj)
    if isinstance(obj, (list, tuple)):
        return [sympy_of(o) for o in obj]
    return sympy_of(obj)


class TidyArray(sp.ImmutableDenseNDimArray):
    """A sympy ``ImmutableDenseNDimArray`` that displays its entries tidied: in Jupyter, by
    ``sympy.latex`` and by IPython's pretty printing the entries go through the one size-bounded
    tidying step (:func:`geonh.kernel.display.for_display`); ``str``, ``repr``, the entries and
    every computation stay as computed.  Structure coefficients come as one of these on the
    sympy backend and as its subclass :class:`LazyArray` on the symengine backend."""

    # display (Jupyter, sympy.latex, IPython's pretty printing): the entries as shown to a user,
    # through the one size-bounded tidying step; str, repr and the entries stay as computed
    def _latex(self, printer) -> str:
        return printer._print(for_display(self))

    def _pretty(self, printer):
        return printer._print(for_display(self))

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(str(for_display(self)))


class LazyArray(TidyArray):
    """A sympy ``ImmutableDenseNDimArray`` whose entries are converted from symengine on first
    access (see "Results that stay in symengine" in the module docstring).

    Built by :meth:`from_native`; every sympy operation that rebuilds an array
    (``applyfunc``, slices, ``subs``, ``func(*args)``, pickling) returns an ordinary
    ``ImmutableDenseNDimArray``.  Indexing with a full tuple of non-negative Python ints
    (``c[d, a, b]``) converts that entry only; every other access converts all entries once.
    """

    _mhash: int | None  # sympy's cached hash, computed on first use
    _basic_args: tuple | None  # the args, built on first use

    def __new__(cls, iterable, shape=None, **kwargs):
        # sympy's own rebuilding (func(*args), type(self)(list, shape), unpickling)
        if not isinstance(iterable, (sp.Basic, sp.NDimArray, sp.MatrixBase)):  # sympy would sympify strings
            if hasattr(iterable, "tolist"):
                iterable = iterable.tolist()
            elif not isinstance(iterable, (str, bytes, dict, set)) and hasattr(iterable, "__iter__"):
                iterable = list(iterable)
            iterable = sympy_of(iterable, what="array entries")
        if shape is not None and not isinstance(shape, sp.Tuple):
            shape = tuple(as_sequence(shape, "array shape"))
            if not all(isinstance(d, (int, sp.Integer)) for d in shape):
                raise DimensionError(f"an array shape is a sequence of integers, not {shape!r:.80}")
        return sp.ImmutableDenseNDimArray(iterable, shape, **kwargs)

    @classmethod
    def from_native(cls, shape: Sequence[int], values: list, pending: dict,
                    translation: "Translation") -> "LazyArray":
        """The array of ``shape`` (row-major flat ``values``: sympy expressions, or ``None``
        where ``pending`` maps the flat index to the symengine expression that
        ``translation.to_sympy`` converts on first access)."""
        dims = tuple(as_sequence(shape, "array shape"))
        if not all(isinstance(d, int) and d >= 0 for d in dims):
            raise DimensionError(f"an array shape is a sequence of non-negative integers, not {shape!r:.80}")
        values = [v if v is None else sympy_of(v, what="array entry") for v in as_sequence(values, "array values")]
        pending = as_mapping(pending, "pending entries")
        self = object.__new__(cls)
        self._assumptions = cls.default_assumptions
        self._mhash = None
        size = 1
        for d in dims:
            size *= d
        if len(values) != size:
            raise DimensionError(f"{len(values)} values for shape {dims}")
        self._dims = dims
        self._shape = sp.Tuple(*dims)
        self._rank = len(dims)
        self._loop_size = size
        self._values = values
        self._pending = dict(pending)
        self._translation = translation
        self._basic_args = None
        return self

    def _entry(self, k: int):
        v = self._values[k]
        if v is None:
            v = self._translation.to_sympy(self._pending[k])
            self._values[k] = v
            self._pending.pop(k, None)
        return v

    @property
    def _array(self) -> list:
        if self._pending:
            keys = list(self._pending)
            for done, k in enumerate(keys):
                check("conversion to sympy", done, len(keys), "entries")
                self._entry(k)
        return self._values

    @property
    def _args(self) -> tuple:
        if self._basic_args is None:
            self._basic_args = (sp.Tuple(*self._array), self._shape)
        return self._basic_args

    def __getitem__(self, index):
        if type(index) is tuple and len(index) == self._rank:
            k = 0
            for i, d in zip(index, self._dims):
                if type(i) is not int:
                    if not isinstance(i, sp.Integer):
                        break
                    i = int(i)
                if not 0 <= i < d:
                    break
                k = k * d + i
            else:
                return self._entry(k)
        elif type(index) is int and self._rank == 1 and 0 <= index < self._loop_size:
            return self._entry(index)
        return super().__getitem__(index)

    def __hash__(self) -> int:
        # equal to the ordinary Array of the same entries (NDimArray.__eq__), so hashed alike
        h = self._mhash
        if h is None:
            h = self._mhash = hash(sp.ImmutableDenseNDimArray(self._array, self._dims))
        return h

    def tolist(self) -> list:
        """The nested list of all entries (all converted), as ``NDimArray.tolist``."""
        flat = self._array

        def nest(lo: int, dims: tuple) -> list:
            if len(dims) == 1:
                return flat[lo:lo + dims[0]]
            step = 1
            for d in dims[1:]:
                step *= d
            return [nest(lo + i * step, dims[1:]) for i in range(dims[0])]

        if self._rank == 0:
            return flat[0]
        return nest(0, self._dims)

    def converted(self) -> int:
        """How many entries are sympy objects already (the others wait in symengine)."""
        return self._loop_size - len(self._pending)


def fraction_field_inverse(M: sp.MatrixBase):
    """The exact inverse of a function-free square sympy matrix M, the same as the sympy
    route's (:func:`geonh.kernel.generic_point.lu_solve` against the identity: sympy's
    fraction-field LU, cancelled entries), returned as ``(Minv, to_sympy)``: ``Minv`` the
    symengine ``DenseMatrix`` built directly from the cancelled numerators and denominators
    (each entry the symengine image of the sympy entry numer/denom), ``to_sympy()`` a
    function returning the sympy ``Matrix`` (converted when called; the sympy route's
    matrix).  Symbols come back without assumptions: convert with the :class:`Translation`
    that recorded M.

    ``False`` when M is singular over the fraction field (i.e. at the generic point);
    ``None`` when the domain is not QQ or a field of rational functions over ZZ or QQ, or the
    exact LU fails otherwise: the caller takes the sympy route then."""
    M = as_matrix(M, what="fraction_field_inverse matrix")
    from sympy.polys.matrices import DomainMatrix
    from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError
    n = M.rows
    if n != M.cols or n == 0:
        return None
    try:
        dM, dr = DomainMatrix.from_Matrix(M).unify(DomainMatrix.from_Matrix(sp.eye(n)))
        X = dM.to_field().lu_solve(dr.to_field())
    except DMNonInvertibleMatrixError:
        return False
    except Exception:  # pragma: no cover - unusual domains: the sympy route decides
        return None
    K = X.domain
    rows = X.to_list()
    if K.is_QQ:
        flat = [_se_ratio(v) for r in rows for v in r]
    elif K.is_FractionField and (K.domain.is_ZZ or K.domain.is_QQ):
        gens = [se.sympify(g) for g in K.symbols]
        flat = [_se_fraction(v, gens) for r in rows for v in r]
    else:
        return None
    return se.DenseMatrix(n, n, flat), X.to_Matrix


def _se_ratio(c, d=1):
    """symengine image of the exact quotient c/d of ZZ or QQ domain elements."""
    from fractions import Fraction
    r = Fraction(int(c.numerator), int(c.denominator))
    if d != 1:
        r /= Fraction(int(d.numerator), int(d.denominator))
    return se.Integer(r.numerator) if r.denominator == 1 else se.Rational(r.numerator, r.denominator)


def _se_poly(terms, gens, d=1):
    return se.Add(*[se.Mul(_se_ratio(c, d), *[g if e == 1 else g ** e for g, e in zip(gens, m) if e])
                    for m, c in terms])


def _se_fraction(v, gens):
    """symengine image of ``v.as_expr()`` = numer/denom for a cancelled fraction-field element
    ``v``.  sympy distributes a constant 1/denom over the numerator's terms (Mul(Rational,
    Add)) and symengine does not, so that case is distributed here."""
    p, q = v.numer, v.denom
    qterms = list(q.terms())
    if len(qterms) == 1 and not any(qterms[0][0]):
        return _se_poly(p.terms(), gens, qterms[0][1])  # a constant denominator
    return _se_poly(p.terms(), gens) / _se_poly(qterms, gens)


# -- primitives on native objects -------------------------------------------------------------
def _is_se(obj) -> bool:
    return se is not None and isinstance(obj, (se.Basic, se.DenseMatrix))


def _zero(e) -> bool:
    return e == 0


def _natives(values, what: str) -> list:
    """A sequence of native expressions: symengine objects as they are, anything else through
    :func:`~geonh.kernel.parsing.expr_of` (sympy objects unchanged, strings parsed, others refused)."""
    return [v if _is_se(v) else expr_of(v, what=what) for v in as_sequence(values, what)]


def _native_symbols(values, what: str) -> list:
    out = _natives(values, what)
    for s in out:
        if not getattr(s, "is_Symbol", False):
            raise ParseError(f"{what}: {str(s)[:60]} is not a symbol")
    return out


def jacobian(exprs: Sequence, symbols: Sequence):
    """J[k, i] = ∂ exprs[k] / ∂ symbols[i] (native matrix; symengine if the inputs are)."""
    exprs = _natives(exprs, "jacobian expressions")
    symbols = _native_symbols(symbols, "jacobian symbols")
    if exprs and any(_is_se(e) for e in exprs):
        syms = [se.sympify(s) for s in symbols]
        return se.DenseMatrix(len(exprs), len(syms), [se.diff(e, s) for e in exprs for s in syms])
    return sp.Matrix(len(exprs), len(symbols), lambda k, i: sp.diff(exprs[k], symbols[i]))


def directional_derivative(components: Sequence, f, symbols: Sequence):
    """X(f) = X^i ∂f/∂q^i for X = X^i ∂_i given by ``components`` over ``symbols``
    (CONVENTIONS.md, "Fields, forms, brackets").  symengine if ``f`` or a component is a
    symengine object, sympy otherwise."""
    components = _natives(components, "field components")
    f = f if _is_se(f) else expr_of(f, what="function")
    symbols = _native_symbols(symbols, "symbols")
    native_se = _is_se(f) or any(_is_se(c) for c in components)
    conv = se.sympify if native_se else sympy_of
    f = conv(f)
    free = f.free_symbols
    out = conv(0)
    for c, s in zip(components, symbols):
        s = conv(s)
        if c != 0 and s in free:
            out = out + conv(c) * f.diff(s)
    return out


def lie_bracket(X: Sequence, Y: Sequence, symbols: Sequence) -> list:
    """[X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k (CONVENTIONS.md; check [∂_x, x ∂_y] = +∂_y),
    for fields given by component lists over ``symbols``."""
    X, Y = _natives(X, "field components"), _natives(Y, "field components")
    symbols = _native_symbols(symbols, "symbols")
    if any(_is_se(e) for e in list(X) + list(Y)):
        syms = [se.sympify(s) for s in symbols]
        X = [se.sympify(e) for e in X]
        Y = [se.sympify(e) for e in Y]
    else:
        syms = list(symbols)
    return [directional_derivative(X, b, syms) - directional_derivative(Y, a, syms)
            for a, b in zip(X, Y)]


def matmul(A, B):
    """Matrix product A·B of native matrices (symengine ``DenseMatrix`` or sympy)."""
    A = A if _is_se(A) else as_matrix(A, what="matmul A")
    B = B if _is_se(B) else as_matrix(B, what="matmul B")
    cols = A.ncols() if _is_se(A) else A.cols
    rows = B.nrows() if _is_se(B) else B.rows
    if cols != rows:
        raise DimensionError(f"matmul: A has {cols} columns, B has {rows} rows")
    return A * B


def _eye_like(n: int, native_se: bool):
    return se.eye(n) if native_se else sp.eye(n)


def generic_pivot_order(M, symbols: dict | None = None) -> list[int] | None:
    """Row order of the square matrix M (symengine ``DenseMatrix`` or sympy) for which
    Gaussian elimination without row exchanges has pivots non-zero at the generic point;
    None if none is found at the sample points.  The one pivot search,
    :func:`geonh.kernel.generic_point.pivot_rows` (the rule
    :func:`~geonh.kernel.linalg.pivot_order_at` at the same reproducible random rational
    points, exact or at the working precision); a symengine M is evaluated in symengine.
    ``symbols`` maps names to the original sympy symbols (from a :class:`Translation`), so
    the points are the sympy route's points.

    None is not a verdict: the callers (:func:`lu_solve`, :func:`inverse`) then defer to
    the reference route, :func:`geonh.kernel.generic_point.regular_pivot_order`, which
    refuses M only with the rank :func:`~geonh.kernel.generic_point.generic_rank` finds.
    A sympy matrix may hold functions of time, q(t), q'(t): sampled as symbols."""
    from .generic_point import pivot_rows
    if not _is_se(M):
        M = as_matrix(M, what="matrix")
        if not M.is_square:
            raise DimensionError(f"generic_pivot_order takes a square matrix, not {M.rows}x{M.cols}")
        return pivot_rows(M)
    if symbols is not None:
        symbols = as_mapping(symbols, "generic_pivot_order symbols")
    return pivot_rows(M, symbols=symbols)


def _sympy_plain(e):
    return e._sympy_() if hasattr(e, "_sympy_") else sympy_of(e)


def as_sympy_matrix(M, symbols: dict | None = None) -> sp.Matrix:
    """The symengine matrix M as a sympy Matrix with the original symbols of ``symbols``
    (name → sympy symbol, a :class:`Translation`'s) put back, so the reference route
    samples it at the sympy route's points with the same sign assumptions."""
    if not _is_se(M):
        raise ParseError("as_sympy_matrix takes a symengine matrix")
    if symbols is not None:
        symbols = as_mapping(symbols, "as_sympy_matrix symbols")
    out = sp.Matrix(M.nrows(), M.ncols(), [_sympy_plain(e) for e in M])
    rep = {sp.Symbol(k): v for k, v in (symbols or {}).items() if v != sp.Symbol(k)}
    return out.xreplace(rep) if rep else out


class _Deferred(Exception):
    """The fast route cannot prove its result (a pivot that is structurally 0, a non-finite
    entry): the reference route decides instead."""


_NONFINITE: tuple = ()


def _nonfinite() -> tuple:
    """symengine's ``zoo``, ``nan``, ``oo`` and ``-oo`` (built on first use)."""
    global _NONFINITE
    if not _NONFINITE and se is not None:
        _NONFINITE = (se.zoo, se.nan, se.oo, -se.oo)
    return _NONFINITE


def _finite(X) -> bool:
    """No ``zoo``, ``nan`` or ``±oo`` in the symengine matrix X (a fast-route result holding
    one is never returned: it is re-decided by the reference route).  One walk over the
    distinct subexpressions: an LU result shares them heavily (a dense 9×9 trigonometric
    inverse has a few hundred distinct nodes per entry, ~10⁸ as a tree), and ``has`` walks
    the tree."""
    bad = set(_nonfinite())
    seen: set = set()
    stack = list(X)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e in bad:
            return False
        stack.extend(e.args)
    return True


def _reference_solve(M, rhs, what: str, symbols: dict | None):
    """The reference route for a symengine M that the fast route could not decide: the
    regularity verdict :func:`geonh.kernel.generic_point.regular_pivot_order` on M in sympy
    (raises :class:`SingularMapError` with the generic rank when M is singular) and, when it
    finds pivots, the symengine LU in that order; else sympy's solve, converted."""
    from .generic_point import lu_solve as sympy_lu_solve, regular_pivot_order
    Ms = as_sympy_matrix(M, symbols)
    order = regular_pivot_order(Ms, what=what)
    rhs = rhs if _is_se(rhs) else se.DenseMatrix(rhs)
    X = _solve_in_order(M, rhs, order)
    if X is not None:
        return X
    T = Translation()
    X = sympy_lu_solve(Ms, as_sympy_matrix(rhs, symbols), what=what)
    return T.to_symengine(X)


def _solve_in_order(M, rhs, order):
    """The symengine LU of M x = rhs with the rows in ``order``, or None when there is no
    order, a pivot is structurally 0 or an entry of x is not finite (then the caller defers)."""
    if order is None:
        return None
    try:
        X = _lu_solve_ordered(*_reorder(M, rhs, order))
    except _Deferred:
        return None
    return X if _finite(X) else None


def _reorder(M, rhs, order):
    n, m = M.nrows(), rhs.ncols()
    return (se.DenseMatrix(n, n, [M[i, j] for i in order for j in range(n)]),
            se.DenseMatrix(n, m, [rhs[i, j] for i in order for j in range(m)]))


def lu_solve(M, rhs, *, what: str = "matrix", order: Sequence[int] | None = None,
             symbols: dict | None = None):
    """Solve M x = rhs by LU with generic-point pivoting (the policy of
    :func:`geonh.kernel.generic_point.lu_solve`): rows are taken in an ``order`` for which
    elimination without exchanges has pivots non-zero at the generic point.  Native objects
    in and out; a singular M raises :class:`SingularMapError` naming ``what``.

    The fast route decides nothing it cannot prove: when its pivot search finds no order,
    a pivot turns out structurally 0, or the result holds a non-finite entry, the reference
    route (``_reference_solve``: generic rank, then pivots) decides, so a refusal always
    states the rank r < n of :func:`~geonh.kernel.generic_point.generic_rank`."""
    if not _is_se(M):
        from .generic_point import lu_solve as sympy_lu_solve
        return sympy_lu_solve(M, rhs, what=what)
    n = M.nrows()
    if n != M.ncols():
        raise SingularMapError(f"{what} is {n}x{M.ncols()}, not square; it has no inverse")
    if order is None:
        order = generic_pivot_order(M, symbols)
    rhs = rhs if _is_se(rhs) else se.DenseMatrix(rhs)
    X = _solve_in_order(M, rhs, order)
    return X if X is not None else _reference_solve(M, rhs, what, symbols)


def _lu_solve_ordered(M, rhs):
    """Doolittle elimination without row exchanges (pivots known non-zero), then back
    substitution; entries are symengine expressions, structural zeros skipped.  A pivot
    that is structurally 0 raises :class:`_Deferred` (never a division by zero)."""
    n, m = M.nrows(), rhs.ncols()
    A = [[M[i, j] for j in range(n)] for i in range(n)]
    R = [[rhs[i, j] for j in range(m)] for i in range(n)]
    for j in range(n):
        check("LU elimination", j, n, "columns")
        piv = A[j][j]
        if piv == 0:
            raise _Deferred(j)
        for i in range(j + 1, n):
            if A[i][j] == 0:
                continue
            f = A[i][j] / piv
            A[i] = [A[i][k] - f * A[j][k] if k > j and A[j][k] != 0 else (0 if k == j else A[i][k])
                    for k in range(n)]
            R[i] = [R[i][k] - f * R[j][k] if R[j][k] != 0 else R[i][k] for k in range(m)]
    X = [[0] * m for _ in range(n)]
    for i in reversed(range(n)):
        for k in range(m):
            s = R[i][k]
            for j in range(i + 1, n):
                if A[i][j] != 0 and X[j][k] != 0:
                    s = s - A[i][j] * X[j][k]
            X[i][k] = s / A[i][i] if A[i][i] != 1 else s
    return se.DenseMatrix(n, m, [X[i][k] for i in range(n) for k in range(m)])


def lu_inverse(M, *, what: str = "matrix", order: Sequence[int] | None = None,
               symbols: dict | None = None):
    """M⁻¹ by :func:`lu_solve` against the identity (native objects)."""
    if not _is_se(M):
        from .generic_point import lu_inverse as sympy_lu_inverse
        return sympy_lu_inverse(M, what=what)
    return lu_solve(M, se.eye(M.nrows()), what=what, order=order, symbols=symbols)


def inverse(M, what: str = "matrix", symbols: dict | None = None):
    """geonh's inverse policy (:func:`geonh.kernel.generic_point.inverse`) on native objects:
    the identity as is, adj(M)/det(M) for sizes ≤ 4 (cofactor expansion), LU with generic
    pivots beyond; a singular M raises :class:`SingularMapError`.  Regularity is the pivot
    search's verdict (the reference route's when the fast one finds no pivots), never a
    determinant that merely does not look like 0."""
    if not _is_se(M):
        from .generic_point import inverse as sympy_inverse
        return sympy_inverse(M, what)
    n = M.nrows()
    if n == 0:
        return se.zeros(0, 0)
    if n != M.ncols():
        raise SingularMapError(f"{what} is {n}x{M.ncols()}, not square; it has no inverse")
    if all(M[i, j] == (1 if i == j else 0) for i in range(n) for j in range(n)):
        return se.eye(n)
    if n <= 4:
        if generic_pivot_order(M, symbols) is None:
            return _reference_solve(M, se.eye(n), what, symbols)
        A = [[M[i, j] for j in range(n)] for i in range(n)]
        det = se.expand(det_small(A))
        if det == 0:
            return _reference_solve(M, se.eye(n), what, symbols)
        out = se.zeros(n, n)
        for i in range(n):
            for j in range(n):
                minor = [row[:j] + row[j + 1:] for k, row in enumerate(A) if k != i]
                cof = det_small(minor) if minor else 1
                out[j, i] = (cof if (i + j) % 2 == 0 else -cof) / det
        return out
    return lu_inverse(M, what=what, symbols=symbols)


__all__ = [
    "BACKENDS", "SYMENGINE_AVAILABLE", "BackendError", "UnsupportedExpressionError",
    "get_backend", "set_backend", "set_default_backend", "using_backend", "use_symengine",
    "SUPPORTED_FUNCTIONS", "supports", "unsupported_reason",
    "Translation", "to_symengine", "to_sympy", "to_native", "LazyArray", "fraction_field_inverse",
    "jacobian", "directional_derivative", "lie_bracket", "matmul",
    "lu_solve", "lu_inverse", "inverse", "generic_pivot_order", "as_sympy_matrix",
]
