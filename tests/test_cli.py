"""The command line: geonh list / geonh show MODEL."""
import subprocess
import sys

import pytest

from geonh import models
from geonh.cli import main


def test_show_rolling_disk(capsys):
    assert main(["show", "rolling-disk"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rolling-disk: vertical disk rolling without slipping")
    assert "coordinates: x, y, theta, phi" in out
    assert "c_x = -R*phi_dot*cos(theta) + x_dot" in out
    assert "X_w_phi = VectorField((R*cos(theta))*d_x + (R*sin(theta))*d_y + (1)*d_phi)" in out
    # [X_θ, X_φ] = −R sin θ ∂x + R cos θ ∂y = −R sin θ X_cx + R cos θ X_cy
    assert "c^c_x_(w_theta,w_phi) = -R*sin(theta)" in out
    assert "c^c_y_(w_theta,w_phi) = R*cos(theta)" in out
    assert sum(line.startswith("  c^") for line in out.splitlines()) == 2
    assert "growth vector of the admissible distribution: (2, 3, 4)" in out
    assert "not integrable (nonholonomic)" in out and "bracket generating" in out


def test_show_rigid_body(capsys):
    assert main(["show", "rigid-body"]) == 0
    out = capsys.readouterr().out
    assert "c^Omega3_(Omega1,Omega2) = 1" in out
    assert "c^Omega2_(Omega1,Omega3) = -1" in out
    assert "c^Omega1_(Omega2,Omega3) = 1" in out
    assert "constraints: none" in out


def test_unknown_model_exit_code_2(capsys):
    assert main(["show", "no-such-model"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown model 'no-such-model'" in captured.err and "rolling-disk" in captured.err


def test_list(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == models.names()
    assert all(ln.split()[1] == models.kind(ln.split()[0]) for ln in lines)


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["show"])
    assert exc.value.code == 2


@pytest.mark.slow
def test_python_dash_m():
    r = subprocess.run([sys.executable, "-m", "geonh", "show", "unicycle"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "growth vector of the admissible distribution: (2, 3)" in r.stdout
    r = subprocess.run([sys.executable, "-m", "geonh", "show", "bogus"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
