"""The report's control section (geonh.app.report with geonh.app.controls): present with its
verdicts and witnesses for a kinematic model and for a small mechanical model with force
symbols, absent where it does not apply or is switched off."""
from geonh import models
from geonh.app.cli import main
from geonh.app.report import report_html


def test_kinematic_report_has_control_section_with_witness():
    page = report_html(models.get("unicycle"))
    assert "<h2>Control</h2>" in page
    assert "accessibility (LARC)" in page and "<code>[f1, f2]</code> = (0, \u22121, 0)" in page
    assert "growth vector (2, 3)" in page
    assert "<h2>Control</h2>" not in report_html(models.get("unicycle"), control=False)


def test_mechanical_report_control_section_names_verdicts(tmp_path, capsys):
    """The planar body with forces F1, F2: LARC, Sussmann, configuration accessibility and
    controllability, kinematic controllability, each 'holds' with its witness; a mechanical model
    without force symbols (the Chaplygin sleigh) gets no section by default, and a note when asked."""
    out = tmp_path / "body.html"
    assert main(["report", "planar-body-thruster", "-o", str(out), "--t", "0", "--no-certify"]) == 0
    page = out.read_text()
    section = page[page.index("<h2>Control</h2>"):]
    assert section.count("<td>holds</td>") == 5
    for q in ("accessibility (LARC)", "Sussmann", "local configuration accessibility",
              "local kinematic controllability"):
        assert q in section
    assert "<code>[V1, V2]</code>" in section
    sleigh = models.get("chaplygin-sleigh")
    assert "<h2>Control</h2>" not in report_html(sleigh, simulate_t=0, certify=False)
    asked = report_html(sleigh, simulate_t=0, certify=False, control=True)
    assert "no control verdicts" in asked and "--inputs" in asked
    capsys.readouterr()
