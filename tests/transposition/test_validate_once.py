"""Validate once (issue 22, part 1): the adaptedness verdict is the zero test A·C[:, adm] = 0,
which agrees with the rank criterion rank [A; θ^{m+1..n}] = r on random frames and
constraints; a frame given in the same closed form twice is checked for duality once; a
MechanicalSystem decides the independence of its constraints once; wrong inputs are still
refused with the same errors."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import DependentFieldsError, NotAdaptedError, NotPositiveDefiniteError, RankError
from geonh.kernel import distributions, frames
from geonh.kernel.distributions import Codistribution
from geonh.kernel.forms import OneForm
from geonh.kernel.frames import Frame
from geonh.kernel.generic_point import generic_rank
from geonh.kernel.space import ConfigurationSpace
from geonh.models import kinematic
from geonh.systems.mechanical import MechanicalSystem
from geonh.testing import strategies as gst
from geonh.testing.constrained import constrained_settings
from geonh.transposition import adapted
from geonh.transposition.adapted import check_adapted, voronets_frame


def rank_criterion(cod: Codistribution, frame: Frame) -> bool:
    """The old verdict (Hamel 1924, eqs. (20), (21)): θ^{m+1..n} span the constraints."""
    S = cod.space
    r = cod.rank
    m = S.n - r
    return generic_rank(cod.matrix().col_join(frame.B[m:S.n, :])) == r


def adapted_verdict(cod, frame) -> bool:
    try:
        check_adapted(cod, frame)
    except NotAdaptedError:
        return False
    return True


@pytest.mark.slow
@settings(deadline=None, max_examples=12)
@given(st.data())
def test_adaptedness_of_random_frames_agrees_with_the_rank_criterion(data):
    """Random frames (trig/polynomial, exact inverse) and constraints made of r of their own
    coframe rows mixed by an invertible matrix: adapted exactly when the rows are the last r."""
    S = data.draw(gst.configuration_spaces(2, 4))
    F = data.draw(gst.frames(S))
    n = S.dim
    r = data.draw(st.integers(1, n - 1))
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=r, max_size=r, unique=True))
    mix = data.draw(gst.invertible_matrices(S, size=r, zero_probability=0.6))
    Br = mix * F.B.extract(rows, list(range(n)))
    cod = Codistribution([OneForm(S, list(Br[k, :])) for k in range(r)], S)
    verdict = adapted_verdict(cod, F)
    assert verdict == (set(rows) == set(range(n - r, n)))
    assert verdict == rank_criterion(cod, F)


@pytest.mark.slow
@settings(deadline=None, max_examples=12)
@given(constrained_settings(min_n=2, max_n=4, rheonomic=None), st.data())
def test_reordered_voronets_frames_agree_with_the_rank_criterion(setting, data):
    """Random (also rheonomic) constraints; their Voronets frame with the true fields
    permuted: the zero test and the rank criterion give the same verdict."""
    cod = setting.constraints
    S = cod.space
    V = voronets_frame(cod)
    order = data.draw(st.permutations(list(range(S.n)))) + list(range(S.n, S.dim))
    F = Frame([V.fields[a] for a in order], coframe=[V.coframe[a] for a in order])
    m = S.n - cod.rank
    verdict = adapted_verdict(cod, F)
    assert verdict == (set(order[:m]) == set(range(m)))
    assert verdict == rank_criterion(cod, F)


def test_a_rheonomic_frame_without_dt_last_is_refused():
    St = ConfigurationSpace("x y", time=True)
    x, y = St.q
    cod = Codistribution.from_constraints(St, [St.qd[1] - x])
    V = voronets_frame(cod)
    # the time field and a true field swapped: the last coframe form is not dt
    order = [2, 1, 0]
    F = Frame([V.fields[a] for a in order], coframe=[V.coframe[a] for a in order])
    with pytest.raises(NotAdaptedError, match="must be dt"):
        check_adapted(cod, F)


def count_calls(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counting(*args, **kw):
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_a_closed_form_frame_is_checked_for_duality_once(monkeypatch):
    """The same fields and coframe given again (n_trailer builds them afresh each call): the
    duality verdict carried by the pair of matrices is not decided again."""
    calls = count_calls(monkeypatch, frames, "all_zero")
    frames._DUAL.clear()
    first = kinematic.n_trailer(3).frame
    again = kinematic.n_trailer(3).frame
    assert len(calls) == 1
    assert first is not again and first.B == again.B


@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(st.data())
def test_a_coframe_that_is_not_dual_is_refused(data):
    """Random frames, their coframe with two rows swapped or a row scaled: refused as before,
    also when the true pair was decided (and carried) first."""
    S = data.draw(gst.configuration_spaces(2, 4))
    F = data.draw(gst.frames(S))
    n = S.dim
    coframe = list(F.coframe)
    assert Frame(list(F.fields), coframe=coframe).B == F.B      # dual: accepted (and carried)
    if data.draw(st.booleans()):
        i, j = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        coframe[i], coframe[j] = coframe[j], coframe[i]
    else:
        i = data.draw(st.integers(0, n - 1))
        coframe[i] = OneForm(S, [2 * e for e in coframe[i].covector])
    with pytest.raises(DependentFieldsError, match="not dual"):
        Frame(list(F.fields), coframe=coframe)


@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(st.data())
def test_a_dependent_frame_is_refused(data):
    S = data.draw(gst.configuration_spaces(2, 4))
    F = data.draw(gst.frames(S))
    fields = list(F.fields)
    i, j = data.draw(st.lists(st.integers(0, S.dim - 1), min_size=2, max_size=2, unique=True))
    f = data.draw(gst.functions(S))
    fields[i] = f * fields[j]
    with pytest.raises(DependentFieldsError):
        Frame(fields)
    with pytest.raises(DependentFieldsError, match="not dual"):
        Frame(fields, coframe=list(F.coframe))


def test_the_system_decides_independence_of_its_constraints_once(monkeypatch):
    calls = count_calls(monkeypatch, distributions, "independent_rows")
    S = kinematic.n_trailer(2).space
    x, y, th0, th1, th2 = S.q
    xd, yd, *_ = S.qd
    T = (xd ** 2 + yd ** 2 + sum(v ** 2 for v in S.qd[2:])) / 2
    sys_ = MechanicalSystem(S, T, constraints=[sp.sin(th0) * xd - sp.cos(th0) * yd])
    assert sys_.n_constraints == 1
    assert len(calls) == 1
    # with a holonomic constraint the codistribution grows: decided for the larger set
    calls.clear()
    MechanicalSystem(S, T, constraints=[sp.sin(th0) * xd - sp.cos(th0) * yd], holonomic=[th1 - th2])
    assert len(calls) == 2


@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(constrained_settings(min_n=2, max_n=4, rheonomic=False), st.data())
def test_dependent_constraints_are_refused(setting, data):
    """A random setting's constraints plus a combination of them: RankError, as before."""
    S = setting.space
    forms = list(setting.constraints.forms)
    f = data.draw(gst.functions(S))
    rows = [list(w.covector) for w in forms]
    combo = [f * a for a in rows[0]]
    if len(rows) > 1:
        combo = [c + b for c, b in zip(combo, rows[-1])]
    qd = sp.Matrix(S.qd)
    exprs = [(sp.Matrix([row]) * qd)[0] for row in rows + [combo]]
    T = sum(v ** 2 for v in S.qd) / 2
    with pytest.raises(RankError, match="dependent"):
        MechanicalSystem(S, T, constraints=exprs)
    with pytest.raises(RankError, match="dependent"):
        MechanicalSystem(S, T, constraints=Codistribution(
            [OneForm(S, r) for r in rows + [combo]], S))


