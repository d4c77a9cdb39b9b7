"""The shipped properties on the shipped strategies, written as a user would write them.

Every test here is a hypothesis test drawing from :mod:`geonh.testing.strategies` and
checking with :mod:`geonh.testing.properties`; the example count comes from the loaded
profile (``geonh-fast`` in CI and in ``benchmarks/mutation_score.py``, whose default target
is this file: every declared mutation must fail at least one test here).  Where a relation
involves a user's own formula, it is plugged into the property as a callable, the way the
guide (docs/property-testing.md) shows.
"""
from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geonh
from geonh.testing import properties as gp
from geonh.testing import strategies as gst

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SYMBOLIC = settings(deadline=None)


# -- brackets and frames -------------------------------------------------------------------------
def _three_fields(S):
    return st.tuples(*(gst.vector_fields(S, kind="polynomial") for _ in range(3)))


@SYMBOLIC
@given(gst.configuration_spaces(2, 3).flatmap(_three_fields))
def test_jacobi_identity_of_geonh_brackets(fields):
    gp.jacobi_identity(*fields)


def _frame_bracket(frame):
    """The bracket of U = u^a X_a and W = w^b X_b in frame components (Leibniz on [X_a, X_b] =
    c^d_ab X_d): [U, W] = (U(w^d) − W(u^d) + c^d_ab u^a w^b) X_d, with geonh's c."""
    c = frame.structure_coefficients()
    n = frame.dim

    def bracket(U, W):
        u = [th(U) for th in frame.coframe]
        w = [th(W) for th in frame.coframe]
        comps = [U(w[d]) - W(u[d]) + sum((c[d, a, b] * u[a] * w[b] for a in range(n) for b in range(n)
                                          if c[d, a, b] != 0), sp.S.Zero) for d in range(n)]
        out = geonh.VectorField.zero(frame.space)
        for d in range(n):
            if comps[d] != 0:
                out = out + frame[d] * comps[d]
        return out.expand()
    return bracket


def _frame_and_fields(S):
    return st.tuples(gst.frames(S, kind="polynomial"),
                     *(gst.vector_fields(S, kind="polynomial") for _ in range(3)))


@SYMBOLIC
@given(gst.configuration_spaces(2, 2).flatmap(_frame_and_fields))
def test_jacobi_identity_of_the_bracket_in_frame_components(case):
    frame, X, Y, Z = case
    gp.jacobi_identity(X, Y, Z, bracket=_frame_bracket(frame))


@SYMBOLIC
@given(gst.configuration_spaces(2, 3).flatmap(gst.frames))
def test_maurer_cartan_of_random_frames(frame):
    gp.maurer_cartan(frame)


@SYMBOLIC
@given(gst.hamel_frames(2, 3))
def test_maurer_cartan_with_c_from_the_exterior_derivative(frame):
    gp.maurer_cartan(frame, coefficients=lambda F: F.structure_coefficients(method="exterior"))


@SYMBOLIC
@given(gst.hamel_frames(2, 3))
def test_hamel_coefficients_of_random_frames(frame):
    gp.hamel_coefficients(frame)
    gp.transpositional_relations(frame)


def _frame_and_change(S):
    return st.tuples(gst.frames(S, kind="polynomial"), gst.invertible_matrices(S, kind="polynomial"))


@SYMBOLIC
@given(gst.configuration_spaces(2, 2).flatmap(_frame_and_change))
def test_maurer_cartan_after_a_change_of_frame(case):
    """The frame-change law c'^d_ab = (A⁻¹)^d_e [c^e_fg A^f_a A^g_b + X'_a(A^e_b) − X'_b(A^e_a)]
    (``geonh.transform_structure_coefficients``) as the user's coefficients of the changed frame."""
    frame, A = case
    gp.maurer_cartan(frame.change(A))
    gp.maurer_cartan(frame.change(A), coefficients=lambda F: geonh.transform_structure_coefficients(frame, A))


# -- transpositional relations -------------------------------------------------------------------
@SYMBOLIC
@given(gst.constrained_settings(2, 3, rheonomic=None))
def test_transpositional_relations_for_every_k(setting):
    gp.transpositional_relations(setting)


@SYMBOLIC
@given(gst.transposition_cases(2, 3, rheonomic=None))
def test_transpositional_relations_with_quasi_velocities(case):
    setting, k, quasi = case
    gp.transpositional_relations(setting.transposition(k, quasi=quasi))


def _gamma_from_the_quasi_relations(T):
    """γ[ν, λ, μ] read off dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν as ``T.quasi()`` writes it (the
    coefficient of dπ_μ δπ_ν), the user's formula for ``transpositional_relations``."""
    rel = T.quasi()
    return sp.Array([[[sp.expand(sp.diff(rel[lam], T.dpi[mu], T.deltapi[nu])) for mu in range(T.p)]
                      for lam in range(T.p)] for nu in range(T.p)])


