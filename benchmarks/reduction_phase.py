"""Geometric phase of gaits: the reconstruction equation against direct simulation (issue 26.1).

The snakeboard (geonh.models.literature) reduced by SE(2) along the gait
(psi, phi) = (sin(2 pi t)/2, 0.3 sin(2 pi t + pi/4)) for initial momenta 0 and 0.2, and the
vertical rolling disk along the ellipse theta = 0.7 + 0.9 cos(2 pi t), phi = 1.3 sin(2 pi t)
(phase 2 pi R b J_1(a) (-sin theta0, cos theta0) in closed form): the largest difference of the
group coordinates after one period between ReducedEquations.reconstruct, Lagrange's equations of
driven_system(...) simulated, and the closed form.  Prints CPU time of the reduction.

    python benchmarks/reduction_phase.py
"""
import time

import numpy as np
import sympy as sp

import geonh as g
from geonh import models
from geonh.models import literature
from geonh.analysis import reduced_equations, driven_system
from scipy.special import jv


def main() -> None:
    t = sp.Symbol("t", real=True)
    sb = literature.snakeboard(); S = sb.system.space; x,y = S.q[:2]
    c0 = time.process_time(); red = reduced_equations(sb.system, [[1,0,0,0,0],[0,1,0,0,0],[-y,x,1,0,0]]); print("reduced_equations(snakeboard) CPU", round(time.process_time()-c0,2))
    gait = {"psi": sp.sin(2*sp.pi*t)/2, "phi": sp.Rational(3,10)*sp.sin(2*sp.pi*t+sp.pi/4)}
    vals = {"m":1, "r":0.5, "J":1/3, "J_0":0.1, "J_1":0.05}
    c = red.connection; vel = c.velocity()
    for p0 in (0.0, 0.2):
        rec = red.reconstruct(gait, (0,1), momenta0=[p0], values=vals)
        pv = {s: vals[s.name] for s in sb.system.T.free_symbols|sb.system.constraints.matrix().free_symbols if s.name in vals}
        pt = {S.q[0]:0,S.q[1]:0,S.q[2]:0,S.q[3]:0,S.q[4]:gait["phi"].subs(t,0),S.qd[3]:sp.diff(gait["psi"],t).subs(t,0),S.qd[4]:sp.diff(gait["phi"],t).subs(t,0),c.momenta[0]:p0}
        y0=[0,0,0,0,float(pt[S.q[4]])]+[float(vel[q].xreplace(pv).xreplace(pt)) for q in S.qd]
        tr = g.simulate(g.lagrange(driven_system(sb.system, gait)), y0, (0,1), vals, rtol=1e-12, atol=1e-12)
        print(f"snakeboard p0={p0}: phase {rec.phase}, max |Δg| vs direct simulation {np.max(np.abs(tr.q[-1][:3]-rec.group[-1])):.2e}")
    disk = models.get("vertical-disk").system
    rd = reduced_equations(disk, [[1,0,0,0],[0,1,0,0]])
    th0,a,b,R = 0.7,0.9,1.3,0.25
    gd = {"theta": th0+a*sp.cos(2*sp.pi*t), "phi": b*sp.sin(2*sp.pi*t)}
    closed = 2*np.pi*R*b*jv(1,a)*np.array([-np.sin(th0), np.cos(th0)])
    rec = rd.reconstruct(gd, (0,1), values={"R":R})
    y0=[0,0,th0+a,0,R*np.cos(th0+a)*2*np.pi*b,R*np.sin(th0+a)*2*np.pi*b,0,2*np.pi*b]
    tr = g.simulate(g.lagrange(driven_system(disk, gd)), y0, (0,1), {"R":R,"m":1,"I":0.3,"J":0.2}, rtol=1e-12, atol=1e-12)
    print(f"disk ellipse: closed {closed}, |rec-closed| {np.max(np.abs(rec.phase-closed)):.2e}, |sim-closed| {np.max(np.abs(tr.q[-1][:2]-closed)):.2e}")


if __name__ == "__main__":
    main()
