"""Notebook display of the objects a user touches (issue 23.3): _repr_latex_/_repr_html_, short
reprs, the one size-bounded tidying step, typeset relations, Voronets without trivial rows."""
import time

import sympy as sp

import geonh as g
from geonh import ConfigurationSpace, Frame, VectorField, models
from geonh.kernel import display


def _rotation_identity():
    """(RᵀR)₀₀·(RᵀR)₁₁ + (RᵀR)₂₂ − 1 over 1 + (RᵀR)₂₂(RᵀR)₀₀ − 1, expanded: over 300
    operations for the constant 1 (a ZXZ Euler rotation)."""
    a, b, c = sp.symbols("a b c")

    def rz(t):
        return sp.Matrix([[sp.cos(t), -sp.sin(t), 0], [sp.sin(t), sp.cos(t), 0], [0, 0, 1]])

    def rx(t):
        return sp.Matrix([[1, 0, 0], [0, sp.cos(t), -sp.sin(t)], [0, sp.sin(t), sp.cos(t)]])
    R = rz(a) * rx(b) * rz(c)
    M = R.T * R
    return sp.expand(M[0, 0] * M[1, 1] + M[2, 2] - 1) / (1 + sp.expand(M[2, 2] * M[0, 0]) - 1)


def test_tidy_step_pythagoras_and_fractions():
    q1, th = sp.symbols("q1 theta")
    assert display.for_display(sp.sin(th)**2 + sp.cos(th)**2) == 1
    assert display.for_display(4 / (4 * sp.sin(q1)**2 + 4 * sp.cos(q1)**2 + 1)) == sp.Rational(4, 5)
    e = _rotation_identity()
    assert sp.count_ops(e) > 300
    assert display.for_display(e) == 1
    M = display.for_display(sp.Matrix([[sp.sin(th)**2 + sp.cos(th)**2, q1]]))
    assert list(M) == [1, q1]


def test_tidy_step_leaves_big_expressions():
    x = sp.symbols("x0:12")
    big = sp.Add(*[sp.sin(xi) * sp.cos(xj) for xi in x for xj in x])   # 12 angles: too many
    t = time.process_time()
    out, ok = display.simplified_for_display(big)
    assert not ok and out == big and time.process_time() - t < 1.0


def _tidy_frame():
    S = ConfigurationSpace("x y theta")
    th = S.q[2]
    one = sp.sin(th)**2 + sp.cos(th)**2
    return Frame([VectorField(S, [sp.cos(th) * one, sp.sin(th), 0]), VectorField(S, [0, 0, 1]),
                  VectorField(S, [-sp.sin(th), sp.cos(th), 0])])


def test_structure_coefficients_display_tidied_raw_untouched():
    for backend in ("symengine", "sympy"):
        with g.using_backend(backend):
            c = _tidy_frame().structure_coefficients()
            raw = c[2, 0, 1]
            assert sp.count_ops(raw) > 5            # the engine's entry stays as computed
            tex = c._repr_latex_()
            assert r"\sin" not in tex and r"\cos" not in tex   # displayed as -1, 1, 0
            assert sp.latex(c) == sp.latex(display.for_display(c))
            assert "sin" not in sp.pretty(c)
            out = []
            c._repr_pretty_(type("P", (), {"text": lambda self, t: out.append(t)})(), False)
            assert "sin" not in out[0] and "sin" in str(c)     # str stays as computed
            assert c[2, 0, 1] == raw


def test_field_form_distribution_latex():
    S = ConfigurationSpace("x y theta")
    th = S.q[2]
    X = VectorField(S, [sp.cos(th), sp.sin(th), sp.sin(th)**2 + sp.cos(th)**2])
    tex = X._repr_latex_()
    assert tex.startswith("$") and r"\partial_{\theta}" in tex and r"\partial_{x}" in tex
    assert r"\left(" not in tex.split(r"\partial_{y}")[1]    # the tidied 1 · ∂_θ prints as ∂_θ
    w = g.differential(S, sp.sin(th))
    assert r"\cos{\left(\theta \right)}\, d\theta" in w._repr_latex_()
    D = g.Distribution([X, VectorField(S, [0, 0, 1])])
    assert r"\operatorname{span}" in D._repr_latex_()
    assert r"\operatorname{span}" in D.annihilator()._repr_latex_() and "d" in D.annihilator()._repr_latex_()


