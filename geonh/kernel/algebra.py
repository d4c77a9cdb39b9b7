"""The algebra the engine computes in: one contract, a sympy and a symengine implementation.

Lagrange's central equation, Lagrange's split and the mechanical primitives
(:mod:`geonh.equations.engine`, :mod:`geonh.systems.mechanical`) are written **once**,
against :class:`Algebra`; the algebra decides what an expression is.  The contract is what
those formulas need and nothing more:

* convert in (:meth:`Algebra.native`) and out (:meth:`Algebra.sympy`), ``zero`` and ``one``;
* a sum of terms (:meth:`Algebra.add`), the derivative with respect to a symbol
  (:meth:`Algebra.diff`) and a substitution of symbols (:meth:`Algebra.subs`);
* written on those, once for both: the gradient over the coordinates x = (q, t)
  (:meth:`Algebra.gradient`), a gradient applied to a field given by its components,
  Σ_j g_j X^j (:meth:`Algebra.along`), and the derivative of a function along a field,
  X(f) = X^j ∂f/∂x^j (:meth:`Algebra.derivative`).

Products, differences and quotients are the expressions' own operators (``*``, ``-``, ``/``),
which both engines have; a structural zero (the expression ``0``) is the only zero test.

:class:`SympyAlgebra` computes in sympy.  :class:`SymengineAlgebra` computes in symengine
and converts through one :class:`~geonh.kernel.backend.Translation` (so the symbols that come
back are the originals, with their assumptions).  :func:`algebra_for` picks one for a
computation: symengine when it is the backend of the current context
(:func:`~geonh.kernel.backend.use_symengine`) and every input converts
(:func:`~geonh.kernel.backend.supports`), sympy otherwise — the fallback is the same code on
the other algebra, never a second copy of the formulas.

The rule for objects and caches
-------------------------------
* An algebra is fixed when it is created (one backend, one set of coordinates, one
  translation) and lives for one computation; nothing switches it underneath.
* An object's **defining data** is computed once, when it is built, and is part of its value
  (a :class:`~geonh.kernel.frames.Frame`'s inverse B, a system's (M, b, T0)).
* A result **derived later and cached on an object** is cached **per backend**: under the
  backend of the context that computed it (:class:`PerBackend`, :func:`per_backend_property`),
  and served only to a caller on that same backend.  A result computed under symengine is
  never served under sympy, nor the other way round; within one backend the algebra chosen
  is a function of the (immutable) object, so the key determines the algebra.
  ``MechanicalSystem.primitives`` and ``lagrange_operator`` and the structure coefficients and
  symengine images of a ``Frame`` follow this rule.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence, runtime_checkable

import sympy as sp

from ..errors import DimensionError, ParseError
from . import backend as _be
from .parsing import as_mapping, as_sequence, expr_of

__all__ = ["Algebra", "SympyAlgebra", "SymengineAlgebra", "algebra_for", "PerBackend", "per_backend_property"]


@runtime_checkable
class Algebra(Protocol):
    """What the engine needs of an expression algebra (the contract; see the module doc).

    An algebra works over fixed coordinates x = (q, t) (:attr:`coords`, in the algebra's own
    expressions) and never changes after creation.  "Native" below means an expression of this
    algebra; the methods also take sympy expressions (and formula strings, parsed by
    :mod:`geonh.kernel.parsing`), which they convert first.

    Implementations subclass it and supply :attr:`zero`, :attr:`one`, :meth:`native`,
    :meth:`sympy`, :meth:`add`, :meth:`diff` and :meth:`subs`; :meth:`gradient`,
    :meth:`along` and :meth:`derivative` are written here once, on those.
    """

    #: the backend name ("sympy" or "symengine")
    name: str
    #: the coordinates x = (q, t), native symbols
    coords: tuple
    #: the same coordinates as sympy symbols (with their assumptions)
    sympy_coords: tuple

    def _set_coords(self, coords: Sequence) -> None:
        given = as_sequence(coords, "algebra coordinates")
        coords = tuple(self.native(x) for x in given)
        for x in coords:
            if not getattr(x, "is_Symbol", False):
                raise ParseError(f"algebra coordinates must be symbols, not {str(x)[:60]}")
        self.coords = coords
        self.sympy_coords = tuple(g if isinstance(g, sp.Symbol) else self.sympy(x) for g, x in zip(given, coords))

    # -- the contract ------------------------------------------------------------------------
    @property
    @abstractmethod
    def zero(self) -> Any:
        """The native 0."""

    @property
    @abstractmethod
    def one(self) -> Any:
        """The native 1."""

    @abstractmethod
    def native(self, e) -> Any:
        """Convert in: ``e`` (a sympy expression, a formula string or a native one) as a native
        expression."""

    @abstractmethod
    def sympy(self, e) -> sp.Expr:
        """Convert out: the native ``e`` as a sympy expression (original symbols back)."""

    @abstractmethod
    def add(self, terms: Iterable) -> Any:
        """Σ terms (native; 0 for no terms)."""

    @abstractmethod
    def diff(self, e, x) -> Any:
        """∂e/∂x for a symbol x (anything else: :class:`~geonh.errors.ParseError`)."""

    @abstractmethod
    def subs(self, e, mapping: Mapping) -> Any:
        """``e`` with the symbols of ``mapping`` replaced by their values, simultaneously."""

    # -- written once on the contract ----------------------------------------------------------
    def gradient(self, e) -> list | None:
        """[∂e/∂x^j for x^j in :attr:`coords`], or None when ``e`` is free of the coordinates
        (so that callers skip it structurally)."""
        e = self.native(e)
        zero = self.zero
        if e == zero:
            return None
        fs = e.free_symbols
        g = [self.diff(e, x) if x in fs else zero for x in self.coords]
        return g if any(x != zero for x in g) else None

    def along(self, g, components: Sequence) -> Any:
        """Σ_j g_j X^j: a gradient ``g`` (from :meth:`gradient`; None is 0) applied to the field
        X = X^j ∂_j given by its ``components`` over :attr:`coords` (the derivative along X of
        the function whose gradient g is)."""
        if g is None:
            return self.zero
        g = self._natives(g, "gradient")
        components = self._natives(components, "field components")
        self._check_length(g, "a gradient", "entries")
        self._check_length(components, "a field", "components")
        zero = self.zero
        return self.add([g[j] * components[j] for j in range(len(g)) if g[j] != zero and components[j] != zero])

    def derivative(self, components: Sequence, f) -> Any:
        """X(f) = X^j ∂f/∂x^j for the field X given by its ``components`` over :attr:`coords`
        (CONVENTIONS.md, "Fields, forms, brackets")."""
        return self.along(self.gradient(f), components)

    # -- helpers --------------------------------------------------------------------------------
    def _natives(self, values, what: str) -> list:
        if type(values) is not list and type(values) is not tuple:  # noqa: E721 - the fast path
            values = as_sequence(values, what)
        native = self.native
        return [native(v) for v in values]

    def _symbol(self, x):
        x = self.native(x)
        if not x.is_Symbol:
            raise ParseError(f"a derivative is taken with respect to a symbol, not {str(x)[:60]}")
        return x

    def _check_length(self, values: list, what: str, entries: str) -> None:
        if len(values) != len(self.coords):
            raise DimensionError(f"{what} has {len(self.coords)} {entries}, got {len(values)}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.coords)})"


class SympyAlgebra(Algebra):
    """The contract on sympy: natives are sympy expressions (the reference route)."""

    name = "sympy"

    def __init__(self, coords: Sequence):
        self._set_coords(coords)

    @property
    def zero(self):
        return sp.S.Zero

    @property
    def one(self):
        return sp.S.One

    def native(self, e):
        return e if isinstance(e, sp.Basic) else expr_of(e, what="expression")

    def sympy(self, e):
        return self.native(e)

    def add(self, terms):
        zero = sp.S.Zero
        return sp.Add(*[t for t in self._natives(terms, "terms") if t != zero])

    def diff(self, e, x):
        return sp.diff(self.native(e), self._symbol(x))

    def subs(self, e, mapping):
        e = self.native(e)
        mapping = {self.native(k): self.native(v) for k, v in as_mapping(mapping, "substitution").items()}
        return e.xreplace(mapping) if mapping and e != 0 else e


class SymengineAlgebra(Algebra):
    """The contract on symengine: natives are symengine expressions, converted in and out by
    one :class:`~geonh.kernel.backend.Translation` (:attr:`translation`).  An input with no
    faithful symengine image raises :class:`~geonh.kernel.backend.UnsupportedExpressionError`
    (:func:`algebra_for` checks the inputs first and takes sympy instead)."""

    name = "symengine"

    def __init__(self, coords: Sequence):
        if not _be.SYMENGINE_AVAILABLE:
            raise _be.BackendError("the symengine algebra needs the symengine module")
        #: the sympy ↔ symengine translation of this computation's symbols
        self.translation = _be.Translation()
        self._zero = _be.se.Integer(0)
        self._one = _be.se.Integer(1)
        self._basic = _be.se.Basic
        self._set_coords(coords)

    @property
    def zero(self):
        return self._zero

    @property
    def one(self):
        return self._one

    def native(self, e):
        if isinstance(e, self._basic):
            return e
        return self.translation.to_symengine(expr_of(e, what="expression"))

    def sympy(self, e):
        return self.translation.to_sympy(self.native(e))

    def add(self, terms):
        zero = self._zero
        ts = [t for t in self._natives(terms, "terms") if t != zero]
        return _be.se.Add(*ts) if ts else zero

    def diff(self, e, x):
        return self.native(e).diff(self._symbol(x))

    def subs(self, e, mapping):
        e = self.native(e)
        mapping = {self.native(k): self.native(v) for k, v in as_mapping(mapping, "substitution").items()}
        return e.subs(mapping) if mapping and e != self._zero else e


def algebra_for(coords: Sequence, inputs: Sequence = ()) -> Algebra:
    """The algebra of one computation over ``coords`` on ``inputs`` (every sympy expression
    it will convert): :class:`SymengineAlgebra` when symengine is the backend of the current
    context and supports every input and coordinate, else :class:`SympyAlgebra` (see
    :mod:`geonh.kernel.backend` for what does not convert)."""
    coords = as_sequence(coords, "algebra coordinates")
    inputs = as_sequence(inputs, "algebra inputs")
    if _be.use_symengine() and _be.supports(list(inputs) + list(coords)):
        return SymengineAlgebra(coords)
    return SympyAlgebra(coords)


class PerBackend:
    """A cache with one slot per backend: ``get(compute)`` returns the value computed under the
    backend of the current context (:func:`~geonh.kernel.backend.get_backend`), computing it
    with ``compute()`` on first use there.  A value computed under one backend is never served
    under the other (the rule of the module doc)."""

    __slots__ = ("_values",)

    def __init__(self):
        self._values: dict[str, Any] = {}

    def get(self, compute: Callable[[], Any]) -> Any:
        """The value for the current backend (computed once per backend)."""
        key = _be.get_backend()
        try:
            return self._values[key]
        except KeyError:
            value = self._values[key] = compute()
            return value

    def clear(self) -> None:
        """Forget every backend's value."""
        self._values.clear()

    def backends(self) -> tuple[str, ...]:
        """The backends that have a value."""
        return tuple(self._values)

    def __reduce__(self):
        return (PerBackend, ())  # pickled empty: values are recomputed after unpickling


class per_backend_property:  # noqa: N801 - used as a decorator, like functools.cached_property
    """Like :func:`functools.cached_property`, but cached per backend (:class:`PerBackend`):
    the getter runs once per backend of the calling context and each backend gets its own
    value back.  The cache lives in the instance's ``__dict__`` (pickled empty)."""

    def __init__(self, fget: Callable[[Any], Any]):
        self.fget = fget
        self.__doc__ = fget.__doc__
        self.attrname = f"_{fget.__name__}_per_backend"

    def __set_name__(self, owner, name: str) -> None:
        self.attrname = f"_{name}_per_backend"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        cache = obj.__dict__.get(self.attrname)
        if cache is None:
            cache = obj.__dict__[self.attrname] = PerBackend()
        return cache.get(lambda: self.fget(obj))
