"""The command line, driven through its entry point ``geonh.cli.main`` (what the ``geonh``
script calls): every command with a built-in model and with a model file, and bad input."""
import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from geonh import models
from geonh.cli import main, progress
from geonh.errors import ParseError
from geonh.models import files

ROOT = Path(__file__).resolve().parents[1]
SLEIGH_FILE = str(ROOT / "examples" / "models" / "chaplygin_sleigh.toml")
CART_FILE = str(ROOT / "examples" / "models" / "pendulum_cart.toml")


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- list, forms, version, help ------------------------------------------------------------------
def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == models.names()
    assert all(ln.split()[1] == models.kind(ln.split()[0]) for ln in lines)
    assert {"kinematic", "mechanical", "seed"} == {ln.split()[1] for ln in lines}


def test_list_json_and_global_format(capsys):
    code, out, _ = run(capsys, "--format", "json", "list")
    assert code == 0
    data = json.loads(out)
    assert {d["name"] for d in data} == set(models.names())
    assert all(d["description"] for d in data)


def test_forms(capsys):
    code, out, _ = run(capsys, "forms")
    assert code == 0
    assert out.splitlines()[0].split()[:2] == ["lagrange", "independent"]
    assert "boltzmann-hamel" in out and "engine" in out
    code, out, _ = run(capsys, "forms", "--format", "json")
    assert {"lagrange", "kane", "voronets"} <= {d["name"] for d in json.loads(out)}


def test_version_and_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("geonh ")
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for cmd in ("list", "show", "relations", "equations", "forms", "certify", "simulate", "linearize", "report"):
        assert f"  {cmd} " in out
    assert "`" not in out  # no raw reST markup in the help


def test_usage_errors_exit_2(capsys):
    assert run(capsys, "show")[0] == 2
    assert run(capsys, "no-such-command")[0] == 2
    assert run(capsys, "list", "--format", "yaml")[0] == 2
    assert run(capsys)[0] == 2  # no command: usage


# -- show ---------------------------------------------------------------------------------------------
def test_show_rolling_disk(capsys):
    code, out, _ = run(capsys, "show", "rolling-disk")
    assert code == 0
    assert out.startswith("rolling-disk: vertical disk rolling without slipping")
    assert "coordinates: x, y, theta, phi" in out
    assert "c_x = -R*phi_dot*cos(theta) + x_dot" in out
    assert "X_w_phi = R*cos(theta) ∂_x + R*sin(theta) ∂_y + ∂_phi" in out
    # [X_θ, X_φ] = −R sin θ ∂x + R cos θ ∂y = −R sin θ X_cx + R cos θ X_cy
    assert "c^c_x_(w_theta,w_phi) = -R*sin(theta)" in out
    assert "c^c_y_(w_theta,w_phi) = R*cos(theta)" in out
    assert sum(line.startswith("  c^") for line in out.splitlines()) == 2
    assert "growth vector of the admissible distribution: (2, 3, 4)" in out
    assert "not integrable (nonholonomic)" in out and "bracket generating" in out


def test_show_rigid_body(capsys):
    code, out, _ = run(capsys, "show", "rigid-body")
    assert code == 0
    assert "c^Omega3_(Omega1,Omega2) = 1" in out
    assert "c^Omega2_(Omega1,Omega3) = -1" in out
    assert "c^Omega1_(Omega2,Omega3) = 1" in out
    assert "constraints: none" in out


def test_show_mechanical_model(capsys):
    code, out, _ = run(capsys, "show", "chaplygin-sleigh")
    assert code == 0
    assert "kinetic energy T = " in out
    assert "c^c_(v,w) = 1" in out and "c^v_(w,c) = 1" in out
    assert "growth vector of the admissible distribution: (2, 3)" in out


