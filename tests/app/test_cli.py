"""The command line, driven through its entry point ``geonh.app.cli.main`` (what the ``geonh``
script calls): every command with a built-in model and with a model file, and bad input."""
import contextlib
import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from geonh import models
from geonh.app import cli
from geonh.app.cli import main, progress
from geonh.errors import ModelFileError, ParseError
from geonh.models import files

ROOT = Path(__file__).resolve().parents[2]
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
def test_relations_write_differentials_side_by_side(capsys):
    """The text output writes each product's differentials last, side by side (dt δtheta, not
    dt*δtheta); the JSON keeps sympy's text."""
    code, out, _ = run(capsys, "relations", "skate-on-belt", "--k", "0")
    assert code == 0 and "y: (b*t dt δtheta + dtheta δx - dx δtheta)/cos(theta)**2" in out
    assert "*δ" not in out and "*d" not in out and "on the motion, dδq - δdq:" in out
    data = json.loads(run(capsys, "relations", "skate-on-belt", "--k", "0", "--format", "json")[1])
    assert data["coordinates"]["y"] == "(b*dt*t*δtheta + dtheta*δx - dx*δtheta)/cos(theta)**2"


def test_relations(capsys):
    code, out, _ = run(capsys, "relations", "rolling-disk", "--k", "0")
    assert code == 0 and "k = 0 (Suslov)" in out
    assert "y: (dtheta δx - dx δtheta)/cos(theta)**2" in out
    assert "phi: (dtheta δx - dx δtheta)*sin(theta)/(R*cos(theta)**2)" in out
    code, out, _ = run(capsys, "relations", SLEIGH_FILE, "--format", "json")
    data = json.loads(out)
    assert data["k"] == 1 and data["rho"] == ["y"]
    assert run(capsys, "relations", "rolling-disk", "--k", "0", "--format", "json")[1].count("dtheta*\\u03b4x") == 2
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


