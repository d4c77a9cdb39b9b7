"""Hypothesis strategies for geonh objects: spaces, functions, fields, forms, frames, distributions.

Use them in your own property-based tests::

    from hypothesis import given, settings
    from geonh.testing import strategies as gst

    @settings(deadline=None)
    @given(gst.configuration_spaces(2, 3).flatmap(lambda S: gst.vector_fields(S)))
    def test_something(X): ...

Every expression is kept small so that symbolic checks stay fast: polynomials of degree ≤ 2
with at most three terms, trigonometric expressions with at most two terms (``c sin q``,
``c cos q``, ``c q' sin q``), small integer or rational coefficients.  Random frames are
*guaranteed* independent: their matrix is C = (1 + N) K with N strictly lower triangular
(random functions) and K a constant invertible matrix, so det C = det K is a non-zero constant
everywhere.  Random distributions and codistributions use the same construction, so their rank
is exactly the requested one.

Comparisons in tests should use :func:`geonh.is_zero` on differences (evaluation at
random rational points, exact for polynomials), not ``sympy.simplify``.
"""
from __future__ import annotations

import sympy as sp
from hypothesis import strategies as st

from ..errors import DimensionError, ParseError
from ..kernel.distributions import Codistribution, Distribution
from ..kernel.fields import VectorField
from ..kernel.forms import Form, OneForm, differential
from ..kernel.frames import Frame
from ..kernel.parsing import sympy_of
from ..kernel.space import ConfigurationSpace

__all__ = [
    "coefficients",
    "configuration_spaces",
    "polynomial_functions",
    "trigonometric_functions",
    "functions",
    "vector_fields",
    "one_forms",
    "forms",
    "invertible_matrices",
    "frames",
    "distributions",
    "codistributions",
    "integrable_codistributions",
]

_KINDS = ("polynomial", "trigonometric", "any", "constant")

_NAME_SCHEMES = (
    lambda n: [f"q{i + 1}" for i in range(n)],
    lambda n: ["x", "y", "z", "u", "v", "w"][:n] if n <= 6 else [f"x{i + 1}" for i in range(n)],
    lambda n: [f"theta{i}" for i in range(n)],
)


def coefficients(nonzero: bool = True) -> st.SearchStrategy:
    """Small rational coefficients: ±1, ±2, ±3, ±1/2, ±3/2 (and 0 unless ``nonzero``)."""
    vals = [1, -1, 2, -2, 3, -3, sp.Rational(1, 2), sp.Rational(-1, 2), sp.Rational(3, 2),
            sp.Rational(-3, 2)]
    if not nonzero:
        vals = [0] + vals
    return st.sampled_from([sympy_of(v) for v in vals])


def configuration_spaces(min_dim: int = 1, max_dim: int = 4, time: bool | None = False):
    """A :class:`~geonh.kernel.ConfigurationSpace` with ``min_dim ≤ space.dim ≤ max_dim``.

    ``space.dim`` counts every coordinate fields and forms act on, time included.  ``time``:
    ``False`` (scleronomic), ``True`` (time adjoined as the last coordinate, so ``dim ≥ 2``)
    or ``None`` (either).  Coordinate names come from a few schemes (``q1 q2 …``,
    ``x y z …``, ``theta0 theta1 …``); all are real Symbols.
    """
    if min_dim < 1 or max_dim < min_dim:
        raise DimensionError(f"need 1 <= min_dim <= max_dim, got {min_dim}, {max_dim}")
    if time is True and max_dim < 2:
        raise DimensionError(f"a space with time has dim >= 2; max_dim={max_dim} is too small")
    if time is None and max_dim < 2:
        time = False
    return _configuration_spaces(min_dim, max_dim, time)


@st.composite
def _configuration_spaces(draw, min_dim, max_dim, time):
    if time is None:
        time = draw(st.booleans())
    lo = max(min_dim, 2) if time else min_dim
    dim = draw(st.integers(lo, max_dim))
    n = dim - 1 if time else dim
    names = draw(st.sampled_from(_NAME_SCHEMES))(n)
    return ConfigurationSpace(names, time=bool(time))


def _check_rank(space, rank):
    if not 0 <= rank <= space.dim:
        raise DimensionError(f"rank must be in 0..{space.dim}, got {rank}")


def _coords(space_or_coords) -> list:
    if isinstance(space_or_coords, ConfigurationSpace):
        return list(space_or_coords.coords)
    return list(space_or_coords)


