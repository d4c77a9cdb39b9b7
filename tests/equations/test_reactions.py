"""Reactions close to their code (geonh.equations.independent): Lagrange's multipliers and
Maggi's reactions Λ_κ against a closed form, and against each other.

A point of mass m in the plane pushed by a constant force f along x, with the constraint
ẋ − ẏ = 0 (A = (1, −1)): m ẍ = f + λ, m ÿ = −λ, ẍ = ÿ give λ = −f/2 and the reaction force
R = λ A = (−f/2, f/2) (CONVENTIONS.md: R_i = λ_κ A_κi), q̈ = (f/2m, f/2m).  Maggi in the frame
X_1 = ∂x + ∂y (free), X_2 = ∂y: Λ = Σ_i (L_i − Q_i) X_2^i = m ÿ = R·X_2 = f/2 on the motion.

Mutation guards: ``multiplier-sign``, ``maggi-reactions-sign``, ``maggi-reactions-no-udot`` of
benchmarks/mutation_score.py (a multiplier of the wrong sign leaves the motion unchanged).
"""
import sympy as sp

from geonh.equations import lagrange, maggi
from geonh.kernel.space import ConfigurationSpace
from geonh.systems.mechanical import MechanicalSystem

S = ConfigurationSpace("x y")
x, y = S.q
xd, yd = S.qd
m, f = sp.symbols("m f", positive=True)
SYSTEM = MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=-f * x, constraints=[xd - yd])
R_CLOSED = [-f / 2, f / 2]
QDD_CLOSED = [f / (2 * m), f / (2 * m)]


def _solved(eq):
    sol = eq.mass_matrix.LUsolve(eq.forcing)
    return dict(zip(eq.unknowns, [sp.simplify(s) for s in sol]))


def test_lagrange_multiplier_and_reaction_force():
    eq = lagrange(SYSTEM)
    sol = _solved(eq)
    assert [sol[eq.unknowns[0]], sol[eq.unknowns[1]]] == QDD_CLOSED
    assert sp.simplify(sol[eq.multipliers[0]] + f / 2) == 0
    assert [sp.simplify(r.xreplace(sol)) for r in eq.reactions] == R_CLOSED


def test_lagrange_reaction_is_what_newton_lacks():
    # R = m q̈ − Q on the solved motion, Q = (f, 0): the reaction, not its opposite
    eq = lagrange(SYSTEM)
    sol = _solved(eq)
    newton = [m * sol[S.qdd[0]] - f, m * sol[S.qdd[1]]]
    assert [sp.simplify(r.xreplace(sol) - n) for r, n in zip(eq.reactions, newton)] == [0, 0]


def test_maggi_reaction_closed_form_in_the_rates():
    eq = maggi(SYSTEM)
    X2 = list(eq.frame.C[:, 1])
    assert X2 == [0, 1]
    (ud,) = eq.ud
    # Λ = Σ_i (L_i − Q_i) X_2^i = m ÿ, ÿ = u̇ on the motion ẋ = ẏ = u
    assert [sp.expand(r) for r in eq.reactions] == [m * ud]


def test_maggi_and_lagrange_give_the_same_reaction():
    mg, lg = maggi(SYSTEM), lagrange(SYSTEM)
    sol_m, sol_l = _solved(mg), _solved(lg)
    Lam = sp.simplify(mg.reactions[0].xreplace(sol_m))
    R = [sp.simplify(r.xreplace(sol_l)) for r in lg.reactions]
    X2 = list(mg.frame.C[:, 1])
    assert sp.simplify(Lam - sum(Ri * Xi for Ri, Xi in zip(R, X2))) == 0
    assert Lam == f / 2


def test_lagrange_acceleration_constraints_carry_the_rate_of_A():
    """Lagrange's constraint rows at the acceleration level are d/dt(A q̇ + b) = A q̈ + Ȧ q̇ + ḃ
    (the term Ȧ q̇ is what keeps a knife edge on its constraint).  Knife edge, point mass m at
    (x, y) with heading θ and inertia J, constraint −sin θ ẋ + cos θ ẏ = 0, no forces: the rows
    give −sin θ ẍ + cos θ ÿ − θ̇ (cos θ ẋ + sin θ ẏ) = 0, and the multiplier is the centripetal
    λ = m θ̇ (cos θ ẋ + sin θ ẏ) (closed form: m ẍ = −λ sin θ, m ÿ = λ cos θ).
    Mutation guard: ``lagrange-constraints-no-Adot``."""
    K = ConfigurationSpace("x y theta")
    kx, ky, th = K.q
    kxd, kyd, thd = K.qd
    J = sp.Symbol("J", positive=True)
    knife = MechanicalSystem(K, m * (kxd ** 2 + kyd ** 2) / 2 + J * thd ** 2 / 2,
                             constraints=[-sp.sin(th) * kxd + sp.cos(th) * kyd])
    eq = lagrange(knife)
    sol = _solved(eq)
    along = sp.cos(th) * kxd + sp.sin(th) * kyd
    row = -sp.sin(th) * sol[eq.unknowns[0]] + sp.cos(th) * sol[eq.unknowns[1]] - thd * along
    on_motion = {kyd: kxd * sp.tan(th)}
    assert sp.simplify(row.xreplace(on_motion)) == 0
    assert sp.simplify((sol[eq.multipliers[0]] - m * thd * along).xreplace(on_motion)) == 0