def test_linearize_relative_equilibrium(capsys):
    """--generator: the tilted disk's upright rolling in Lagrange's form, reduced by SE(2) × S¹
    (the eigenvalues of the frame form, ±3.70837i for Ω = 3, g = 9.81, a thin disk)."""
    gens = ["--generator", "0,0,0,1,0", "--generator", "0,0,0,0,1", "--generator", "1,0,0,-y,x",
            "--generator", "0,0,1,0,0"]
    pv = ["--param", "I_d=0.25", "--param", "I_a=0.5", "--param", "g=9.81"]
    code, out, _ = run(capsys, "linearize", "tilted-disk", "--form", "lagrange", *gens, "--at", "phi_dot=3", *pv,
                       "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["state"] == ["theta", "psi_dot", "theta_dot", "phi_dot"]
    assert sorted(abs(im) for re, im in data["eigenvalues"])[-1] == pytest.approx(3.70836891, rel=1e-8)
    code, _, err = run(capsys, "linearize", "tilted-disk", "--form", "lagrange", *gens, "--at", "phi_dot=3",
                       "--at", "theta_dot=1", *pv)
    assert code == 2 and "theta' = 1" in err


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
    # every documented key refuses a value of the wrong type, naming the key and the type it takes
    "name a number": ("name = 5\n" + GOOD, ["name: must be a string, not an integer (5)"]),
    "name empty": ('name = ""\n' + GOOD, ["name:", "non-empty line"]),
    "name two lines": ('name = "a\\nb"\n' + GOOD, ["name:", "printable"]),
    "description a table": ("description = {a = 1}\n" + GOOD, ["description: must be a string, not a table"]),
    "notes an array": ("notes = [1]\n" + GOOD, ["notes: must be a string, not an array"]),
    "coordinates a number": (GOOD.replace('["x", "phi"]', "5"), ["coordinates: must be an array of names, not an "
                                                               "integer"]),
    "coordinate a number": (GOOD.replace('["x", "phi"]', '["x", 7]'), ["coordinates[1]: must be a name", "integer"]),
    "time a number": ("time = 3\n" + GOOD, ["time: must be true, false or a name, not an integer (3)"]),
    "parameters an array": (GOOD.replace("[parameters]\nm = [\"positive\"]\nk = \"positive\"\n",
                                         'parameters = ["m", "k"]\n'), ["parameters: must be a table", "array"]),
    "assumption a number": (GOOD.replace('m = ["positive"]', "m = [5]"), ["parameters.m[0]: must be an assumption",
                                                                          "integer"]),
    "assumption misspelt": (GOOD.replace('m = ["positive"]', 'm = ["postive"]'),
                            ["parameters.m", "unknown assumption 'postive'", "did you mean 'positive'"]),
    "assumption not a bool": (GOOD.replace('m = ["positive"]', 'm = { positive = "yes" }'),
                              ["parameters.m.positive: must be true or false, not a string"]),
    "assumptions a number": (GOOD.replace('m = ["positive"]', "m = 1"), ["parameters.m: must be an array of "
                                                                         "assumptions", "integer"]),
    "dynamics a string": ('dynamics = "T"\n' + GOOD.split("[dynamics]")[0], ["dynamics: must be a table", "string"]),
    "kinetic energy an array": (GOOD.replace('"m/2*(x_dot**2 + phi_dot**2)"', '["m"]'),
                                ["dynamics.kinetic_energy: must be a formula", "array"]),
    "potential a date": (GOOD.replace('"k/2*x**2"', "1979-05-27"), ["dynamics.potential: must be a formula",
                                                                    "date/time"]),
    "forces a string": (GOOD + 'forces = "F"\n', ["dynamics.forces: must be a table", "string"]),
    "force misspelt": (GOOD + 'forces = { ph = "1" }\n', ["dynamics.forces.ph", "not a coordinate",
                                                           "did you mean 'phi'"]),
    "constraints a table": (GOOD + "constraints = { a = 1 }\n", ["dynamics.constraints: must be an array of "
                                                                 "formulas, not a table"]),
    "frame names a number": (GOOD + '[frame]\nquasi_velocities = ["x_dot", "phi_dot"]\nnames = 3\n',
                             ["frame.names: must be an array of names, not an integer"]),
    "frame name a parameter": (GOOD + '[frame]\nquasi_velocities = ["x_dot", "phi_dot"]\nnames = ["v", "m"]\n',
                               ["frame.names[1]: 'm' is a parameter already"]),
    "frame name a coordinate": (GOOD + '[frame]\nquasi_velocities = ["x_dot", "phi_dot"]\nnames = ["x", "w"]\n',
                                ["frame.names[0]: 'x' is a coordinate, velocity or time already"]),
    "too many dependent": (GOOD + 'constraints = ["x_dot - phi_dot"]\n[frame]\nquasi_velocities = ["x_dot", '
                                  '"x_dot - phi_dot"]\ndependent = ["phi", "x"]\n',
                           ["frame.dependent", "2 dependent coordinate(s) for constraints of rank 1"]),
    "frame a string": ('frame = "x"\n' + GOOD, ["frame: must be a table", "string"]),
    "value a string name": (GOOD + '[values]\nm = "k"\n', ["values.m", "unknown symbol 'k'"]),
    "value a bool": (GOOD + "[values]\nm = true\n", ["values.m: must be a number", "boolean"]),
    "value an array": (GOOD + "[values]\nm = [1]\n", ["values.m: must be a number", "array"]),
    "value not a parameter": (GOOD + "[values]\nkk = 1\n", ["values.kk", "not a declared parameter",
                                                              "did you mean 'k'"]),
    "value nan": (GOOD + "[values]\nm = nan\n", ["values.m", "not a finite number"]),
    "value inf": (GOOD + "[values]\nm = -inf\n", ["values.m", "not a finite number"]),
    "value beyond a float": (GOOD + "[values]\nm = 1e400\n", ["values.m", "not a finite number"]),
    "value 10**400": (GOOD + '[values]\nm = "10**400"\n', ["values.m", "floating-point size"]),
    "initial a table": ("initial = 3\n" + GOOD, ["initial: must be a table", "integer"]),
    "initial misspelt": (GOOD + "[initial]\nx_dto = 1\n", ["initial.x_dto", "did you mean 'x_dot'"]),
    "initial a string": (GOOD + '[initial]\nx = "a"\n', ["initial.x", "unknown symbol 'a'"]),
    "potential nan": (GOOD.replace('"k/2*x**2"', "nan"), ["dynamics.potential", "not a finite number"]),
    # unknown keys by name, with the closest known one
    "top key misspelt": (GOOD.replace("coordinates =", "coordinate ="), ["coordinate: unknown key",
                                                                         "did you mean 'coordinates'"]),
    "dynamics key misspelt": (GOOD.replace("potential =", "potentail ="), ["dynamics.potentail: unknown key",
                                                                           "did you mean 'potential'"]),
    "frame key misspelt": (GOOD + '[frame]\nquasi_velocity = ["x_dot"]\n', ["frame.quasi_velocity: unknown key",
                                                                              "did you mean 'quasi_velocities'"]),
    # size and nesting bounded: a clear error naming the limit, never RecursionError or MemoryError
    "nested arrays 50000 deep": (GOOD + "notes = " + "[" * 50000 + "]" * 50000 + "\n",
                                 [f"nested more than {files.MAX_DEPTH} levels"]),
    "nested tables 50000 deep": (GOOD + "notes = " + "{a = " * 50000 + "1" + "}" * 50000 + "\n",
                                 [f"nested more than {files.MAX_DEPTH} levels"]),
    "nested just too deep": (GOOD + "notes = " + "[" * (files.MAX_DEPTH + 1) + "]" * (files.MAX_DEPTH + 1) + "\n",
                             [f"nested more than {files.MAX_DEPTH} levels"]),
    "too big": (GOOD + "# " + "x" * files.MAX_BYTES + "\n", [f"larger than {files.MAX_BYTES} bytes"]),
    "value against assumption": (GOOD + "[values]\nm = -2\n", ["values.m", "positive"]),
    "zero for a positive value": (GOOD + "[values]\nm = 0.0\n", ["values.m", "positive"]),
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


def test_model_file_limits_and_kinds(capsys, tmp_path):
    """Directories, pipes and oversized files are refused before anything is read (a FIFO
    would block a read); the assumption table form is accepted; loads bounds its text too."""
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    code, _, err = run(capsys, "show", str(folder))
    assert code == 2 and "not a regular file" in err
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "show", str(fifo))
    assert code == 2 and "not a regular file" in err
    with pytest.raises(ModelFileError, match=f"at most {files.MAX_BYTES}"):
        files.loads(GOOD + "#" * files.MAX_BYTES)
    with pytest.raises(ModelFileError, match="TOML text"):
        files.loads(b"coordinates = []")
    model = files.loads(GOOD.replace('m = ["positive"]', "m = { positive = true }"))
    assert model.parameters[0].is_positive
    assert issubclass(ModelFileError, ParseError)


