"""Hamilton's principle for nonholonomic systems: which forms give the right equations."""
from geonh.analysis.certificate import same_motion
from geonh.equations import lagrange
from geonh.equations.hamilton import hamilton_equations
from geonh.models import mechanical
from geonh.models.seeds import linear_examples


def compare_with_direct(system, form, **kw):
    """Hamilton's principle in this form against Lagrange's equations with multipliers."""
    return same_motion(lagrange(system), hamilton_equations(system, form, **kw))


def check(label, cert, right):
    """Print the certificate and assert the expected verdict (right = same motion as Lagrange)."""
    print(f"{label:42s}: {cert}")
    assert cert.same == right, f"{label}: expected {'the right' if right else 'a wrong'} motion"


# (label, form, options, gives the right motion?)
cases = [("general (3.2), k = n−m", "general", {}, True), ("general (3.2), k = 0", "general", {"k": 0}, True),
         ("(3.1), k = n−m (Hamel)", "hamilton", {}, True), ("(3.1), k = 0 (Suslov)", "hamilton", {"k": 0}, False),
         ("Woronetz (VI)", "woronetz", {}, True), ("(VI) with printed J_{k−l}", "woronetz", {"printed": True}, False),
         ("Voronets (3.3)", "voronets", {}, True), ("naive", "naive", {}, False)]
sleigh = mechanical.chaplygin_sleigh().system
for label, form, kw, right in cases:
    check(f"sleigh        {label}", compare_with_direct(sleigh, form, **kw), right)
disk = mechanical.vertical_rolling_disk().system
x, y, th, ph = disk.space.q
check("rolling disk  naive, (x, y) dependent", compare_with_direct(disk, 'naive', dependent=[x, y]), True)
check("rolling disk  naive, (y, φ) dependent", compare_with_direct(disk, 'naive', dependent=[y, ph]), False)
skate, _ = linear_examples()["skate on belt"]
check("skate on belt Voronets (3.3) as printed", compare_with_direct(skate, 'voronets', printed=True), False)