@st.composite
def _monomial(draw, coords):
    deg = draw(st.integers(0, 2))
    m = sp.S.One
    for _ in range(deg):
        m *= draw(st.sampled_from(coords))
    return m


@st.composite
def polynomial_functions(draw, space, max_terms: int = 3):
    """A polynomial of degree ≤ 2 in the coordinates of ``space`` (a space or a list of
    symbols) with 1..``max_terms`` terms and small rational coefficients (may be constant)."""
    coords = _coords(space)
    k = draw(st.integers(1, max_terms))
    return sp.Add(*[draw(coefficients()) * draw(_monomial(coords)) for _ in range(k)])


@st.composite
def _trig_term(draw, coords):
    c = draw(coefficients())
    q = draw(st.sampled_from(coords))
    fn = draw(st.sampled_from([sp.sin, sp.cos]))
    kind = draw(st.sampled_from(["plain", "plain", "times"]))
    if kind == "times":
        return c * draw(st.sampled_from(coords)) * fn(q)
    return c * fn(q)


@st.composite
def trigonometric_functions(draw, space, max_terms: int = 2):
    """A sum of 1..``max_terms`` terms ``c sin q``, ``c cos q`` or ``c q' sin q`` (``cos``),
    optionally plus a constant, in the coordinates of ``space``."""
    coords = _coords(space)
    k = draw(st.integers(1, max_terms))
    out = sp.Add(*[draw(_trig_term(coords)) for _ in range(k)])
    if draw(st.booleans()):
        out += draw(coefficients())
    return out


def functions(space, kind: str = "any") -> st.SearchStrategy:
    """A random function of the coordinates: ``kind`` is ``"polynomial"``,
    ``"trigonometric"``, ``"constant"`` or ``"any"`` (polynomial or trigonometric)."""
    if kind == "polynomial":
        return polynomial_functions(space)
    if kind == "trigonometric":
        return trigonometric_functions(space)
    if kind == "constant":
        return coefficients(nonzero=False)
    if kind == "any":
        return st.one_of(polynomial_functions(space), trigonometric_functions(space))
    raise ParseError(f"kind must be one of {_KINDS}, not {kind!r}")


@st.composite
def _maybe_zero(draw, space, kind, zero_probability):
    if zero_probability > 0 and draw(st.integers(0, 99)) < 100 * zero_probability:
        return sp.S.Zero
    return draw(functions(space, kind))


@st.composite
def vector_fields(draw, space: ConfigurationSpace, kind: str = "any",
                  zero_probability: float = 0.3):
    """A vector field on ``space`` whose components are random functions of ``kind`` (see
    :func:`functions`); each component is 0 with probability ``zero_probability``."""
    comps = [draw(_maybe_zero(space, kind, zero_probability)) for _ in range(space.dim)]
    return VectorField(space, comps)


@st.composite
def one_forms(draw, space: ConfigurationSpace, kind: str = "any", zero_probability: float = 0.3):
    """A one-form θ = θ_i dq^i on ``space`` with random components of ``kind``."""
    comps = [draw(_maybe_zero(space, kind, zero_probability)) for _ in range(space.dim)]
    return OneForm(space, comps)


def forms(space: ConfigurationSpace, degree: int, kind: str = "any", max_terms: int = 3):
    """A ``degree``-form on ``space`` with 0..``max_terms`` non-zero components ω_I on random
    increasing index tuples I (a :class:`OneForm` when ``degree == 1``; the zero form when
    ``degree > space.dim``)."""
    if degree < 0:
        raise DimensionError(f"degree must be >= 0, got {degree}")
    functions(space, kind)  # validates kind
    return _forms(space, degree, kind, max_terms)


@st.composite
def _forms(draw, space, degree, kind, max_terms):
    from itertools import combinations
    keys = list(combinations(range(space.dim), degree))
    if not keys:
        return Form.zero(space, degree)
    chosen = draw(st.lists(st.sampled_from(keys), min_size=0, max_size=max_terms, unique=True))
    comps = {I: draw(functions(space, kind)) for I in chosen}
    if degree == 1:
        vec = [comps.get((i,), 0) for i in range(space.dim)]
        return OneForm(space, vec)
    return Form(space, degree, comps)