def test_model_file_formulas_may_span_lines():
    """A formula written as a TOML multi-line string: its line breaks and indentation are
    whitespace, a # comment ends with its line (docs/model-files.md)."""
    spread = GOOD.replace('kinetic_energy = "m/2*(x_dot**2 + phi_dot**2)"',
                          'kinetic_energy = """\n    m/2*x_dot**2    # the slider\n    + m/2*phi_dot**2\n"""')
    assert '"""' in spread
    assert sp.expand(files.loads(spread).system.T - files.loads(GOOD).system.T) == 0
    broken = GOOD.replace('potential = "k/2*x**2"', 'potential = """\n  k/2*x**2)\n  + (x\n"""')
    with pytest.raises(ModelFileError, match="unmatched"):
        files.loads(broken)


# -- output files: checked before the work, never an input, written whole or not at all ----------------------------
@pytest.fixture
def sleigh_copy(tmp_path):
    path = tmp_path / "m.toml"
    path.write_bytes(Path(SLEIGH_FILE).read_bytes())
    return path


@pytest.fixture
def no_work(monkeypatch):
    """Any computation fails the test: the output checks must come first."""
    def boom(*a, **k):
        raise AssertionError("computed before checking the output path")
    for name in ("load_model", "report_html"):
        monkeypatch.setattr(cli, name, boom)
    monkeypatch.setattr(cli.workbench, "run_simulation", boom)


@pytest.fixture
def quick_report(monkeypatch):
    """report_html returns a fixed page at once."""
    monkeypatch.setattr(cli, "report_html", lambda *a, **k: "<!DOCTYPE html><p>page</p>")