def test_show_model_file_matches_builtin(capsys):
    code, out, err = run(capsys, "show", SLEIGH_FILE)
    assert code == 0, err
    assert out.startswith("sleigh-file: Chaplygin sleigh")
    assert "c^c_(v,w) = 1" in out and "c^v_(w,c) = 1" in out
    assert "growth vector of the admissible distribution: (2, 3)" in out


def test_show_file_without_frame_and_formats(capsys):
    code, out, _ = run(capsys, "show", CART_FILE)  # no constraints, no frame: the coordinate frame
    assert code == 0 and "potential V = " in out and "(all zero)" in out
    code, out, _ = run(capsys, "show", "chaplygin-sleigh", "--format", "json")
    data = json.loads(out)
    assert data["growth_vector"] == [2, 3] and data["kind"] == "mechanical"
    assert {"d": "c", "a": "v", "b": "w", "value": "1"} in data["structure_coefficients"]
    code, out, _ = run(capsys, "show", "chaplygin-sleigh", "--format", "latex")
    assert code == 0 and r"\dot{\theta}" in out and r"c^{c}_{v\,w}" in out


def test_show_seed(capsys):
    code, out, _ = run(capsys, "show", "aumann-3.1")
    assert code == 0 and "holonomic" in out


def test_unknown_model_exit_code_2(capsys):
    code, out, err = run(capsys, "show", "no-such-model")
    assert code == 2
    assert out == ""
    assert "unknown model 'no-such-model'" in err and "rolling-disk" in err


# -- relations, equations, certify ------------------------------------------------------------------------
def test_relations(capsys):
    code, out, _ = run(capsys, "relations", "rolling-disk", "--k", "0")
    assert code == 0 and "k = 0 (Suslov)" in out
    assert "y: (dtheta*δx - dx*δtheta)/cos(theta)**2" in out
    code, out, _ = run(capsys, "relations", SLEIGH_FILE, "--format", "json")
    data = json.loads(out)
    assert data["k"] == 1 and data["rho"] == ["y"]
    assert run(capsys, "relations", "rolling-disk", "--k", "5")[0] == 2


def test_equations(capsys):
    code, out, _ = run(capsys, "equations", "chaplygin-sleigh")
    assert code == 0
    assert "m*v_dot = a*m*w**2" in out
    assert "w_dot*(I + a**2*m) = -a*m*v*w" in out
    assert "theta_dot = w" in out
    code, out, _ = run(capsys, "equations", "chaplygin-sleigh", "--latex")
    assert code == 0 and r"\dot{v}" in out and "_{dot}" not in out
    code, out, _ = run(capsys, "equations", SLEIGH_FILE, "--form", "kane", "--format", "json")
    data = json.loads(out)
    assert data["form"] == "kane" and data["unknowns"] == ["v_dot", "w_dot"]


def test_equations_bad_form_and_kinematic_model(capsys):
    code, _, err = run(capsys, "equations", "chaplygin-sleigh", "--form", "no-such-form")
    assert code == 2 and "unknown form 'no-such-form'" in err and "lagrange" in err
    code, _, err = run(capsys, "equations", "unicycle")
    assert code == 2 and "kinematic model" in err


