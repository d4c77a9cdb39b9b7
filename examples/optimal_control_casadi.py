"""Parking a car-like robot with CasADi's Opti on geonh's equations (``eqs.to_casadi()``).

The robot is a Chaplygin sleigh driven by a force F along its heading at the axle and a
steering torque τ: coordinates (x, y, θ), the no-slip constraint −sin θ ẋ + cos θ ẏ = 0,
T = ½ m (ẋ² + ẏ²) + ½ I θ̇² (mass centre on the axle, a = 0 here keeps the model small).
geonh derives the Boltzmann–Hamel equations in its default frame; ``to_casadi`` exports
ẏ = f(t, y, p) with the controls p = (F, tau) as inputs (m, I bound at export).  Opti finds piecewise-constant F, τ on
N intervals (RK4 multiple shooting, 4 steps per interval) that bring the robot from rest at
the origin to rest at (x, y, θ) = (1, 0.5, 0) in 4 s with the least ∫ F² + τ² dt (IPOPT,
shipped with CasADi's wheel).  The solution is then re-simulated with geonh's ``simulate``
(DOP853, 1e-12), interval by interval, and must meet the target within 1e-5.
"""
import numpy as np
import sympy as sp

import geonh as g

casadi = __import__("casadi")   # the extra geonh[casadi]

S = g.ConfigurationSpace("x y theta")
x, y, th = S.q
xd, yd, thd = S.qd
m, I = sp.symbols("m I", positive=True)
F, tau = sp.symbols("F tau", real=True)
T = m * (xd**2 + yd**2) / 2 + I * thd**2 / 2
robot = g.MechanicalSystem(S, T, forces={x: F * sp.cos(th), y: F * sp.sin(th), th: tau},
                           constraints=[-sp.sin(th) * xd + sp.cos(th) * yd])
eq = g.equations.boltzmann_hamel(robot)     # the default (Voronets) frame: speeds (x_dot, theta_dot)
ex = eq.to_casadi({"m": 1.0, "I": 0.1})
print("exported:", ex)
assert ex.parameter_names == ("F", "tau") and ex.state_names[:3] == ("x", "y", "theta")

N, TF, SUB = 20, 4.0, 4
h = TF / N / SUB
target = np.array([1.0, 0.5, 0.0])
n = len(ex.state_names)
opti = casadi.Opti()
Y = opti.variable(n, N + 1)
U = opti.variable(2, N)


def rk4(yk, u):
    for _ in range(SUB):
        k1 = ex.rhs(0, yk, u)
        k2 = ex.rhs(0, yk + h / 2 * k1, u)
        k3 = ex.rhs(0, yk + h / 2 * k2, u)
        k4 = ex.rhs(0, yk + h * k3, u)
        yk = yk + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return yk


opti.minimize(casadi.sumsqr(U) * TF / N)
for k in range(N):
    opti.subject_to(Y[:, k + 1] == rk4(Y[:, k], U[:, k]))
opti.subject_to(Y[:, 0] == np.zeros(n))
opti.subject_to(Y[:3, N] == target)
opti.subject_to(Y[3:, N] == 0)
opti.subject_to(opti.bounded(-5, U, 5))
opti.set_initial(Y, np.outer(np.r_[target, 0, 0], np.linspace(0, 1, N + 1)))
opti.solver("ipopt", {"print_time": False}, {"print_level": 0, "tol": 1e-10, "sb": "yes"})
sol = opti.solve()
Fs, taus = sol.value(U)
print(f"IPOPT: {sol.stats()['return_status']}, cost {sol.value(opti.f):.6f}, "
      f"{sol.stats()['iter_count']} iterations")
assert sol.stats()["success"]

# re-simulate with geonh: the same equations compiled by geonh, the controls bound per interval
f = eq.ode_function({"m": 1.0, "I": 0.1})
state = np.zeros(n)
for k in range(N):
    fk = f.bind({"F": float(Fs[k]), "tau": float(taus[k])})
    traj = g.simulate(fk, state, (k * TF / N, (k + 1) * TF / N), rtol=1e-12, atol=1e-12)
    state = traj.states[-1]
miss = np.max(np.abs(state - np.r_[target, 0, 0]))
print(f"re-simulated with geonh.simulate: final state {np.round(state, 6)}, miss {miss:.2e}")
assert miss < 1e-5, "the re-simulated motion must park the robot at the target"