@st.composite
def _constant_invertible(draw, n: int) -> sp.Matrix:
    """K = P L U with unipotent L, U (small integers) and a permutation P: det K = ±1."""
    L = sp.eye(n)
    U = sp.eye(n)
    for i in range(n):
        for j in range(i):
            L[i, j] = draw(st.integers(-2, 2))
            U[j, i] = draw(st.integers(-2, 2))
    perm = draw(st.permutations(list(range(n))))
    return (L * U).extract(list(perm), list(range(n)))


@st.composite
def _invertible_with_inverse(draw, space, size, kind, zero_probability, constant_part):
    n = space.dim if size is None else size
    L = sp.eye(n)
    for i in range(n):
        for j in range(i):
            L[i, j] = draw(_maybe_zero(space, kind, zero_probability))
    K = draw(_constant_invertible(n)) if constant_part else sp.eye(n)
    # L = 1 + N with N nilpotent: L⁻¹ = Σ_k (−N)^k, a matrix of functions with no denominators
    N = L - sp.eye(n)
    Linv, P = sp.eye(n), sp.eye(n)
    for _ in range(n - 1):
        P = -P * N
        Linv += P
    Linv = Linv.applyfunc(sp.expand)
    return L * K, K.inv() * Linv


@st.composite
def invertible_matrices(draw, space: ConfigurationSpace, size: int | None = None,
                        kind: str = "any", zero_probability: float = 0.4,
                        constant_part: bool = True, with_inverse: bool = False):
    """A ``size × size`` matrix of functions on ``space`` (default ``size = space.dim``) that is
    invertible **everywhere**: (1 + N) K with N strictly lower triangular (random functions of
    ``kind``, each 0 with probability ``zero_probability``) and K constant with det K = ±1
    (``constant_part=False``: K = 1).  Hence det = ±1.

    With ``with_inverse=True`` the pair ``(M, M⁻¹)`` is returned, the inverse computed exactly
    as K⁻¹ Σ_k (−N)^k (expanded, free of denominators)."""
    M, Minv = draw(_invertible_with_inverse(space, size, kind, zero_probability, constant_part))
    return (M, Minv) if with_inverse else M


def frames(space: ConfigurationSpace, kind: str = "any", zero_probability: float = 0.4,
           inverse: str = "exact"):
    """A :class:`~geonh.kernel.Frame` on ``space`` whose matrix C (columns = fields) is an
    :func:`invertible_matrices` draw, so the fields are independent everywhere (det C = ±1).

    ``inverse="exact"`` (default) hands the frame its coframe matrix B = C⁻¹ computed exactly
    (polynomial in the entries, see :func:`invertible_matrices`), which keeps the structure
    coefficients small; ``inverse="lu"`` lets :class:`~geonh.kernel.Frame` check independence
    and invert C itself (generic-point LU; larger expressions)."""
    if inverse not in ("exact", "lu"):
        raise ParseError(f"inverse must be 'exact' or 'lu', not {inverse!r}")
    return _frames(space, kind, zero_probability, inverse)


@st.composite
def _frames(draw, space, kind, zero_probability, inverse):
    C, B = draw(invertible_matrices(space, kind=kind, zero_probability=zero_probability,
                                    with_inverse=True))
    fields = [VectorField(space, list(C[:, a])) for a in range(space.dim)]
    if inverse == "exact":
        return Frame(fields, coframe=[OneForm(space, list(B[r, :])) for r in range(space.dim)])
    return Frame(fields)


def distributions(space: ConfigurationSpace, rank: int, kind: str = "any",
                  redundant: bool = False, zero_probability: float = 0.4):
    """A :class:`~geonh.kernel.Distribution` of exactly ``rank`` on ``space``: ``rank``
    columns of an :func:`invertible_matrices` draw.  With ``redundant=True`` one more spanning
    field f X_1 + g X_2 (a combination of the others) is appended, so the spanning set is
    larger than the basis."""
    _check_rank(space, rank)
    return _distributions(space, rank, kind, redundant, zero_probability)


@st.composite
def _distributions(draw, space, rank, kind, redundant, zero_probability):
    C = draw(invertible_matrices(space, kind=kind, zero_probability=zero_probability))
    cols = list(draw(st.permutations(list(range(space.dim)))))[:rank]
    fields = [VectorField(space, list(C[:, a])) for a in cols]
    if redundant and rank >= 1:
        f = draw(functions(space, kind))
        extra = f * fields[0]
        if rank >= 2:
            extra = extra + draw(functions(space, kind)) * fields[1]
        pos = draw(st.integers(0, len(fields)))
        fields.insert(pos, extra)
    return Distribution(fields, space)