def test_certify(capsys):
    code, out, _ = run(capsys, "certify", "chaplygin-sleigh")
    assert code == 0
    assert "verdict: all forms describe the same motion" in out
    assert "kane" in out and "voronets" in out
    code, out, _ = run(capsys, "certify", SLEIGH_FILE, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["all_same"] and "gibbs-appell" in data["forms"]


# -- simulate, linearize, report ------------------------------------------------------------------------------------
def test_simulate(capsys, tmp_path):
    png = tmp_path / "sleigh.png"
    code, out, _ = run(capsys, "simulate", "chaplygin-sleigh", "--t", "2", "--points", "21",
                       "--param", "a=0.5", "--init", "v=1", "--plot", str(png))
    assert code == 0
    assert "Trajectory(boltzmann-hamel: 21 times in [0, 2]" in out
    assert "parameters set to 1" in out and "energy T + V" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_model_file(capsys):
    code, out, _ = run(capsys, "simulate", SLEIGH_FILE, "--t", "1", "--points", "11", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["columns"][:4] == ["t", "x", "y", "theta"]
    assert data["y"][3][0] == 1.0  # v = 1 from the file's [initial]
    assert not any("parameters set to 1" in n for n in data["notes"])  # [values] used
    assert max(abs(e - data["energy"][0]) for e in data["energy"]) < 1e-8


def test_simulate_bad_options(capsys):
    code, _, err = run(capsys, "simulate", "chaplygin-sleigh", "--param", "nosuch=1")
    assert code == 2 and "not a parameter" in err
    code, _, err = run(capsys, "simulate", "chaplygin-sleigh", "--init", "v=__import__('os')")
    assert code == 2 and "not allowed" in err
    code, _, err = run(capsys, "simulate", "chaplygin-sleigh", "--t", "-1")
    assert code == 2


def test_linearize_model_file(capsys, tmp_path):
    # pendulum on a cart: hanging down, two imaginary eigenvalues ±i sqrt(g (M + m)/(M l))
    code, out, _ = run(capsys, "linearize", CART_FILE, "--format", "json")
    assert code == 0
    data = json.loads(out)
    ims = sorted(abs(im) for re, im in data["eigenvalues"])
    assert ims[-1] == pytest.approx((9.81 * 3 / 2) ** 0.5, rel=1e-9)
    png = tmp_path / "eig.png"
    code, out, _ = run(capsys, "linearize", CART_FILE, "--at", "phi=pi", "--sweep", "g=1:4:2", "--plot", str(png))
    assert code == 0 and "g =        4" in out and png.exists()


def test_linearize_builtin(capsys):
    code, out, _ = run(capsys, "linearize", "chaplygin-sleigh", "--at", "v=1", "--at", "w=0")
    assert code == 0 and "eigenvalues:" in out
    code, _, err = run(capsys, "linearize", "chaplygin-sleigh", "--speed", "5")
    assert code == 2 and "whipple-bicycle" in err
    code, _, err = run(capsys, "linearize", "chaplygin-sleigh", "--sweep", "a=1:2")
    assert code == 2 and "START:STOP:COUNT" in err


def test_report(capsys, tmp_path):
    page = tmp_path / "report.html"
    code, out, _ = run(capsys, "report", "chaplygin-sleigh", "-o", str(page), "--t", "2")
    assert code == 0 and "written to" in out
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    # the equations, as MathML with their LaTeX: m v̇ = a m w², (I + a² m) ẇ = −a m v w
    assert "<math" in text and "<mover" in text
    assert r"m \dot{v} = a m w^{2}" in text
    assert r"\dot{w} \left(I + a^{2} m\right) = - a m v w" in text
    assert "same motion" in text  # the certificate
    assert text.count('src="data:image/png;base64,') >= 2  # growth vector and simulation, embedded
    assert "<script" not in text and "http://" not in text.replace("http://www.w3.org/1998/Math/MathML", "")


def test_report_model_file(capsys, tmp_path):
    page = tmp_path / "r.html"
    code, _, _ = run(capsys, "report", SLEIGH_FILE, "-o", str(page), "--t", "1", "--no-certify")
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert "sleigh-file" in text and "data:image/png;base64," in text and "Certificate" not in text


# -- model files: good and bad ---------------------------------------------------------------------------------------
GOOD = """
coordinates = ["x", "phi"]
[parameters]
m = ["positive"]
k = "positive"
[dynamics]
kinetic_energy = "m/2*(x_dot**2 + phi_dot**2)"
potential = "k/2*x**2"
"""


def _write(tmp_path, text, name="model.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_good_model_file_every_command(capsys, tmp_path):
    path = _write(tmp_path, GOOD)
    for args in (["show", path], ["equations", path], ["equations", path, "--form", "lagrange", "--latex"],
                 ["certify", path], ["relations", path, "--k", "0"],
                 ["simulate", path, "--t", "0.5", "--points", "3"], ["linearize", path]):
        code, out, err = run(capsys, *args)
        assert code == 0, (args, err)
        assert out


MARKER = "geonh_pwned_marker"

BAD = {
    "malicious call": (GOOD.replace('"k/2*x**2"', '''"__import__('os').system('touch {marker}')"'''),
                       ["dynamics.potential", "not allowed"]),
    "attribute access": (GOOD.replace('"k/2*x**2"', '"x.__class__"'), ["dynamics.potential", "Attribute"]),
    "lambda": (GOOD.replace('"k/2*x**2"', '"(lambda: 0)()"'), ["dynamics.potential", "not allowed"]),
    "unknown symbol": (GOOD.replace('"k/2*x**2"', '"kk/2*x**2"'), ["dynamics.potential", "unknown symbol 'kk'"]),
    "missing coordinates": (GOOD.replace('coordinates = ["x", "phi"]', ""), ["coordinates", "missing"]),
    "missing kinetic energy": (GOOD.replace('kinetic_energy = "m/2*(x_dot**2 + phi_dot**2)"', ""),
                               ["dynamics.kinetic_energy", "missing"]),
    "missing dynamics": ('coordinates = ["x"]\n', ["dynamics", "missing"]),
    "unknown key": (GOOD + 'kinetik = "1"\n', ["dynamics.kinetik", "unknown key"]),
    "bad assumption": (GOOD.replace('m = ["positive"]', 'm = ["huge"]'), ["parameters.m", "unknown assumption"]),
    "not TOML": ('coordinates = x\n', ["not valid TOML", "line 1"]),
    "not quadratic": (GOOD.replace('"m/2*(x_dot**2 + phi_dot**2)"', '"x_dot**3"'), ["[dynamics]"]),
    "number as name": (GOOD.replace('["x", "phi"]', '["1x", "phi"]'), ["coordinates[0]", "not a name"]),
    "huge exponent": (GOOD.replace('"k/2*x**2"', '"x**99999999"'), ["dynamics.potential", "too large"]),
    "boolean formula": (GOOD.replace('"k/2*x**2"', "true"), ["dynamics.potential", "not a formula"]),
    "inconsistent assumptions": (GOOD.replace('m = ["positive"]', 'm = ["positive", "negative"]'),
                                 ["parameters.m", "inconsistent assumptions"]),
    "force on no coordinate": (GOOD + 'forces = { z = "1" }\n', ["dynamics.forces.z", "not a coordinate"]),
    "nonlinear constraint": (GOOD + 'constraints = ["x_dot**2 - phi_dot"]\n', ["[dynamics]", "not linear"]),
    "dependent frame": (GOOD + '[frame]\nquasi_velocities = ["x_dot + phi_dot", "2*x_dot + 2*phi_dot"]\n',
                        ["frame.quasi_velocities", "dependent"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_model_files(capsys, tmp_path, case):
    marker = tmp_path / MARKER
    text, needles = BAD[case]
    path = _write(tmp_path, text.replace("{marker}", str(marker)))
    for cmd in ("show", "equations", "simulate"):
        code, out, err = run(capsys, cmd, path)
        assert code == 2, (cmd, out, err)
        assert out == ""
        assert err.startswith("geonh: error: ") and path in err
        for needle in needles:
            assert needle in err, (case, err)
    assert not marker.exists()  # nothing ran
    with pytest.raises(ParseError):
        files.load(path)


def test_missing_model_file(capsys, tmp_path):
    code, _, err = run(capsys, "show", str(tmp_path / "nope.toml"))
    assert code == 2 and "cannot read the model file" in err


def test_model_file_is_never_evaluated(tmp_path, monkeypatch):
    """No string of a model file reaches eval, exec or sympify."""
    import builtins

    import sympy
    import sympy.parsing.sympy_parser
    sympify_module = sys.modules["sympy.core.sympify"]
    real_sympify = sympify_module.sympify

    def boom(*a, **k):
        raise AssertionError("a model-file string reached eval/exec/parse_expr")

    def guarded(a, *args, **kw):
        if isinstance(a, str):
            raise AssertionError(f"a string reached sympify: {a!r}")
        return real_sympify(a, *args, **kw)

    text = GOOD.replace('"k/2*x**2"', '"k/2*x**2 + 0.5*sin(phi)"')
    path = _write(tmp_path, text)
    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    monkeypatch.setattr(sympy, "sympify", guarded)
    monkeypatch.setattr(sympify_module, "sympify", guarded)
    monkeypatch.setattr(sympy.parsing.sympy_parser, "parse_expr", boom)
    model = files.load(path)
    assert str(model.system.V) == "k*x**2/2 + sin(phi)/2"


# -- progress ---------------------------------------------------------------------------------------------------------
class _TTY:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_only_on_a_terminal(monkeypatch):
    import time
    for tty in (False, True):
        fake = _TTY(tty)
        monkeypatch.setattr(sys, "stderr", fake)
        with progress("testing"):
            time.sleep(1.3)
        assert ("testing" in fake.text) == tty
    fake = _TTY(True)
    monkeypatch.setattr(sys, "stderr", fake)
    with progress("quick"):
        pass
    assert fake.text == ""  # nothing for work under a second


# -- the workbench under the command: data and geonh errors, no click ------------------------------------------------
def test_workbench_returns_data_and_raises_geonh_errors():
    from geonh import workbench
    from geonh.errors import GeonhError
    assert issubclass(workbench.TaskError, GeonhError)
    with pytest.raises(workbench.TaskError, match="kinematic model"):
        workbench.equations(models.get("unicycle"))
    with pytest.raises(workbench.TaskError, match="unknown form 'nope'"):
        workbench.equations(models.get("chaplygin-sleigh"), "nope")
    with pytest.raises(GeonhError):
        workbench.load_model("no-such-model")
    seen = []

    def note(what):
        seen.append(what)
        return contextlib.nullcontext()

    rows, kinematics = workbench.equation_rows(workbench.equations(models.get("chaplygin-sleigh"), progress=note))
    assert len(rows) == 2 and len(kinematics) == 3
    assert seen == ["deriving the boltzmann-hamel equations of chaplygin-sleigh"]


# -- big models stay fast; subprocess ------------------------------------------------------------------------------
@pytest.mark.slow
def test_show_whipple_bicycle_is_bounded(capsys):
    code, out, _ = run(capsys, "show", "whipple-bicycle")
    assert code == 0
    assert "shown unsimplified" in out and "--full prints it" in out
    assert "growth vector was skipped (pass --growth" in out


@pytest.mark.slow
def test_linearize_whipple_bicycle(capsys):
    code, out, _ = run(capsys, "linearize", "whipple-bicycle", "--speed", "5", "--format", "json")
    assert code == 0
    data = json.loads(out)
    # MPRS Table 2 at v = 5 m/s: weave −0.77534188219585 ± 4.46486771378823 i
    weave = [(re, im) for re, im in data["eigenvalues"] if im > 0]
    assert weave and weave[0][0] == pytest.approx(-0.77534188219585, abs=1e-9)
    assert weave[0][1] == pytest.approx(4.46486771378823, abs=1e-9)


@pytest.mark.slow
def test_python_dash_m_and_script():
    r = subprocess.run([sys.executable, "-m", "geonh", "show", "unicycle"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "growth vector of the admissible distribution: (2, 3)" in r.stdout
    r = subprocess.run([sys.executable, "-m", "geonh", "show", "bogus"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "unknown model 'bogus'" in r.stderr
