"""A newcomer's variations on the command line (session 18): a name given twice."""
from __future__ import annotations

import pytest
from geonh.app.cli import main


@pytest.mark.parametrize("args", [
    ["simulate", "chaplygin-sleigh", "--t", "0.1", "--param", "m=1/2", "--param", "m=3"],
    ["simulate", "chaplygin-sleigh", "--t", "0.1", "--init", "v=1", "--init", "v=2"],
    ["control", "unicycle", "--at", "theta=0", "--at", "theta=1"],
])
def test_a_name_given_twice_is_refused_not_one_value_dropped(capsys, args):
    # before: one of the two values was silently used
    code = main(list(args))
    err = capsys.readouterr().err
    assert code == 2 and "given twice" in err, err
