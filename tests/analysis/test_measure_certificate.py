"""The numeric obstruction certificate of ``invariant_measure`` (issue 26): before the symbolic
route, the necessary conditions for a density ρ(q) dq du — the divergence of the flow linear in
the speeds, X_c(log ρ) = −E_c consistent, ∇log ρ closed — are tested at random points at the
working precision.  It may only say "no": never on a system with a known density (Chaplygin's
ball and Routh's sphere: Borisov & Mamaev 2002; Veselova 1986; Suslov with e₃ a principal axis:
Kozlov 1988; the nonholonomic particle: Bloch § 5.8), and with a witness (the point and the
failing component) where none exists (the Chaplygin sleigh, Suslov's general problem, the
rattleback)."""
from __future__ import annotations

import re
import time

import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, models
from geonh.analysis.hamiltonization import _frame_fields, _witness, invariant_measure
from geonh.equations import chaplygin
from geonh.errors import NotFoundError
from geonh.kernel.evaluation import working_precision
from geonh.models import literature as lit


def _certificate(eqs):
    """The certificate's verdict on ``eqs`` (None: no obstruction seen), over the coordinates
    the equations show, as ``invariant_measure`` calls it."""
    X = _frame_fields(eqs)
    K = [sum((X[a][i] * eqs.u[a] for a in range(len(eqs.u))), sp.S.Zero) for i in range(eqs.space.n)]
    shown = set().union(*(sp.sympify(e).free_symbols for e in [*eqs.mass_matrix, *eqs.forcing, *K]))
    return _witness(eqs, X, tuple(v for v in eqs.space.q if v in shown))


def _particle():
    P = ConfigurationSpace("x y z")
    x, y, z = P.q
    xd, yd, zd = P.qd
    return chaplygin(MechanicalSystem(P, (xd**2 + yd**2 + zd**2) / 2, constraints=[zd - y * xd]), dependent=[z])


WITH_DENSITY = {
    "chaplygin-ball": lambda: models.get("chaplygin-ball").equations("boltzmann-hamel"),
    "routh-sphere": lambda: models.get("routh-sphere").equations("boltzmann-hamel"),
    "veselova": lambda: models.get("veselova").equations("chaplygin"),
    "suslov-aligned": lambda: lit.suslov(aligned=True).equations("boltzmann-hamel"),
    "vertical-disk": lambda: chaplygin(models.get("vertical-disk").system, models.get("vertical-disk").dependent),
    "particle": _particle,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WITH_DENSITY))
@pytest.mark.parametrize("digits", [30, 60, 120])
def test_the_certificate_never_says_no_where_a_density_exists(name, digits):
    """At every working precision the certificate sees no obstruction on systems whose density
    is known (and invariant_measure finds it: tests/analysis/test_hamiltonization.py,
    tests/models/test_literature.py)."""
    eqs = WITH_DENSITY[name]()
    with working_precision(digits):
        assert _certificate(eqs) is None


@pytest.mark.parametrize("name, what", [("chaplygin-sleigh", "X_1"), ("differential-drive", "X_1")])
def test_the_certificate_says_no_with_a_witness(name, what):
    model = models.get(name)
    eqs = chaplygin(model.system, model.dependent) if name == "chaplygin-sleigh" else model.equations("boltzmann-hamel")
    verdict = _certificate(eqs)
    assert verdict is not None and verdict.startswith("no invariant measure of the ansatz ρ(q)")
    assert what in verdict and " at " in verdict and "theta = " in verdict


@pytest.mark.slow
def test_suslov_general_has_a_closedness_witness():
    """Suslov's problem with I₁₃, I₂₃ ≠ 0 (Kozlov 1988): ∇log ρ is not closed."""
    verdict = _certificate(models.get("suslov").equations("boltzmann-hamel"))
    assert verdict is not None and "closedness condition fails" in verdict


@pytest.mark.slow
def test_the_rattleback_gets_a_verdict_in_bounded_time():
    """The rattleback (Garcia & Hubbard 1988): "no invariant measure of the ansatz ρ(q)" with
    the closedness witness, in seconds (the symbolic route alone runs past ten minutes); the
    witness value is far above round-off."""
    eqs = models.get("rattleback").equations("boltzmann-hamel")
    start = time.process_time()
    with pytest.raises(NotFoundError, match="no invariant measure of the ansatz") as info:
        invariant_measure(eqs)
    assert time.process_time() - start < 60
    msg = str(info.value)
    assert "closedness condition fails" in msg and "theta = " in msg
    value = float(re.search(r"= (-?[0-9.e+-]+) ≠ 0", msg).group(1))
    assert abs(value) > 1e-3


def test_numeric_check_off_gives_the_symbolic_answer():
    """The certificate only adds a verdict: with and without it the particle's density is the same."""
    eqs = _particle()
    assert invariant_measure(eqs).density == invariant_measure(eqs, numeric_check=False).density
