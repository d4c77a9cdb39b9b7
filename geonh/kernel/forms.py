"""Differential forms on configuration space, in the coordinate basis.

A k-form is stored by its components ω_I on increasing index tuples I = (i1 < … < ik):
ω = Σ_I ω_I dq^{i1} ∧ … ∧ dq^{ik}, and ω(∂_{i1}, …, ∂_{ik}) = ω_I.  The wedge carries no ½
(CONVENTIONS.md): (α ∧ β)(X, Y) = α(X) β(Y) − α(Y) β(X), and evaluation is
ω(X_1, …, X_k) = Σ_I ω_I det[dq^{I_a}(X_b)].  The exterior derivative satisfies
dθ(X, Y) = X(θ(Y)) − Y(θ(X)) − θ([X, Y]) = Σ ∂_i θ_j (X^i Y^j − X^j Y^i).
The zero form of any degree is an ordinary value.
"""
from __future__ import annotations

from itertools import combinations
from typing import Callable, Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, ParseError
from .fields import VectorField, check_same_space, as_scalar
from .display import form_latex, short_text
from .parsing import as_expr, as_mapping, as_substitution, brief
from .space import ConfigurationSpace


def _sort_sign(idx: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Sign of the permutation sorting ``idx`` and the sorted tuple (sign 0 if repeated)."""
    idx = list(idx)
    if len(set(idx)) != len(idx):
        return 0, tuple(sorted(idx))
    sign = 1
    for i in range(len(idx)):
        for j in range(i + 1, len(idx)):
            if idx[i] > idx[j]:
                sign = -sign
    return sign, tuple(sorted(idx))


class Form:
    """A differential k-form ω = Σ_{I increasing} ω_I dq^I on ``space``.

    Components are stored on increasing index tuples, ω(∂_{i1}, …, ∂_{ik}) = ω_{i1…ik}; the
    wedge has no ½ (CONVENTIONS.md): (α ∧ β)(X, Y) = α(X) β(Y) − α(Y) β(X).

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, Form, OneForm, VectorField, wedge
        >>> S = ConfigurationSpace("x y")
        >>> x, y = S.q
        >>> Form(S, 2, {(0, 1): x})                       # x dx∧dy
        Form[2]((x)*dx^dy)
        >>> dx, dy = OneForm(S, [1, 0]), OneForm(S, [0, 1])
        >>> w = wedge(dx, dy)
        >>> w(VectorField(S, [1, 0]), VectorField(S, [0, 1]))
        1
        >>> w(VectorField(S, [0, 1]), VectorField(S, [1, 0]))
        -1
    """

    __slots__ = ("space", "degree", "_c")

    def __init__(self, space: ConfigurationSpace, degree: int, components: Mapping):
        if not isinstance(space, ConfigurationSpace):
            raise ParseError(f"first argument must be a ConfigurationSpace, got {type(space).__name__}")
        if degree < 0:
            raise DimensionError(f"a form has a non-negative degree, not {degree}")
        # degree > dim is allowed: such a form is necessarily zero (e.g. a wedge product)
        c: dict[tuple[int, ...], sp.Expr] = {}
        for key, val in as_mapping(components, "form components").items():
            if isinstance(key, (int, str, sp.Basic)) or not isinstance(key, (tuple, list)):
                key = (key,)
            key = tuple(space.index(k) if not isinstance(k, int) else k for k in key)
            if len(key) != degree or any(not 0 <= k < space.dim for k in key):
                raise DimensionError(f"index {key} does not fit a {degree}-form on {space!r}")
            sign, skey = _sort_sign(key)
            val = as_expr(val, space.state_symbols, what="form component")
            if sign == 0 or val == 0:
                continue
            c[skey] = c.get(skey, sp.S.Zero) + sign * val
        self.space = space
        self.degree = degree
        self._c = {k: v for k, v in c.items() if v != 0}

    @staticmethod
    def _make(space: ConfigurationSpace, degree: int, comps: Mapping) -> "Form":
        if degree == 1:
            vec = [sp.S.Zero] * space.dim
            for (i,), v in comps.items():
                vec[i] += v
            return OneForm(space, vec)
        return Form(space, degree, comps)

    @classmethod
    def zero(cls, space: ConfigurationSpace, degree: int = 1) -> "Form":
        return Form._make(space, degree, {})

    # -- access -----------------------------------------------------------------------------
    @property
    def components(self) -> dict[tuple[int, ...], sp.Expr]:
        """Non-zero components {I: ω_I} on increasing index tuples."""
        return dict(self._c)

    def component(self, *idx) -> sp.Expr:
        """ω(∂_{i1}, …, ∂_{ik}) for any (possibly unsorted) coordinate indices or symbols."""
        idx = tuple(self.space.index(k) if not isinstance(k, int) else k for k in idx)
        sign, key = _sort_sign(idx)
        return sign * self._c.get(key, sp.S.Zero) if sign else sp.S.Zero

    # -- algebra ----------------------------------------------------------------------------
    def _combine(self, other: "Form", op) -> "Form":
        if not isinstance(other, Form):
            return NotImplemented
        check_same_space(self, other, "add")
        if other.degree != self.degree:
            raise DimensionError(f"cannot add a {self.degree}-form and a {other.degree}-form")
        keys = set(self._c) | set(other._c)
        return Form._make(self.space, self.degree,
                          {k: op(self._c.get(k, sp.S.Zero), other._c.get(k, sp.S.Zero)) for k in keys})

    def __add__(self, other: "Form") -> "Form":
        return self._combine(other, lambda a, b: a + b)

    def __sub__(self, other: "Form") -> "Form":
        return self._combine(other, lambda a, b: a - b)

    def __neg__(self) -> "Form":
        return Form._make(self.space, self.degree, {k: -v for k, v in self._c.items()})

    def __mul__(self, f) -> "Form":
        if isinstance(f, (Form, VectorField)):
            return NotImplemented
        f = as_scalar(f, self.space)
        return Form._make(self.space, self.degree, {k: f * v for k, v in self._c.items()})

    __rmul__ = __mul__

    def __xor__(self, other: "Form") -> "Form":
        return wedge(self, other)

    def applyfunc(self, fn: Callable[[sp.Expr], sp.Expr]) -> "Form":
        return Form._make(self.space, self.degree, {k: fn(v) for k, v in self._c.items()})

    def simplify(self) -> "Form":
        return self.applyfunc(sp.simplify)

    def expand(self) -> "Form":
        return self.applyfunc(sp.expand)

    def subs(self, *args, **kw) -> "Form":
        """sympy's ``subs`` on every component; strings in ``args`` are parsed, never evaluated."""
        pairs = as_substitution(args, self.space.state_symbols, what="Form.subs")
        return self.applyfunc(lambda a: a.subs(pairs, **kw))

    # -- evaluation -------------------------------------------------------------------------
    def __call__(self, *fields: VectorField) -> sp.Expr:
        """ω(X_1, …, X_k) = Σ_I ω_I det[X_b^{I_a}]."""
        if len(fields) != self.degree:
            raise DimensionError(f"a {self.degree}-form takes {self.degree} vector fields, got {len(fields)}")
        for X in fields:
            if not isinstance(X, VectorField):
                raise ParseError(f"forms are evaluated on VectorFields, got {type(X).__name__}")
            check_same_space(self, X, "evaluate")
        if self.degree == 0:
            return self._c.get((), sp.S.Zero)
        out = sp.S.Zero
        for I, w in self._c.items():
            M = sp.Matrix([[X.components[i] for X in fields] for i in I])
            out += w * (M.det(method="berkowitz") if self.degree > 3 else M.det())
        return out

    def is_zero(self) -> bool:
        """Identically zero (decided at the generic point, see :mod:`geonh.kernel.generic_point`)."""
        from .generic_point import is_zero
        return all(is_zero(v) for v in self._c.values())

    def equals(self, other: "Form") -> bool:
        return (self - other).is_zero()

    def __repr__(self) -> str:
        names = [s.name for s in self.space.coords]
        terms = [f"({v})*" + "^".join("d" + names[i] for i in I) for I, v in sorted(self._c.items())]
        return short_text(f"Form[{self.degree}](" + (" + ".join(terms) if terms else "0") + ")")

    def _repr_latex_(self) -> str:
        """Jupyter: Σ ω_I dq^I typeset, components tidied (:func:`geonh.kernel.display.form_latex`)."""
        return "$" + form_latex(self) + "$"

    def _latex(self, printer) -> str:
        names = [printer._print(s) for s in self.space.coords]
        terms = []
        for I, v in sorted(self._c.items()):
            basis = " \\wedge ".join(f"d{names[i]}" for i in I)
            terms.append(f"\\left({printer._print(v)}\\right) {basis}")
        return " + ".join(terms) if terms else "0"


class OneForm(Form):
    """A one-form θ = θ_i dq^i, built from its component list (θ_1, …, θ_n).

    θ(X) = θ_i X^i; its exterior derivative follows CONVENTIONS.md,
    dθ(X, Y) = X(θ(Y)) − Y(θ(X)) − θ([X, Y]).

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, OneForm, VectorField, d
        >>> S = ConfigurationSpace("x y")
        >>> x, y = S.q
        >>> theta = OneForm(S, [-y, 0])                    # −y dx
        >>> X, Y = VectorField(S, [y, 1]), VectorField(S, [x, x * y])
        >>> theta(X)
        -y**2
        >>> d(theta)
        Form[2]((1)*dx^dy)
        >>> d(theta)(X, Y)
        x*y**2 - x
        >>> (X(theta(Y)) - Y(theta(X)) - theta(X.bracket(Y))).expand()
        x*y**2 - x
    """

    __slots__ = ()

    def __init__(self, space: ConfigurationSpace, components: Sequence):
        if isinstance(components, (str, bytes)) or not hasattr(components, "__iter__"):
            raise DimensionError(f"a one-form needs a sequence of {space.dim} components, got {brief(components)}")
        comps = [as_expr(c, space.state_symbols, what="one-form component") for c in components]
        if len(comps) != space.dim:
            raise DimensionError(
                f"a one-form on {space!r} needs {space.dim} components "
                f"(one per coordinate {[s.name for s in space.coords]}), got {len(comps)}")
        super().__init__(space, 1, {(i,): c for i, c in enumerate(comps)})

    @classmethod
    def from_dict(cls, space: ConfigurationSpace, comps: dict) -> "OneForm":
        out = [sp.S.Zero] * space.dim
        for k, v in as_mapping(comps, "OneForm.from_dict components").items():
            out[space.index(k)] += as_expr(v, space.state_symbols, what=f"component along {k}")
        return cls(space, out)

    @property
    def covector(self) -> tuple[sp.Expr, ...]:
        """(θ_1, …, θ_n)."""
        return tuple(self._c.get((i,), sp.S.Zero) for i in range(self.space.dim))

    def __getitem__(self, i: int) -> sp.Expr:
        return self._c.get((i,), sp.S.Zero)

    def __call__(self, X: VectorField) -> sp.Expr:  # type: ignore[override]
        """θ(X) = θ_i X^i."""
        if not isinstance(X, VectorField):
            raise ParseError(f"forms are evaluated on VectorFields, got {type(X).__name__}")
        check_same_space(self, X, "evaluate")
        return sp.Add(*[v * X.components[i] for (i,), v in self._c.items()])

    def as_matrix(self) -> sp.Matrix:
        return sp.Matrix([list(self.covector)])


# -- operations ---------------------------------------------------------------------------------
def differential(space: ConfigurationSpace, f) -> OneForm:
    """d f = ∂_i f dq^i of a function f."""
    f = as_scalar(f, space)
    return OneForm(space, [sp.diff(f, s) for s in space.coords])


def velocity_form(space: ConfigurationSpace, expr, what: str = "expression") -> OneForm:
    """The one-form θ with θ(q̇) = expr for an expression linear in the velocities:
    expr = Σ B_i q̇^i + B_t  →  θ = B_i dq^i + B_t dt (time as a coordinate, ṫ = 1).

    The velocity-free part B_t needs a space with time; a nonlinear expression raises
    :class:`NotLinearError` naming ``what``.  Equalities are read as lhs − rhs.
    """
    from ..errors import NotLinearError
    from .generic_point import is_zero
    ex = as_expr(expr, space.state_symbols, what=what)
    if isinstance(ex, sp.Equality):
        ex = ex.lhs - ex.rhs
    fast = _linear_terms(ex, space.qd)
    if fast is not None:
        return _velocity_form_linear(space, ex, fast, what)
    row = []
    for v in space.qd:
        cv = sp.diff(ex, v)
        if cv.has(*space.qd):
            raise NotLinearError(f"{what} {ex} is not linear in the velocities")
        row.append(cv)
    rest = sp.expand(ex - sum(c * v for c, v in zip(row, space.qd)))
    if space.t is not None:
        row.append(rest)
    elif not is_zero(rest):
        raise NotLinearError(f"{what} {ex} has a velocity-free part {rest}; affine (rheonomic) "
                             "expressions need a configuration space with time")
    return OneForm(space, row)


def _linear_terms(ex: sp.Expr, qd: Sequence[sp.Symbol]) -> tuple[dict, list] | None:
    """The terms of ``ex`` (``Add.make_args``) sorted by velocity in one pass: ({index i:
    [the other factors c of each term t = c·q̇^i, q̇^i a factor of t to the first power and
    every other factor free of the velocities]}, [the terms free of the velocities]), or None
    when a term is of any other shape (then :func:`velocity_form` differentiates)."""
    index = {v: i for i, v in enumerate(qd)}
    by: dict[int, list] = {}
    free: list = []
    for t in sp.Add.make_args(ex):
        factors = sp.Mul.make_args(t)
        hit = [k for k, f in enumerate(factors) if f in index]
        others = [f for k, f in enumerate(factors) if not (hit and k == hit[0])]
        if len(hit) > 1 or any(not index.keys().isdisjoint(f.free_symbols) for f in others):
            return None
        if hit:
            by.setdefault(index[factors[hit[0]]], []).append(others)
        else:
            free.append(t)
    return by, free


def _velocity_form_linear(space: ConfigurationSpace, ex: sp.Expr, terms: tuple[dict, list],
                          what: str) -> OneForm:
    """:func:`velocity_form` of an expression whose terms :func:`_linear_terms` has sorted.

    ∂ex/∂q̇^i is what sympy's ``diff`` returns, assembled without differentiating every term
    for every velocity: ``Add._eval_derivative`` sums the terms' derivatives (zero for a term
    without q̇^i), and the Leibniz rule of ``Mul._eval_derivative_n_times`` gives, for a term
    c_1⋯c_k·q̇^i whose c's are free of q̇^i, the product ``Mul(c_1, …, c_k)`` (q̇^i replaced
    by 1).  The velocity-free part is the expanded sum of the velocity-free terms (the linear
    terms cancel exactly in ex − Σ (∂ex/∂q̇^i) q̇^i)."""
    from ..errors import NotLinearError
    from .generic_point import is_zero
    by, free = terms
    row = []
    for i in range(len(space.qd)):
        ts = by.get(i)
        row.append(sp.Add(*[sp.Mul(*c) for c in ts]) if ts else sp.S.Zero)
    rest = sp.expand(sp.Add(*free)) if free else sp.S.Zero
    if space.t is not None:
        row.append(rest)
    elif not is_zero(rest):
        raise NotLinearError(f"{what} {ex} has a velocity-free part {rest}; affine (rheonomic) "
                             "expressions need a configuration space with time")
    return OneForm(space, row)


def exterior_derivative(omega: Form) -> Form:
    """dω:  (dω)_K = Σ_a (−1)^a ∂_{k_a} ω_{K∖k_a}, i.e. d(ω_I dq^I) = ∂_j ω_I dq^j ∧ dq^I."""
    if not isinstance(omega, Form):
        raise ParseError("exterior_derivative takes a Form; for a function use differential(space, f)")
    sp_ = omega.space
    out: dict[tuple[int, ...], sp.Expr] = {}
    for I, w in omega._c.items():
        free = w.free_symbols
        for j, s in enumerate(sp_.coords):
            if j in I or s not in free:
                continue
            sign, K = _sort_sign((j,) + I)
            out[K] = out.get(K, sp.S.Zero) + sign * sp.diff(w, s)
    return Form._make(sp_, omega.degree + 1, out)


def d(obj, space: ConfigurationSpace | None = None) -> Form:
    """Exterior derivative of a form, or the differential of a function (needs ``space``)."""
    if isinstance(obj, Form):
        return exterior_derivative(obj)
    if space is None:
        raise ParseError("d(f) of a function needs the configuration space: d(f, space)")
    return differential(space, obj)


def wedge(*forms: Form) -> Form:
    """α ∧ β ∧ … with no ½:  (α ∧ β)_K = Σ sign(I, J → K) α_I β_J."""
    if not forms:
        raise DimensionError("wedge of no forms")
    out = forms[0]
    for b in forms[1:]:
        out = _wedge2(out, b)
    return out


def _wedge2(a: Form, b: Form) -> Form:
    if not isinstance(a, Form) or not isinstance(b, Form):
        raise ParseError("wedge takes Forms")
    check_same_space(a, b, "wedge")
    deg = a.degree + b.degree
    out: dict[tuple[int, ...], sp.Expr] = {}
    for I, x in a._c.items():
        for J, y in b._c.items():
            if set(I) & set(J):
                continue
            sign, K = _sort_sign(I + J)
            out[K] = out.get(K, sp.S.Zero) + sign * x * y
    return Form._make(a.space, deg, out)


def interior(X: VectorField, omega: Form):
    """Interior product i_X ω:  (i_X ω)(Y_2, …, Y_k) = ω(X, Y_2, …, Y_k).  Returns a function
    for a one-form and zero for a 0-form."""
    check_same_space(X, omega, "contract")
    if omega.degree == 0:
        return sp.S.Zero
    if omega.degree == 1:
        return omega(X)
    out: dict[tuple[int, ...], sp.Expr] = {}
    for I, w in omega._c.items():
        for pos, i in enumerate(I):
            xi = X.components[i]
            if xi == 0:
                continue
            J = I[:pos] + I[pos + 1:]
            out[J] = out.get(J, sp.S.Zero) + (-1) ** pos * xi * w
    return Form._make(omega.space, omega.degree - 1, out)


def lie_derivative(X: VectorField, obj):
    """Lie derivative L_X of a function (X(f)), a vector field ([X, Y]) or a form.

    For forms the coordinate formula is used (independent of Cartan's identity, which the tests
    check):  (L_X ω)_I = X(ω_I) + Σ_a Σ_j ∂_{i_a} X^j ω(∂_{i_1}, …, ∂_j, …, ∂_{i_k}).
    """
    if isinstance(obj, VectorField):
        return X.bracket(obj)
    if not isinstance(obj, Form):
        return X(obj)
    check_same_space(X, obj, "take the Lie derivative of")
    sp_ = obj.space
    k = obj.degree
    out: dict[tuple[int, ...], sp.Expr] = {}
    # derivative terms
    dX = [[sp.diff(X.components[j], s) for s in sp_.coords] for j in range(sp_.dim)]  # dX[j][i] = ∂_i X^j
    for I in combinations(range(sp_.dim), k):
        val = X(obj._c[I]) if I in obj._c else sp.S.Zero
        for a, ia in enumerate(I):
            for j in range(sp_.dim):
                g = dX[j][ia]
                if g == 0:
                    continue
                J = I[:a] + (j,) + I[a + 1:]
                sign, K = _sort_sign(J)
                if sign and K in obj._c:
                    val += g * sign * obj._c[K]
        if val != 0:
            out[I] = val
    return Form._make(sp_, k, out)