def test_report_never_overwrites_its_model_file(capsys, tmp_path, sleigh_copy, no_work):
    before = sleigh_copy.read_bytes()
    os.link(sleigh_copy, tmp_path / "hard.html")
    (tmp_path / "soft.html").symlink_to(sleigh_copy)
    (tmp_path / "sub").mkdir()
    spellings = [str(sleigh_copy), str(tmp_path / "sub" / ".." / "m.toml"), str(tmp_path / "hard.html"),
                 str(tmp_path / "soft.html")]
    for out in spellings:
        code, stdout, err = run(capsys, "report", str(sleigh_copy), "-o", out)
        assert code == 2 and stdout == ""
        assert err.startswith("geonh: error: -o/--output") and "refusing to overwrite an input" in err, err
    code, _, err = run(capsys, "simulate", str(sleigh_copy), "--plot", str(tmp_path / "hard.html"))
    assert code == 2 and "refusing to overwrite an input" in err
    assert sleigh_copy.read_bytes() == before


def test_report_relative_path_to_its_model_file(capsys, sleigh_copy, no_work, monkeypatch):
    monkeypatch.chdir(sleigh_copy.parent)
    code, _, err = run(capsys, "report", "m.toml", "-o", "./m.toml")
    assert code == 2 and "refusing to overwrite an input" in err


@pytest.mark.parametrize("where, needle", [
    ("missing/r.html", "does not exist"),
    ("folder", "is a directory"),
    ("folder/", "names a directory"),
    ("", "give a file name"),
    ("nul\0.html", "NUL"),
    ("afile/r.html", "does not exist"),
])
def test_bad_output_paths_refused_before_work(capsys, tmp_path, no_work, where, needle):
    (tmp_path / "folder").mkdir()
    (tmp_path / "afile").write_text("x")
    target = f"{tmp_path}/{where}" if where else ""
    for args in (["report", "chaplygin-sleigh", "-o", target],
                 ["simulate", "chaplygin-sleigh", "--plot", target],
                 ["linearize", "chaplygin-sleigh", "--sweep", "a=1:2:2", "--plot", target]):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "", (args, err)
        assert needle in err and "Traceback" not in err, (args, err)


def test_unwritable_output_refused_before_work(capsys, tmp_path, no_work, monkeypatch):
    """EACCES, found before the work: a read-only file, a directory without write permission
    (root may write anywhere, so os.access is what is asked, and is stubbed here)."""
    locked = tmp_path / "locked.html"
    locked.write_text("old")
    real_access = os.access
    monkeypatch.setattr(cli.os, "access", lambda p, mode: False if "locked" in str(p) else real_access(p, mode))
    code, _, err = run(capsys, "report", "chaplygin-sleigh", "-o", str(locked))
    assert code == 2 and "permission denied" in err
    (tmp_path / "lockeddir").mkdir()
    code, _, err = run(capsys, "report", "chaplygin-sleigh", "-o", str(tmp_path / "lockeddir" / "r.html"))
    assert code == 2 and "cannot create files in" in err and "permission denied" in err
    assert locked.read_text() == "old"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_directory_for_real(capsys, tmp_path, no_work):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        code, _, err = run(capsys, "report", "chaplygin-sleigh", "-o", str(d / "r.html"))
    finally:
        d.chmod(0o700)
    assert code == 2 and "permission denied" in err


def test_plot_format_and_plot_without_sweep_refused_before_work(capsys, tmp_path, no_work):
    for name, needle in (("p.xyz", "unknown image format 'xyz'"), ("p", "no extension"),
                         ("p.pgf", "unknown image format 'pgf'")):
        code, _, err = run(capsys, "simulate", "chaplygin-sleigh", "--plot", str(tmp_path / name))
        assert code == 2 and needle in err and ".png" in err, err
    code, _, err = run(capsys, "linearize", "chaplygin-sleigh", "--plot", str(tmp_path / "e.png"))
    assert code == 2 and "give --sweep" in err