def codistributions(space: ConfigurationSpace, rank: int, kind: str = "any",
                    zero_probability: float = 0.4):
    """A :class:`~geonh.kernel.Codistribution` of exactly ``rank``: ``rank`` rows of an
    :func:`invertible_matrices` draw.  Generic draws are usually *not* integrable."""
    _check_rank(space, rank)
    return _codistributions(space, rank, kind, zero_probability)


@st.composite
def _codistributions(draw, space, rank, kind, zero_probability):
    B = draw(invertible_matrices(space, kind=kind, zero_probability=zero_probability))
    rows = list(draw(st.permutations(list(range(space.dim)))))[:rank]
    return Codistribution([OneForm(space, list(B[r, :])) for r in rows], space)


def integrable_codistributions(space: ConfigurationSpace, rank: int, kind: str = "polynomial",
                               zero_probability: float = 0.4):
    """An integrable codistribution of exactly ``rank``, returned with its first integrals:
    ``(codistribution, [f_1, …, f_r])``.

    f_k = q^{σ(k)} + g_k(later coordinates) for a random permutation σ (so the df_k are
    independent everywhere), and the spanning forms are A (df_1 … df_r) for an everywhere
    invertible matrix of functions A, so the spanning forms themselves are usually not closed.
    """
    _check_rank(space, rank)
    return _integrable_codistributions(space, rank, kind, zero_probability)


@st.composite
def _integrable_codistributions(draw, space, rank, kind, zero_probability):
    order = list(draw(st.permutations(list(space.coords))))
    ints = []
    for k in range(rank):
        later = order[k + 1:]
        g = draw(_maybe_zero(later, kind, zero_probability)) if later else sp.S.Zero
        ints.append(order[k] + g)
    dfs = [differential(space, f) for f in ints]
    if rank == 0:
        return Codistribution([], space), []
    A = draw(invertible_matrices(space, size=rank, kind=kind, zero_probability=zero_probability))
    forms_ = []
    for r in range(rank):
        th = OneForm(space, [0] * space.dim)
        for s in range(rank):
            if A[r, s] != 0:
                th = th + A[r, s] * dfs[s]
        forms_.append(th)
    return Codistribution(forms_, space), ints


from .constrained import *  # noqa: F401,F403  (constrained settings, transposition issue)
from .constrained import __all__ as _constrained_all  # noqa: E402

__all__ += [n for n in _constrained_all if n not in __all__]

from .systems import *  # noqa: F401,F403,E402  (whole systems, their frames and states)
from .systems import CONSTRAINT_KINDS, __all__ as _systems_all  # noqa: E402,F401

__all__ += [n for n in _systems_all if n not in __all__]

from .source import register_pretty_printers as _register_pretty_printers  # noqa: E402
from .source import source  # noqa: E402,F401  (re-exported: the rebuilding text of a drawn object)

__all__ += ["source"]


def _register_type_strategies() -> None:
    """``st.from_type(T)`` (and so ``st.builds`` for parameters annotated with T) draws with
    the strategies above, for every geonh type they produce."""
    from ..kernel.velocity_frames import VelocityFrame
    from ..systems.mechanical import MechanicalSystem
    from ..systems.nonlinear import NonlinearSystem
    on_space = configuration_spaces(1, 3, time=None).flatmap
    table: dict[type, st.SearchStrategy] = {
        ConfigurationSpace: configuration_spaces(),
        VectorField: on_space(vector_fields),
        OneForm: on_space(one_forms),
        Form: on_space(lambda S: st.integers(0, S.dim).flatmap(lambda k: forms(S, k))),
        Frame: on_space(frames),
        Distribution: on_space(lambda S: st.integers(0, S.dim).flatmap(lambda r: distributions(S, r))),
        Codistribution: on_space(lambda S: st.integers(0, S.dim).flatmap(lambda r: codistributions(S, r))),
        MechanicalSystem: mechanical_systems(),
        NonlinearSystem: mechanical_systems(kind="nonlinear"),
        VelocityFrame: on_space(velocity_frames),
    }
    for cls, strategy in table.items():
        st.register_type_strategy(cls, strategy)


_register_type_strategies()
_register_pretty_printers()
