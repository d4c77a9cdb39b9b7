"""The benchmark helpers' precision is explicit (digits=, default geonh's working precision, never
mpmath's mp.dps), and the speed where the weave pair is born (issue 23, the friction list)."""
from __future__ import annotations

import mpmath
import pytest

from geonh.errors import GeonhError, InconsistentStateError
from geonh.kernel.evaluation import precision
from geonh.models.bicycle import (benchmark_matrices, capsize_speed, eigenvalues_at, state_matrix, weave_onset_speed,
                                  weave_speed, whipple_bicycle)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mats():
    model = whipple_bicycle()
    return benchmark_matrices(model.equations("boltzmann-hamel"), model=model)



def test_weave_onset_speed_of_the_benchmark_bicycle(mats):
    """Meijaard, Papadopoulos, Ruina & Schwab (2007), Proc. R. Soc. A 463, 1955–1982: the weave
    pair appears at v_d ≈ 0.684 m/s, stabilizes at v_w ≈ 4.292 m/s, capsize at v_c ≈ 6.024 m/s."""
    vd = weave_onset_speed(mats)
    assert abs(vd - mpmath.mpf("0.684")) < mpmath.mpf("5e-4")
    assert abs(weave_speed(mats) - mpmath.mpf("4.29238253634111")) < 1e-13
    assert abs(capsize_speed(mats) - mpmath.mpf("6.02426201538837")) < 1e-13
    below, above = eigenvalues_at(mats, vd - mpmath.mpf("1e-3")), eigenvalues_at(mats, vd + mpmath.mpf("1e-3"))
    assert all(mpmath.im(x) == 0 for x in below)            # four real eigenvalues below
    assert sum(1 for x in above if abs(mpmath.im(x)) > 1e-6) == 2   # a complex pair above
    with pytest.raises(InconsistentStateError, match="no real pair meets"):
        weave_onset_speed(mats, bracket=(1, 3))


def test_precision_is_geonh_s_not_mpmath_s(mats):
    """With mpmath's global precision lowered, the helpers still compute with geonh's working
    precision (the default) or with the digits asked for."""
    with mpmath.workdps(precision()):
        reference = weave_speed(mats)
    old = mpmath.mp.dps
    try:
        mpmath.mp.dps = 15
        v60 = weave_speed(mats)
        v30 = weave_speed(mats, digits=30)
        lam = eigenvalues_at(mats, 5, digits=40)
        A = state_matrix(mats, 5, digits=20)
        onset = weave_onset_speed(mats, digits=30)
        cap = capsize_speed(mats, digits=25)
    finally:
        mpmath.mp.dps = old
    with mpmath.workdps(precision()):
        assert abs(v60 - reference) < mpmath.mpf(10) ** -(precision() - 5)   # not 15 digits
        assert abs(v30 - reference) < mpmath.mpf(10) ** -25
        assert abs(onset - weave_onset_speed(mats)) < mpmath.mpf(10) ** -25
        assert abs(cap - capsize_speed(mats)) < mpmath.mpf(10) ** -20
    assert len(lam) == 4 and A.rows == 4


@pytest.mark.parametrize("digits", [0, 3, 2.5, True, "60"])
def test_digits_are_checked(mats, digits):
    with pytest.raises(GeonhError):
        weave_speed(mats, digits=digits)