def test_report_writes_atomically(capsys, tmp_path, quick_report, monkeypatch):
    out = tmp_path / "r.html"
    code, stdout, _ = run(capsys, "report", "chaplygin-sleigh", "-o", str(out))
    assert code == 0 and "written to" in stdout
    assert out.read_text() == "<!DOCTYPE html><p>page</p>"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask  # as open() would make it, not mkstemp's 0600
    out.chmod(0o640)
    out.write_text("old report")

    def full(*a):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(cli.os, "fsync", full)  # the disk fills up after the page was written out
    code, stdout, err = run(capsys, "report", "chaplygin-sleigh", "-o", str(out))
    assert code == 2 and stdout == ""
    assert err == f"geonh: error: cannot write {out}: No space left on device\n"
    assert out.read_text() == "old report"  # the old file stands, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no half-written temporary left
    monkeypatch.undo()
    monkeypatch.setattr(cli, "report_html", lambda *a, **k: "new")
    assert run(capsys, "report", "chaplygin-sleigh", "-o", str(out))[0] == 0
    assert out.read_text() == "new" and stat.S_IMODE(out.stat().st_mode) == 0o640  # the mode is kept


def test_report_through_a_symlink_replaces_the_target(capsys, tmp_path, quick_report):
    target = tmp_path / "target.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    assert run(capsys, "report", "chaplygin-sleigh", "-o", str(link))[0] == 0
    assert link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_report_to_a_full_device(capsys, quick_report):
    code, out, err = run(capsys, "report", "chaplygin-sleigh", "-o", "/dev/full")
    assert code == 2 and out == ""
    assert err == "geonh: error: cannot write /dev/full: No space left on device\n"


class _Failing:
    """A standard output whose writes fail with ``code``."""

    def __init__(self, code):
        self.code = code

    def write(self, s):
        raise OSError(self.code, os.strerror(self.code))

    def flush(self):
        pass

    def isatty(self):
        return False


@pytest.mark.parametrize("code, status, message", [
    (errno.ENOSPC, 2, "geonh: error: cannot write the output: No space left on device (ENOSPC)\n"),
    (errno.EIO, 2, "geonh: error: cannot write the output: Input/output error (EIO)\n"),
    (errno.EACCES, 2, "geonh: error: Permission denied (EACCES)\n"),
    (errno.EPIPE, cli.EXIT_PIPE, ""),  # the reader went away: quiet, like `head` expects
])
def test_failing_stdout_is_one_line_and_a_status(capsys, monkeypatch, code, status, message):
    monkeypatch.setattr(sys, "stdout", _Failing(code))
    for args in (["list"], ["show", "rolling-disk"], ["--help"], ["show", "--help"]):
        assert main(args) == status, args
        assert capsys.readouterr().err == message


def test_a_model_the_show_cannot_handle_is_bad_input(capsys, tmp_path):
    """Two constraints that fix both velocities: no free velocity, named with the model, exit 2."""
    path = _write(tmp_path, GOOD + 'constraints = ["x_dot - phi_dot", "x_dot + phi_dot"]\n', "stuck.toml")
    for cmd in ("show", "relations"):
        code, out, err = run(capsys, cmd, path)
        assert code == 2 and out == ""
        assert err.startswith("geonh: error: stuck: ") and "every coordinate is dependent" in err


def test_recursion_error_is_one_line(capsys, monkeypatch):
    def deep(*a, **k):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(cli.workbench, "show_data", deep)
    code, out, err = run(capsys, "show", "rolling-disk")
    assert code == 2 and out == ""
    assert err.startswith("geonh: error: RecursionError: ") and err.count("\n") == 1