@pytest.mark.slow
@settings(deadline=None, max_examples=6)
@given(gst.configuration_spaces(2, 3), st.data())
def test_a_kinetic_energy_that_is_not_positive_definite_is_refused(S, data):
    """T = ½ q̇ᵀ Pᵀ D P q̇ with P invertible everywhere (random functions) and D diagonal with
    one entry ≤ 0: indefinite or semidefinite everywhere, refused as before."""
    P = data.draw(gst.invertible_matrices(S, zero_probability=0.5))
    n = S.dim
    bad = data.draw(st.integers(0, n - 1))
    d = [sp.S.One] * n
    d[bad] = data.draw(st.sampled_from([sp.S.Zero, sp.S.NegativeOne, -sp.Rational(1, 3)]))
    v = P * sp.Matrix(S.qd)
    T = sum(d[i] * v[i] ** 2 for i in range(n)) / 2
    with pytest.raises(NotPositiveDefiniteError):
        MechanicalSystem(S, T)
    assert MechanicalSystem(S, sum(v[i] ** 2 for i in range(n)) / 2).n == n


def test_the_adaptedness_decision_is_one_zero_test(monkeypatch):
    """The cheap path: one product_is_zero on the r × m block, no generic rank."""
    calls = count_calls(monkeypatch, adapted, "product_is_zero")
    K = kinematic.n_trailer(2)
    S = K.space
    x, y, th0, th1, th2 = S.q
    cod = Codistribution([K.frame.coframe[a] for a in range(2, 5)], S)
    assert check_adapted(cod, K.frame) == 2
    assert [(A.shape, X.shape) for A, X in calls] == [((3, 5), (5, 2))]
    assert not hasattr(adapted, "generic_rank")
