"""The one sampler (geonh.kernel.sampling): every caller's stream is the one it always drew."""
import random

import pytest
import sympy as sp

from geonh.errors import InconsistentStateError
from geonh.kernel.sampling import (GENERIC_SPAN, STATE_SPAN, random_rational, random_values, sample_points)
from geonh.kernel.space import ConfigurationSpace
from geonh.systems.mechanical import random_state


def _old_random_rational(rng, low, high, divisor, top):
    den = rng.randint(low, high)
    return sp.Rational(rng.randint(den // divisor + 1, top * den), den)


def test_random_state_draws_the_stream_it_always_drew():
    """coordinates, then parameters by name, then ± velocities (magnitude, then sign): the
    states of every sample_state, and so of the certificates, are unchanged."""
    S = ConfigurationSpace("x y theta", time=True)
    m, k = sp.symbols("m k", positive=True)
    got = random_state(S, random.Random(17), {k, m}, [S.qd[0], S.qd[2]])
    ref = random.Random(17)
    want = {s: _old_random_rational(ref, 7, 41, 4, 2) for s in S.coords}
    for p in (k, m):
        want[p] = _old_random_rational(ref, 7, 41, 4, 2)
    for v in (S.qd[0], S.qd[2]):
        want[v] = _old_random_rational(ref, 7, 41, 4, 2) * ref.choice([-1, 1])
    assert got == want and list(got) == list(want)


def test_generic_points_are_the_points_they_always_were():
    x, y = sp.symbols("x y", real=True)
    ref = random.Random(20240601 + 2)
    want = tuple({s: _old_random_rational(ref, 11, 97, 5, 3) for s in (x, y)} for _ in range(3))
    assert sample_points([y, x], 3) == want
    # signed stream: the sign first (from the assumptions, −1 in the first draw), then the value
    xp = sp.Symbol("xp", positive=True)
    ref = random.Random(20240601 + 7919 + 2)
    want = []
    for attempt in range(4):
        pt = {}
        for s in (x, xp):
            sign = 1 if s.is_positive else (-1 if attempt == 0 else ref.choice([-1, 1]))
            pt[s] = sign * _old_random_rational(ref, 11, 97, 5, 3)
        want.append(pt)
    assert sample_points([xp, x], 4, signs=True) == tuple(want)


def test_random_values_modes():
    a, b, c = sp.symbols("a b c", real=True)
    vals = random_values(random.Random(1), [a, b], either_sign=[c], span=GENERIC_SPAN)
    assert list(vals) == [a, b, c] and vals[a] > 0 and vals[b] > 0
    assert all(sp.Rational(1, 5) < abs(v) <= 3 for v in vals.values())
    neg = random_values(random.Random(1), [a, sp.Symbol("p", positive=True)], assumed_signs=True, negative=True)
    assert neg[a] < 0 and neg[sp.Symbol("p", positive=True)] > 0
    assert random_rational(random.Random(2)) == random_rational(random.Random(2), STATE_SPAN.low_den,
                                                                 STATE_SPAN.high_den, divisor=STATE_SPAN.divisor,
                                                                 top=STATE_SPAN.top)


def test_inconsistent_conditions_are_refused():
    J, J0 = sp.symbols("J J0", positive=True)
    with pytest.raises(InconsistentStateError, match="hold at none"):
        sample_points([J], 2, conditions=(J > J0, J < J0))


def test_many_sign_conditions_are_met_outright():
    """Eight conditions p > 0 on plain symbols (sympy's tests' way of declaring parameters) hold at
    one random-sign draw in 2⁸: the sampler gives those signs outright instead of reporting the
    conditions inconsistent (an InconsistentStateError on a cart of sympy's test_kane2)."""
    syms = sp.symbols("IA J K R a b mA mB")
    pts = sample_points(syms, 11, conditions=[s > 0 for s in syms] + [sp.Symbol("c") < 0])
    assert len(pts) == 11 and all((v > 0) == (s.name != "c") for p in pts for s, v in p.items())
