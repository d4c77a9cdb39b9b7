"""Gauss's principle (seed 001 eqs. (5)–(7)), Udwadia–Kalaba, Appell, Maggi and Lagrange with
multipliers agree on the Chaplygin sleigh, the vertical rolling disk, the knife edge on an
incline and a rheonomic skate on a moving belt."""
from geonh.analysis.certificate import same_motion
from geonh.equations import gauss, lagrange, udwadia_kalaba
from geonh.equations.nonlinear import appell, maggi_nonlinear
from geonh.models.seeds import linear_examples

for name, (ms, quasi) in linear_examples().items():
    ref = lagrange(ms)
    for eq in (gauss(ms), udwadia_kalaba(ms), appell(ms), maggi_nonlinear(ms, quasi)):
        cert = same_motion(ref, eq)
        print(f"{name:14s} lagrange vs {eq.form:16s}: {cert}")
        assert cert.same, f"{name}: {eq.form} must give the motion of Lagrange's equations"
