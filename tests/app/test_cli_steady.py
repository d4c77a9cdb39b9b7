"""``geonh steady MODEL --generator …``: the steady motions of a symmetry with their stability
boundary and verdicts, through the entry point ``geonh.app.cli.main`` (tests/app/test_cli.py's
style), and the model-level task behind it (:func:`geonh.app.steadies.steady_report`)."""
import json
from pathlib import Path

import pytest
import sympy as sp

from geonh.app.cli import main
from geonh.app.steadies import positive_part

#: SE(2) × S¹ on the disk's (psi, theta, phi, x, y): translations, the rotation about the vertical, the spin
DISK = ["--generator", "0,0,0,1,0", "--generator", "0,0,0,0,1", "--generator", "1,0,0,-y,x",
        "--generator", "0,0,1,0,0"]
THIN = ["--param", "I_d=m*r**2/4", "--param", "I_a=m*r**2/2"]
#: SE(2) on the sleigh's (x, y, theta)
SLEIGH = ["--generator", "1,0,0", "--generator", "0,1,0", "--generator=-y,x,1"]


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_steady_thin_disk_upright_rolling_boundary(capsys):
    """The thin uniform disk (I_d = m r²/4, I_a = m r²/2) rolling upright: the family ξ = (ξ₁, 0,
    0, ξ₁/r) and its boundary 3ξ₁² − g r > 0, i.e. Ω² > g/(3R) with Ω = ξ₁/r (Neimark & Fufaev
    1972, ch. III), both zero eigenvalues explained by the family."""
    code, out, err = run(capsys, "steady", "tilted-disk", *DISK, "--at", "theta=0", *THIN)
    assert code == 0 and err == ""
    assert "family 1: xi = (xi1, 0, 0, xi1/r); parameters xi1" in out
    assert "stability boundary (spectral, 2 zero eigenvalues, 2 from the family): -g*r + 3*xi1**2 > 0" in out
    # docs/linearization.md shows this output, line for line
    page = (Path(__file__).parents[2] / "docs" / "linearization.md").read_text(encoding="utf-8")
    assert all(line in page.splitlines() for line in out.splitlines()), out