def test_short_reprs_bounded():
    S = ConfigurationSpace("x y theta")
    big = sp.Add(*[sp.sin(S.q[2])**k for k in range(200)])
    assert len(repr(VectorField(S, [big, 0, 0]))) <= 300
    assert len(repr(g.differential(S, big))) <= 300


def test_certificate_repr_and_html():
    sleigh = models.get("chaplygin-sleigh")
    cert = g.same_motion(g.lagrange(sleigh.system), g.derive("voronets", sleigh.system, dependent=sleigh.dependent))
    r = repr(cert)
    assert "Certificate(same=True" in r
    for tok in r.replace(",", " ").replace("[", " ").replace("]", " ").replace("=", " ").split():
        digits = [ch for ch in tok.split("e")[0] if ch.isdigit()]
        assert len(digits) <= 7, tok                # 6 significant digits, never 60
    html = cert._repr_html_()
    assert html.startswith("<table>") and "same motion" in html


def test_voronets_display_drops_trivial_rows():
    sleigh = models.get("chaplygin-sleigh")
    vo = g.derive("voronets", sleigh.system, dependent=sleigh.dependent)
    tex = vo._repr_latex_()
    assert r"\dot{x} &= \dot{x}" not in tex and r"\dot{\theta} &= \dot{\theta}" not in tex
    assert r"\dot{y} &= \dot{x} \tan" in tex     # the non-trivial kinematic row stays


def test_relations_typeset():
    from geonh.app import workbench
    rel = workbench.relations(models.get("rolling-disk"), 1)["relations"]
    tex = rel._repr_latex_()
    assert "dtheta" not in tex and "δ" not in tex and "π" not in tex
    assert r"d\theta\,\delta x" in tex and r"\pi_{1}" in tex
    assert display.balanced(tex)


def test_name_latex_unicode():
    assert display.name_latex("π1") == r"\pi_{1}"
    assert display.name_latex("δx") == r"\delta x"
    assert display.name_latex("Ωz") == r"\Omega z"
    assert display.latex(sp.Symbol("π2") + 1) == r"\pi_{2} + 1"


def _digits_ok(text: str) -> bool:
    """No number in ``text`` has more than 6 significant digits."""
    import re
    return all(len(m.group(0).lstrip("0").replace(".", "").lstrip("0")) <= 6
               for m in re.finditer(r"\d+\.\d+|\d{7,}", text))


def test_linearization_repr_short():
    disk = models.get("tilted-disk")
    eq = disk.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0,
          "m": 2, "r": sp.Rational(1, 2), "g": 9.81, "I_d": sp.Rational(1, 8), "I_a": sp.Rational(1, 3)}
    for kw in ({}, {"exact": True}):
        lin = eq.linearize(op, ignorable="auto", **kw)
        r = repr(lin)
        assert len(r) < 1000 and r.startswith("Linearization(boltzmann-hamel")
        assert _digits_ok(r), r
        assert "state=[theta, w1, w2, w3]" in r
        tex = lin._repr_latex_()
        assert _digits_ok(tex) and r"\delta \theta" in tex


def test_trajectory_html():
    eqs = models.get("chaplygin-sleigh").equations()
    traj = g.simulate(eqs, [0, 0, 0.3, 1.0, 0.8], (0, 1), {"m": 1, "a": 0.5, "I": 0.2})
    html = traj._repr_html_()
    assert html.startswith("<table>") and "theta" in html and "→" in html


def test_voronets_rows_of_text_and_report_drop_trivial_rows():
    from geonh.app import workbench
    sleigh = models.get("chaplygin-sleigh")
    vo = g.derive("voronets", sleigh.system, dependent=sleigh.dependent)
    _, kin = workbench.equation_rows(vo)
    assert [str(v) for v, _ in kin] == ["y_dot"]


def test_sweep_result_repr_short():
    from geonh.numerics.sweep import SweepResult
    rows = tuple({"point": i, "y0_index": 0, "status": "ok", "error": None, "a": 1 / 3 + i, "x": 2 ** 0.5 * i}
                 for i in range(500))
    res = SweepResult(rows, ("a",))
    r = repr(res)
    assert len(r) < 1000 and "500 rows" in r and "0.333" not in r      # never the rows
    html = res._repr_html_()
    assert "0.333333" in html and "0.33333333" not in html and "490 more rows" in html