# -- numeric options: ranges and finiteness --------------------------------------------------------------------------
@pytest.mark.parametrize("args, needle", [
    (["simulate", "chaplygin-sleigh", "--points", "0"], "--points"),
    (["simulate", "chaplygin-sleigh", "--points", "-1"], "--points"),
    (["simulate", "chaplygin-sleigh", "--points", "1"], "--points"),
    (["simulate", "chaplygin-sleigh", "--points", str(cli.MAX_POINTS + 1)], "--points"),
    (["simulate", "chaplygin-sleigh", "--t", "nan"], "not a finite number"),
    (["simulate", "chaplygin-sleigh", "--t", "inf"], "not a finite number"),
    (["simulate", "chaplygin-sleigh", "--t", "0"], "must be > 0"),
    (["simulate", "chaplygin-sleigh", "--t", "-1"], "must be > 0"),
    (["simulate", "chaplygin-sleigh", "--t", "soon"], "not a number"),
    (["simulate", "chaplygin-sleigh", "--format", "latex"], "no LaTeX output"),
    (["simulate", "chaplygin-sleigh", "--param", "a=10**400"], "too large for a floating-point number"),
    (["simulate", "chaplygin-sleigh", "--init", "v=1e400"], "too large for a floating-point number"),
    (["report", "chaplygin-sleigh", "--t", "-1"], "must be >= 0"),
    (["report", "chaplygin-sleigh", "--t", "nan"], "not a finite number"),
    (["linearize", "chaplygin-sleigh", "--at", "v=10**400"], "too large for a floating-point number"),
    (["linearize", "whipple-bicycle", "--speed", "nan"], "not a finite number"),
    (["linearize", "whipple-bicycle", "--speed", "-inf"], "not a finite number"),
    (["linearize", "chaplygin-sleigh", "--sweep", "a=nan:1:3"], "finite"),
    (["linearize", "chaplygin-sleigh", "--sweep", "a=0:1e400:3"], "finite"),
])
def test_numeric_options_refused_before_work(capsys, no_work, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "", err
    assert needle in err and "Traceback" not in err, err


def test_smallest_point_count_runs(capsys):
    code, out, _ = run(capsys, "simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "2", "--format", "json")
    assert code == 0 and len(json.loads(out)["t"]) == 2


# -- a projected initial state is a warning with its size ------------------------------------------------------------
def test_projected_initial_state_is_a_warning(capsys):
    code, out, err = run(capsys, "simulate", SLEIGH_FILE, "--form", "lagrange", "--init", "x_dot=1", "--t", "0.5",
                         "--points", "3")
    assert code == 0
    lines = err.splitlines()
    proj = [ln for ln in lines if "projected" in ln]
    assert len(proj) == 1 and proj[0].startswith("geonh: warning: the initial state is off the constraints")
    # θ = 0.3 from the file, ẋ = 1, ẏ = θ̇ = 0.5: the projection moves all three velocities
    assert "max |Δ| = 0.202 in theta_dot" in proj[0]
    assert "x_dot 1 → 1.05383" in proj[0] and "y_dot 0.5 → 0.325987" in proj[0] and "theta_dot 0.5 →" in proj[0]
    assert "x 0.3 →" not in proj[0]  # the coordinates stay
    ignored = [ln for ln in lines if "[initial]" in ln]
    assert len(ignored) == 1 and "v, w of the model file" in ignored[0] and "ignored" in ignored[0]
    assert "warning" not in out
    code, out, err = run(capsys, "simulate", SLEIGH_FILE, "--form", "lagrange", "--init", "x_dot=1", "--t", "0.5",
                         "--points", "3", "--format", "json")
    warnings = json.loads(out)["warnings"]
    assert len(warnings) == 2 and any("max |Δ| = 0.202" in w for w in warnings)


def test_consistent_initial_state_has_no_projection_warning(capsys):
    code, _, err = run(capsys, "simulate", SLEIGH_FILE, "--form", "lagrange", "--init", "x_dot=cos(0.3)",
                       "--init", "y_dot=sin(0.3)", "--t", "0.5", "--points", "3")
    assert code == 0 and "projected" not in err
    code, _, err = run(capsys, "simulate", SLEIGH_FILE, "--t", "0.5", "--points", "3")  # its own frame: no warning
    assert code == 0 and err == ""


@pytest.mark.slow
def test_report_shows_the_projection_warning():
    from geonh.app.report import report_html
    seen = []
    page = report_html(files.load(SLEIGH_FILE), certify=False, simulate_t=0.5, form="lagrange", warn=seen.append)
    assert any("projected onto them" in w for w in seen)
    assert page.count('<p class="warning">Warning: ') == len(seen) == 2


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
    from geonh.app import workbench
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


def _geonh(*args, **kw):
    return subprocess.run([sys.executable, "-m", "geonh", *args], text=True, timeout=120, **kw)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_for_real():
    """`geonh show rolling-disk > /dev/full`: exit 2, one line on stderr, no traceback; also
    for click's own help and with stderr full too (then nothing can be said, but no crash)."""
    for args in (["show", "rolling-disk"], ["--help"], ["list", "--format", "json"]):
        with open("/dev/full", "w") as full:
            r = _geonh(*args, stdout=full, stderr=subprocess.PIPE)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr == "geonh: error: cannot write the output: No space left on device (ENOSPC)\n", r.stderr
    with open("/dev/full", "w") as full:
        r = _geonh("show", "no-such-model", stdout=subprocess.PIPE, stderr=full)
    assert r.returncode == 2 and r.stdout == ""


@pytest.mark.slow
def test_closed_pipe_for_real():
    """`geonh show x | head -c1` after the reader has gone: quiet, exit 141, no traceback."""
    for args in (["show", "rolling-disk"], ["--format", "json", "simulate", "chaplygin-sleigh", "--t", "1",
                                            "--points", "20000"]):
        p = subprocess.Popen([sys.executable, "-m", "geonh", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        p.stdout.close()  # the reader goes away before geonh writes
        err = p.stderr.read()
        assert p.wait(timeout=120) == cli.EXIT_PIPE, err
        assert err == ""


@pytest.mark.slow
def test_bad_inputs_for_real_give_no_traceback(tmp_path):
    model = tmp_path / "m.toml"
    model.write_bytes(Path(SLEIGH_FILE).read_bytes())
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 50000 + "]" * 50000 + "\n")
    for args, needle in ((["report", str(model), "-o", str(model)], "refusing to overwrite an input"),
                         (["report", "rolling-disk", "-o", str(tmp_path / "no" / "r.html")], "does not exist"),
                         (["show", str(deep)], "nested more than"),
                         (["simulate", "chaplygin-sleigh", "--points", "0"], "--points")):
        r = _geonh(*args, capture_output=True)
        assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert model.read_bytes() == Path(SLEIGH_FILE).read_bytes()


BLOW_UP = """
name = "blow-up"
coordinates = ["x"]
[parameters]
m = ["positive"]
[dynamics]
kinetic_energy = "m/2*x_dot**2"
potential = "-x**4"
[values]
m = 1
[initial]
x = 1
x_dot = 2
"""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_simulate_that_stops_early_exits_1_in_every_format(capsys, tmp_path, fmt):
    """ẍ = 4x³ from x = 1 blows up before t = 5: the motion up to there is shown with the
    integrator's reason, and the exit status is 1 in text and JSON alike."""
    code, out, _ = run(capsys, "simulate", _write(tmp_path, BLOW_UP), "--t", "5", "--format", fmt)
    assert code == 1
    if fmt == "json":
        data = json.loads(out)
        assert data["success"] is False and data["t"][-1] < 5
        assert any("integrator stopped" in n for n in data["notes"])
    else:
        assert "integrator stopped" in out


# -- --budget and --progress ---------------------------------------------------------------------
@pytest.mark.parametrize("args", [["show", "whipple-bicycle"], ["certify", "chaplygin-sleigh"],
                                  ["equations", "whipple-bicycle"]])
def test_budget_stops_long_symbolic_work_with_exit_3(capsys, args):
    """geonh --budget S stops the symbolic work (geonh.budget) with status 3 and one line that
    names the step, how far it got and how to raise the budget; no traceback, no partial output."""
    code, out, err = run(capsys, "--budget", "0.001", *args)
    assert code == cli.EXIT_BUDGET, (code, err)
    assert err.startswith("geonh: error: stopped by --budget: ") and "stopped after" in err
    assert "--budget N" in err and "Traceback" not in err and err.count("\n") == 1


def test_progress_reports_steps_on_stderr_and_leaves_stdout_alone(capsys):
    code, out, err = run(capsys, "--format", "json", "--progress", "show", "3-trailer")
    assert code == 0
    json.loads(out)                                    # stdout is still the bare JSON
    assert "geonh: structure coefficients: " in err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_budget_refuses_what_is_not_a_positive_time(capsys, value):
    code, out, err = run(capsys, "--budget", value, "list")
    assert code == 2 and "--budget" in err and out == ""


def test_generous_budget_changes_nothing(capsys):
    assert run(capsys, "--budget", "600", "show", "unicycle")[:2] == run(capsys, "show", "unicycle")[:2]
