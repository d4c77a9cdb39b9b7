"""Hamilton's principle for nonholonomic systems (seed 004 § 3; seed 000 § 3, eq. (VI))."""
import pytest
import sympy as sp

from geonh.equations import lagrange
from geonh.kernel.frames import Frame
from geonh.kernel.generic_point import is_zero
from geonh.analysis.certificate import same_motion
from geonh.equations.hamilton import hamilton_equations, naive_terms, woronetz_identity


def compare_with_direct(system, form, **kw):
    """Hamilton's principle in this form against Lagrange's equations with multipliers."""
    return same_motion(lagrange(system), hamilton_equations(system, form, **kw))
from geonh.models import mechanical
from geonh.models.seeds import linear_examples

NAMES = ["sleigh", "rolling disk", "knife edge", "skate on belt"]


@pytest.fixture(scope="module")
def examples():
    return linear_examples()


@pytest.mark.parametrize("name", [pytest.param(nm, marks=pytest.mark.slow) if nm != "knife edge" else nm
                                  for nm in NAMES])
def test_correct_forms_equal_direct_forms(examples, name):
    ms, _ = examples[name]
    r = ms.n_constraints
    for form, kw in [("general", {}), ("general", {"k": 0}), ("hamilton", {}), ("woronetz", {}), ("voronets", {})]:
        cert = compare_with_direct(ms, form, **kw)
        assert cert.same, (name, form, kw, cert)
    if r > 1:
        for k in range(r):
            assert compare_with_direct(ms, "general", k=k).same


@pytest.mark.parametrize("name", NAMES)
def test_uncorrected_principle_with_suslov_relations_is_naive_and_wrong(examples, name):
    """(3.1) with k = 0 (d, δ commute on the free coordinates only) equals the naive principle:
    the k = 0 extension V satisfies the constraints, so δT = δT̃."""
    ms, _ = examples[name]
    a = hamilton_equations(ms, "hamilton", k=0)
    b = hamilton_equations(ms, "naive")
    assert same_motion(a, b).same
    assert not compare_with_direct(ms, "hamilton", k=0).same


@pytest.mark.slow
def test_naive_wrong_on_sleigh_for_every_choice():
    ms = mechanical.chaplygin_sleigh().system
    x, y, th = ms.space.q
    for dep in ([y], [x]):
        assert not compare_with_direct(ms, "naive", dependent=dep).same
        assert not all(is_zero(t) for t in naive_terms(ms, dependent=dep))


@pytest.mark.slow
def test_naive_right_on_rolling_disk_with_x_y_dependent():
    ms = mechanical.vertical_rolling_disk().system
    x, y, th, ph = ms.space.q
    assert compare_with_direct(ms, "naive", dependent=[x, y]).same
    assert all(is_zero(t) for t in naive_terms(ms, dependent=[x, y]))
    # with (y, φ) dependent the same principle is wrong: "right" depends on the eliminated velocities
    assert not compare_with_direct(ms, "naive", dependent=[y, ph]).same


@pytest.mark.parametrize("name", NAMES)
def test_woronetz_identity(examples, name):
    ms, _ = examples[name]
    assert is_zero(woronetz_identity(ms))


def test_woronetz_printed_index_is_a_misprint():
    """Hamel prints J_{k−l} in the line before (VI); with it the identity and the equations fail."""
    ms = mechanical.chaplygin_sleigh().system
    assert not is_zero(woronetz_identity(ms, printed=True))
    assert not compare_with_direct(ms, "woronetz", printed=True).same


@pytest.mark.slow
def test_woronetz_in_a_non_voronets_frame():
    ms = mechanical.chaplygin_sleigh().system
    S = ms.space
    th = S.q[2]
    xd, yd, thd = S.qd
    from geonh.kernel.fields import VectorField
    from geonh.kernel.forms import OneForm
    c, s_ = sp.cos(th), sp.sin(th)
    C = sp.Matrix([[c, 0, -s_], [s_, 0, c], [0, 1, 0]])  # fields X_v, X_w, X_c (columns)
    F = Frame([VectorField(S, list(C[:, a])) for a in range(3)], names=["v", "w", "c"],
              coframe=[OneForm(S, list(C[:, a])) for a in range(3)])  # C is orthogonal
    assert F.quasi_velocities()[2] == -xd * s_ + yd * c
    assert same_motion(lagrange(ms), hamilton_equations(ms, "woronetz", frame=F)).same
    assert is_zero(woronetz_identity(ms, frame=F))
    assert not same_motion(lagrange(ms), hamilton_equations(ms, "naive", frame=F)).same


def test_printed_voronets_needs_affine_term(examples):
    """(3.3) is printed for homogeneous constraints; with a_j(t, q) ≠ 0 its δ must include a_j."""
    ms, _ = examples["skate on belt"]
    assert not compare_with_direct(ms, "voronets", printed=True).same
    ms2, _ = examples["sleigh"]
    assert compare_with_direct(ms2, "voronets", printed=True).same


def test_transposition_bracket_matches_kernel():
    """The k = 0 bracket of geonh.transposition equals [V, W] built from VectorFields directly."""
    from geonh.kernel.fields import VectorField
    from geonh.kernel.forms import OneForm
    from geonh.transposition import ConstrainedSetting
    ms = mechanical.chaplygin_sleigh().system
    S = ms.space
    x, y, th = S.q
    st = ConstrainedSetting.from_codistribution(ms.constraints, [y])
    tr = st.transposition(0)
    dx, dth, ex, eth = sp.symbols("dx dth ex eth")
    a = sp.tan(th)
    V = VectorField(S, [dx, a * dx, dth])
    W = VectorField(S, [ex, a * ex, eth])
    br = V.bracket(W)
    mine = tr.coordinates()
    sub = {tr.d_symbols[x]: dx, tr.d_symbols[th]: dth, tr.delta_symbols[x]: ex, tr.delta_symbols[th]: eth}
    assert all(is_zero(sp.sympify(m).xreplace(sub) - b) for m, b in zip(mine, br.components))
    assert not is_zero(br.components[1])
