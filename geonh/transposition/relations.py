"""d and δ as vector fields: transpositional relations, Hamel's β and the Neimark–Fufaev k-family.

Setting (Hamel 1924, eq. (2); Neimark–Fufaev 1960, eq. (1.2)).  n true coordinates, split into
m *free* ones q_s and n − m *dependent* ones q_j, with linear constraints

    q̇_j = a_js(t, q) q̇_s + a_j(t, q)                                              (1)

(the affine terms a_j need a space with time).  Virtual displacements satisfy the homogeneous
part δq_j = a_js δq_s, and δt = 0 (Hamel, eqs. (20'), (24')).

The k-family (Neimark–Fufaev § 1, eq. (1.1)).  For 0 ≤ k ≤ n − m the first k dependent
coordinates are the ρ's and the rest the σ's; λ, α, β run over the m free coordinates and the
ρ's.  The operations d and δ are the vector fields

    V = dq_α ∂_α + (a_σs dq_s + a_σ dt) ∂_σ + dt ∂_t,     W = δq_α ∂_α + a_σs δq_s ∂_σ,

whose components along the free coordinates and the ρ's are constant symbols.  On the motion
(and for virtual displacements) dq_ρ = a_ρs dq_s + a_ρ dt and δq_ρ = a_ρs δq_s.  With V the
d field and W the δ field, for any function or one-form θ (CONVENTIONS.md)

    dδθ − δdθ := V(θ(W)) − W(θ(V)) = dθ(V, W) + θ([V, W]),     dδq^i − δdq^i = [V, W]^i.

k = n − m is the Hamel/Volterra point of view (d and δ commute on every true coordinate),
k = 0 the Suslov/Levi-Civita one (they commute on the free coordinates only).

Quasi-velocities (Neimark–Fufaev eq. (1.3)):  π̇_r = a_rs q̇_s (+ a_r), an invertible m × m
choice, and π̇_ρ = a_ρs q̇_s + a_ρ − q̇_ρ (zero on the motion); with time, π_t = t.  The
results are the relations (1.4)

    dδq_λ − δdq_λ = 0,   dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν,   dδq_σ − δdq_σ = B^σ_rs dq_r δq_s,

where every coefficient is computed here from brackets (the frame F_k below), and the printed
closed forms (1.5), (1.6) and Hamel's (17) are separate functions for comparison.

The adapted frame F_k.  Its coframe is θ^λ = a_λα dq^α (the π's, and dt with time) followed
by η^σ = dq^σ − a_σs dq^s − a_σ dt; its fields are X_ν = b_αν D_α (b = a⁻¹) and ∂_σ, with
D_α = ∂_α + a_σα ∂_σ (a_σρ := 0; D_t = ∂_t + a_σ ∂_σ).  Then V = dπ_μ X_μ and
W = δπ_ν X_ν identically, so γ_νλμ = c^λ_νμ of F_k and [V, W]^σ = c^σ_μν dπ_μ δπ_ν.  For
k = n − m, F_k is Hamel's frame and γ_νλμ = β_{ν,μ,λ}.

Misprints and omissions of the seeds (shown by computation in docs/transposition.md):

* Hamel (17) reads b_{m,l} as (quasi, coordinate), the opposite of (13); only that reading
  gives β_{i,s,m} = c^m_is (:func:`~geonh.transposition.printed.printed_hamel_beta`, :func:`~geonh.transposition.printed.hamel_matrices`).
* Neimark–Fufaev (1.5) is complete only when the a_λα do not depend on the q_σ; the general
  formula replaces ∂/∂q_β by D_β (:func:`~geonh.transposition.printed.corrected_nf_gamma`).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Sequence

import sympy as sp

from ..errors import DimensionError, NotLinearError, ParseError, RankError, SingularMapError, UnknownCoordinateError
from ..kernel.algebra import PerBackend
from ..kernel.distributions import Codistribution
from ..kernel.fields import VectorField
from ..kernel.forms import OneForm
from ..kernel.frames import Frame
from ..kernel.generic_point import generic_rank, inverse, is_zero
from ..kernel.space import ConfigurationSpace
from ..kernel.parsing import as_exprs, as_matrix, as_sequence, as_symbols, expr_of, sympy_of

__all__ = ["ConstrainedSetting", "DeltaFields", "TranspositionalRelations", "bilinear_matrix"]


# -- symbols -----------------------------------------------------------------------------------
def _d(s: sp.Symbol) -> sp.Symbol:
    return sp.Symbol("d" + s.name)


def _delta(s: sp.Symbol) -> sp.Symbol:
    return sp.Symbol("δ" + s.name)


def _no_velocities(space: ConfigurationSpace, exprs, what: str) -> None:
    vel = space.qd + space.qdd
    for e in exprs:
        if sympy_of(e).has(*vel):
            raise NotLinearError(f"{what} must be functions of (t, q) only; {e} contains velocities")


def bilinear_matrix(expr: sp.Expr, left: Sequence[sp.Symbol], right: Sequence[sp.Symbol]) -> sp.Matrix:
    """M with expr = Σ left_i M_ij right_j, for an expression bilinear in the two symbol lists
    (M_ij = ∂² expr / ∂left_i ∂right_j; bilinearity itself is not checked here)."""
    expr = expr_of(expr, what="bilinear_matrix expression")
    left, right = as_symbols(left, what="left symbols"), as_symbols(right, what="right symbols")
    return sp.Matrix(len(left), len(right),
                     lambda i, j: sp.diff(expr, left[i], right[j]))


# -- the setting ---------------------------------------------------------------------------------
class ConstrainedSetting:
    """Linear (possibly affine) constraints q̇_j = a_js q̇_s + a_j solved for dependent velocities.

    Parameters
    ----------
    space : the configuration space (with time for affine constraints).
    dependent : the dependent coordinates q_j, in the order that defines the k-family (the
        first k of them are the ρ's of Neimark–Fufaev, the rest the σ's).
    a : (n − m) × m matrix a_js, rows = ``dependent``, columns = :attr:`free` (the other true
        coordinates, in the order of ``space.q``).
    affine : the n − m affine terms a_j (needs a space with time; default 0).
    quasi, quasi_affine : the default choice of the free quasi-velocities π̇_r = a_rs q̇_s + a_r
        (Neimark–Fufaev eq. (1.3); default π_r = q_r, i.e. a_rs = δ_rs).  ``quasi`` may also be
        a list of m expressions linear in the velocities (dependent velocities are eliminated
        with the constraints).

    Build it with :meth:`from_equations`, :meth:`from_codistribution` or :meth:`from_frame`.
    """

    def __init__(self, space: ConfigurationSpace, dependent: Sequence, a, affine=None, *,
                 quasi=None, quasi_affine=None):
        if not isinstance(space, ConfigurationSpace):
            raise ParseError(f"first argument must be a ConfigurationSpace, got {type(space).__name__}")
        dep = tuple(space.coordinate(c) for c in as_sequence(dependent, "dependent coordinates"))
        if space.t is not None and space.t in dep:
            raise UnknownCoordinateError(f"time {space.t} cannot be a dependent coordinate")
        if len(set(dep)) != len(dep):
            raise DimensionError(f"repeated dependent coordinate in {[s.name for s in dep]}")
        free = tuple(q for q in space.q if q not in dep)
        if not free:
            raise RankError("every coordinate is dependent: a constrained setting needs at least "
                            "one free velocity (m ≥ 1)")
        self.space = space
        self.dependent: tuple[sp.Symbol, ...] = dep
        #: the free (independent) true coordinates, in the order of ``space.q``
        self.free: tuple[sp.Symbol, ...] = free
        self.n = space.n
        self.m = len(free)
        nd = len(dep)
        A = as_matrix(a, space.state_symbols, what="a_js") if nd else sp.zeros(0, self.m)
        if A.shape != (nd, self.m):
            raise DimensionError(f"a_js must be {nd} x {self.m} (rows {[s.name for s in dep]}, "
                                 f"columns {[s.name for s in free]}), got {A.shape[0]} x {A.shape[1]}")
        _no_velocities(space, A, "the coefficients a_js")
        if affine is None:
            aff = sp.zeros(nd, 1)
        else:
            aff = sp.Matrix(as_exprs(affine, space.state_symbols, what="affine terms")) if nd else sp.zeros(0, 1)
            if aff.shape != (nd, 1):
                raise DimensionError(f"{nd} affine terms a_j needed, got {aff.rows}")
            _no_velocities(space, aff, "the affine terms a_j")
            if space.t is None and any(not is_zero(e) for e in aff):
                raise NotLinearError("affine (rheonomic) constraints need a configuration space with "
                                     "time: ConfigurationSpace(..., time=True)")
        self.a: sp.Matrix = A
        self.affine: sp.Matrix = aff
        self._quasi = self._parse_quasi(quasi, quasi_affine)

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_codistribution(cls, cod: Codistribution, dependent: Sequence | None = None, *,
                            quasi=None, quasi_affine=None) -> "ConstrainedSetting":
        """Solve the constraint forms θ^κ (dt component = affine part) for the dependent velocities.

        ``dependent`` defaults to the last coordinates whose block of the constraint matrix is
        invertible.  Raises :class:`RankError` if the number of dependent coordinates differs
        from the rank, :class:`SingularMapError` if the constraints cannot be solved for them.
        """
        if not isinstance(cod, Codistribution):
            raise ParseError(f"expected a Codistribution, got {type(cod).__name__}")
        space = cod.space
        M = cod.matrix()  # independent rows, columns = space.coords
        r = M.rows
        qcols = [space.index(q) for q in space.q]
        Mq = M.extract(list(range(r)), qcols) if r else sp.zeros(0, space.n)
        if r and generic_rank(Mq) < r:
            raise RankError("the constraints restrict time alone (a velocity-free constraint row); "
                            "they cannot be solved for dependent velocities")
        if dependent is None:
            dependent = _auto_dependent(space, Mq)
        dep = [space.coordinate(c) for c in as_sequence(dependent, "dependent coordinates")]
        if len(dep) != r:
            raise RankError(f"the constraints have rank {r}; give exactly {r} dependent coordinate(s), "
                            f"got {len(dep)}: {[s.name for s in dep]}")
        free = [q for q in space.q if q not in dep]
        if r == 0:
            return cls(space, [], sp.zeros(0, len(free)), quasi=quasi, quasi_affine=quasi_affine)
        P = M.extract(list(range(r)), [space.index(q) for q in dep])
        rk = generic_rank(P)
        if rk < r:
            raise SingularMapError(
                f"the constraints cannot be solved for the velocities of {[s.name for s in dep]}: "
                f"their coefficient block has rank {rk} < {r}; choose other dependent coordinates")
        Pinv = inverse(P, "dependent block of the constraint matrix")
        F = M.extract(list(range(r)), [space.index(q) for q in free])
        A = (-Pinv * F).applyfunc(sp.cancel if not _has_functions(Pinv, F) else (lambda e: e))
        if space.t is not None:
            aff = -Pinv * M.extract(list(range(r)), [space.index(space.t)])
        else:
            aff = None
        return cls(space, dep, A, aff, quasi=quasi, quasi_affine=quasi_affine)

    @classmethod
    def from_equations(cls, space: ConfigurationSpace, equations: Sequence,
                       dependent: Sequence | None = None, *, quasi=None,
                       quasi_affine=None) -> "ConstrainedSetting":
        """From constraint equations linear in the velocities (``sp.Eq`` or expressions = 0),
        e.g. ``[Eq(y_dot, tan(theta) * x_dot)]``; see :meth:`from_codistribution`."""
        cod = Codistribution.from_constraints(space, as_sequence(equations, "constraint equations"))
        return cls.from_codistribution(cod, dependent, quasi=quasi, quasi_affine=quasi_affine)

    @classmethod
    def from_frame(cls, frame: Frame, m: int, dependent: Sequence | None = None) -> "ConstrainedSetting":
        """From a frame adapted to the admissible distribution: the coframe forms θ^m … θ^{n−1}
        are the constraints (ω^α = 0 on the motion; with time the last form is dt, Hamel
        eqs. (20), (21)), and the first m forms are the default free quasi-velocities, restricted
        to the constraints: a_rs = B^r_s + B^r_j a_js, a_r = B^r_t + B^r_j a_j."""
        if not isinstance(frame, Frame):
            raise ParseError(f"expected a Frame, got {type(frame).__name__}")
        space = frame.space
        if not isinstance(m, int) or not 1 <= m <= space.n:
            raise DimensionError(f"m must be an integer with 1 ≤ m ≤ n = {space.n}, got {m!r}")
        cons = list(frame.coframe[m:space.n])
        cod = Codistribution(cons, space)
        if cod.rank != len(cons):
            raise RankError("the constraint forms of the frame are dependent")
        setting = cls.from_codistribution(cod, dependent)
        B = frame.B
        fi = [space.index(q) for q in setting.free]
        di = [space.index(q) for q in setting.dependent]
        Q = B.extract(list(range(m)), fi)
        if di:
            Q = Q + B.extract(list(range(m)), di) * setting.a
        Qa = None
        if space.t is not None:
            Qa = B.extract(list(range(m)), [space.index(space.t)])
            if di:
                Qa = Qa + B.extract(list(range(m)), di) * setting.affine
        setting._quasi = setting._parse_quasi(Q, Qa)
        return setting

    # -- basic data -----------------------------------------------------------------------------
    @property
    def is_rheonomic(self) -> bool:
        return self.space.t is not None

    def velocity_substitution(self) -> dict:
        """{q̇_j: a_js q̇_s + a_j}: the constraints solved for the dependent velocities."""
        vel = dict(zip(self.space.q, self.space.qd))
        return {vel[q]: sum((self.a[j, s] * vel[f] for s, f in enumerate(self.free)), sp.S.Zero)
                + self.affine[j] for j, q in enumerate(self.dependent)}

    @property
    def constraints(self) -> Codistribution:
        """The constraint forms dq_j − a_js dq_s − a_j dt."""
        forms = []
        for j, q in enumerate(self.dependent):
            comps = {q: 1}
            for s, f in enumerate(self.free):
                comps[f] = -self.a[j, s]
            if self.space.t is not None:
                comps[self.space.t] = -self.affine[j]
            forms.append(OneForm.from_dict(self.space, comps))
        return Codistribution(forms, self.space)

    def is_holonomic(self) -> bool:
        """Frobenius: are the constraints (with time, as forms on the extended space) integrable?"""
        return self.constraints.is_integrable()

    def _parse_quasi(self, quasi, quasi_affine) -> tuple[sp.Matrix, sp.Matrix]:
        m = self.m
        space = self.space
        if quasi is None:
            Q = sp.eye(m)
            Qa = sp.zeros(m, 1)
        elif isinstance(quasi, (list, tuple)) and quasi and not isinstance(quasi[0], (list, tuple)) \
                and any(expr_of(e, space.state_symbols, what="quasi-velocity").has(*space.qd) for e in quasi):
            if quasi_affine is not None:
                raise ParseError("quasi_affine goes with a matrix quasi, not with expressions")
            if len(quasi) != m:
                raise DimensionError(f"{m} free quasi-velocities needed, got {len(quasi)}")
            sub = self.velocity_substitution()
            vel = dict(zip(space.q, space.qd))
            rows, affs = [], []
            for e in quasi:
                e = expr_of(e, space.state_symbols, what="quasi-velocity").subs(sub)
                row = []
                for f in self.free:
                    cv = sp.diff(e, vel[f])
                    if cv.has(*space.qd):
                        raise NotLinearError(f"quasi-velocity {e} is not linear in the velocities")
                    row.append(cv)
                rows.append(row)
                affs.append(sp.expand(e - sum(c * vel[f] for c, f in zip(row, self.free))))
            Q = sp.Matrix(rows)
            Qa = sp.Matrix(affs)
        else:
            Q = as_matrix(quasi, space.state_symbols, what="quasi-velocity matrix a_rs")
            Qa = sp.zeros(m, 1) if quasi_affine is None else \
                sp.Matrix(as_exprs(quasi_affine, space.state_symbols, what="quasi_affine"))
        if Q.shape != (m, m):
            raise DimensionError(f"the free quasi-velocity matrix a_rs must be {m} x {m}, got {Q.shape}")
        if Qa.shape != (m, 1):
            raise DimensionError(f"{m} affine terms a_r of the quasi-velocities needed, got {Qa.rows}")
        _no_velocities(space, list(Q) + list(Qa), "the quasi-velocity coefficients a_rs")
        if space.t is None and any(not is_zero(e) for e in Qa):
            raise NotLinearError("affine quasi-velocities need a configuration space with time")
        rk = generic_rank(Q)
        if rk < m:
            raise SingularMapError(
                f"the quasi-velocity map π̇_r = a_rs q̇_s is singular at the generic point (rank {rk} < {m}); "
                "the free quasi-velocities must determine the free velocities")
        return Q, Qa

    @property
    def quasi(self) -> sp.Matrix:
        """The default free quasi-velocity matrix a_rs (rows π_r, columns :attr:`free`)."""
        return self._quasi[0]

    # -- the k-family ---------------------------------------------------------------------------
    def _check_k(self, k) -> int:
        if isinstance(k, bool) or not isinstance(k, (numbers.Integral, sp.Integer)):
            raise ParseError(f"k must be an integer, got {k!r}")
        k = int(k)
        if not 0 <= k <= self.n - self.m:
            raise DimensionError(
                f"k must satisfy 0 ≤ k ≤ n − m = {self.n - self.m} (k = n − m: Hamel/Volterra, "
                f"k = 0: Suslov/Levi-Civita), got k = {k}")
        return k

    def fields(self, k: int) -> "DeltaFields":
        """The d field V and the δ field W of Neimark–Fufaev eq. (1.1) for this k.

        V^α = dq_α, W^α = δq_α (constant symbols) on the free coordinates and the first k
        dependent ones; V^σ = a_σs dq_s + a_σ dt, W^σ = a_σs δq_s on the others; V^t = dt,
        W^t = 0 (δt = 0).  Symbols: ``d<q>``, ``δ<q>`` (``dt`` for time).
        """
        return self.transposition(k).delta_fields

    def transposition(self, k: int, quasi=None, quasi_affine=None) -> "TranspositionalRelations":
        """The transpositional relations of the k-family with free quasi-velocities ``quasi``
        (default: the setting's choice); see :class:`TranspositionalRelations`."""
        k = self._check_k(k)
        Q, Qa = self._quasi if quasi is None else self._parse_quasi(quasi, quasi_affine)
        return TranspositionalRelations(self, k, Q, Qa)

    def __repr__(self) -> str:
        return (f"ConstrainedSetting(free={[s.name for s in self.free]}, "
                f"dependent={[s.name for s in self.dependent]} on {self.space!r})")


def _has_functions(*mats) -> bool:
    return any(e.has(sp.Function) for M in mats for e in M)


def _auto_dependent(space: ConfigurationSpace, Mq: sp.Matrix) -> list:
    """The last coordinates (scanning backwards) whose columns of the constraint matrix are
    independent; they become the dependent coordinates (Hamel eq. (2) puts them last)."""
    r = Mq.rows
    chosen: list[int] = []
    for i in reversed(range(space.n)):
        if len(chosen) == r:
            break
        trial = chosen + [i]
        if generic_rank(Mq.extract(list(range(r)), trial)) == len(trial):
            chosen = trial
    if len(chosen) < r:  # pragma: no cover - Mq has rank r, so r independent columns exist
        raise RankError("could not choose dependent coordinates")
    return [space.q[i] for i in sorted(chosen)]


# -- the fields and the relations ---------------------------------------------------------------
@dataclass
class DeltaFields:
    """The d field and the δ field with their symbols.

    ``d_symbols`` / ``delta_symbols``: {coordinate: symbol} for the free coordinates, the ρ's
    and (d only) time; ``delta_t`` is the symbol a non-virtual δ would carry along t (the δ
    field itself has δt = 0)."""

    d: VectorField
    delta: VectorField
    d_symbols: dict
    delta_symbols: dict
    delta_t: sp.Symbol | None


class TranspositionalRelations:
    """dδq^i − δdq^i and dδπ^λ − δdπ^λ of the k-family, computed from the fields.

    Index sets (Neimark–Fufaev § 1): r, s over the m free coordinates :attr:`free`; ρ over
    :attr:`rho` (the first k dependent coordinates); σ over :attr:`sigma`; λ, α over
    :attr:`q_lambda` = free + ρ (+ t with time).  The quasi-velocities are π̇_λ = a_λα q̇_α
    (+ the affine column), matrix :attr:`a` (augmented by the row of π_t = t with time),
    b = a⁻¹ (:attr:`b`).

    Results
    -------
    :meth:`coordinates` : [V, W]^i for every coordinate (zero for λ; B-terms for σ).
    :meth:`quasi` : V(π_λ(W)) − W(π_λ(V)) in the symbols dπ, δπ.
    :attr:`gamma` : γ[ν, λ, μ] with dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν (eq. (1.4)), from brackets.
    :attr:`B` : B[σ, r, s] with dδq_σ − δdq_σ = B^σ_rs dq_r δq_s on the motion (eq. (1.4)),
        from the bracket; r, s over free + t (the column s = t is what a δ with δt ≠ 0 would
        give; virtual displacements never see it).
    :attr:`beta` : Hamel's β[a, b, d] = c^d_ab of the adapted frame :attr:`frame` (coframe
        π's, then dt with time, then η^σ); for k = n − m this is Hamel's eq. (17).
    """

    def __init__(self, setting: ConstrainedSetting, k: int, Q: sp.Matrix, Qa: sp.Matrix):
        if not isinstance(setting, ConstrainedSetting):
            raise ParseError(f"expected a ConstrainedSetting, got {type(setting).__name__}")
        k = setting._check_k(k)
        Q = as_matrix(Q, setting.space.state_symbols, what="quasi-velocity matrix a_rs")
        Qa = as_matrix(Qa, setting.space.state_symbols, what="quasi-velocity affine terms")
        if Q.shape != (setting.m, setting.m) or Qa.shape != (setting.m, 1):
            raise DimensionError(f"Q must be {setting.m} x {setting.m} and Qa {setting.m} x 1, got {Q.shape}, {Qa.shape}")
        self.setting = setting
        self.k = k
        space = setting.space
        self.space = space
        t = space.t
        m = setting.m
        self.m = m
        #: the free true coordinates of the setting (the r, s index set)
        self.free = setting.free
        self.rho: tuple[sp.Symbol, ...] = setting.dependent[:k]
        self.sigma: tuple[sp.Symbol, ...] = setting.dependent[k:]
        a_rho, a_sig = setting.a[:k, :], setting.a[k:, :]
        f_rho, f_sig = setting.affine[:k, :], setting.affine[k:, :]
        self.q_lambda: tuple[sp.Symbol, ...] = self.free + self.rho + ((t,) if t is not None else ())
        p = len(self.q_lambda)
        self.p = p
        ns = len(self.sigma)
        # augmented quasi-velocity matrix a (rows π_r, π_ρ, π_t; columns free, ρ, t)
        a = sp.zeros(p, p)
        a[:m, :m] = Q
        a[m:m + k, :m] = a_rho
        a[m:m + k, m:m + k] = -sp.eye(k)
        if t is not None:
            a[:m, p - 1] = Qa
            a[m:m + k, p - 1] = f_rho
            a[p - 1, p - 1] = 1
        self.a: sp.Matrix = a
        Qi = inverse(Q, "quasi-velocity matrix a_rs")
        b = sp.zeros(p, p)
        b[:m, :m] = Qi
        b[m:m + k, :m] = a_rho * Qi
        b[m:m + k, m:m + k] = -sp.eye(k)
        if t is not None:
            b[:m, p - 1] = -Qi * Qa
            b[m:m + k, p - 1] = -a_rho * Qi * Qa + f_rho
            b[p - 1, p - 1] = 1
        self.b: sp.Matrix = b
        # a_σα over the λ columns (a_σρ = 0, a_σt = a_σ)
        asg = sp.zeros(ns, p)
        asg[:, :m] = a_sig
        if t is not None:
            asg[:, p - 1] = f_sig
        self.a_sigma: sp.Matrix = asg
        self.q_sigma = self.sigma

        # -- symbols and fields
        #: {coordinate: its differential symbol d·} for the free coordinates, the ρ's and time
        self.d_symbols = {q: _d(q) for q in self.q_lambda}
        self.delta_symbols = {q: _delta(q) for q in self.q_lambda}
        dvec = [self.d_symbols[q] for q in self.q_lambda]
        xvec = [self.delta_symbols[q] for q in self.q_lambda]
        self.dt = self.d_symbols[t] if t is not None else None
        self.delta_t = self.delta_symbols[t] if t is not None else None
        #: the quasi-differentials dπ_1, …, dπ_{m+k} (and dt when the space has time)
        self.dpi = tuple(sp.Symbol(f"dπ{i + 1}") for i in range(m + k)) + ((self.dt,) if t is not None else ())
        #: the quasi-variations δπ_1, …, δπ_{m+k} (and δt when the space has time)
        self.deltapi = tuple(sp.Symbol(f"δπ{i + 1}") for i in range(m + k)) + (
            (self.delta_t,) if t is not None else ())
        self._dvec, self._xvec = dvec, xvec
        Vc = {q: s for q, s in zip(self.q_lambda, dvec)}
        Wc = {q: s for q, s in zip(self.q_lambda, xvec)}
        for i, q in enumerate(self.sigma):
            Vc[q] = sum((asg[i, al] * dvec[al] for al in range(p)), sp.S.Zero)
            Wc[q] = sum((asg[i, al] * xvec[al] for al in range(p)), sp.S.Zero)
        self.V = VectorField.from_dict(space, Vc)
        self._Wgen = VectorField.from_dict(space, Wc)  # δ with a δt symbol (not virtual)
        self.W = self._Wgen.subs(self.delta_t, 0) if t is not None else self._Wgen
        dsym = dict(self.d_symbols)
        xsym = {q: s for q, s in self.delta_symbols.items() if q != t}
        self.delta_fields = DeltaFields(self.V, self.W, dsym, xsym, self.delta_t)

        # -- on-motion substitution and the change to quasi symbols
        mot = {}
        for i, q in enumerate(self.rho):
            mot[self.d_symbols[q]] = sum((a_rho[i, s] * dvec[s] for s in range(m)), sp.S.Zero) + (
                f_rho[i] * self.dt if t is not None else 0)
            mot[self.delta_symbols[q]] = sum((a_rho[i, s] * xvec[s] for s in range(m)), sp.S.Zero) + (
                f_rho[i] * self.delta_t if t is not None else 0)
        self.motion_substitution: dict = mot
        dq_of_pi = b * sp.Matrix(self.dpi)
        xq_of_pi = b * sp.Matrix(self.deltapi)
        self._to_pi = {**{s: dq_of_pi[i] for i, s in enumerate(dvec)},
                       **{s: xq_of_pi[i] for i, s in enumerate(xvec)}}

        # -- the adapted frame F_k: coframe (θ^λ, η^σ), fields (X_ν = b_αν D_α, ∂_σ)
        dim = space.dim
        lam_idx = [space.index(q) for q in self.q_lambda]
        sig_idx = [space.index(q) for q in self.sigma]
        Bf = sp.zeros(dim, dim)
        Cf = sp.zeros(dim, dim)
        for lam in range(p):
            for al in range(p):
                Bf[lam, lam_idx[al]] = a[lam, al]
                Cf[lam_idx[al], lam] = b[al, lam]
        asb = asg * b
        for i, si in enumerate(sig_idx):
            Bf[p + i, si] = 1
            Cf[si, p + i] = 1
            for al in range(p):
                Bf[p + i, lam_idx[al]] = -asg[i, al]
                Cf[si, al] = asb[i, al]
        names = [f"π{i + 1}" for i in range(m + k)] + ([t.name] if t is not None else []) + \
            [f"η_{q.name}" for q in self.sigma]
        fields = [VectorField(space, list(Cf[:, c])) for c in range(dim)]
        self.frame: Frame = Frame(fields, names=names, coframe=[OneForm(space, list(Bf[r, :])) for r in range(dim)])
        # derived results, cached per backend (the rule of geonh.kernel.algebra)
        self._bracket = PerBackend()
        self._gamma = PerBackend()
        self._B = PerBackend()

    # -- relations ------------------------------------------------------------------------------
    def bracket(self, *, delta_t: bool = False) -> VectorField:
        """[V, W] (with ``delta_t=True`` the δ field carries the symbol δt along time)."""
        br = self._bracket.get(lambda: self.V.bracket(self._Wgen))
        if delta_t or self.delta_t is None:
            return br
        return br.subs(self.delta_t, 0)

    def coordinates(self, *, on_motion: bool = False, delta_t: bool = False) -> list[sp.Expr]:
        """dδq^i − δdq^i = [V, W]^i for every coordinate of ``space.coords`` (time last, 0).

        Bilinear in the d symbols (:attr:`d_symbols`) and the δ symbols.  ``on_motion=True``
        substitutes dq_ρ = a_ρs dq_s + a_ρ dt and δq_ρ = a_ρs δq_s (eq. (1.2)), which turns
        the σ components into B^σ_rs dq_r δq_s (+ B^σ_ts dt δq_s with time)."""
        comps = list(self.bracket(delta_t=delta_t).components)
        if on_motion and self.motion_substitution:
            comps = [c.xreplace(self.motion_substitution) for c in comps]
            if self.delta_t is not None and not delta_t:  # δq_ρ = a_ρs δq_s (+ a_ρ δt, δt = 0)
                comps = [c.xreplace({self.delta_t: 0}) for c in comps]
        return comps

    def coordinate(self, coord, **kw) -> sp.Expr:
        """dδq − δdq for one coordinate (see :meth:`coordinates`)."""
        return self.coordinates(**kw)[self.space.index(coord)]

    def quasi(self, *, delta_t: bool = False) -> list[sp.Expr]:
        """dδπ_λ − δdπ_λ = V(π_λ(W)) − W(π_λ(V)) for λ over the π's (and π_t = t with time,
        whose relation is 0), written in the symbols :attr:`dpi`, :attr:`deltapi` by
        dq_α = b_αμ dπ_μ, δq_α = b_αν δπ_ν.  Equals γ_νλμ dπ_μ δπ_ν identically."""
        W = self._Wgen if delta_t else self.W
        out = []
        for lam in range(self.p):
            th = self.frame.coframe[lam]
            e = self.V(th(W)) - W(th(self.V))
            e = e.xreplace(self._to_pi)
            if self.delta_t is not None and not delta_t:
                e = e.xreplace({self.delta_t: 0})
            out.append(e)
        return out

    @property
    def gamma(self) -> sp.Array:
        """γ[ν, λ, μ] = c^λ_νμ of :attr:`frame` (brackets): dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν."""
        def compute() -> sp.Array:
            c = self.frame.structure_coefficients()
            p = self.p
            return sp.Array([[[c[lam, nu, mu] for mu in range(p)] for lam in range(p)] for nu in range(p)])

        return self._gamma.get(compute)

    @property
    def B(self) -> sp.Array:
        """B[σ, r, s]: dδq_σ − δdq_σ = B^σ_rs dq_r δq_s on the motion, r, s over :attr:`free`
        (+ t), extracted from the bracket [V, W]^σ (δ with a δt symbol, then the motion)."""
        def compute() -> sp.Array:
            comps = self.coordinates(on_motion=True, delta_t=True)
            rs = list(range(self.m)) + ([self.p - 1] if self.space.t is not None else [])
            left = [self._dvec[i] for i in rs]
            right = [self._xvec[i] for i in rs]
            out = []
            for q in self.sigma:
                M = bilinear_matrix(comps[self.space.index(q)], left, right)
                out.append(M.tolist())
            return sp.Array(out) if out else sp.Array([], (0, len(rs), len(rs)))

        return self._B.get(compute)

    @property
    def beta(self) -> sp.Array:
        """Hamel's β[a, b, d] = c^d_ab of :attr:`frame` (CONVENTIONS.md; eq. (17))."""
        return self.frame.hamel_beta()

    # -- bilinear forms -------------------------------------------------------------------------
    def d_vector(self, *, on_motion: bool = False) -> list[sp.Symbol]:
        """The d symbols the coordinate relations are bilinear in (free, ρ unless on the
        motion, then dt)."""
        keep = self.free + (() if on_motion else self.rho) + ((self.space.t,) if self.space.t else ())
        return [self.d_symbols[q] for q in keep]

    def delta_vector(self, *, on_motion: bool = False) -> list[sp.Symbol]:
        """The δ symbols of virtual displacements (free, and ρ unless on the motion)."""
        keep = self.free + (() if on_motion else self.rho)
        return [self.delta_symbols[q] for q in keep]

    def coordinate_form(self, coord, *, on_motion: bool = False) -> sp.Matrix:
        """M with dδq − δdq = d_vector()ᵀ M delta_vector() for the coordinate ``coord``."""
        e = self.coordinate(coord, on_motion=on_motion)
        return bilinear_matrix(e, self.d_vector(on_motion=on_motion), self.delta_vector(on_motion=on_motion))

    def quasi_form(self, lam: int) -> sp.Matrix:
        """M[μ, ν] with dδπ_λ − δdπ_λ = dπ_μ M[μ, ν] δπ_ν (ν over the δπ's without δt)."""
        right = list(self.deltapi[:self.m + self.k])
        return bilinear_matrix(self.quasi()[lam], list(self.dpi), right)

    def _repr_latex_(self) -> str:
        from ..kernel.display import repr_latex  # duck-typed renderer: imports none of these classes
        return repr_latex(self)

    def __repr__(self) -> str:
        return (f"TranspositionalRelations(k={self.k}, free={[s.name for s in self.free]}, "
                f"rho={[s.name for s in self.rho]}, sigma={[s.name for s in self.sigma]})")


