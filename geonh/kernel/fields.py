"""Vector fields on configuration space, in the coordinate basis.

X = X^i ∂_i acts on functions by X(f) = X^i ∂f/∂q^i, and the Lie bracket is
[X, Y] = XY − YX, i.e. [X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k  (CONVENTIONS.md; check:
[∂_x, x ∂_y] = +∂_y).  The zero field is an ordinary value.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, ParseError, SpaceMismatchError
from . import backend as _be
from .display import field_latex, short_text
from .parsing import as_expr, as_mapping, as_substitution, brief
from .space import ConfigurationSpace


def check_same_space(a, b, what: str = "combine") -> None:
    if a.space != b.space:
        raise SpaceMismatchError(
            f"cannot {what} objects from different configuration spaces: {a.space!r} and {b.space!r}")


def as_scalar(f, space: ConfigurationSpace) -> sp.Expr:
    if hasattr(f, "space"):
        raise ParseError(f"expected a function (sympy expression), got {type(f).__name__}")
    return as_expr(f, space.state_symbols, what="function")


class VectorField:
    """A vector field X = X^i ∂_i with components in the coordinate basis of ``space.coords``.

    It acts on functions by X(f) = X^i ∂f/∂q^i; its bracket follows CONVENTIONS.md,
    [X, Y]^k = X(Y^k) − Y(X^k), so [∂_x, x ∂_y] = +∂_y.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, VectorField
        >>> S = ConfigurationSpace("x y")
        >>> x, y = S.q
        >>> X, Y = VectorField(S, [1, 0]), VectorField(S, [0, x])    # ∂_x and x ∂_y
        >>> X(x**2 * y)
        2*x*y
        >>> X.bracket(Y)
        VectorField((1)*d_y)
        >>> Y.bracket(X)
        VectorField((-1)*d_y)
    """

    __slots__ = ("space", "components")

    def __init__(self, space: ConfigurationSpace, components: Sequence):
        if not isinstance(space, ConfigurationSpace):
            raise ParseError(f"first argument must be a ConfigurationSpace, got {type(space).__name__}")
        if isinstance(components, (str, bytes)) or not hasattr(components, "__iter__"):
            raise DimensionError(f"a vector field needs a sequence of {space.dim} components, got {brief(components)}")
        comps = tuple(as_expr(c, space.state_symbols, what="vector field component") for c in components)
        if len(comps) != space.dim:
            raise DimensionError(
                f"a vector field on {space!r} needs {space.dim} components "
                f"(one per coordinate {[s.name for s in space.coords]}), got {len(comps)}")
        self.space = space
        self.components: tuple[sp.Expr, ...] = comps

    @classmethod
    def _derived(cls, space: ConfigurationSpace, components: Sequence) -> "VectorField":
        """A field whose components geonh computed from checked input (an inverse, a bracket,
        a sum): the boundary check of ``__init__`` is not repeated.  That check walks each
        component as a *tree* (sympy's ``free_symbols`` and ``has``), which is exponential in
        the nesting of shared subexpressions: the entries of an LU inverse of a dense 9×9
        trigonometric matrix have a few hundred distinct nodes but ~10⁸ tree nodes."""
        out = cls.__new__(cls)
        out.space = space
        out.components = tuple(c if isinstance(c, sp.Basic) else as_expr(c, space.state_symbols,
                                                                          what="vector field component")
                               for c in components)
        if len(out.components) != space.dim:
            raise DimensionError(f"a vector field on {space!r} needs {space.dim} components, "
                                 f"got {len(out.components)}")
        return out

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def coordinate(cls, space: ConfigurationSpace, coord) -> "VectorField":
        """The coordinate field ∂/∂coord."""
        i = space.index(coord)
        return cls(space, [1 if j == i else 0 for j in range(space.dim)])

    @classmethod
    def zero(cls, space: ConfigurationSpace) -> "VectorField":
        return cls(space, [0] * space.dim)

    @classmethod
    def from_dict(cls, space: ConfigurationSpace, comps: Mapping) -> "VectorField":
        """Field from ``{coordinate: component}`` (missing coordinates are 0)."""
        out = [sp.S.Zero] * space.dim
        for k, v in as_mapping(comps, "VectorField.from_dict components").items():
            out[space.index(k)] = as_expr(v, space.state_symbols, what=f"component along {k}")
        return cls(space, out)

    # -- algebra ----------------------------------------------------------------------------
    def __getitem__(self, i: int) -> sp.Expr:
        return self.components[i]

    def __iter__(self):
        return iter(self.components)

    def __len__(self) -> int:
        return len(self.components)

    def __add__(self, other: "VectorField") -> "VectorField":
        if not isinstance(other, VectorField):
            return NotImplemented
        check_same_space(self, other, "add")
        return VectorField._derived(self.space, [a + b for a, b in zip(self.components, other.components)])

    def __sub__(self, other: "VectorField") -> "VectorField":
        if not isinstance(other, VectorField):
            return NotImplemented
        check_same_space(self, other, "subtract")
        return VectorField._derived(self.space, [a - b for a, b in zip(self.components, other.components)])

    def __neg__(self) -> "VectorField":
        return VectorField._derived(self.space, [-a for a in self.components])

    def __mul__(self, f) -> "VectorField":
        if isinstance(f, VectorField):
            return NotImplemented
        f = as_scalar(f, self.space)
        return VectorField._derived(self.space, [f * a for a in self.components])

    __rmul__ = __mul__

    def applyfunc(self, fn: Callable[[sp.Expr], sp.Expr]) -> "VectorField":
        return VectorField(self.space, [fn(a) for a in self.components])

    def simplify(self) -> "VectorField":
        return self.applyfunc(sp.simplify)

    def expand(self) -> "VectorField":
        return self.applyfunc(sp.expand)

    def subs(self, *args, **kw) -> "VectorField":
        """sympy's ``subs`` on every component; strings in ``args`` are parsed, never evaluated."""
        pairs = as_substitution(args, self.space.state_symbols, what="VectorField.subs")
        return self.applyfunc(lambda a: a.subs(pairs, **kw))

    # -- calculus ---------------------------------------------------------------------------
    def __call__(self, f) -> sp.Expr:
        """X(f) = X^i ∂f/∂q^i for a function f of the coordinates (and other symbols).

        Computed by the active expression backend (:mod:`geonh.kernel.backend`): symengine
        when it is active and supports the expressions, sympy otherwise."""
        f = as_scalar(f, self.space)
        native = _native(self.space, self.components, [f])
        if native is not None:
            T, syms, X, (g,) = native
            return T.to_sympy(_be.directional_derivative(X, g, syms))
        free = f.free_symbols
        out = sp.S.Zero
        for c, s in zip(self.components, self.space.coords):
            if c != 0 and s in free:
                out += c * sp.diff(f, s)
        return out

    def bracket(self, other: "VectorField") -> "VectorField":
        """Lie bracket [X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k."""
        if not isinstance(other, VectorField):
            raise ParseError(f"the Lie bracket takes two vector fields, got {type(other).__name__}")
        check_same_space(self, other, "bracket")
        native = _native(self.space, self.components, other.components)
        if native is not None:
            T, syms, X, Y = native
            return VectorField._derived(self.space, T.to_sympy(_be.lie_bracket(X, Y, syms)))
        return VectorField._derived(self.space, [self(b) - other(a)
                                        for a, b in zip(self.components, other.components)])

    def is_zero(self) -> bool:
        """Identically zero (decided at the generic point, see :mod:`geonh.kernel.generic_point`)."""
        from .generic_point import is_zero
        return all(is_zero(c) for c in self.components)

    def equals(self, other: "VectorField") -> bool:
        """Equal as fields (decided at the generic point)."""
        check_same_space(self, other, "compare")
        return (self - other).is_zero()

    def as_matrix(self) -> sp.Matrix:
        return sp.Matrix(self.components)

    def __repr__(self) -> str:
        terms = [f"({c})*d_{s.name}" for c, s in zip(self.components, self.space.coords) if c != 0]
        return short_text("VectorField(" + (" + ".join(terms) if terms else "0") + ")")

    def _repr_latex_(self) -> str:
        """Jupyter: Σ Xⁱ ∂_i typeset, components tidied (:func:`geonh.kernel.display.field_latex`)."""
        return "$" + field_latex(self) + "$"

    def _latex(self, printer) -> str:
        terms = [f"\\left({printer._print(c)}\\right) \\partial_{{{printer._print(s)}}}"
                 for c, s in zip(self.components, self.space.coords) if c != 0]
        return " + ".join(terms) if terms else "0"


def _native(space: ConfigurationSpace, first: Sequence, second: Sequence):
    """(Translation, coordinates, first, second) in symengine when that backend is active and
    every expression is supported; None for the sympy route (:mod:`geonh.kernel.backend`)."""
    if not _be.use_symengine():
        return None
    first, second = list(first), list(second)
    if all(e == 0 for e in first) or all(e == 0 for e in second):
        return None  # nothing to differentiate: the sympy route is immediate
    if not _be.supports(first + second + list(space.coords)):
        return None
    T = _be.Translation()
    syms = T.to_symengine(list(space.coords))
    return T, syms, T.to_symengine(first), T.to_symengine(second)


def bracket(X: VectorField, Y: VectorField) -> VectorField:
    """Lie bracket [X, Y] = XY − YX (CONVENTIONS.md)."""
    return X.bracket(Y)


def coordinate_fields(space: ConfigurationSpace) -> tuple[VectorField, ...]:
    """∂_1, …, ∂_n of ``space.coords``."""
    return tuple(VectorField.coordinate(space, s) for s in space.coords)


def fields_matrix(fields: Iterable[VectorField]) -> sp.Matrix:
    """Matrix whose columns are the components of ``fields`` (C^i_a for a frame)."""
    fields = list(fields)
    if not fields:
        raise DimensionError("no fields given")
    for f in fields[1:]:
        check_same_space(fields[0], f)
    return sp.Matrix.hstack(*[f.as_matrix() for f in fields])
