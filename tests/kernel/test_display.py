"""Display: LaTeX with dot accents, MathML, the _repr_latex_ hooks, bounded simplification."""
import time

import sympy as sp

from geonh import ConfigurationSpace, models
from geonh.kernel import display
from geonh.transposition import ConstrainedSetting


def sleigh():
    return models.get("chaplygin-sleigh")


def test_sleigh_equations_latex_has_dot_accents_and_balanced_braces():
    eqs = sleigh().equations()
    for tex in (display.equations_latex(eqs), eqs._repr_latex_()):
        assert display.balanced(tex)
        for acc in (r"\dot{v}", r"\dot{w}", r"\dot{x}", r"\dot{y}", r"\dot{\theta}"):
            assert acc in tex, acc
        assert "_{dot}" not in tex and "dot}}" not in tex and "_dot" not in tex
        assert tex.count(r"\begin{aligned}") == tex.count(r"\end{aligned}") == 1
    # the simplified sleigh: m v' = a m w^2, (I + a^2 m) w' = -a m v w
    tex = display.equations_latex(eqs)
    assert r"m \dot{v} &= a m w^{2}" in tex
    assert r"\dot{w} \left(I + a^{2} m\right) &= - a m v w" in tex
    assert eqs._repr_latex_().startswith("$$") and eqs._repr_latex_().endswith("$$")


def test_lagrange_form_has_double_dots():
    tex = display.equations_latex(sleigh().equations("lagrange"))
    assert r"\ddot{x}" in tex and r"\ddot{\theta}" in tex and display.balanced(tex)


def test_symbol_accents():
    S = ConfigurationSpace("q_1 theta_R x")
    tex = display.latex(S.qd[0] + S.qdd[1] + S.qd[2] ** 2)
    assert r"\dot{q}_{1}" in tex and r"\ddot{\theta}_{R}" in tex and r"\dot{x}^{2}" in tex
    assert display.dotted_names(S.qd[0])[S.qd[0]] == r"\dot{q}_{1}"
    assert display.latex(sp.Symbol("alpha")) == r"\alpha"


def test_mathml_accents():
    S = ConfigurationSpace("theta")
    ml = display.mathml(S.qd[0] + 1)
    assert ml.startswith("<math") and ml.endswith("</math>")
    assert '<mover accent="true"><mi>&#952;</mi><mo>&#729;</mo></mover>' in ml
    assert r'<annotation encoding="application/x-tex">\dot{\theta} + 1</annotation>' in ml


def test_repr_latex_hooks():
    m = sleigh()
    for obj in (m.frame, m.system, m.equations(),
                ConstrainedSetting.from_frame(m.frame, 2, ("y",)).transposition(1)):
        tex = obj._repr_latex_()
        assert tex.startswith("$$") and display.balanced(tex), type(obj).__name__
    assert r"c^{c}_{v\,w} &= 1" in m.frame._repr_latex_()
    assert r"T &= " in m.system._repr_latex_() and r"\dot{\theta}" in m.system._repr_latex_()
    rel = ConstrainedSetting.from_frame(m.frame, 2, ("y",)).transposition(1)
    assert r"\gamma_{" in rel._repr_latex_()


def test_readable_reprs():
    m = sleigh()
    assert repr(m.frame) == "Frame([v, w, c] on ConfigurationSpace([x, y, theta]))"
    assert "VectorField" not in repr(m.frame)
    assert repr(m.equations()).startswith("Equations(boltzmann-hamel: 2 equations in ['v_dot', 'w_dot']")


def test_field_text():
    S = ConfigurationSpace("x y phi")
    R, th = sp.symbols("R theta")
    assert display.field_text([R * sp.cos(th), -1, 1], S.coords) == "R*cos(theta) ∂_x - ∂_y + ∂_phi"
    assert display.field_text([0, 0, 0], S.coords) == "0"


def test_shorten_for_display_is_bounded():
    x, y = sp.symbols("x y")
    e, ok = display.shorten_for_display(sp.sin(x) ** 2 + sp.cos(x) ** 2 + y)
    assert ok and e == y + 1
    # many angles and a root: trigsimp would run for minutes; shorten_for_display returns at once, untouched
    angles = sp.symbols("a0:6")
    big = sp.sqrt(1 - sp.sin(angles[0]) ** 2) * sum(sp.sin(a) * sp.cos(b) for a in angles for b in angles[:2])
    t0 = time.perf_counter()
    e, ok = display.shorten_for_display(big)
    assert not ok and e == big and time.perf_counter() - t0 < 1
    huge = sp.Add(*[sp.Symbol(f"s{i}") ** 2 for i in range(2500)])
    assert display.too_big(huge) and not display.too_big(x + y)
    assert "not shown" in display.system_latex(
        type("Sys", (), {"space": ConfigurationSpace("x"), "T": huge, "V": 0, "Q": (0,), "holonomic": (),
                         "n_constraints": 0})())


def test_balanced():
    assert display.balanced(r"\frac{a}{b} \{ x \}")
    assert not display.balanced(r"\frac{a}{b")
    assert not display.balanced(r"}{")
