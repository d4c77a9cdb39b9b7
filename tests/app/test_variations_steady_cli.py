"""`geonh steady` with options a newcomer tries (issue 26): a symmetry with a free shape
coordinate, a redundant generator, an empty range, a model file of one's own whose
coordinates come in another order."""
import pytest

from geonh.app.cli import main

DISK_FILE = '''
name = "my-disk"
description = "vertical rolling disk, the coordinates in another order"
coordinates = ["phi", "theta", "y", "x"]

[parameters]
m = ["positive"]
R = ["positive"]
J = ["positive"]
K = ["positive"]

[dynamics]
kinetic_energy = "m/2*(x_dot**2 + y_dot**2) + J/2*phi_dot**2 + K/2*theta_dot**2"
constraints = ["x_dot - R*cos(theta)*phi_dot", "y_dot - R*sin(theta)*phi_dot"]

[values]
m = 1
R = 0.5
J = 0.25
K = 0.125

[symmetry]
generators = [["0", "0", "0", "1"], ["0", "0", "1", "0"], ["1", "0", "0", "0"], ["0", "1", "x", "-y"]]
'''


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_translations_of_the_sleigh_with_the_heading_given(capsys):
    """Before, `geonh steady chaplygin-sleigh --generator 1,0,0 --generator 0,1,0 --at xi1=1`
    ended in a bare TypeError traceback (the heading θ is a free shape coordinate).  Now it
    asks for θ, and with θ = 0.3 the eigenvalue is −m a v/(I + m a²) at v = ξ1/cos θ (m = a =
    I = 1: −1/(2 cos 0.3) = −0.523376)."""
    code, out, err = run(capsys, "steady", "chaplygin-sleigh", "--generator", "1,0,0", "--generator", "0,1,0",
                         "--at", "xi1=1")
    assert code == 2 and "theta" in err and "Traceback" not in err
    code, out, err = run(capsys, "steady", "chaplygin-sleigh", "--generator", "1,0,0", "--generator", "0,1,0",
                         "--at", "xi1=1", "--at", "theta=0.3")
    assert code == 0, err
    assert "xi1 > 0" in out and "asymptotically stable; eigenvalues -0.523376, 0, 0" in out


@pytest.mark.parametrize("args, message", [
    (["--generator", "1,0,0", "--generator", "0,1,0", "--generator=-y,x,1", "--generator", "1,1,0"],
     "linearly dependent"),
    (["--parameter", "xi1", "--range", "1", "1"], "A < B"),
    (["--parameter", "xi1", "--range", "2", "1"], "A < B"),
])
def test_bad_variations_are_one_line_errors(capsys, args, message):
    code, out, err = run(capsys, "steady", "chaplygin-sleigh", *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_own_model_file_with_a_symmetry_in_another_coordinate_order(capsys, tmp_path):
    """A vertical disk written on (φ, θ, y, x) with SE(2) × S¹ declared in its file: the family
    is ξ = (ξ1, 0, ξ1/R, ξ4) (rolling straight, turning at any rate); its reduced state is
    empty of shape, both zero eigenvalues are the family's."""
    path = tmp_path / "disk.toml"
    path.write_text(DISK_FILE)
    code, out, err = run(capsys, "steady", str(path), "--at", "xi1=2", "--at", "xi4=1")
    assert code == 0, err
    assert "xi = (xi1, 0, xi1/R, xi4)" in out
    assert "spectrally stable; eigenvalues 0, 0" in out
