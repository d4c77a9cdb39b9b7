"""Distributions (spans of vector fields) and codistributions (spans of one-forms).

Constraints are codistributions: the constraint one-forms θ^κ; the admissible velocities are
their annihilator, a distribution.  Ranks, membership and annihilators are decided at the
generic point (see :mod:`geonh.kernel.generic_point` for the method and its failure mode).

* Involutivity (Frobenius): D is integrable iff [X, Y] ∈ D for X, Y ∈ D; for a
  codistribution Θ = span(θ^1 … θ^r): integrable iff dθ^κ ∧ θ^1 ∧ … ∧ θ^r = 0 for every κ.
  Both routes are implemented independently.
* Derived (Lie) flag: D^1 = D, D^{k+1} = D^k + [D, D^k]; the growth vector is
  (rank D^1, rank D^2, …) up to the step where the rank stops growing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import mpmath
import sympy as sp

from ..errors import DimensionError, NotFoundError, ParseError, RankError, SpaceMismatchError
from .algebra import PerBackend
from .budget import check
from .fields import VectorField, check_same_space
from .forms import OneForm, differential, exterior_derivative, velocity_form, wedge
from .display import field_latex, form_latex, span_latex
from .evaluation import precision, to_mp, tree_eval, value_at
from .jets import directional_derivative
from .generic_point import (RowRank, generic_rank, independent_rows, is_zero, lu_inverse,
                            nullspace, rref)
from .sampling import sample_points
from .space import ConfigurationSpace
from .parsing import as_sequence, as_symbols, sympy_of


def _space_of(items, space):
    items = list(items)
    if space is None:
        if not items:
            raise DimensionError("an empty span needs its configuration space: pass space=...")
        space = items[0].space
    for it in items:
        if it.space != space:
            raise SpaceMismatchError(f"{it!r} lives on {it.space!r}, not on {space!r}")
    return items, space


class Distribution:
    """The span of vector fields (at the generic point).

    Its flag D^1 ⊂ D^2 ⊂ … adds the brackets [D, D^k] (with [X, Y]^k = X(Y^k) − Y(X^k),
    CONVENTIONS.md) until the rank stops growing; the ranks are the growth vector.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, Distribution, VectorField
        >>> S = ConfigurationSpace("x y z")
        >>> x, y, z = S.q
        >>> D = Distribution([VectorField(S, [1, 0, 0]), VectorField(S, [0, 1, x])])
        >>> D.rank, D.is_involutive(), D.growth_vector()
        (2, False, (2, 3))
        >>> D.contains(VectorField(S, [1, 1, x]))
        True
        >>> D.annihilator().forms
        (Form[1]((-x)*dy + (1)*dz),)
    """

    def __init__(self, fields: Sequence[VectorField], space: ConfigurationSpace | None = None):
        fields = as_sequence(fields, "Distribution fields")
        for X in fields:
            if not isinstance(X, VectorField):
                raise ParseError(f"a Distribution is spanned by VectorFields, got {type(X).__name__}")
        fields, space = _space_of(fields, space)
        self.space = space
        self.fields: tuple[VectorField, ...] = tuple(fields)
        if fields:
            keep = independent_rows(self.matrix(all_fields=True))
            self.basis: tuple[VectorField, ...] = tuple(fields[i] for i in keep)
        else:
            self.basis = ()

    def matrix(self, all_fields: bool = False) -> sp.Matrix:
        """Rows = components of the basis fields (of all given fields with ``all_fields``)."""
        fl = self.fields if all_fields else self.basis
        if not fl:
            return sp.zeros(0, self.space.dim)
        return sp.Matrix([list(X.components) for X in fl])

    @property
    def rank(self) -> int:
        return len(self.basis)

    def contains(self, X: VectorField) -> bool:
        """X ∈ D at the generic point."""
        check_same_space(self.fields[0] if self.fields else X, X, "test membership of")
        if X.is_zero():
            return True
        M = self.matrix().col_join(sp.Matrix([list(X.components)]))
        return generic_rank(M) == self.rank

    __contains__ = contains

    def __add__(self, other: "Distribution") -> "Distribution":
        if self.space != other.space:
            raise SpaceMismatchError("cannot add distributions on different spaces")
        return Distribution(self.basis + other.basis, self.space)

    def annihilator(self) -> "Codistribution":
        """D^⊥ = {θ : θ(X) = 0 for all X ∈ D} (a basis from the null space of the field matrix)."""
        if self.rank == 0:
            return Codistribution([OneForm(self.space, [1 if j == i else 0 for j in range(self.space.dim)])
                                   for i in range(self.space.dim)])
        ns = nullspace(self.matrix())
        return Codistribution([OneForm(self.space, list(v)) for v in ns], self.space)

    def is_involutive(self) -> bool:
        """Frobenius: [X_a, X_b] ∈ D for all basis fields."""
        b = self.basis
        pairs = [(i, j) for i in range(len(b)) for j in range(i + 1, len(b))]
        for k, (i, j) in enumerate(pairs):
            check("involutivity", k, len(pairs), "brackets")
            if not self.contains(b[i].bracket(b[j])):
                return False
        return True

    def derived_flag(self, max_steps: int | None = None) -> list["Distribution"]:
        """The Lie flag D^1 ⊂ D^2 ⊂ … with D^{k+1} = D^k + [D, D^k], until the rank stabilizes."""
        flag = [self]
        current = list(self.basis)
        newest = list(self.basis)
        dim = self.space.dim
        coords = self.space.coords
        syms = set(coords).union(*[c.free_symbols for X in self.basis for c in X.components])
        tracker = RowRank(syms)
        for X in current:
            tracker.add(X.components)
        values: list[dict] = [{} for _ in tracker.points]  # shared subexpression values per point

        def bracket_values(X, Y):
            # [X, Y]^k = X(Y^k) − Y(X^k) at each point, by forward-mode differentiation
            def at(k, pt):
                with mpmath.workdps(precision()):
                    try:
                        xv = {s: tree_eval(c, pt, values[k]) for s, c in zip(coords, X.components)}
                        yv = {s: tree_eval(c, pt, values[k]) for s, c in zip(coords, Y.components)}
                        dX: dict = {}
                        dY: dict = {}
                        return [directional_derivative(yc, pt, xv, values[k], dX)
                                - directional_derivative(xc, pt, yv, values[k], dY)
                                for xc, yc in zip(X.components, Y.components)]
                    except (ZeroDivisionError, ValueError, OverflowError):
                        return None
            return at

        steps = max_steps if max_steps is not None else dim
        for level in range(steps):
            added = []
            total = len(self.basis) * len(newest)
            for i, X in enumerate(self.basis):
                for j, Y in enumerate(newest):
                    if tracker.rank == dim:
                        break
                    check(f"derived flag, level {level + 2}", i * len(newest) + j, total, "brackets")
                    # the rank is decided numerically; the symbolic bracket is formed only for
                    # the fields that join the flag (and only if a further level can follow)
                    if tracker.add_numeric(bracket_values(X, Y)):
                        added.append((X, Y))
            if not added:
                break
            fields = [X.bracket(Y) if tracker.rank < dim else _LazyBracket(X, Y) for X, Y in added]
            current.extend(fields)
            newest = fields
            nxt = Distribution.__new__(Distribution)
            nxt.space, nxt.fields, nxt.basis = self.space, tuple(current), tuple(current)
            flag.append(nxt)
            if tracker.rank == dim:
                break
        return flag

    def growth_vector(self) -> tuple[int, ...]:
        """(rank D^1, rank D^2, …) of the Lie flag."""
        return tuple(D.rank for D in self.derived_flag())

    def is_bracket_generating(self) -> bool:
        """Does the Lie flag reach the whole tangent space (complete nonholonomy, Chow)?"""
        return self.growth_vector()[-1] == self.space.dim

    def __repr__(self) -> str:
        return f"Distribution(rank {self.rank} on {self.space!r})"

    def _repr_latex_(self) -> str:
        """Jupyter: span{X_1, …} of the spanning fields, typeset and tidied."""
        return "$" + span_latex(self.fields, field_latex) + "$"


class _LazyBracket(VectorField):
    """[X, Y] formed on first use (the last level of a flag is often never looked at)."""

    __slots__ = ("_pair", "_comps")

    def __init__(self, X: VectorField, Y: VectorField):
        self.space = X.space
        self._pair = (X, Y)
        self._comps = PerBackend()  # cached per backend (the rule of geonh.kernel.algebra)

    @property
    def components(self):  # type: ignore[override]
        X, Y = self._pair
        return self._comps.get(lambda: X.bracket(Y).components)


class Codistribution:
    """The span of one-forms, e.g. the constraint forms θ^κ of a nonholonomic system.

    Integrable (holonomic) exactly when its annihilator is involutive (Frobenius); the growth
    vector is that of the annihilator.

    Examples
    --------
        >>> from geonh.kernel import Codistribution, ConfigurationSpace
        >>> S = ConfigurationSpace("x y theta")
        >>> knife = Codistribution.from_constraints(S, ["sin(theta)*x_dot - cos(theta)*y_dot"])
        >>> knife.forms
        (Form[1]((sin(theta))*dx + (-cos(theta))*dy),)
        >>> knife.is_integrable(), knife.growth_vector()
        (False, (2, 3))
        >>> Codistribution.from_constraints(S, ["x_dot + y_dot"]).first_integrals()
        [x + y]
    """

    def __init__(self, forms: Sequence[OneForm], space: ConfigurationSpace | None = None):
        forms = as_sequence(forms, "Codistribution forms")
        for f in forms:
            if not isinstance(f, OneForm):
                raise ParseError(f"a Codistribution is spanned by OneForms, got {type(f).__name__}")
        forms, space = _space_of(forms, space)
        self.space = space
        self.forms: tuple[OneForm, ...] = tuple(forms)
        if forms:
            keep = independent_rows(self.matrix(all_forms=True))
            self.basis: tuple[OneForm, ...] = tuple(forms[i] for i in keep)
        else:
            self.basis = ()

    @classmethod
    def from_constraints(cls, space: ConfigurationSpace, constraints: Sequence) -> "Codistribution":
        """Constraint forms of velocity constraints Σ A_κi q̇^i + A_κt = 0, linear in q̇.

        On a space with time the affine part becomes the dt component (time as a coordinate).
        """
        forms = [velocity_form(space, ex, "constraint") for ex in as_sequence(constraints, "constraints")]
        return cls(forms, space)

    def matrix(self, all_forms: bool = False) -> sp.Matrix:
        fl = self.forms if all_forms else self.basis
        if not fl:
            return sp.zeros(0, self.space.dim)
        return sp.Matrix([list(f.covector) for f in fl])

    @property
    def rank(self) -> int:
        return len(self.basis)

    def contains(self, theta: OneForm) -> bool:
        if theta.space != self.space:
            raise SpaceMismatchError(f"{theta!r} lives on {theta.space!r}, not on {self.space!r}")
        if theta.is_zero():
            return True
        M = self.matrix().col_join(theta.as_matrix())
        return generic_rank(M) == self.rank

    __contains__ = contains

    def annihilator(self) -> Distribution:
        """Θ^⊥ = {X : θ(X) = 0 for all θ ∈ Θ}: the admissible velocities / virtual displacements."""
        if self.rank == 0:
            return Distribution([VectorField.coordinate(self.space, s) for s in self.space.coords])
        ns = nullspace(self.matrix())
        return Distribution([VectorField(self.space, list(v)) for v in ns], self.space)

    def is_integrable(self) -> bool:
        """Frobenius in forms: dθ^κ ∧ θ^1 ∧ … ∧ θ^r = 0 for every basis form θ^κ."""
        if self.rank == 0:
            return True
        top = wedge(*self.basis) if self.rank > 1 else self.basis[0]
        for th in self.basis:
            w = wedge(exterior_derivative(th), top)
            if not w.is_zero():
                return False
        return True

    def growth_vector(self) -> tuple[int, ...]:
        """Growth vector of the annihilator distribution."""
        return self.annihilator().growth_vector()

    # -- first integrals --------------------------------------------------------------------
    def first_integrals(self) -> list[sp.Expr]:
        """Functions f_1 … f_r with span(df_κ) = Θ, for an integrable codistribution.

        Tries, in order: closed forms in the row-reduced basis θ'^κ = dq^{p_κ} + a_κs dq^s
        (potentials by successive integration), integrating factors 1/c and 1/c² for the
        components c of each form, factors exp(g) read off the Frobenius condition
        (``_frobenius_factors``), and for one form in two variables sympy's ``dsolve``.  Each
        candidate is verified (df ∈ Θ and the df independent).  Raises :class:`RankError`
        if Θ is not integrable and :class:`NotFoundError` if sympy finds no closed form.
        """
        if not self.is_integrable():
            hidden = self.integrable_part().rank
            raise RankError(
                f"the codistribution is not integrable (Frobenius fails): no {self.rank} functions have "
                "differentials spanning it" + (
                    f"; its integrable part (the end of its derived flag) has rank {hidden}: "
                    f"hidden_integrals() gives its {hidden} first integral(s), constant on every "
                    "admissible motion" if hidden else
                    "; its annihilator is bracket generating, so no function of q is constant on "
                    "every admissible motion"))
        found: list[sp.Expr] = []
        dfs: list[OneForm] = []

        def accept(f: sp.Expr) -> bool:
            df = differential(self.space, f)
            if df.is_zero() or not self.contains(df):
                return False
            M = sp.Matrix([list(g.covector) for g in dfs + [df]])
            if generic_rank(M) <= len(dfs):
                return False
            found.append(f)
            dfs.append(df)
            return True

        for th in self._candidates():
            if len(found) == self.rank:
                break
            f = _potential(th)
            if f is not None:
                accept(f)
        if len(found) < self.rank and self.space.dim == 2 and self.rank == 1:
            f = _dsolve_integral(self.basis[0])
            if f is not None:
                accept(f)
        if len(found) < self.rank:
            raise NotFoundError(
                f"found {len(found)} of {self.rank} first integrals; sympy could not integrate the rest")
        return found

    def integrable_part(self) -> "Codistribution":
        """The largest integrable codistribution contained in Θ: the annihilator of the limit
        D̄ of the derived flag of D = Θ^⊥ (the involutive closure of D).

        D̄ is involutive, so D̄^⊥ ⊂ Θ is integrable (Frobenius); and an integrable Θ' ⊂ Θ has
        an involutive annihilator containing D, hence containing D̄, so Θ' ⊂ D̄^⊥.  Its rank is
        dim Q minus the last entry of the growth vector: the number of independent functions of
        q that stay constant along every motion tangent to D (Chow–Rashevskii: none when D is
        bracket generating).  Integrable Θ is returned unchanged.  Source: Bryant et al.,
        *Exterior Differential Systems* (1991), ch. II § 1 (the derived system); Bloch 2003,
        § 2.2 (the flag and the accessible submanifold)."""
        if self.is_integrable():
            return self
        closure = self.annihilator().derived_flag()[-1]
        if closure.rank == self.space.dim:
            return Codistribution([], self.space)
        # the fields of the flag: the brackets are formed symbolically (a flag that stops short
        # of the whole space never holds lazy brackets)
        M = sp.Matrix([list(X.components) for X in closure.basis])
        forms = [OneForm(self.space, list(v)) for v in nullspace(M)]
        return Codistribution(forms, self.space)

    def hidden_integrals(self) -> list[sp.Expr]:
        """First integrals of the integrable part of Θ (:meth:`integrable_part`): functions of q
        constant along every motion that satisfies the constraints, also when Θ itself is not
        integrable.  E.g. the differential-drive robot (wheels φ_R, φ_L of radius r on an axle
        of half-length b): its flag grows (2, 3, 4) on 5 coordinates and stops, and the one
        hidden integral is θ − r(φ_R − φ_L)/(2b), the heading read off the wheel angles.

        Raises :class:`RankError` when there is none (the annihilator is bracket generating),
        :class:`NotFoundError` when sympy finds no closed form for the integrable part."""
        part = self.integrable_part()
        if part.rank == 0:
            raise RankError("the annihilator of the codistribution is bracket generating (its derived flag "
                            "reaches every direction): no function of q is constant on every admissible motion")
        return part.first_integrals()

    def holonomic_reduction(self, constants: Sequence[sp.Symbol] | None = None) -> list[dict]:
        """The holonomic form of an integrable codistribution: its first integrals set to
        constants, f_κ(q) = c_κ, solved for r coordinates (the last ones whose block of
        ∂f/∂q is regular at the generic point).  Returns the branches of the solution, each
        {coordinate: expression in the other coordinates and the c_κ}, every branch verified
        (f_κ back-substituted equals c_κ at the generic point).  ``constants`` default to
        c1 … c_r.  Raises :class:`RankError` if Θ is not integrable and
        :class:`NotFoundError` if the integrals or the solution have no closed form."""
        fs = self.first_integrals()
        r = len(fs)
        cs = list(as_symbols(constants, what="constants")) if constants is not None \
            else list(sp.symbols(f"c1:{r + 1}"))
        if len(cs) != r:
            raise RankError(f"{r} constants needed (one per first integral), got {len(cs)}")
        coords = list(self.space.coords)
        J = sp.Matrix([[sp.diff(f, q) for q in coords] for f in fs])
        # the last coordinates first: solve for the trailing ones where possible
        order = list(reversed(range(len(coords))))
        keep = independent_rows(J.T.extract(order, list(range(r))))
        dep = [coords[order[k]] for k in keep][:r]
        try:
            sols = sp.solve([f - c for f, c in zip(fs, cs)], dep, dict=True)
        except (NotImplementedError, ValueError):
            sols = []
        good = []
        for sol in sols:
            if len(sol) == r and all(is_zero(f.xreplace(sol) - c) for f, c in zip(fs, cs)):
                good.append({q: sol[q] for q in dep})
        if not good:
            raise NotFoundError(f"sympy could not solve the first integrals {fs} for {dep}")
        return good

    def _candidates(self):
        M = self.matrix()
        r, n = M.shape
        # row-reduced basis: solve for r pivot differentials
        _, piv = rref(M)
        P = M.extract(list(range(r)), list(piv))
        Mred = lu_inverse(P, what="pivot block", check=False) * M
        reduced = [OneForm(self.space, list(Mred[k, :])) for k in range(r)]
        for th in list(self.basis) + reduced:
            yield th
        for th in list(self.basis) + reduced:
            comps = [c for c in th.covector if c != 0]
            for c in comps:
                yield th * (1 / c)
                yield th * (1 / c**2)
        for th in list(self.basis) + reduced:
            for mu in _frobenius_factors(th):
                yield th * mu

    def verdict(self) -> "IntegrabilityReport":
        """Integrable or not, with rank, growth vector and (if integrable) first integrals."""
        integ = self.is_integrable()
        ints = None
        if integ:
            try:
                ints = self.first_integrals()
            except NotFoundError:
                ints = None
        return IntegrabilityReport(integrable=integ, rank=self.rank, dim=self.space.dim,
                                   growth_vector=self.growth_vector(), first_integrals=ints)

    def __repr__(self) -> str:
        return f"Codistribution(rank {self.rank} on {self.space!r})"

    def _repr_latex_(self) -> str:
        """Jupyter: span{θ^1, …} of the spanning one-forms, typeset and tidied."""
        return "$" + span_latex(self.forms, form_latex) + "$"


@dataclass
class IntegrabilityReport:
    """Verdict on a constraint codistribution: holonomic (integrable) or nonholonomic.

    Examples
    --------
        >>> from geonh.kernel import Codistribution, ConfigurationSpace
        >>> S = ConfigurationSpace("x y theta")
        >>> print(Codistribution.from_constraints(S, ["x_dot + y_dot"]).verdict())
        integrable (holonomic): 1 constraint(s) on 3 coordinates; first integrals x + y
        >>> report = Codistribution.from_constraints(S, ["sin(theta)*x_dot - cos(theta)*y_dot"]).verdict()
        >>> report.integrable, report.growth_vector
        (False, (2, 3))
        >>> print(report)
        not integrable (nonholonomic): 1 constraint(s) on 3 coordinates, growth vector (2, 3),
        bracket generating (completely nonholonomic)
    """

    integrable: bool
    rank: int
    dim: int
    growth_vector: tuple[int, ...]
    first_integrals: list | None = field(default=None)

    def __str__(self) -> str:
        if self.integrable:
            s = f"integrable (holonomic): {self.rank} constraint(s) on {self.dim} coordinates"
            if self.first_integrals is not None:
                s += "; first integrals " + ", ".join(str(f) for f in self.first_integrals)
            else:
                s += "; sympy found no closed-form first integrals"
            return s
        full = self.growth_vector[-1] == self.dim
        return (f"not integrable (nonholonomic): {self.rank} constraint(s) on {self.dim} coordinates, "
                f"growth vector {self.growth_vector}"
                + (", bracket generating (completely nonholonomic)" if full else ""))


def _log_potential(components: Sequence[sp.Expr], coords: Sequence[sp.Symbol]) -> sp.Expr | None:
    """f = Σ_k c_k log p_k with constant c_k, p_k the irreducible factors (in the coordinates) of
    the denominators of the components, or None.  The logarithmic part of a closed rational
    one-form (Hermite–Risch: a closed one-form whose denominators are square-free in p_k has
    exactly this potential); the c_k are fitted at PRECISION digits on sample points, recognised
    as rationals, and the result verified at the generic point."""
    xs = set(coords)
    facs: list[sp.Expr] = []
    for c in components:
        den = sp.fraction(sp.cancel(sp.together(c)))[1]
        for fac, _ in sp.factor_list(den)[1]:
            if fac.free_symbols & xs and fac not in facs and -fac not in facs:
                facs.append(fac)
    if not facs or len(facs) > 12:
        return None
    logs = [[sp.diff(p, x) / p for p in facs] for x in coords]
    rows, rhs = [], []
    free = set().union(*(sympy_of(c).free_symbols for c in components), *(p.free_symbols for p in facs))
    tiny = mpmath.mpf(10) ** (-(precision() // 2))
    with mpmath.workdps(precision()):
        for pt in sample_points(free, len(facs) + 2):
            for i in range(len(coords)):
                vals = [value_at(e, pt, strict=False, tree=True) for e in logs[i]]
                v = value_at(components[i], pt, strict=False, tree=True)
                if v is None or any(w is None for w in vals):
                    continue
                rows.append([to_mp(w) for w in vals])
                rhs.append(to_mp(v))
        # factors whose logarithmic derivative vanishes (sin² + cos², constants in disguise) drop out
        live = [k for k in range(len(facs)) if any(abs(row[k]) > tiny for row in rows)]
        if not live or len(rows) < len(live):
            return None
        facs = [facs[k] for k in live]
        A = mpmath.matrix([[row[k] for k in live] for row in rows])
        b = mpmath.matrix(rhs)
        try:  # least squares by the normal equations (a handful of unknowns, 60 digits)
            sol = mpmath.lu_solve(A.T * A, A.T * b)
        except ZeroDivisionError:
            return None
        cs = [sp.nsimplify(sp.Float(sol[k], precision()), rational=True, tolerance=mpmath.mpf(10) ** (-precision() // 3))
              for k in range(len(facs))]
    f = sum((c * sp.log(p) for c, p in zip(cs, facs) if c != 0), sp.S.Zero)
    if f == 0 or not all(is_zero(sp.diff(f, x) - c) for x, c in zip(coords, components)):
        return None
    return f


def potential(components: Sequence[sp.Expr], coords: Sequence[sp.Symbol]) -> sp.Expr | None:
    """f with ∂f/∂x_i = components_i (x = ``coords``), or None when none is found; the
    components must be closed (∂_i c_j = ∂_j c_i), which the caller checks.  First the
    logarithmic ansatz f = Σ c_k log p_k over the factors of the denominators
    (``_log_potential``: fast, and it covers the densities of invariant measures), then
    successive integration by sympy.  The result is verified (every ∂f/∂x_i − c_i zero at the
    generic point)."""
    found = _log_potential(components, coords)
    if found is not None:
        return found
    f = sp.S.Zero
    for i, s in enumerate(coords):
        rest = components[i] - sp.diff(f, s)
        if is_zero(rest):
            continue
        try:
            g = sp.integrate(sp.simplify(rest), s)
        except Exception:
            return None
        if g.has(sp.Integral):
            return None
        f += g
    if f == 0:
        return None
    f = sp.simplify(f)
    if not all(is_zero(sp.diff(f, s) - c) for s, c in zip(coords, components)):
        return None
    return f


def _potential(theta: OneForm) -> sp.Expr | None:
    """f with df = θ if θ is closed, else None."""
    if not exterior_derivative(theta).is_zero():
        return None
    return potential(list(theta.covector), theta.space.coords)


def _frobenius_factors(theta: OneForm):
    """Integrating factors μ = exp(g) of an integrable one-form θ (θ ∧ dθ = 0) read off the
    Frobenius condition itself.

    d(μθ) = 0  ⇔  dg ∧ θ = −dθ.  Frobenius gives dθ = α ∧ θ; with θ_k ≠ 0 one such α has
    α_k = 0 and α_i = ω_ik / θ_k, ω_ij = ∂_iθ_j − ∂_jθ_i the components of dθ (the other
    components of α ∧ θ then match ω by θ ∧ dθ = 0).  Every solution is dg = −α + λθ; this
    tries λ = 0 for each k, i.e. g a potential of −α when −α is closed (exact integration,
    :func:`_potential`).  It finds e.g. μ = e^(−x) for e^x (yz dx + xz dy + xy dz), which
    no power of a coefficient gives.  Candidates only: the caller verifies d(μθ) = 0."""
    S = theta.space
    coords = S.coords
    c = list(theta.covector)
    n = len(coords)
    omega = [[sp.diff(c[j], coords[i]) - sp.diff(c[i], coords[j]) for j in range(n)] for i in range(n)]
    if all(is_zero(omega[i][j]) for i in range(n) for j in range(i + 1, n)):
        return  # closed already
    seen = set()
    for k in range(n):
        if c[k] == 0 or is_zero(c[k]):
            continue
        alpha = [sp.S.Zero if i == k else -sp.cancel(omega[i][k] / c[k]) for i in range(n)]
        key = tuple(alpha)
        if key in seen:
            continue
        seen.add(key)
        g = _potential(OneForm(S, alpha))
        if g is not None:
            yield sp.exp(g)


def _dsolve_integral(theta: OneForm) -> sp.Expr | None:
    """First integral of P dx + Q dy = 0 in two variables via sympy's dsolve."""
    x, y = theta.space.coords
    P, Q = theta.covector
    yf = sp.Function("y_")
    try:
        sol = sp.dsolve(sp.Eq(yf(x).diff(x), (-P / Q).subs(y, yf(x))), yf(x))
    except Exception:
        return None
    sols = sol if isinstance(sol, list) else [sol]
    C1 = sp.Symbol("C1")
    for s in sols:
        eq = s.lhs - s.rhs
        eq = eq.subs(yf(x), y)
        try:
            c = sp.solve(eq, C1)
        except Exception:
            continue
        if c:
            return sp.simplify(c[0])
    return None
