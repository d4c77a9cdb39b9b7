"""The audit of the seeds (geonh.sources): one test per audited formula, and the ledger itself."""
from __future__ import annotations


import pytest
import sympy as sp

from geonh.errors import NotFoundError
from geonh.sources import SOURCES, audit, formulas
from geonh.sources import ledger


def _cases():
    out = []
    for src in SOURCES:
        try:
            fs = formulas(src)
        except Exception as exc:  # a broken module must fail its own test, not the collection
            out.append(pytest.param(src, None, repr(exc), id=f"{src}-import"))
            continue
        out += [pytest.param(src, f.number, "", id=f"{src}{f.number}") for f in fs]
    return out


@pytest.mark.parametrize("source, number, error", _cases())
def test_formula_verdict_is_the_recorded_one(source, number, error):
    assert not error, f"the formulas of {source} do not load: {error}"
    (row,) = audit(source, number).rows
    assert row.error == "", row.error
    f = row.formula
    assert row.ok, f"{f.key}: found {row.status} on {row.finding.example}, recorded {f.expected}; {row.finding.shown}"
    assert f.printed and f.computed and f.api and f.topic
    # a misprint shows its difference; an agreement has none
    if row.status == "agrees":
        assert row.finding.shown == "0"
    else:
        assert row.finding.shown != "0"


def test_every_source_has_formulas():
    for src in SOURCES:
        assert formulas(src), src


def test_order_of_equation_numbers():
    nums = ["(VI)", "(2')", "(10)", "(1)", "(I)", "(2)", "(IV)", "(19')", "(19)", "(4**)", "(4*)", "(4)"]
    assert sorted(nums, key=ledger.order) == ["(1)", "(2)", "(2')", "(4)", "(4*)", "(4**)", "(10)", "(19)",
                                              "(19')", "(I)", "(IV)", "(VI)"]
    assert sorted(["(2.1)", "(1.6)", "(0.1)", "(1.10)"], key=ledger.order) == ["(0.1)", "(1.6)", "(1.10)", "(2.1)"]


def test_compare_statuses():
    x, y = sp.symbols("x y")
    assert ledger.compare(sp.sin(x) ** 2, 1 - sp.cos(x) ** 2, "ex").status == "agrees"
    f = ledger.compare(x + y, x, "ex")
    assert f.status == "misprint" and f.shown == "y"
    h = ledger.compare(x * y, x, "ex", hypothesis="y = 1", under={y: 1})
    assert h.status == "hypothesis" and "y = 1" in h.detail
    fam = ledger.compare({"a": x, "b": y}, {"a": x, "b": 2 * y}, "ex")
    assert fam.status == "misprint" and fam.shown == "b: -y"
    with pytest.raises(ValueError):
        ledger.Finding("maybe", "ex")


def test_unknown_source_and_number():
    with pytest.raises(NotFoundError, match="unknown source"):
        formulas("hamel1925")
    with pytest.raises(NotFoundError, match="no audited formula"):
        formulas("hamel1924", "(999)")


def test_a_broken_check_is_reported_not_raised():
    def boom():
        raise RuntimeError("no")
    f = ledger.Formula("hamel1924", "(0)", "t", "p", "c", "api", "agrees", boom)
    row = f.run()
    assert row.status == "error" and not row.ok and "RuntimeError" in row.error


def test_report_rendering():
    rep = audit("hamel1924", "17")
    assert rep.ok and len(rep) == 1
    md = rep.to_markdown()
    assert "| (17) |" in md and "misprint" in md
    d = rep.rows[0].as_dict()
    assert d["status"] == "misprint" and d["ok"] is True


def test_cli_audit_one_source(tmp_path):
    import json
    from click.testing import CliRunner
    from geonh.app.cli import cli
    res = CliRunner().invoke(cli, ["audit", "--source", "appell1911"])
    assert res.exit_code == 0, res.output
    assert "(4)" in res.output and "misprint" in res.output and "formulas:" in res.output
    res = CliRunner().invoke(cli, ["--format", "json", "audit", "--source", "neimark-fufaev1960", "--number", "1.5"])
    data = json.loads(res.output)
    assert data["ok"] and data["formulas"][0]["status"] == "hypothesis"
    res = CliRunner().invoke(cli, ["audit", "--number", "3"])
    assert res.exit_code == 2
