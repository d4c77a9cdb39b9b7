"""Hamilton's principle for nonholonomic systems, parameterized by the transpositional relations.

Integrating Lagrange's central equation (seed 004, eq. (2.1)) with variations vanishing at the
ends gives the general form (seed 004, eq. (3.2))

    ∫ [ δT + δA + ∂T/∂q̇_i (d/dt δq_i − δq̇_i) ] dt = 0,                              (3.2)

whose particular forms depend on the transpositional relations adopted: δq̇_i (the variation
of the velocity) = d/dt δq_i − (dδq_i − δdq_i)/dt, and dδq_i − δdq_i = [V, W]^i for the d
field V and the δ field W of the Neimark–Fufaev k-family (seed 004, eqs. (1.1), (1.4);
computed by :mod:`geonh.transposition` from brackets, CONVENTIONS.md).

Forms (``form=`` of :func:`hamilton_equations`):

======================  ======================================================================
``"general"``           (3.2) itself: right for every k (the correction cancels [V, W]).
``"hamilton"``          (3.1) ∫(δT + δA) dt = 0: right when d and δ commute on every true
                        coordinate (k = n − m, Hamel's view, the default), wrong in general for
                        k < n − m (e.g. k = 0, Suslov's view).
``"woronetz"``          Hamel's version of Woronetz's theorem (seed 000, eq. (VI)):
                        ∫(δE'' + Σ_l J_{k+l} δω_{k+l} + δA) dt = 0, E'' = T with the
                        constraints ω_{k+l} = 0 (and ω_n = 1) put in *before* the variation,
                        J = ∂E/∂ω the momenta of the constraint quasi-velocities; (26) holds
                        for all q.  Any adapted frame (default: Voronets's).  ``printed=True``
                        uses the J_{k−l} printed in the line before (VI) (a misprint).
``"voronets"``          Voronets's form (seed 004, eq. (3.3)):
                        ∫[δ(T̃ + U) + ∂T/∂q̇_j δ(q̇_j − a_js q̇_s − a_j)] dt = 0.  (3.3) is printed
                        for homogeneous constraints (1.2); ``printed=True`` drops the a_j, which
                        is wrong for affine constraints whose a_j depend on q.
``"naive"``             constraints put into T before the variation, no correction:
                        ∫(δT̃ + δA) dt = 0.  Wrong in general (Chaplygin sleigh), right when the
                        neglected terms ∂T/∂q̇_j B^j_rs q̇_r vanish (vertical rolling disk).
======================  ======================================================================

Derivation (the same for every form).  Free variations η_r(t) along the free frame fields
(δq = η_r X_r, δt = 0; for the k-family X_r = ∂_r + a_jr ∂_j), so δq_i and d/dt δq_i are linear
in (η, η̇); the integrand I is linear in (η, η̇), evaluated on the motion q̇ = K(t, q, u) only
after differentiating; an integration by parts gives the equations

    ∂I/∂η_r − d/dt ∂I/∂η̇_r = 0,      r = 1 … m.
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import DimensionError, NotAdaptedError, NotLinearError, ParseError
from ..kernel.frames import Frame
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import check_adapted, frame_kinematics, solve_constraints, speed_symbols, voronets_frame
from ..transposition.relations import ConstrainedSetting
from .base import Equations
from ..kernel.parsing import sympy_of

__all__ = ["PRINCIPLE_FORMS", "hamilton_equations", "hamilton_integrand", "woronetz_identity", "naive_terms"]

#: the forms of Hamilton's principle (not equation forms: see geonh.equations.FORMS)
PRINCIPLE_FORMS = ("general", "hamilton", "woronetz", "voronets", "naive")


class _Setup:
    """Motion, variations and transpositional relations shared by every form."""

    def __init__(self, system: MechanicalSystem, k, frame, dependent):
        if not isinstance(system, MechanicalSystem):
            raise ParseError(f"expected a MechanicalSystem (linear constraints), got {type(system).__name__}")
        S = system.space
        self.system = system
        self.S = S
        n, r = S.n, system.n_constraints
        self.kmax = r
        self.k = r if k is None else int(k)
        if not 0 <= self.k <= r:
            raise DimensionError(f"k must satisfy 0 ≤ k ≤ n − m = {r}, got {k}")
        if frame is not None and self.k != r:
            raise NotAdaptedError("the k-family (k < n − m) is defined with the free true coordinates; "
                                  "a general frame needs k = n − m (Hamel's view)")
        self.frame = frame if frame is not None else voronets_frame(system, dependent)
        m = check_adapted(system, self.frame)
        self.m = m
        self.u, self.ud = speed_symbols(self.frame.names[:m])
        omega, K, speeds = frame_kinematics(self.frame, m, self.u)
        self.K, self.speeds = K, speeds
        self.on = dict(zip(S.qd, K))
        self.eta = tuple(sp.Symbol(f"eta{i + 1}") for i in range(m))
        self.etad = tuple(sp.Symbol(f"eta{i + 1}_dot") for i in range(m))
        C = self.frame.C
        # δq_i = X_r^i η_r and d/dt δq_i along the motion
        self.dq = [sum((C[i, rr] * self.eta[rr] for rr in range(m) if C[i, rr] != 0), sp.S.Zero) for i in range(n)]
        self.ddq = []
        for i in range(n):
            e = sp.S.Zero
            for rr in range(m):
                if C[i, rr] != 0:
                    e += system.space.total_derivative(C[i, rr], along=K, speeds=self.u, rates=self.ud) * self.eta[rr] + C[i, rr] * self.etad[rr]
            self.ddq.append(e)
        self.bracket = self._bracket(dependent)
        self.p = [pi.xreplace(self.on) for pi in system.momenta]

    def _bracket(self, dependent) -> list:
        """[V, W]^i on the motion (dt = 1, δq_r = η_r) for the chosen k; zero for k = n − m."""
        S, n = self.S, self.S.n
        if self.k == self.kmax:
            return [sp.S.Zero] * n
        free, dep, _, _ = solve_constraints(self.system, dependent)
        setting = ConstrainedSetting.from_codistribution(self.system.constraints, [S.q[j] for j in dep])
        tr = setting.transposition(self.k)
        comps = tr.coordinates(on_motion=True)
        sub = {}
        for c, s in enumerate(free):
            q = S.q[s]
            sub[tr.d_symbols[q]] = self.K[s]
            sub[tr.delta_symbols[q]] = self.eta[c]
        if S.t is not None:
            sub[tr.d_symbols[S.t]] = sp.S.One
        out = [sympy_of(c).xreplace(sub) for c in comps[:n]]
        left = set().union(*[e.free_symbols for e in out]) & (set(tr.d_symbols.values()) | set(tr.delta_symbols.values()))
        if left:  # pragma: no cover - guards an API change of geonh.transposition
            raise NotAdaptedError(f"unexpected symbols {left} in the transpositional relations")
        return out

    # δ of a function F(t, q, q̇), with δq̇ = d/dt δq − [V, W]
    def delta(self, F: sp.Expr) -> sp.Expr:
        S = self.S
        out = sp.S.Zero
        free = F.free_symbols
        for i in range(S.n):
            if S.q[i] in free and self.dq[i] != 0:
                out += sp.diff(F, S.q[i]).xreplace(self.on) * self.dq[i]
            if S.qd[i] in free:
                out += sp.diff(F, S.qd[i]).xreplace(self.on) * (self.ddq[i] - self.bracket[i])
        return out

    def work(self) -> sp.Expr:
        return sum((Q.xreplace(self.on) * d for Q, d in zip(self.system.Q, self.dq) if d != 0), sp.S.Zero)

    def constrained_T(self) -> sp.Expr:
        """E'' = T(q, C_r ω^r(q, q̇) + C_t): T with the constraint quasi-velocities set to 0 (and
        ω_t = 1) before the variation; a function of (t, q, q̇)."""
        S, m, F = self.S, self.m, self.frame
        n = S.n
        vel = S.velocities
        om = [sum((F.B[a, i] * vel[i] for i in range(S.dim)), sp.S.Zero) for a in range(m)]
        qd_new = []
        for i in range(n):
            e = sum((F.C[i, a] * om[a] for a in range(m)), sp.S.Zero)
            if S.t is not None:
                e += F.C[i, S.dim - 1]
            qd_new.append(e)
        return self.system.T.xreplace(dict(zip(S.qd, qd_new)))

    def constraint_quasi(self) -> list[tuple[sp.Expr, sp.Expr]]:
        """[(ω^α(t, q, q̇), J_α on the motion)] for the constraint quasi-velocities of the frame."""
        S, m, F = self.S, self.m, self.frame
        n = S.n
        vel = S.velocities
        out = []
        for a in range(m, n):
            w = sum((F.B[a, i] * vel[i] for i in range(S.dim)), sp.S.Zero)
            J = sum((F.C[i, a] * self.p[i] for i in range(n) if F.C[i, a] != 0), sp.S.Zero)
            out.append((w, J))
        return out


def hamilton_integrand(system: MechanicalSystem, form: str = "general", *, k=None, frame: Frame | None = None,
                       dependent: Sequence | None = None, printed: bool = False, _setup=None) -> sp.Expr:
    """The integrand I(η, η̇) of the chosen form of the principle on the motion (module doc)."""
    st = _setup or _Setup(system, k, frame, dependent)
    S = st.S
    if form == "general":
        I = st.delta(system.T) + st.work()
        I += sum((st.p[i] * st.bracket[i] for i in range(S.n) if st.bracket[i] != 0), sp.S.Zero)
    elif form == "hamilton":
        I = st.delta(system.T) + st.work()
    elif form == "naive":
        I = st.delta(st.constrained_T()) + st.work()
    elif form == "woronetz":
        I = st.delta(st.constrained_T()) + st.work()
        cq = st.constraint_quasi()
        if printed:
            # J_{k−l} δω_{k+l} (Hamel's index numbering: ω_1..ω_k free, then the constraints)
            kk = st.m
            Jfree = [sum((st.frame.C[i, a] * st.p[i] for i in range(S.n)), sp.S.Zero) for a in range(kk)]
            for l, (w, _) in enumerate(cq, start=1):
                idx = kk - l
                if idx < 1:
                    raise NotAdaptedError(f"the printed J_{{k−l}} = J_{idx} does not exist (k = {kk}, l = {l})")
                I += Jfree[idx - 1] * st.delta(w)
        else:
            for w, J in cq:
                I += J * st.delta(w)
    elif form == "voronets":
        if frame is not None:
            raise NotAdaptedError("Voronets's form (3.3) is written in true coordinates (the Voronets frame)")
        free, dep, a, a0 = solve_constraints(system, dependent)
        I = st.delta(st.constrained_T()) + st.work()
        for kk, j in enumerate(dep):
            w = S.qd[j] - sum((a[kk, c] * S.qd[s] for c, s in enumerate(free)), sp.S.Zero)
            if not printed:
                w -= a0[kk]
            I += st.p[j] * st.delta(w)
    else:
        raise ParseError(f"form must be one of {PRINCIPLE_FORMS}, not {form!r}")
    return sp.expand(I) if not I.has(sp.Function) else I


def hamilton_equations(system: MechanicalSystem, form: str = "general", *, k=None, frame: Frame | None = None,
                       dependent: Sequence | None = None, printed: bool = False) -> Equations:
    """Equations of motion derived from a chosen form of Hamilton's principle (module doc):
    E_r = ∂I/∂η_r − d/dt ∂I/∂η̇_r = 0, an :class:`Equations` in the speeds of the frame
    (default Voronets's frame: the free velocities).  ``k`` picks the transpositional relations
    of the Neimark–Fufaev family (default n − m: d and δ commute on every true coordinate)."""
    st = _Setup(system, k, frame, dependent)
    I = hamilton_integrand(system, form, printed=printed, _setup=st)
    res = []
    for r in range(st.m):
        A = sp.diff(I, st.eta[r])
        Bc = sp.diff(I, st.etad[r])
        for e in (A, Bc):
            if e.has(*st.eta) or e.has(*st.etad):
                raise NotLinearError("the integrand is not linear in the variations")  # pragma: no cover
        res.append(A - system.space.total_derivative(Bc, along=st.K, speeds=st.u, rates=st.ud))
    name = f"hamilton-{form}" + ("-printed" if printed else "") + (f"-k{st.k}" if st.k != st.kmax else "")
    return Equations(name, system, st.u, st.ud, st.K, st.speeds, res, frame=st.frame,
                     notes=f"Hamilton's principle, form {form!r}, k = {st.k}")


def woronetz_identity(system: MechanicalSystem, *, frame: Frame | None = None, dependent=None,
                      printed: bool = False) -> sp.Expr:
    """δE − (δE'' + Σ_l J_{k+l} δω_{k+l}) on the motion, with (26) (d δq = δ dq for all q).

    Hamel's derivation of (VI) says this vanishes identically; with the printed J_{k−l} it does
    not (returns the non-zero difference)."""
    st = _Setup(system, None, frame, dependent)
    lhs = st.delta(system.T)
    rhs = st.delta(st.constrained_T())
    cq = st.constraint_quasi()
    if printed:
        kk = st.m
        Jfree = [sum((st.frame.C[i, a] * st.p[i] for i in range(st.S.n)), sp.S.Zero) for a in range(kk)]
        for l, (w, _) in enumerate(cq, start=1):
            if kk - l < 1:
                raise NotAdaptedError(f"the printed J_{{k−l}} = J_{kk - l} does not exist")
            rhs += Jfree[kk - l - 1] * st.delta(w)
    else:
        for w, J in cq:
            rhs += J * st.delta(w)
    return lhs - rhs


def naive_terms(system: MechanicalSystem, dependent=None) -> list[sp.Expr]:
    """The terms the naive principle drops: E_r(general) − E_r(naive), r over the free
    velocities (in t, q, u).  They are Σ_j ∂T/∂q̇_j B^j_rs q̇_r-type terms (Voronets's (2.7)
    against the equations of T̃ alone); all zero ⇔ the naive principle happens to be right."""
    g = hamilton_equations(system, "general", dependent=dependent)
    nv = hamilton_equations(system, "naive", dependent=dependent)
    return [sp.expand(a - b) for a, b in zip(g.residuals, nv.residuals)]
