"""``geonh control MODEL``: the control verdicts with their witnesses, through the entry point
``geonh.app.cli.main`` (tests/app/test_cli.py's style), and the model-level task behind it
(:func:`geonh.app.controls.control_verdicts`)."""
import json

import pytest

from geonh import models
from geonh.app.cli import main
from geonh.app.controls import control_inputs, control_verdicts
from geonh.errors import NotAdaptedError, ParseError


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_control_kinematic_model_prints_growth_vector_and_larc(capsys):
    """The unicycle: growth vector (2, 3), the LARC holds with [f1, f2] = −∂y as the witness
    that completes the span (Chow–Rashevskii)."""
    code, out, _ = run(capsys, "control", "unicycle")
    assert code == 0
    assert "growth vector: (2, 3)" in out
    assert "holds: accessibility (LARC)" in out and "[f1, f2] = (0, -1, 0)" in out
    code, out, _ = run(capsys, "control", "3-trailer", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["growth_vector"] == [2, 3, 4, 5, 6]
    assert [w["name"] for w in data["verdicts"][0]["witness"]][-1] == "[f1, [f1, [f1, [f1, f2]]]]"
    code, out, _ = run(capsys, "control", "unicycle", "--format", "latex")
    assert code == 0 and out.startswith(r"\begin{tabular}{lll}")
    assert r"accessibility (LARC) & holds & f1, f2, [f1, f2] \\" in out


def test_control_planar_body_two_forces_every_verdict_holds(capsys):
    """The planar body with the body-fixed forces F1, F2 (the model's force symbols, taken as
    inputs by default): LARC and Sussmann hold at rest; configuration accessible, STLCC by Lewis
    & Murray's condition, kinematically controllable (Lewis & Murray 1997; Bullo & Lynch 2001)."""
    code, out, _ = run(capsys, "control", "planar-body-thruster", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["inputs"] == ["F1", "F2"]
    assert [v["holds"] for v in data["verdicts"]] == [True] * 5
    assert data["verdicts"][2]["question"] == "local configuration accessibility"
    assert [w["name"] for w in data["verdicts"][4]["witness"]] == ["V1", "V2", "[V1, V2]"]


def test_control_one_thruster_and_a_sleigh_torque_name_their_witnesses(capsys):
    """The planar body with the offset thruster F2 alone (F1 set to 0): accessible, and the rest
    point is an equilibrium, but Sussmann's condition fails with a bad bracket as witness and so
    Lewis & Murray's STLCC condition and KC (Lewis & Murray 1997: one thruster, configuration
    accessible, the sufficient condition for STLCC fails).
    The Chaplygin sleigh driven by a torque on θ: accessible, Sussmann fails with the bad
    [[f0, f1], f1]; exit status 1 when a verdict fails."""
    code, out, _ = run(capsys, "control", "planar-body-thruster", "--inputs", "F2", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["inputs"] == ["F2"]
    answers = {v["question"].split(" (")[0]: v["holds"] for v in data["verdicts"]}
    assert answers == {"accessibility": True, "small-time local controllability": False,
                       "local configuration accessibility": True,
                       "small-time local configuration controllability": False,
                       "local kinematic controllability": False}
    code, out, _ = run(capsys, "control", "chaplygin-sleigh", "--inputs", "theta", "--no-connection")
    assert code == 1
    assert "holds: accessibility (LARC)" in out
    assert "does not hold: small-time local controllability (Sussmann's condition)" in out
    assert "[[f0, f1], f1] = (" in out


def test_control_bad_input_exits_2(capsys):
    code, _, err = run(capsys, "control", "planar-body-thruster", "--inputs", "nope")
    assert code == 2 and "neither a force symbol" in err
    code, _, err = run(capsys, "control", "appell-hamel")
    assert code == 2 and "not 'seed'" in err
    code, _, err = run(capsys, "control", "unicycle", "--at", "zeta=1")
    assert code == 2 and "zeta" in err
    code, _, err = run(capsys, "control", "snakeboard")
    assert code == 2 and "--inputs" in err
    code, _, err = run(capsys, "control", "unicycle", "--inputs", ",")
    assert code == 2


def test_control_inputs_by_force_symbol_and_by_coordinate():
    """A force symbol's covector is ∂Q/∂u; a coordinate's is dq; unnamed force symbols are 0."""
    body = models.get("planar-body-thruster")
    base, rows, names = control_inputs(body, ["F2", "theta"])
    assert names == ("F2", "theta")
    th = body.system.space.q[2]
    import sympy as sp
    h = sp.Symbol("h", positive=True)
    assert rows == [[-sp.sin(th), sp.cos(th), -h], [0, 0, 1]]
    assert all(Q == 0 for Q in base.Q)
    with pytest.raises(NotAdaptedError):
        control_inputs(models.get("unicycle"))
    with pytest.raises(ParseError):
        control_inputs(body, ["h"])        # a parameter, not a force symbol
    rep = control_verdicts(models.get("unicycle"), at={"theta": 1})
    assert rep.point["theta"] == 1 and rep.verdicts[0].holds
