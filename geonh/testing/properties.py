"""The relations of nonholonomic mechanics as ready properties for your own tests.

Each function checks one relation on the objects it is given and returns ``None`` when the
relation holds, or raises :class:`AssertionError` whose message shows the counterexample
term by term: which index, the expected expression, the one obtained, their difference, and a
point (or the state) where the difference is not zero.  Use them inside a hypothesis test::

    from hypothesis import given, settings
    from geonh.testing import properties as gp, strategies as gst

    @settings(deadline=None)
    @given(gst.hamel_frames())
    def test_my_frames_satisfy_maurer_cartan(frame):
        gp.maurer_cartan(frame)

or on one object (``gp.energy_balance(geonh.lagrange(system))``).  A user's own formula
plugs in as a callable or an array: ``transpositional_relations(setting, formula=my_gamma)``,
``hamel_coefficients(frame, beta=my_beta)``, ``same_motion(system, my_form, "lagrange")``.

Each relation is checked, where that is possible, by a route independent of the one geonh
uses to compute it: the brackets by their component formula [X, Y]^k = X^i ∂_i Y^k −
Y^i ∂_i X^k, d of the coframe by ∂_i θ_j − ∂_j θ_i, the d and δ operations by differentiating
along the fields (CONVENTIONS.md), the motion by evaluating the equations' accelerations at
consistent states.

What a pass guarantees.  The identities between expressions (:func:`jacobi_identity`,
:func:`maurer_cartan`, :func:`hamel_coefficients`, :func:`transpositional_relations`) are
decided by :func:`geonh.kernel.generic_point.is_zero`: evaluation at random rational points,
exact for rational data, at the working precision otherwise — a *generic-point verdict*: a
failure is a proof (a point where the difference is not zero is shown), a pass fails to be a
proof only if every sample point lies on the zero set of a non-zero analytic function.  The
relations along the motion (:func:`same_motion`, :func:`constraints_preserved`,
:func:`energy_balance`, :func:`first_integral`) are evaluated at ``states`` random states
consistent with the constraints (the system's ``sample_state``: rational coordinates,
parameters and free velocities, the dependent velocities solved), exactly where the state
makes every value rational, else at the working precision; a pass says the relation holds at
those states, a generic-point verdict on the constraint set.  :func:`kinetic_projection`
checks a floating-point projection at such states, to a relative tolerance;
:func:`neimark_fufaev_declaration` decides identities generically and the dimension of the
constraints a declared field satisfies by ranks at random points.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import mpmath
import sympy as sp

from ..analysis.certificate import same_motion as _certificate
from ..analysis.integrals import expression_in
from ..equations.base import Equations
from ..equations.declaration import FormDeclaration
from ..equations.frame_forms import declare_neimark_fufaev
from ..equations.registry import derive
from ..errors import DimensionError, InconsistentStateError, ParseError, SpaceMismatchError
from ..kernel.evaluation import precision, to_mp, value_at
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.generic_point import generic_symbols, is_zero
from ..kernel.parsing import as_expr, as_float, sympy_of
from ..kernel.sampling import random_values, sample_points
from ..kernel.velocity_frames import VelocityFrame
from ..numerics.constraints import ConstraintSet
from ..transposition.relations import ConstrainedSetting, TranspositionalRelations

__all__ = [
    "jacobi_identity",
    "maurer_cartan",
    "hamel_coefficients",
    "transpositional_relations",
    "same_motion",
    "constraints_preserved",
    "energy_balance",
    "first_integral",
    "kinetic_projection",
    "neimark_fufaev_declaration",
]

#: failing terms shown in full in a message (the rest are counted)
SHOWN = 6
_WIDTH = 240


# -- messages ----------------------------------------------------------------------------------
def _show(e) -> str:
    s = sp.sstr(e) if isinstance(e, sp.Basic) else str(e)
    return s if len(s) <= _WIDTH else s[:_WIDTH] + " …"


def _number(v) -> str:
    if isinstance(v, sp.Basic):
        return _show(v if v.is_Rational else sp.N(v, 12))
    with mpmath.workdps(12):
        return str(+v)


def _witness(diff: sp.Expr) -> str:
    """A point where ``diff`` is not zero (from the sampler of the generic-point decisions;
    functions of time and their derivatives are symbols there, :func:`~geonh.kernel.generic_point.generic_symbols`)."""
    diff = generic_symbols(diff)
    free = sorted(diff.free_symbols, key=sp.default_sort_key)
    for pt in sample_points(free, 6):
        v = value_at(diff, pt, strict=False)
        if v is not None and not _negligible(v, diff):
            at = ", ".join(f"{s} = {pt[s]}" for s in free)
            return f"at {at}: difference = {_number(v)}" if at else f"difference = {_number(v)}"
    return "not zero at the generic point (no sample point shown)"


def _negligible(v, *scale) -> bool:
    """Is the value ``v`` zero: exactly (a Rational), or below 10^-(PRECISION/2) of the largest
    of the values ``scale`` (at least 1)?"""
    if isinstance(v, sp.Basic) and v.is_Rational:
        return v == 0
    with mpmath.workdps(precision()):
        big = max([mpmath.mpf(1)] + [abs(to_mp(s)) for s in scale if not isinstance(s, sp.Expr) or s.is_number])
        return bool(abs(to_mp(v)) <= mpmath.mpf(10) ** (-(precision() // 2)) * big)


def _total(values: Iterable[Any]) -> Any:
    """Σ values: exact when every value is a Rational, else an mpmath sum at the working precision."""
    values = list(values)
    if all(isinstance(v, sp.Basic) and v.is_Rational for v in values):
        return sum(values, sp.S.Zero)
    with mpmath.workdps(precision()):
        return sum((to_mp(v) for v in values), mpmath.mpf(0))


def _rational(v) -> bool:
    return isinstance(v, sp.Basic) and v.is_Rational


def _raise(title: str, failures: list[str], total: int, note: str = "", unit: str = "terms") -> None:
    if not failures:
        return
    head = f"{title}: {len(failures)} of {total} {unit} fail" + (f" ({note})" if note else "")
    body = failures[:SHOWN]
    more = [f"  … and {len(failures) - SHOWN} more"] if len(failures) > SHOWN else []
    raise AssertionError("\n".join([head, *body, *more]))


def _compare(label: str, expected: sp.Expr, got: sp.Expr, *, expected_as: str = "expected",
             got_as: str = "got", parts: Sequence[tuple[str, sp.Expr]] = ()) -> str | None:
    """A failure text when got − expected is not identically zero (generic point), else None."""
    diff = sp.expand(sympy_of(got) - sympy_of(expected))
    if is_zero(diff):
        return None
    lines = [f"  {label}:", f"    {expected_as}: {_show(expected)}", f"    {got_as}: {_show(got)}"]
    lines += [f"      {name}: {_show(e)}" for name, e in parts]
    lines += [f"    difference: {_show(diff)}", f"    {_witness(diff)}"]
    return "\n".join(lines)


def _derivative_along(X: VectorField, f: sp.Expr) -> sp.Expr:
    """X(f) = X^i ∂f/∂q^i, by sympy's ``diff`` (not geonh's field action)."""
    return sum((c * sp.diff(f, q) for c, q in zip(X.components, X.space.coords) if c != 0), sp.S.Zero)


def _bracket(X: VectorField, Y: VectorField) -> list[sp.Expr]:
    """[X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k (CONVENTIONS.md), component by component."""
    return [_derivative_along(X, y) - _derivative_along(Y, x) for x, y in zip(X.components, Y.components)]


def _leaves(value, what: str):
    if isinstance(value, (list, tuple)):
        return [_leaves(v, what) for v in value]
    return sympy_of(value, what=f"an entry of {what}")


def _array(value, shape: tuple[int, ...], what: str) -> sp.Array:
    if isinstance(value, (sp.NDimArray, sp.MatrixBase)):
        arr = sp.Array(value)
    elif isinstance(value, (list, tuple)):
        arr = sp.Array(_leaves(value, what))
    else:
        raise ParseError(f"{what} must be an array (sympy Array, Matrix or nested lists), not {type(value).__name__}")
    if arr.shape != shape:
        raise DimensionError(f"{what} must have shape {shape}, got {arr.shape}")
    return arr


def _user(formula, obj, shape, what: str):
    """A user's array, or the array a user's callable returns for ``obj``."""
    if callable(formula) and not isinstance(formula, sp.Basic):
        return _array(formula(obj), shape, f"the array {what} returned")
    return _array(formula, shape, what)


# -- brackets and frames -----------------------------------------------------------------------
def jacobi_identity(X: VectorField, Y: VectorField, Z: VectorField, *,
                    bracket: Callable[[VectorField, VectorField], VectorField] | None = None) -> None:
    """The Jacobi identity [X, [Y, Z]] + [Y, [Z, X]] + [Z, [X, Y]] = 0, component by component.

    ``bracket``: the bracket to check, a callable (X, Y) -> VectorField; default geonh's
    ``geonh.bracket`` ([X, Y] = XY − YX, CONVENTIONS.md).  Every component is decided
    by :func:`~geonh.kernel.generic_point.is_zero` (a generic-point verdict, see the module
    docstring).  A bracket that is bilinear, antisymmetric and satisfies this identity on
    random fields is a Lie bracket there; a wrong sign or a dropped term usually breaks it.
    """
    fields = (X, Y, Z)
    if not all(isinstance(F, VectorField) for F in fields):
        raise ParseError("jacobi_identity takes three VectorFields, got "
                         + ", ".join(type(F).__name__ for F in fields))
    if not (X.space == Y.space == Z.space):
        raise SpaceMismatchError("jacobi_identity: the three fields live on different spaces")
    if bracket is None:
        from ..kernel.fields import bracket as geonh_bracket
        br: Callable[[VectorField, VectorField], VectorField] = geonh_bracket
    elif callable(bracket):
        br = bracket
    else:
        raise ParseError(f"bracket must be a callable (X, Y) -> VectorField, not {type(bracket).__name__}")

    def b(U: VectorField, W: VectorField) -> VectorField:
        out = br(U, W)
        if not isinstance(out, VectorField) or out.space != U.space:
            raise ParseError(f"the bracket returned {type(out).__name__}, not a VectorField on {U.space!r}")
        return out

    terms = [b(X, b(Y, Z)), b(Y, b(Z, X)), b(Z, b(X, Y))]
    failures = []
    for k, q in enumerate(X.space.coords):
        parts = [("[X, [Y, Z]]", terms[0][k]), ("[Y, [Z, X]]", terms[1][k]), ("[Z, [X, Y]]", terms[2][k])]
        f = _compare(f"component ∂_{q}", sp.S.Zero, sum((e for _, e in parts), sp.S.Zero),
                     got_as="sum of the three terms", parts=parts)
        if f:
            failures.append(f)
    _raise("Jacobi identity [X,[Y,Z]] + [Y,[Z,X]] + [Z,[X,Y]] = 0 fails", failures, X.space.dim)


def _frame(frame, what: str) -> Frame:
    if not isinstance(frame, Frame):
        raise ParseError(f"{what} takes a geonh Frame, not {type(frame).__name__}")
    return frame


def maurer_cartan(frame: Frame, *, coefficients=None) -> None:
    """The structure equations dθ^k = −½ c^k_ij θ^i ∧ θ^j of the coframe (CONVENTIONS.md).

    The left side is d of each coframe form computed directly, dθ^k = Σ_{i<j} (∂_i B^k_j −
    ∂_j B^k_i) dq^i ∧ dq^j; the right side uses the structure coefficients c[k, i, j] = c^k_ij
    of ``frame.structure_coefficients()`` (computed by geonh from the brackets,
    [X_i, X_j] = c^k_ij X_k), or ``coefficients``: your own array of shape (n, n, n) in the same
    index order, or a callable frame -> array.  The wedge has no ½, (α ∧ β)(X, Y) = α(X) β(Y) −
    α(Y) β(X), so the component on dq^a ∧ dq^b of the right side is
    −½ Σ_ij c^k_ij (B^i_a B^j_b − B^i_b B^j_a).  Generic-point verdict per component.
    """
    frame = _frame(frame, "maurer_cartan")
    n = frame.dim
    c = frame.structure_coefficients() if coefficients is None else _user(coefficients, frame, (n, n, n), "c[k, i, j]")
    B, coords = frame.B, frame.space.coords
    names = _frame_names(frame)
    failures, total = [], 0
    for k in range(n):
        for a in range(n):
            for b in range(a + 1, n):
                total += 1
                got = sp.diff(B[k, b], coords[a]) - sp.diff(B[k, a], coords[b])
                expected = -sp.Rational(1, 2) * sum((c[k, i, j] * (B[i, a] * B[j, b] - B[i, b] * B[j, a])
                                                     for i in range(n) for j in range(n) if c[k, i, j] != 0), sp.S.Zero)
                f = _compare(f"dθ^{k} ({names[k]}) on dq^{coords[a]} ∧ dq^{coords[b]}", expected, got,
                             expected_as="expected −½ c^k_ij θ^i∧θ^j", got_as="got dθ^k (directly)")
                if f:
                    failures.append(f)
    _raise("Maurer–Cartan dθ^k = −½ c^k_ij θ^i∧θ^j fails", failures, total,
           "c[k, i, j] with [X_i, X_j] = c^k_ij X_k")


def _frame_names(frame: Frame) -> list[str]:
    names = getattr(frame, "names", None)
    return list(names) if names else [f"θ{k}" for k in range(frame.dim)]


def hamel_coefficients(frame: Frame, *, beta=None) -> None:
    """Hamel's transpositional coefficients β and the structure coefficients c agree with the
    brackets (Hamel 1924, eqs. (13), (16), (17); CONVENTIONS.md).

    β[a, b, d] = β_{a,b,d} is ``frame.hamel_beta()``, or ``beta``: your own array of shape
    (n, n, n), or a callable frame -> array.  Three checks, each per term, generic-point verdicts:

    * the brackets: [X_a, X_b] = β_{a,b,d} X_d, the bracket by its component formula;
    * Hamel's eq. (17) typed in literally, β_{i,s,m} = Σ_{h,l} (∂b_{m,l}/∂q_h − ∂b_{m,h}/∂q_l)
      c_{l,i} c_{h,s}, with b_{m,l} = B^m_l read (quasi, coordinate) — the opposite of (13)'s
      order, the only reading that makes (17) a tensor formula — and c_{l,i} = C^l_i;
    * the index order against geonh's c: β_{a,b,d} = c^d_ab (``frame.structure_coefficients()``).
    """
    frame = _frame(frame, "hamel_coefficients")
    n = frame.dim
    b_arr = frame.hamel_beta() if beta is None else _user(beta, frame, (n, n, n), "β[a, b, d]")
    C, B, q = frame.C, frame.B, frame.space.coords
    c = frame.structure_coefficients()
    failures, total = [], 0
    for a in range(n):
        for b in range(a + 1, n):
            br = _bracket(frame[a], frame[b])
            for i in range(n):
                total += 1
                expected = sum((b_arr[a, b, d] * C[i, d] for d in range(n)), sp.S.Zero)
                f = _compare(f"[X_{a}, X_{b}] component ∂_{q[i]}", expected, br[i],
                             expected_as="expected Σ_d β_{a,b,d} X_d", got_as="got the bracket")
                if f:
                    failures.append(f)
    for i in range(n):
        for s in range(n):
            for m in range(n):
                total += 2
                h17 = sum(((sp.diff(B[m, l], q[h]) - sp.diff(B[m, h], q[l])) * C[l, i] * C[h, s]
                           for h in range(n) for l in range(n)), sp.S.Zero)
                f = _compare(f"β_{{{i},{s},{m}}}", h17, b_arr[i, s, m],
                             expected_as="expected Hamel (17)", got_as="got β")
                if f:
                    failures.append(f)
                f = _compare(f"β_{{{i},{s},{m}}} against c^{m}_{{{i}{s}}}", c[m, i, s], b_arr[i, s, m],
                             expected_as="expected c[m, i, s]", got_as="got β[i, s, m]")
                if f:
                    failures.append(f)
    _raise("Hamel's β and the structure coefficients disagree with the brackets", failures, total,
           "β[a, b, d]: first slot δ, second d, third the component")


# -- transpositional relations -----------------------------------------------------------------
def transpositional_relations(obj, k: int | None = None, *, formula=None) -> None:
    """The transpositional relations dδ − δd against the brackets (Hamel 1924, eqs. (16), (17);
    Neimark–Fufaev 1960, § 1, eqs. (1.1)–(1.6); docs/transposition.md).

    ``obj`` is one of:

    * a ``ConstrainedSetting``: every k of the Neimark–Fufaev family,
      0 ≤ k ≤ n − m (or the one ``k`` given), each checked as below;
    * a ``TranspositionalRelations`` (one k);
    * a :class:`~geonh.kernel.Frame`: Hamel's point of view (d and δ commute on every
      coordinate): with V = dq^i ∂_i and W = δq^i ∂_i (constant symbols),
      dδθ^d − δdθ^d = V(θ^d(W)) − W(θ^d(V)) = β_{a,b,d} δπ_a dπ_b, δπ_a = θ^a(W), dπ_b = θ^b(V)
      (eq. (16)); ``formula(frame)`` may give your own β[a, b, d];
    * a ``VelocityFrame`` (``geonh.kernel.velocity_frames``) (a frame on TQ, quasi-velocities v*(t, q, q̇)):
      with dδq = δdq and δπ^ρ = θ^ρ_σ δq^σ (Chetaev), d(δπ^ρ) − δ(v*^ρ) = Γ^ρ_τ δπ^τ (per dt),
      computed here by differentiating along a generic motion q(t) and variation δq(t)
      (sympy functions of time); ``formula(vframe)`` may give your own Γ (an n × n matrix,
      row ρ, column τ), default ``vframe.transposition()``.

    For the k-family (the fields V, W of NF (1.1), the adapted frame F_k with coframe θ^λ, η^σ):

    * dδπ_λ − δdπ_λ = V(θ^λ(W)) − W(θ^λ(V)) (differentiated along the fields here) equals
      γ_νλμ dπ_μ δπ_ν (NF (1.4)), γ = ``relations.gamma`` or ``formula(relations)``, your own
      γ[ν, λ, μ] (first index δ, last d);
    * dδq_λ − δdq_λ = [V, W]^λ = 0 on the free coordinates and the ρ's;
    * dδq_σ − δdq_σ = [V, W]^σ = c^σ_μν dπ_μ δπ_ν, c of F_k;
    * on the motion, [V, W]^σ = B^σ_rs dq_r δq_s (NF (1.4), (1.6)), B = ``relations.B``.

    The brackets are taken by their component formula, independently of geonh's bracket.
    Generic-point verdicts, term by term.
    """
    if formula is not None and not callable(formula):
        raise ParseError(f"formula must be a callable returning your coefficients, not {type(formula).__name__}")
    if isinstance(obj, ConstrainedSetting):
        ks = [obj._check_k(k)] if k is not None else list(range(obj.n - obj.m + 1))
        for kk in ks:
            _k_family(obj.transposition(kk), formula)
        return
    if isinstance(obj, TranspositionalRelations):
        if k is not None and k != obj.k:
            raise DimensionError(f"these relations are for k = {obj.k}, not k = {k}")
        _k_family(obj, formula)
        return
    if k is not None:
        raise DimensionError("k selects a member of the Neimark–Fufaev family: give a ConstrainedSetting")
    if isinstance(obj, Frame):
        _hamel_view(obj, formula)
        return
    if isinstance(obj, VelocityFrame):
        _velocity_frame(obj, formula)
        return
    raise ParseError("transpositional_relations takes a ConstrainedSetting, TranspositionalRelations, Frame "
                     f"or VelocityFrame, not {type(obj).__name__}")


def _k_family(T: TranspositionalRelations, formula) -> None:
    p, dim = T.p, T.space.dim
    gamma = T.gamma if formula is None else _user(formula, T, (p, p, p), "γ[ν, λ, μ]")
    frame = T.frame
    V, W = T.V, T.W
    dpi = [th(V) for th in frame.coframe]       # dπ_μ = θ^μ(V) (η^σ(V) = 0)
    xpi = [th(W) for th in frame.coframe]       # δπ_ν = θ^ν(W)
    pis = [f"π{i + 1}" for i in range(T.m + T.k)] + (["π_t"] if T.space.t is not None else [])
    failures, total = [], 0
    for lam in range(p):
        total += 1
        th = frame.coframe[lam]
        got = _derivative_along(V, th(W)) - _derivative_along(W, th(V))
        expected = sum((gamma[nu, lam, mu] * dpi[mu] * xpi[nu] for nu in range(p) for mu in range(p)
                        if gamma[nu, lam, mu] != 0), sp.S.Zero)
        f = _compare(f"dδ{pis[lam]} − δd{pis[lam]}", expected, got, expected_as="expected γ_νλμ dπ_μ δπ_ν",
                     got_as="got V(θ(W)) − W(θ(V))")
        if f:
            failures.append(f)
    br = _bracket(V, W)
    c = frame.structure_coefficients()
    sigma = set(T.sigma)
    for i, q in enumerate(T.space.coords):
        if q in sigma:
            continue
        total += 1
        f = _compare(f"dδ{q} − δd{q} = [V, W]^{q}", sp.S.Zero, br[i], got_as="got [V, W]")
        if f:
            failures.append(f)
    rs = list(T.free) + ([T.space.t] if T.space.t is not None else [])
    sub = dict(T.motion_substitution)
    zero_t = {T.delta_t: 0} if T.delta_t is not None else {}
    for j, q in enumerate(T.sigma):
        i = T.space.index(q)
        total += 2
        expected = sum((c[p + j, mu, nu] * dpi[mu] * xpi[nu] for mu in range(dim) for nu in range(dim)
                        if c[p + j, mu, nu] != 0), sp.S.Zero)
        f = _compare(f"dδ{q} − δd{q} = [V, W]^{q}", expected, br[i], expected_as="expected c^σ_μν dπ_μ δπ_ν",
                     got_as="got [V, W]")
        if f:
            failures.append(f)
        on_motion = br[i].xreplace(sub).xreplace(zero_t)
        expected = sum((T.B[j, r, s] * T.d_symbols[qr] * T.delta_symbols[qs]
                        for r, qr in enumerate(rs) for s, qs in enumerate(T.free)), sp.S.Zero)
        f = _compare(f"dδ{q} − δd{q} on the motion", expected, on_motion, expected_as="expected B^σ_rs dq_r δq_s",
                     got_as="got [V, W] on the motion")
        if f:
            failures.append(f)
    _raise(f"transpositional relations of the Neimark–Fufaev family fail for k = {T.k}", failures, total,
           "γ[ν, λ, μ]: first index δ, last d")


def _hamel_view(frame: Frame, formula) -> None:
    n, coords = frame.dim, frame.space.coords
    beta = frame.hamel_beta() if formula is None else _user(formula, frame, (n, n, n), "β[a, b, d]")
    dq = [sp.Symbol(f"d{q}") for q in coords]
    xq = [sp.Symbol(f"δ{q}") for q in coords]
    V, W = VectorField(frame.space, dq), VectorField(frame.space, xq)
    dpi = [th(V) for th in frame.coframe]
    xpi = [th(W) for th in frame.coframe]
    names = _frame_names(frame)
    failures = []
    for d, th in enumerate(frame.coframe):
        got = _derivative_along(V, th(W)) - _derivative_along(W, th(V))
        expected = sum((beta[a, b, d] * xpi[a] * dpi[b] for a in range(n) for b in range(n) if beta[a, b, d] != 0),
                       sp.S.Zero)
        f = _compare(f"dδθ^{d} − δdθ^{d} ({names[d]})", expected, got, expected_as="expected β_{a,b,d} δπ_a dπ_b",
                     got_as="got V(θ(W)) − W(θ(V))")
        if f:
            failures.append(f)
    _raise("transpositional relations (Hamel's point of view, eq. (16)) fail", failures, n,
           "β[a, b, d]: first slot δ, second d, third the component")


def _velocity_frame(vf: VelocityFrame, formula) -> None:
    S, n = vf.space, vf.n
    Gamma = vf.transposition() if formula is None else sp.Matrix(_user(formula, vf, (n, n), "Γ[ρ, τ]").tolist())
    t = S.t if S.t is not None else sp.Symbol("t", real=True)
    q = [sp.Function(s.name)(t) for s in S.q]
    dq = [sp.Function("δ" + s.name)(t) for s in S.q]
    motion = {**dict(zip(S.q, q)), **{v: f.diff(t) for v, f in zip(S.qd, q)},
              **{a: f.diff(t, 2) for a, f in zip(S.qdd, q)}}
    theta = vf.coframe.xreplace(motion)
    failures = []
    for rho, w in enumerate(vf.quasi):
        delta_pi = sum((theta[rho, s] * dq[s] for s in range(n)), sp.S.Zero)
        delta_v = sum(((sp.diff(w, S.q[s]) * dq[s] + sp.diff(w, S.qd[s]) * dq[s].diff(t)).xreplace(motion)
                       for s in range(n)), sp.S.Zero)
        got = delta_pi.diff(t) - delta_v
        expected = sum((Gamma[rho, tau].xreplace(motion) * theta[tau, s] * dq[s]
                        for tau in range(n) for s in range(n)), sp.S.Zero)
        f = _compare(f"d(δπ^{rho}) − δ(dπ^{rho}) per dt", expected, got, expected_as="expected Γ^ρ_τ δπ^τ",
                     got_as="got d/dt(θ^ρ(δq)) − δv*^ρ")
        if f:
            failures.append(f)
    _raise("transpositional relations on TQ fail", failures, n, "Γ[ρ, τ]: row ρ, column τ")


# -- along the motion ----------------------------------------------------------------------------
def _count(states, what: str = "states") -> int:
    if isinstance(states, bool) or not isinstance(states, int) or states < 1:
        raise DimensionError(f"{what} must be an integer ≥ 1, got {states!r}")
    return states


def _given_states(state) -> list[Mapping] | None:
    if state is None:
        return None
    if isinstance(state, Mapping):
        return [state]
    if isinstance(state, (list, tuple)) and state and all(isinstance(s, Mapping) for s in state):
        return list(state)
    raise ParseError(f"state must be a mapping {{symbol or name: value}} or a list of them, not {type(state).__name__}")


def _states(eqs: Equations, state, states: int, seed: int, extra=()) -> list[dict]:
    """The states to check: the given ones (keys resolved to the equations' symbols, values
    read safely), else ``states`` random consistent states of the system."""
    given = _given_states(state)
    if given is not None:
        out = []
        for st in given:
            vals = eqs.resolve_values(st, "state")
            out.append({s: sympy_of(v, what=f"value of {s}") for s, v in vals.items()})
        return out
    rng = random.Random(seed)
    return [eqs.system.sample_state(rng, extra) for _ in range(_count(states))]


def _state_text(vals: Mapping) -> str:
    return ", ".join(f"{s} = {_number(v)}" for s, v in sorted(vals.items(), key=lambda kv: sp.default_sort_key(kv[0])))


def _equations(eqs, what: str) -> Equations:
    if not isinstance(eqs, Equations):
        raise ParseError(f"{what} takes geonh Equations, not {type(eqs).__name__}")
    return eqs


def _motion_point(eqs: Equations, vals: dict) -> dict:
    """The state with q̈ (from the equations' accelerations) and ṫ = 1 added."""
    acc = eqs.accelerations(vals, exact=True)
    return {**vals, **dict(zip(eqs.space.qdd, acc))}


def _rate(S, phi: sp.Expr) -> list[tuple[str, sp.Expr]]:
    """The terms of d/dt φ(t, q, q̇) = ∂_t φ + Σ ∂φ/∂q^i q̇^i + Σ ∂φ/∂q̇^i q̈^i (sympy diff)."""
    out = []
    if S.t is not None:
        out.append((f"∂φ/∂{S.t}", sp.diff(phi, S.t)))
    out += [(f"∂φ/∂{q}·{v}", sp.diff(phi, q) * v) for q, v in zip(S.q, S.qd)]
    out += [(f"∂φ/∂{v}·{a}", sp.diff(phi, v) * a) for v, a in zip(S.qd, S.qdd)]
    return [(name, e) for name, e in out if e != 0]


def _values(terms: Sequence[tuple[str, sp.Expr]], point: dict) -> list[tuple[str, Any]]:
    return [(name, value_at(e, point)) for name, e in terms]


def _form_equations(system, form, frame, dependent, what: str) -> Equations:
    if isinstance(form, Equations):
        eqs = form
    elif isinstance(form, str):
        eqs = derive(form, system, frame, dependent)
    elif callable(form):
        eqs = form(system)
        if not isinstance(eqs, Equations):
            raise ParseError(f"{what}: the callable returned {type(eqs).__name__}, not Equations")
    else:
        raise ParseError(f"{what} must be a form name, Equations or a callable system -> Equations, "
                         f"not {type(form).__name__}")
    if eqs.space != system.space:
        raise SpaceMismatchError(f"{what}: the equations live on another configuration space than the system")
    return eqs


def same_motion(system, form_a, form_b="lagrange", *, state=None, states: int = 3, seed: int = 1,
                frame: Frame | None = None, dependent: Sequence | None = None, tol: float = 1e-30) -> None:
    """Two forms of the equations of ``system`` give the same motion: the same accelerations
    q̈ at every state allowed by the constraints (:func:`geonh.same_motion`, the certificate).

    ``form_a``, ``form_b``: a registered form's name (``geonh.FORMS``, built with ``frame``
    and ``dependent`` where the form takes them), ready :class:`~geonh.Equations`, or your own
    callable system -> Equations.  ``state``: a state {t, q, q̇, parameters} or a list of them
    (default: ``states`` random consistent states from ``seed``).  On a failure the message
    lists q̈ of both forms coordinate by coordinate at the worst state.  Relative tolerance
    ``tol`` (exact rational states compare exactly).
    """
    if not hasattr(system, "sample_state") or not hasattr(system, "space"):
        raise ParseError(f"same_motion takes a system (e.g. a MechanicalSystem), not {type(system).__name__}")
    given = _given_states(state)
    if dependent is not None:   # coordinates by name or symbol, checked before any derivation
        if isinstance(dependent, (str, sp.Basic)) or not isinstance(dependent, (list, tuple)):
            raise ParseError(f"dependent must be a list of coordinates, not {type(dependent).__name__}")
        dependent = [system.space.coordinate(c) for c in dependent]
    eq_a = _form_equations(system, form_a, frame, dependent, "form_a")
    eq_b = _form_equations(system, form_b, frame, dependent, "form_b")
    drawn: list[Mapping] = []

    def sampler(rng, extra):
        st = given[len(drawn) % len(given)] if given is not None else system.sample_state(rng, extra)
        drawn.append(st)
        return st

    n = len(given) if given is not None else _count(states)
    cert = _certificate(eq_a, eq_b, states=n, tol=tol, seed=seed, sampler=sampler)
    if cert.same:
        return
    worst = max(range(len(cert.details)), key=lambda i: cert.details[i])
    vals = drawn[worst]
    a1, a2 = eq_a.accelerations(dict(vals), exact=True), eq_b.accelerations(dict(vals), exact=True)
    name_a, name_b = eq_a.form, eq_b.form
    failures = []
    for a, x, y in zip(eq_a.space.qdd, a1, a2):
        exact = all(isinstance(v, sp.Basic) and v.is_Rational for v in (x, y))
        diff = x - y if exact else _total([x, -to_mp(y)])
        if _negligible(diff, x, y):
            continue
        failures.append(f"  {a}:\n    expected ({name_b}): {_number(y)}\n    got ({name_a}): {_number(x)}\n"
                        f"    difference: {_number(diff)}")
    failures.append(f"  at the state {_state_text(vals)}")
    raise AssertionError(f"{name_a} and {name_b} give different motions: max |Δq̈| = {cert.max_residual:.3g} "
                         f"over {cert.states} states ({cert.method})\n" + "\n".join(failures))


def _constraint_exprs(eqs: Equations, constraints) -> list[sp.Expr]:
    S = eqs.space
    if constraints is None:
        cod = getattr(eqs.system, "constraints", None)
        if cod is None or not hasattr(cod, "matrix"):
            raise ParseError("the equations' system has no velocity constraints: pass constraints=[...]")
        M = cod.matrix()
        vel = list(S.qd) + ([sp.S.One] if S.t is not None else [])
        return [sum((M[r, i] * vel[i] for i in range(M.cols)), sp.S.Zero) for r in range(M.rows)]
    if isinstance(constraints, (str, sp.Basic)):
        constraints = [constraints]
    if not isinstance(constraints, (list, tuple)):
        raise ParseError(f"constraints must be a list of expressions φ(t, q, q̇) (= 0), not {type(constraints).__name__}")
    out = []
    for c in constraints:
        e = expression_in(eqs, c.lhs - c.rhs if isinstance(c, sp.Equality) else c, "constraint φ(t, q, q̇)")
        if e.has(*eqs.u) and not set(eqs.u) <= set(S.qd):
            raise ParseError(f"constraint {e} names speeds u: write constraints in (t, q, q̇)")
        out.append(e)
    return out


def constraints_preserved(equations: Equations, constraints=None, *, state=None, states: int = 3,
                          seed: int = 1) -> None:
    """The constraints are preserved along the equations: the derivative of each constraint
    φ^κ(t, q, q̇) along the vector field of the motion vanishes on the constraint set,

        dφ/dt = ∂_t φ + ∂φ/∂q^i q̇^i + ∂φ/∂q̇^i q̈^i = 0   where φ = 0,

    q̈ the equations' accelerations (:meth:`~geonh.Equations.accelerations`, exact at rational
    states).  ``constraints``: expressions φ(t, q, q̇) (= 0; strings are parsed safely),
    default the system's velocity constraints (their rows θ^κ(q̇) + θ^κ_t, holonomic ones
    differentiated).  ``state`` / ``states`` / ``seed`` as in :func:`same_motion`; a given
    state must satisfy the constraints (:class:`~geonh.errors.InconsistentStateError`).  The
    message shows each failing constraint with the terms of dφ/dt at the state.
    """
    eqs = _equations(equations, "constraints_preserved")
    S = eqs.space
    phis = _constraint_exprs(eqs, constraints)
    extra = set().union(*(p.free_symbols for p in phis)) if phis else set()
    failures, total = [], 0
    for vals in _states(eqs, state, states, seed, extra):
        point = _motion_point(eqs, vals)
        for kappa, phi in enumerate(phis):
            v0 = value_at(phi, point)
            if not _negligible(v0):
                raise InconsistentStateError(f"constraint {kappa} (φ = {_show(phi)}) is {_number(v0)}, not 0, at "
                                             f"the state {_state_text(vals)}: the state is not on the constraint set")
            total += 1
            terms = _values(_rate(S, phi), point)
            rate = _total(v for _, v in terms)
            if _negligible(rate, *[v for _, v in terms]):
                continue
            parts = "\n".join(f"      {name} = {_number(v)}" for name, v in terms)
            failures.append(f"  constraint {kappa}, φ = {_show(phi)}:\n    expected dφ/dt = 0\n"
                            f"    got dφ/dt = {_number(rate)}, the terms:\n{parts}\n"
                            f"    at the state {_state_text(vals)}, q̈ from {eqs.form}")
    _raise(f"the constraints are not preserved along the {eqs.form} equations", failures, total, unit="checks at the states")


def energy_balance(equations: Equations, *, reaction_power: Callable[[dict], Any] | None = None, state=None,
                   states: int = 3, seed: int = 1) -> None:
    """The energy balance along the equations (Neimark & Fufaev 1972, ch. III § 1; Hamel 1924 § 1):

        dh/dt = Q_i q̇^i + P_R − ∂L/∂t,     h = q̇^i ∂L/∂q̇^i − L,  L = T − V,

    with Q the system's applied forces other than −∂V/∂q (``system.Q`` + ∂V/∂q) and P_R the power of the reactions.  For ideal
    constraints θ^κ_i q̇^i + θ^κ_t = 0 the reaction is R_i = λ_κ θ^κ_i (CONVENTIONS.md), so
    P_R = λ_κ θ^κ_i q̇^i = −λ_κ θ^κ_t: zero for scleronomic constraints, not zero in general for
    rheonomic ones.  dh/dt is computed here from T and V directly, with the equations' q̈; λ
    are the equations' multipliers when they carry them (Lagrange's form), otherwise the
    least-squares solution of θᵀλ = E(L) − Q with E(L) Lagrange's expressions at the
    equations' q̈.  ``reaction_power(point)``: your own P_R, a callable on the point {t, q, q̇, q̈,
    parameters}.  ``state`` / ``states`` / ``seed`` as in :func:`same_motion`.  The message
    shows the four terms at a failing state.
    """
    eqs = _equations(equations, "energy_balance")
    system: Any = eqs.system
    if not all(hasattr(system, a) for a in ("T", "V", "Q", "constraints")):
        raise ParseError(f"energy_balance needs equations of a MechanicalSystem (T, V, Q), not of {type(system).__name__}")
    if reaction_power is not None and not callable(reaction_power):
        raise ParseError(f"reaction_power must be a callable point -> number, not {type(reaction_power).__name__}")
    S = eqs.space
    L = system.T - system.V
    h = sp.expand(sum((v * sp.diff(L, v) for v in S.qd), sp.S.Zero) - L)
    hdot = _rate(S, h)
    applied = _nonpotential(system)
    PQ = sum((Qi * v for Qi, v in zip(applied, S.qd)), sp.S.Zero)
    dLdt = sp.diff(L, S.t) if S.t is not None else sp.S.Zero
    M = system.constraints.matrix()
    r = M.rows
    theta_t = M[:, S.n] if S.t is not None and r else sp.zeros(r, 1)
    failures, total = [], 0
    for vals in _states(eqs, state, states, seed):
        point = _motion_point(eqs, vals)
        total += 1
        hd = _total(value_at(e, point) for _, e in hdot)
        pq = value_at(PQ, point)
        lt = value_at(dLdt, point)
        if reaction_power is not None:
            pr = reaction_power(dict(point))
        elif r == 0 or all(e == 0 for e in theta_t):
            pr = sp.S.Zero
        else:
            lam = _multipliers(eqs, system, point, M[:, :S.n])
            with mpmath.workdps(precision()):
                pr = -_total(to_mp(lam[k]) * to_mp(value_at(theta_t[k], point)) for k in range(r))
        with mpmath.workdps(precision()):
            residual = _total([hd, -to_mp(pq) if not _rational(pq) else -pq, -to_mp(pr) if not _rational(pr) else -pr,
                               lt])
            expected = _total([pq, pr, -to_mp(lt) if not _rational(lt) else -lt])
        if _negligible(residual, hd, pq, pr, lt):
            continue
        failures.append(f"  dh/dt = Q·q̇ + P_R − ∂L/∂t at the state {_state_text(vals)}:\n"
                        f"    expected Q·q̇ + P_R − ∂L/∂t = {_number(expected)}\n"
                        f"      power of the applied forces Q·q̇ = {_number(pq)}\n"
                        f"      power of the reactions P_R = {_number(pr)}\n"
                        f"      −∂L/∂t = {_number(-lt if _rational(lt) else -to_mp(lt))}\n"
                        f"    got dh/dt = {_number(hd)} (h = {_show(h)}, q̈ from {eqs.form})\n"
                        f"    difference: {_number(residual)}")
    _raise(f"the energy balance fails along the {eqs.form} equations", failures, total, unit="states")


def _nonpotential(system) -> list[sp.Expr]:
    """The applied forces without the potential's: ``system.Q`` holds Q_i − ∂V/∂q^i."""
    return [Qi + sp.diff(system.V, q) for Qi, q in zip(system.Q, system.space.q)]


def _multipliers(eqs: Equations, system, point: dict, A: sp.Matrix) -> list:
    """λ at the point: the equations' own multipliers, or the least-squares solution of
    Aᵀλ = E(L) − Q (Lagrange's expressions at the equations' q̈)."""
    if eqs.multipliers:
        x = eqs.solve_point({k: v for k, v in point.items() if k not in set(eqs.space.qdd)})
        return list(x[len(eqs.ud):])
    S = eqs.space
    L = system.T - system.V
    R = sp.Matrix([sum((e for _, e in _rate(S, sp.diff(L, v))), sp.S.Zero) - sp.diff(L, q) - Qi
                   for q, v, Qi in zip(S.q, S.qd, _nonpotential(system))])
    Ap = A.xreplace(point).evalf(precision())
    Rp = R.xreplace(point).evalf(precision())
    lam = (Ap * Ap.T).LUsolve(Ap * Rp)
    return list(lam)


def first_integral(equations: Equations, F, *, state=None, states: int = 3, seed: int = 1) -> None:
    """A claimed first integral is one: dF/dt = ∂_t F + ∂F/∂q^i K^i + ∂F/∂u^j u̇^j = 0 along
    the equations (q̇ = K(t, q, u), M u̇ = F; Hamel 1924 § 1, Neimark & Fufaev 1972 ch. III § 1).

    ``F``: an expression in (t, q, u) or (t, q, q̇) (velocities are replaced by q̇ = K(t, q, u);
    a string is parsed safely), or a callable equations -> expression.  u̇ (and λ of a
    multiplier form) come from the equations' linear system at each state
    (``Equations.solve_point``), independently of
    ``geonh.analysis.integrals.is_integral``.  ``state`` / ``states`` / ``seed`` as in
    :func:`same_motion`.  The message lists the non-zero terms of dF/dt at a failing state.
    """
    eqs = _equations(equations, "first_integral")
    if callable(F) and not isinstance(F, (str, sp.Basic)):
        F = F(eqs)
    expr = expression_in(eqs, F, "the claimed first integral F")
    S = eqs.space
    velocities = {v: k for v, k in zip(S.qd, eqs.kinematics) if v not in set(eqs.u)}
    expr = expr.xreplace(velocities)
    if expr.has(*S.qdd):
        raise ParseError(f"a first integral is a function of (t, q, q̇), not of accelerations: {_show(expr)}")
    terms: list[tuple[str, sp.Expr]] = []
    if S.t is not None:
        terms.append((f"∂F/∂{S.t}", sp.diff(expr, S.t)))
    terms += [(f"∂F/∂{q}·K_{q}", sp.diff(expr, q) * k) for q, k in zip(S.q, eqs.kinematics)]
    terms += [(f"∂F/∂{u}·{ud}", sp.diff(expr, u) * ud) for u, ud in zip(eqs.u, eqs.ud)]
    terms = [(n, e) for n, e in terms if e != 0]
    failures, total = [], 0
    for vals in _states(eqs, state, states, seed, expr.free_symbols):
        point = dict(vals)
        for u, s in zip(eqs.u, eqs.speeds):
            point.setdefault(u, value_at(s, point))
        x = eqs.solve_point(point)
        point.update(zip(eqs.ud, x[:len(eqs.ud)]))
        total += 1
        tv = _values(terms, point)
        rate = _total(v for _, v in tv)
        if _negligible(rate, *[v for _, v in tv]):
            continue
        parts = "\n".join(f"      {name} = {_number(v)}" for name, v in tv if not _negligible(v))
        failures.append(f"  F = {_show(expr)}:\n    expected dF/dt = 0\n    got dF/dt = {_number(rate)}, the terms:\n"
                        f"{parts}\n    at the state {_state_text(vals)}")
    _raise(f"the claimed first integral is not one along the {eqs.form} equations", failures, total, unit="states")


# -- the projection onto the constraints ---------------------------------------------------------
def _geonh_projection(eqs: Equations) -> Callable[[dict], list]:
    """geonh's projection of velocities (``ConstraintSet.project`` of the compiled equations),
    as a callable {t, q, q̇, parameters} -> the projected q̇."""
    S = eqs.space
    funcs: dict = {}

    def project(state: dict) -> list:
        params = {s: v for s, v in state.items() if s not in set(S.q) | set(S.qd) and s != S.t}
        key = tuple(sorted((s.name, str(v)) for s, v in params.items()))
        if key not in funcs:
            funcs[key] = ConstraintSet(eqs.ode_function(params))
        t = float(state[S.t]) if S.t is not None else 0.0
        y = [float(state[q]) for q in S.q] + [float(state[v]) for v in S.qd]
        return list(funcs[key].project(t, y)[S.n:])
    return project


def kinetic_projection(equations: Equations, *, project: Callable[[dict], Sequence] | None = None, state=None,
                       states: int = 3, seed: int = 1, tol: float = 1e-9) -> None:
    """The projection of velocities onto the constraints is orthogonal in the kinetic-energy
    metric: for velocities q̇ off the constraints A(t, q) q̇ + b(t, q) = 0, q (and t) held
    fixed, the projected velocities q̇' satisfy

    * the constraints: A q̇' + b = 0;
    * T-orthogonality of the correction: w·G (q̇ − q̇') = 0 for every admissible w (A w = 0),
      G = ∂²T/∂q̇² the kinetic-energy metric,

    the two conditions of the unique minimiser of ½ (q̇' − q̇)ᵀ G (q̇' − q̇) on the constraint
    set (Gauss's principle of least constraint for an impulse; Neimark & Fufaev 1972 ch. I),
    whose closed form q̇' = q̇ − G⁻¹Aᵀ (A G⁻¹ Aᵀ)⁻¹ (A q̇ + b) the message shows.  G is computed
    here from T by differentiation, the basis of admissible w by a singular value
    decomposition of A at the state (numpy), independently of geonh's projection.

    ``equations``: Equations of a :class:`~geonh.systems.MechanicalSystem` whose state keeps
    every velocity (u = q̇: Lagrange's form with multipliers), projected by geonh's
    ``ConstraintSet.project`` of their compiled ODE function (what
    ``geonh.simulate(project=True)`` uses); or ``project``: your own callable
    {t, q, q̇, parameters} -> the projected q̇ (n numbers), for equations of any form.  The
    velocities to project are consistent states (``state`` / ``states`` / ``seed`` as in
    :func:`same_motion`) plus a random rational kick in every velocity.  Floating point:
    each condition holds to ``tol`` relative to the size of its terms.
    """
    eqs = _equations(equations, "kinetic_projection")
    system: Any = eqs.system
    if not all(hasattr(system, a) for a in ("T", "constraints")) or not hasattr(system.constraints, "matrix"):
        raise ParseError(f"kinetic_projection needs equations of a MechanicalSystem, not of {type(system).__name__}")
    if project is not None and not callable(project):
        raise ParseError(f"project must be a callable state -> velocities, not {type(project).__name__}")
    tol = as_float(tol, "tol", minimum=0)
    if not tol > 0:
        raise DimensionError(f"tol must be a positive number, got {tol!r}")
    S = eqs.space
    n = S.n
    if project is None:
        if list(eqs.u) != list(S.qd):
            raise ParseError(f"the {eqs.form} equations do not keep every velocity (u ≠ q̇): geonh projects nothing "
                             "for them; pass project= or use Lagrange's equations")
        project = _geonh_projection(eqs)
    import numpy as np   # numerics' dependency (geonh.numerics imports it)

    M = system.constraints.matrix()
    r = M.rows
    A = M[:, :n]
    b = M[:, n] if S.t is not None and M.cols > n else sp.zeros(r, 1)
    G = sp.Matrix(n, n, lambda i, j: sp.diff(system.T, S.qd[i], S.qd[j]))
    rng = random.Random(seed + 7919)
    failures, total = [], 0
    for vals in _states(eqs, state, states, seed):
        kicked = dict(vals)
        kick = random_values(rng, (), either_sign=tuple(S.qd))    # off the constraints, either way
        for v in S.qd:
            kicked[v] = sympy_of(vals[v]) + kick[v]
        point = {k: v for k, v in kicked.items() if k not in set(S.qd)}

        def num(e):
            return float(to_mp(value_at(e, point)))

        An = np.array([[num(A[i, j]) for j in range(n)] for i in range(r)], dtype=float).reshape(r, n)
        bn = np.array([num(b[i]) for i in range(r)], dtype=float)
        Gn = np.array([[num(G[i, j]) for j in range(n)] for i in range(n)], dtype=float)
        v_in = np.array([float(kicked[v]) for v in S.qd])
        out = project(dict(kicked))
        try:
            v_out = np.array([float(x) for x in out], dtype=float)
        except (TypeError, ValueError):
            raise ParseError(f"the projection returned {out!r}, not {n} numbers") from None
        if v_out.shape != (n,):
            raise DimensionError(f"the projection returned {v_out.size} velocities, not {n}")
        Gi = np.linalg.inv(Gn)
        expected = v_in - Gi @ An.T @ np.linalg.solve(An @ Gi @ An.T, An @ v_in + bn) if r else v_in
        scale = 1.0 + float(np.max(np.abs(v_in)))
        residual = An @ v_out + bn
        _, sv, vt = np.linalg.svd(An) if r else (None, np.zeros(0), np.eye(n))
        null = vt[int(np.sum(sv > 1e-12 * (sv[0] if len(sv) else 1.0))):]
        corr = v_in - v_out
        orth = null @ Gn @ corr
        gscale = scale * (1.0 + float(np.max(np.abs(Gn))))
        total += 2
        lines = []
        if r and float(np.max(np.abs(residual))) > tol * scale * (1.0 + float(np.max(np.abs(An)))):
            lines += [f"    the constraints A q̇' + b = 0: got {_floats(residual)}"]
        if len(orth) and float(np.max(np.abs(orth))) > tol * gscale:
            lines += [f"    the correction is not T-orthogonal to the admissible velocities: w·G(q̇ − q̇') = "
                      f"{_floats(orth)} for the basis w (rows) = {_floats(null)} of A w = 0"]
        if lines:
            failures.append("\n".join([f"  at the state {_state_text(vals)}, kicked to q̇ = {_floats(v_in)}:",
                                       *lines,
                                       f"    expected q̇' = q̇ − G⁻¹Aᵀ(AG⁻¹Aᵀ)⁻¹(Aq̇ + b) = {_floats(expected)}",
                                       f"    got q̇' = {_floats(v_out)}",
                                       f"    difference: {_floats(v_out - expected)}",
                                       f"    G = {_floats(Gn)}, A = {_floats(An)}, b = {_floats(bn)}"]))
    _raise(f"the projection onto the constraints of the {eqs.form} equations is not the kinetic-metric one",
           failures, total, unit="checks at the states")


def _floats(a) -> str:
    import numpy as np
    return np.array2string(np.asarray(a, dtype=float), precision=10, separator=", ")


# -- Neimark–Fufaev's intermediate forms ---------------------------------------------------------
def _numeric_rank(M: sp.Matrix, symbols: Sequence[sp.Symbol]) -> int:
    """The rank of a symbolic matrix: the largest over a few random points of ``symbols``, each
    point's rank exact (sympy, rational entries) or by the singular values at the working
    precision above 10^-(precision/3) of the largest — independent of geonh's rank decisions."""
    if M.rows == 0 or M.cols == 0:
        return 0
    best = 0
    for pt in sample_points(sorted(set(symbols), key=sp.default_sort_key), 3):
        vals = [value_at(e, pt, strict=False) for e in M]
        if any(v is None for v in vals):
            continue
        if all(_rational(v) for v in vals):
            rk = sp.Matrix(M.rows, M.cols, vals).rank()
        else:
            with mpmath.workdps(precision()):
                mat = mpmath.matrix([[to_mp(vals[i * M.cols + j]) for j in range(M.cols)] for i in range(M.rows)])
                sv = mpmath.svd_c(mat, compute_uv=False) if any(isinstance(x, mpmath.mpc) for x in mat) \
                    else mpmath.svd_r(mat, compute_uv=False)
                s = [abs(sv[i]) for i in range(len(sv))]
                top = max(s) if s else mpmath.mpf(0)
                rk = sum(1 for x in s if top and x > top * mpmath.mpf(10) ** (-(precision() // 3)))
        best = max(best, rk)
    return best


def neimark_fufaev_declaration(system, k: int, *, declaration: Callable[[Any, int], FormDeclaration] | None = None,
                               dependent: Sequence | None = None, quasi=None) -> None:
    """The declared d and δ fields of Neimark–Fufaev's intermediate form for this ``k`` are
    those of the k-family (Neimark & Fufaev 1960 § 1, eq. (1.1); docs/transposition.md):

    * the d field V satisfies identically, off the motion, exactly n − m − k independent
      constraints (the σ's); the remaining k (the ρ's) only on the motion — i.e. the
      linear forms θ^κ(V) in V's constant symbols (dq's, dt) span a space of dimension k; the
      same for every δ field W (δ symbols, δt = 0);
    * d and δ commute, [V, W]^q = V(W^q) − W(V^q) ≡ 0, on at least m + k coordinates (the m
      free ones and the k ρ's), the bracket by its component formula;
    * on the motion (``on_motion``) V is an admissible velocity, θ^κ(V) = 0 with ṫ = 1, V is
      the declared kinematics, and every W is an admissible displacement, θ^κ(W) = 0.

    The motion of such a form is the same for every k (:func:`same_motion` cannot tell k from
    n − m − k); these conditions on the declared fields can.  θ^κ are the system's constraint
    forms (``system.constraints``); ranks are decided at random points, exactly or at the
    working precision, independently of geonh's rank decisions.

    ``declaration``: your own callable (system, k) -> :class:`~geonh.equations.declaration.FormDeclaration`,
    default :func:`geonh.equations.frame_forms.declare_neimark_fufaev` (with ``dependent``, ``quasi``).
    """
    if not (hasattr(system, "constraints") and hasattr(system.constraints, "matrix") and hasattr(system, "T")):
        raise ParseError(f"neimark_fufaev_declaration takes a MechanicalSystem, not {type(system).__name__}")
    if isinstance(k, bool) or not isinstance(k, int):
        raise DimensionError(f"k must be an integer, got {k!r}")
    if declaration is None:
        decl = declare_neimark_fufaev(system, k, dependent, quasi)
    elif callable(declaration):
        decl = declaration(system, k)
    else:
        raise ParseError(f"declaration must be a callable (system, k) -> FormDeclaration, not {type(declaration).__name__}")
    if not isinstance(decl, FormDeclaration):
        raise ParseError(f"the declaration is a {type(decl).__name__}, not a FormDeclaration")
    S = system.space
    Mx = system.constraints.matrix()
    r, n = Mx.rows, S.n
    m = n - r
    if not 0 <= k <= r:
        raise DimensionError(f"k must lie in 0 … n − m = {r}, got {k}")
    coords = list(S.coords)
    known = set(S.state_symbols) | set(S.qd) | set(sympy_of(system.T).free_symbols) | set(Mx.free_symbols)

    def theta(F: VectorField) -> list[sp.Expr]:
        return [sp.expand(sum((Mx[kap, i] * F.components[i] for i in range(Mx.cols) if Mx[kap, i] != 0), sp.S.Zero))
                for kap in range(r)]

    def constants(F: VectorField) -> list[sp.Symbol]:
        return sorted(set().union(*(sympy_of(c).free_symbols for c in F.components)) - known,
                      key=sp.default_sort_key)

    failures, total = [], 0
    for name, F in [("V (d)", decl.V)] + [(f"W_{l + 1} (δ)", W) for l, W in enumerate(decl.W)]:
        total += 1
        cs = constants(F)
        th = theta(F)
        E = sp.Matrix(r, len(cs), lambda a, j: sp.diff(th[a], cs[j])) if cs else sp.zeros(r, 0)
        rk = _numeric_rank(E, list(S.state_symbols) + sorted(known - set(S.state_symbols), key=sp.default_sort_key))
        if rk != k:
            failures.append(f"  {name}: the constraint forms θ^κ({name[0]}) off the motion:\n"
                            f"    expected: they span a space of dimension k = {k} (n − m − k = {r - k} constraints "
                            f"satisfied identically, k only on the motion)\n"
                            f"    got dimension {rk}: the fields of k = {rk}\n"
                            + "\n".join(f"      θ^{a}({name[0]}) = {_show(e)}" for a, e in enumerate(th)))
    V = decl.V
    for l, W in enumerate(decl.W):
        total += 1
        br = _bracket(V, W)
        zero = [q for q, e in zip(coords, br) if q != S.t and is_zero(sp.expand(e))]
        if len(zero) < m + k:
            nonzero = [f"      [V, W]^{q} = {_show(e)}" for q, e in zip(coords, br) if q not in zero and q != S.t]
            failures.append(f"  d and δ of equation {l + 1}:\n    expected: commuting on at least m + k = {m + k} "
                            f"coordinates\n    got: on {len(zero)} ({', '.join(map(str, zero)) or 'none'})\n"
                            + "\n".join(nonzero))
        on = decl.on_motion[l] if l < len(decl.on_motion) else {}
        dt = {c: 1 for c in constants(V) if S.t is not None and sympy_of(V.components[S.index(S.t)]) == c}
        Von = V.applyfunc(lambda e: sympy_of(e).xreplace(dict(on)).xreplace(dt))
        Won = W.applyfunc(lambda e: sympy_of(e).xreplace(dict(on)))
        for a, e in enumerate(theta(Von)):
            total += 1
            f = _compare(f"θ^{a}(V) on the motion (equation {l + 1})", sp.S.Zero, e, got_as="got")
            if f:
                failures.append(f)
        for i, q in enumerate(S.q):
            total += 1
            f = _compare(f"V^{q} on the motion (equation {l + 1})", decl.kinematics[i], Von.components[S.index(q)],
                         expected_as="expected the declared kinematics", got_as="got V")
            if f:
                failures.append(f)
        for a, e in enumerate(theta(Won)):
            total += 1
            f = _compare(f"θ^{a}(W_{l + 1}) on the motion", sp.S.Zero, e, got_as="got")
            if f:
                failures.append(f)
    _raise(f"the declaration {decl.form!r} is not Neimark–Fufaev's form for k = {k}", failures, total,
           unit="checks")
