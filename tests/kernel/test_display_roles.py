"""What a user reads: symbols print by their role, never by a string suffix.  A coordinate's
velocity prints with a dot, a rate of a rate with a double dot (the Voronets, Chaplygin and
Neimark–Fufaev speeds are the q̇ themselves, so their rates are q̈ — on main ``\\dot{x}_{dot}``
in LaTeX, MathML and Jupyter), a quasi-velocity by its own name with a dot for its rate."""
import pytest
import sympy as sp

import geonh as g
from geonh import ConfigurationSpace, models
from geonh.kernel import display
from geonh.transposition import ConstrainedSetting, voronets_frame

DOT_FORMS = ("voronets", "chaplygin", "neimark-fufaev")


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


@pytest.mark.slow
@pytest.mark.parametrize("form", DOT_FORMS)
def test_rates_of_coordinate_velocities_print_as_double_dots(sleigh, form):
    eqs = g.derive(form, sleigh.system, dependent=sleigh.dependent)
    assert [s.name for s in eqs.ud] == ["x_dot_dot", "theta_dot_dot"]    # names as they were
    texts = [display.equations_latex(eqs), eqs._repr_latex_(), eqs.latex(), display.latex(sp.Matrix(eqs.ud))]
    for tex in texts:
        assert "_{dot}" not in tex and "dot}_" not in tex, tex
        assert r"\ddot{x}" in tex and r"\ddot{\theta}" in tex, tex
        assert display.balanced(tex)
    assert r"\dot{\theta}" in display.equations_latex(eqs)                 # the velocities: one dot
    ml = display.mathml(eqs.ud[0] + eqs.u[0])
    assert '<mover accent="true"><mi>x</mi><mo>&#168;</mo></mover>' in ml      # ẍ
    assert '<mover accent="true"><mi>x</mi><mo>&#729;</mo></mover>' in ml      # ẋ
    assert "dot" not in ml.split("<annotation")[0]


def test_role_not_name_decides(sleigh):
    """A quasi-velocity keeps its own name (w = θ̇ in the sleigh's frame prints as w, its rate as
    ẇ); a symbol that merely ends in _dot is no rate and prints as sympy prints it."""
    bh = sleigh.equations()
    tex = display.equations_latex(bh)
    assert r"\dot{v}" in tex and r"\dot{w}" in tex and r"\dot{\theta} &= w" in tex
    stray = sp.Symbol("zz_dot")
    assert display.latex(stray) == sp.latex(stray) == "zz_{dot}"
    assert display.rate_role(stray) is None
    S = ConfigurationSpace("q_1 theta_R")
    assert display.rate_role(S.qdd[1]) == (S.q[1], 2)
    assert display.latex(S.qdd[1]) == r"\ddot{\theta}_{R}"


def test_frame_and_relation_names_follow_roles(sleigh):
    """The Voronets frame's quasi-velocities ``x_dot``, ``theta_dot`` are the coordinate
    velocities: their names print as ẋ, θ̇ in the frame, its brackets and the relations."""
    fr = voronets_frame(sleigh.system, sleigh.dependent)
    assert fr.names[0] == "x_dot"
    for tex in (display.frame_latex(fr), fr._repr_latex_(), display.structure_latex(fr)):
        assert "_{dot}" not in tex and display.balanced(tex)
    assert r"\dot{x}" in display.frame_latex(fr)
    rel = ConstrainedSetting.from_frame(fr, 2, ("y",)).transposition(0)
    assert "_{dot}" not in rel._repr_latex_()
    assert r"c^{c}_{v\,w} &= 1" in sleigh.frame._repr_latex_()     # own names stay