def test_steady_verdicts_along_a_parameter_and_plot(capsys, tmp_path):
    """Along ξ₁ with g = 9.81, R = 1: unstable below √(g/3) ≈ 1.808, spectrally stable above
    (±3.70837i at Ω = 3, the value docs/linearization.md gives for linearize --generator); the
    eigenvalue diagram is written as a PNG; JSON carries the same numbers."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "eig.png"
    args = ["steady", "tilted-disk", *DISK, "--at", "theta=0", *THIN, "--param", "g=9.81", "--param", "r=1"]
    code, out, _ = run(capsys, *args, "--parameter", "xi1", "--range", "1.7", "2.0", "--points", "3",
                       "--plot", str(png))
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [ln for ln in out.splitlines() if ln.startswith("  xi1 =")]
    assert [ln.split()[3] for ln in rows] == ["unstable", "spectrally", "spectrally"]
    # the formulas I_d, I_a in m, r with r given a number: the boundary in xi1 alone (ξ₁² > 3.27)
    assert "100*xi1**2 - 327 > 0" in out and f"plot written to {png}" in out
    code, out, _ = run(capsys, *args, "--at", "xi1=3", "--no-boundary", "--format", "json")
    data = json.loads(out)
    fam = data["families"][0]
    assert code == 0 and fam["verdicts"] == ["spectrally stable"] and data["plot"] is None
    assert max(abs(im) for _, im in fam["eigenvalues"][0]) == pytest.approx(3.70837, abs=1e-5)


def test_steady_sleigh_routh_hurwitz_and_formats(capsys):
    """The Chaplygin sleigh's straight motion: Routh–Hurwitz boundary ξ₁ > 0, asymptotically
    stable forwards, unstable backwards (Neimark & Fufaev 1972; Bloch 2003); LaTeX output."""
    code, out, _ = run(capsys, "steady", "chaplygin-sleigh", *SLEIGH, "--at", "xi1=1")
    assert code == 0
    assert "stability boundary (Routh-Hurwitz, 1 zero eigenvalue, 1 from the family): xi1 > 0" in out
    assert "verdict: asymptotically stable" in out
    code, out, _ = run(capsys, "--format", "json", "steady", "chaplygin-sleigh", *SLEIGH, "--at", "xi1=-1")
    fam = json.loads(out)["families"][0]
    assert code == 0 and fam["verdicts"] == ["unstable"] and fam["boundary"]["conditions"] == ["xi1"]
    assert fam["boundary"]["kind"] == "Routh-Hurwitz" and fam["parameters"] == ["xi1"]
    code, out, _ = run(capsys, "steady", "chaplygin-sleigh", *SLEIGH, "--format", "latex")
    assert code == 0 and out.splitlines() == [r"\xi^{(1)} = \left(\xi_{1}, 0, 0\right)", r"\xi_{1} > 0"]


@pytest.mark.parametrize("args, message", [
    (["vertical-disk"], "vertical-disk declares no symmetry: give its generators"),
    (["chaplygin-sleigh", *SLEIGH, "--parameter", "xi1"], "--parameter and --range go together"),
    (["chaplygin-sleigh", *SLEIGH, "--plot", "x.png"], "--plot draws the eigenvalues along --parameter"),
    (["chaplygin-sleigh", *SLEIGH, "--parameter", "xi1", "--range", "0", "1", "--plot", "x.bogus"],
     "unknown image format 'bogus'"),
    (["chaplygin-sleigh", *SLEIGH, "--param", "mass=1"], "'mass' is not a parameter of the equations"),
    (["chaplygin-sleigh", *SLEIGH, "--param", "m=__import__('os')"], "--param m"),
    (["chaplygin-sleigh", *SLEIGH, "--param", "m"], "write NAME=FORMULA"),
    (["chaplygin-sleigh", *SLEIGH, "--parameter", "nu", "--range", "0", "1"], "--parameter 'nu' is neither"),
    (["chaplygin-sleigh", "--generator", "1,0"], "chaplygin-sleigh:"),
    (["chaplygin-sleigh", "--generator", "0,0,1"], "chaplygin-sleigh:"),
    (["unicycle", "--generator", "1,0,0"], "unicycle is a kinematic model"),
    (["no-such-model", *SLEIGH], "no-such-model"),
])
def test_steady_bad_input_is_a_clear_error(capsys, args, message):
    """Bad input: exit status 2, one line on stderr naming the problem, nothing on stdout, no
    traceback; a formula is parsed, never evaluated."""
    code, out, err = run(capsys, "steady", *args)
    assert code == 2 and out == "" and "Traceback" not in err
    assert message in err, err


def test_steady_plot_without_matplotlib_is_a_clear_error(capsys, monkeypatch):
    """Without matplotlib, --plot is refused before any work with the extra to install."""
    import builtins
    real = builtins.__import__

    def no_mpl(name, *a, **kw):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **kw)
    monkeypatch.setattr(builtins, "__import__", no_mpl)
    code, out, err = run(capsys, "steady", "chaplygin-sleigh", *SLEIGH, "--parameter", "xi1", "--range", "0", "1",
                         "--plot", "eig.png")
    assert code == 2 and out == "" and "pip install 'geonh[plot]'" in err


def test_positive_part_divides_out_positive_factors():
    """Positive numbers and positive symbols' powers go, a negative number flips the sign: the
    sign of the result is that of the condition everywhere."""
    g, r = sp.symbols("g r", positive=True)
    x = sp.Symbol("xi1", real=True)
    assert positive_part(-4 * (g * r - 3 * x**2) / (5 * r**2)) == 3 * x**2 - g * r
    assert positive_part(x / (g + r)) == x
    assert positive_part(-(g + r)) == -1


def test_steady_help_and_budget(capsys):
    """`geonh --help` lists the command, `geonh steady --help` names its options without raw
    markup, and `--budget` stops its symbolic work with status 3."""
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "  steady " in out
    code, out, _ = run(capsys, "steady", "--help")
    assert code == 0 and "--generator" in out and "--plot" in out and "`" not in out
    code, out, err = run(capsys, "--budget", "0.001", "steady", "chaplygin-sleigh", *SLEIGH)
    assert code == 3 and out == "" and err.startswith("geonh: error: stopped by --budget: ")
