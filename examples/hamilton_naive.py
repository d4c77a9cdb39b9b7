"""Hamilton's principle for nonholonomic systems: which forms give the right equations."""
from geonh.certificate import same_motion
from geonh.equations import lagrange
from geonh.equations.hamilton import hamilton_equations


def compare_with_direct(system, form, **kw):
    """Hamilton's principle in this form against Lagrange's equations with multipliers."""
    return same_motion(lagrange(system), hamilton_equations(system, form, **kw))

from geonh.models import mechanical
from geonh.models.seeds import linear_examples

cases = [("general (3.2), k = n−m", "general", {}), ("general (3.2), k = 0", "general", {"k": 0}),
         ("(3.1), k = n−m (Hamel)", "hamilton", {}), ("(3.1), k = 0 (Suslov)", "hamilton", {"k": 0}),
         ("Woronetz (VI)", "woronetz", {}), ("(VI) with printed J_{k−l}", "woronetz", {"printed": True}),
         ("Voronets (3.3)", "voronets", {}), ("naive", "naive", {})]
sleigh = mechanical.chaplygin_sleigh().system
for label, form, kw in cases:
    print(f"sleigh        {label:28s}: {compare_with_direct(sleigh, form, **kw)}")
disk = mechanical.vertical_rolling_disk().system
x, y, th, ph = disk.space.q
print(f"rolling disk  naive, (x, y) dependent       : {compare_with_direct(disk, 'naive', dependent=[x, y])}")
print(f"rolling disk  naive, (y, φ) dependent       : {compare_with_direct(disk, 'naive', dependent=[y, ph])}")
skate, _ = linear_examples()["skate on belt"]
print(f"skate on belt Voronets (3.3) as printed     : {compare_with_direct(skate, 'voronets', printed=True)}")