@SYMBOLIC
@given(gst.transposition_cases(2, 3, rheonomic=None))
def test_transpositional_relations_with_gamma_from_the_quasi_relations(case):
    setting, k, quasi = case
    gp.transpositional_relations(setting.transposition(k, quasi=quasi), formula=_gamma_from_the_quasi_relations)


@SYMBOLIC
@given(gst.configuration_spaces(1, 2, time=None).flatmap(gst.velocity_frames))
def test_transpositional_relations_on_TQ(vframe):
    gp.transpositional_relations(vframe)


# -- along the motion ------------------------------------------------------------------------------
def _with_frame(system):
    return st.tuples(st.just(system), gst.adapted_frames(system))


@pytest.mark.slow   # ≈ 10 s CPU for 10 examples (two forms per draw)
@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1).flatmap(_with_frame))
def test_frame_forms_give_lagrange_motion(case):
    system, frame = case
    gp.same_motion(system, "boltzmann-hamel", "lagrange", frame=frame)
    gp.same_motion(system, "maggi", "lagrange", frame=frame)


@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1, kind="linear"))
def test_neimark_fufaev_every_k_gives_lagrange_motion(system):
    setting = geonh.ConstrainedSetting.from_codistribution(system.constraints)
    for k in range(setting.n - setting.m + 1):
        gp.same_motion(system, lambda s, k=k: geonh.neimark_fufaev(s, k), "lagrange")


@SYMBOLIC
@given(gst.mechanical_systems(2, 3))
def test_lagrange_preserves_constraints_and_energy(system):
    eqs = geonh.lagrange(system)
    gp.constraints_preserved(eqs)
    gp.energy_balance(eqs)


@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1).flatmap(_with_frame))
def test_boltzmann_hamel_preserves_constraints_and_energy(case):
    system, frame = case
    eqs = geonh.boltzmann_hamel(system, frame)
    gp.constraints_preserved(eqs)
    gp.energy_balance(eqs)


@SYMBOLIC
@given(gst.mechanical_systems(2, 3, kind="linear", forces=False))
def test_energy_is_a_first_integral_of_conservative_systems(system):
    eqs = geonh.lagrange(system)
    gp.first_integral(eqs, system.T + system.V)


def _reported_reaction_power(eqs, frame):
    """P_R = R_i q̇^i with the reactions the form reports, R = Λ_κ θ^κ (θ^κ the frame's
    constraint forms): on the motion θ^κ(q̇) = −θ^κ_t, so P_R = −Λ_κ θ^κ_t."""
    S = eqs.space
    m = len(eqs.u)
    theta_t = [frame.B[m + k, S.n] if S.t is not None else sp.S.Zero for k in range(len(eqs.reactions))]

    def power(point):
        pt = dict(point)
        pt.update({u: sp.sympify(s).xreplace(pt) for u, s in zip(eqs.u, eqs.speeds)})
        pt.update(zip(eqs.ud, eqs.solve_point(pt)[:len(eqs.ud)]))
        return sp.expand(-sum((sp.sympify(lam).xreplace(pt) * th.xreplace(pt)
                               for lam, th in zip(eqs.reactions, theta_t)), sp.S.Zero))
    return power


@pytest.mark.slow
@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1, kind=("affine", "rheonomic")).flatmap(_with_frame))
def test_energy_balance_with_the_reactions_maggi_reports(case):
    """The reactions of Maggi's form (``eqs.reactions``) plugged into the energy balance as the
    user's power of the reactions: affine and rheonomic constraints make it non-zero."""
    system, frame = case
    eqs = geonh.maggi(system, frame)
    gp.energy_balance(eqs, reaction_power=_reported_reaction_power(eqs, frame))


# -- the projection onto the constraints and the declared intermediate forms ---------------------
@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1))
def test_projection_onto_the_constraints_is_kinetic_orthogonal(system):
    """Velocities kicked off the constraints come back T-orthogonally (what simulate(project=True)
    does to initial data): a Euclidean projection lands on the constraints too, only the
    orthogonality in G = ∂²T/∂q̇² tells them apart."""
    gp.kinetic_projection(geonh.lagrange(system), states=2)


@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1))
def test_neimark_fufaev_declarations_for_every_k(system):
    """The declared d and δ fields of every member of the k-family are the k-family's: the
    forms give the same motion for k and n − m − k, the declared fields do not."""
    for k in range(system.n_constraints + 1):
        gp.neimark_fufaev_declaration(system, k)


# -- verdicts: the resolution of the generic point and the integrability test --------------------
@SYMBOLIC
@given(gst.hamel_frames(2, 3), st.sampled_from([sp.Rational(1, 10**12), sp.Rational(-3, 10**15)]))
def test_hamel_coefficients_see_a_perturbation_below_double_precision(frame, eps):
    """A generic-point verdict resolves differences far below 1e-6: β perturbed by ε cos q1
    (|ε| ≤ 1e-12, evaluated at the working precision) is refused."""
    beta = sp.MutableDenseNDimArray(frame.hamel_beta())
    beta[0, 1, 0] += eps * sp.cos(frame.space.coords[0])
    with pytest.raises(AssertionError, match="β"):
        gp.hamel_coefficients(frame, beta=beta)


@SYMBOLIC
@given(gst.mechanical_systems(2, 3, min_constraints=1, kind="linear"),
       st.sampled_from([sp.Rational(1, 10**4), sp.Rational(1, 10**6)]))
def test_constraints_in_other_units_give_the_same_motion(system, scale):
    """Each constraint row multiplied by scale·(2 + cos q1) (a nowhere-zero factor, a change of
    units): the same constraint set, hence Lagrange's equations give the same motion."""
    S = system.space
    A = system.constraints.matrix()
    factor = scale * (2 + sp.cos(S.q[0]))
    rows = [factor * sum((A[r, i] * S.qd[i] for i in range(S.n)), sp.S.Zero) for r in range(A.rows)]
    applied = [Qi + sp.diff(system.V, q) for Qi, q in zip(system.Q, S.q)]   # system.Q holds Q − ∂V/∂q
    scaled = geonh.MechanicalSystem(S, system.T, system.V, applied, constraints=rows)
    gp.same_motion(system, lambda s: geonh.lagrange(scaled), "lagrange")


@st.composite
def _first_form_integrable(draw):
    """Two constraints on q1 … q4 solved for q3, q4: θ¹ = dq3 − a(q1) dq1 (closed, integrable
    alone), θ² = dq4 − b(q) dq1 − b'(q) dq2 (random): integrable together only by accident."""
    S = geonh.ConfigurationSpace(["q1", "q2", "q3", "q4"])
    a = draw(gst.coefficient_expressions(S.q[:1], zero_probability=0))
    b = [draw(gst.coefficient_expressions(S.q, zero_probability=0)) for _ in range(2)]
    return geonh.ConstrainedSetting(S, [S.q[2], S.q[3]], sp.Matrix([[a, 0], b]))


@SYMBOLIC
@given(st.one_of(_first_form_integrable(), gst.constrained_settings(2, 3), gst.holonomic_settings(2, 3)))
def test_holonomy_verdict_agrees_with_d_and_delta_commuting(setting):
    """For k = 0 (δ and d commute on the free coordinates) the constraints are holonomic exactly
    when they commute on the dependent ones too: [V, W]^σ = B^σ_rs dq_r δq_s ≡ 0 (Neimark–Fufaev
    § 1); geonh's Frobenius verdict must agree."""
    gp.transpositional_relations(setting, 0)
    B = setting.transposition(0).B
    commute = all(geonh.is_zero(e) for e in sp.flatten(B.tolist()))
    assert setting.is_holonomic() == commute, (setting.is_holonomic(), B)


@st.composite
def _nearly_dependent_rows(draw):
    """A system with two constraints θ¹, θ² and the same constraints written as θ¹ and
    θ¹ + ε (2 + cos q1) θ² (|ε| ≤ 10⁻¹²): independent rows whose smallest singular value is
    below double precision's reach (what a float rank cannot decide; a rank at the working
    precision with a loosened tolerance calls them dependent)."""
    system = draw(gst.mechanical_systems(3, 3, min_constraints=2, max_constraints=2, kind="linear"))
    eps = draw(st.sampled_from([sp.Rational(1, 10**12), sp.Rational(-3, 10**15)]))
    return system, eps


@SYMBOLIC
@given(_nearly_dependent_rows())
def test_nearly_dependent_constraint_rows_give_the_same_motion(case):
    system, eps = case
    S = system.space
    A = system.constraints.matrix()
    r1, r2 = (sum((A[r, i] * S.qd[i] for i in range(S.n)), sp.S.Zero) for r in range(2))
    rows = [r1, r1 + eps * (2 + sp.cos(S.q[0])) * r2]
    applied = [Qi + sp.diff(system.V, q) for Qi, q in zip(system.Q, S.q)]   # system.Q holds Q − ∂V/∂q

    def lagrange_of_the_nearly_dependent_rows(s):
        return geonh.lagrange(geonh.MechanicalSystem(S, s.T, s.V, applied, constraints=rows))
    gp.same_motion(system, lagrange_of_the_nearly_dependent_rows, "lagrange")
