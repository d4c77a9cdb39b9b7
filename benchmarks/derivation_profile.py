"""Where the time of a derivation goes: validation (the verdicts) against the whole.

The dynamic N-trailer of ``benchmarks/n_trailer_dynamics.py`` (on-axle masses), built with
sympy.physics.mechanics, given to ``MechanicalSystem.from_mechanics`` with the adapted frame
``geonh.models.kinematic.n_trailer(N).frame`` (closed form, dual coframe verified by Frame),
then ``boltzmann_hamel`` (or ``maggi``), ``Equations.rhs()`` and ``ode_function()``.

Every verdict function of geonh (the generic-point decisions and the checks built on them) is
wrapped with a timer; the time of the *outermost* verdict call is charged to a step named
``verdict <- caller`` (nested verdicts are not counted twice).  The boundary checks of the
inputs (symbols of the space, look-alike symbols) are timed the same way as a second group.
Printed: each step's wall and CPU time (``time.process_time``), the stages (model,
from_mechanics, frame, equations, rhs, ode_function), the share of the verdicts in the total
(and with the input checks), in %, and one ``RESULT`` line for scripts.

    python benchmarks/derivation_profile.py --N 16 [--route bh|maggi] [--repeat 1] [--no-ode]

For a before/after comparison run it twice in one shell, once with ``PYTHONPATH`` set to a
checkout of the old code.
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import os
import sys
import time
from collections import defaultdict

sys.setrecursionlimit(20000)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

#: (module, attribute) of every verdict function: the generic-point decisions and the checks
#: built on them.  Missing names are skipped (an older or newer checkout).
VERDICTS = [
    ("geonh.kernel.generic_point", "is_zero"),
    ("geonh.kernel.generic_point", "generic_rank"),
    ("geonh.kernel.generic_point", "independent_rows"),
    ("geonh.kernel.generic_point", "not_positive_definite_at"),
    ("geonh.kernel.generic_point", "singular_error"),
    ("geonh.transposition.adapted", "check_adapted"),
    ("geonh.kernel.frames", "_check_duality"),
    ("geonh.systems.mechanical", "check_mass_matrix"),
]
#: the boundary checks of the inputs (parsing, symbols of the space), timed as a second group
#: ("input checks"): validation too, but of the user's expressions, not a generic-point verdict
INPUT_CHECKS = [
    ("geonh.kernel.space", "ConfigurationSpace.check_expression"),
    ("geonh.kernel.space", "known_symbols"),
    ("geonh.kernel.parsing", "check_lookalikes"),
]

_depth = [0]
_wall: dict = defaultdict(float)
_cpu: dict = defaultdict(float)
_calls: dict = defaultdict(int)


def _wrap(fn, name):
    def wrapper(*args, **kw):
        if _depth[0]:
            return fn(*args, **kw)
        f = sys._getframe(1)
        mod = f.f_globals.get("__name__", "?").replace("geonh.", "")
        label = f"{name} <- {mod}.{f.f_code.co_name}"
        _depth[0] += 1
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            _wall[label] += time.perf_counter() - w0
            _cpu[label] += time.process_time() - c0
            _calls[label] += 1
            _depth[0] -= 1
    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def install() -> None:
    """Replace every verdict function by its timed wrapper in every geonh module that holds it."""
    import importlib
    import geonh
    for pkg in ("kernel", "transposition", "systems", "equations", "numerics", "models"):
        importlib.import_module(f"geonh.{pkg}")
    import pkgutil
    for m in pkgutil.walk_packages(geonh.__path__, "geonh."):
        if m.name.split(".")[1] in ("app", "testing", "sources", "analysis", "__main__"):
            continue
        try:
            importlib.import_module(m.name)
        except Exception:  # noqa: BLE001 - optional modules
            pass
    for modname, attr in INPUT_CHECKS:
        mod = sys.modules.get(modname)
        owner, _, name = attr.rpartition(".")
        holder = getattr(mod, owner, None) if owner else mod
        fn = getattr(holder, name, None) if holder is not None else None
        if fn is None:
            continue
        w = _wrap(fn, "input: " + attr)
        if owner:
            setattr(holder, name, w)
            continue
        for m in list(sys.modules.values()):
            if getattr(m, "__name__", "").startswith("geonh"):
                for k, v in list(vars(m).items()):
                    if v is fn:
                        setattr(m, k, w)
    for modname, attr in VERDICTS:
        mod = sys.modules.get(modname)
        fn = getattr(mod, attr, None) if mod is not None else None
        if fn is None:
            continue
        w = _wrap(fn, attr)
        for m in list(sys.modules.values()):
            if getattr(m, "__name__", "").startswith("geonh"):
                for k, v in list(vars(m).items()):
                    if v is fn:
                        setattr(m, k, w)


def run(N: int, route: str, ode: bool) -> dict:
    from n_trailer_dynamics import build_model
    from geonh.systems.mechanical import MechanicalSystem
    from geonh.models import kinematic
    from geonh.equations import boltzmann_hamel, maggi
    stages = {}

    def stage(name, f):
        w0, c0 = time.perf_counter(), time.process_time()
        out = f()
        stages[name] = (time.perf_counter() - w0, time.process_time() - c0)
        return out

    model = stage("model (sympy.physics.mechanics)", lambda: build_model(N))
    system = stage("from_mechanics", lambda: MechanicalSystem.from_mechanics(
        model["q"], model["bodies"], model["frame"], model["loads"], model["constraints"]))
    kin = stage("frame (catalog n_trailer)", lambda: kinematic.n_trailer(N, lengths=list(model["d"])))
    form = boltzmann_hamel if route == "bh" else maggi
    eq = stage(f"{route} equations", lambda: form(system, kin.frame))
    stage("rhs()", lambda: eq.rhs())
    if ode:
        stage("ode_function()", lambda: eq.ode_function())
    return stages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--N", type=int, default=16)
    ap.add_argument("--route", choices=("bh", "maggi"), default="bh")
    ap.add_argument("--no-ode", action="store_true", help="stop at rhs() (no code generation)")
    args = ap.parse_args()
    install()
    import geonh
    w0, c0 = time.perf_counter(), time.process_time()
    stages = run(args.N, args.route, not args.no_ode)
    total_w, total_c = time.perf_counter() - w0, time.process_time() - c0
    print(f"geonh from {os.path.dirname(geonh.__file__)}")
    print(f"dynamic {args.N}-trailer, route {args.route}: stages (wall s / CPU s)")
    for k, (w, c) in stages.items():
        print(f"  {k:<40s} {w:8.3f} {c:8.3f}")
    print(f"  {'TOTAL':<40s} {total_w:8.3f} {total_c:8.3f}")
    print("validation steps (outermost verdict calls; wall s / CPU s / calls)")
    vw = vc = iw = ic = 0.0
    for k in sorted(_wall, key=lambda k: -_wall[k]):
        print(f"  {k:<60s} {_wall[k]:8.3f} {_cpu[k]:8.3f} {_calls[k]:6d}")
        if k.startswith("input:"):
            iw += _wall[k]
            ic += _cpu[k]
        else:
            vw += _wall[k]
            vc += _cpu[k]
    print(f"  {'VERDICTS':<60s} {vw:8.3f} {vc:8.3f}")
    print(f"  {'INPUT CHECKS':<60s} {iw:8.3f} {ic:8.3f}")
    print(f"verdict share: {100 * vw / total_w:.1f} % of wall, {100 * vc / total_c:.1f} % of CPU; "
          f"with the input checks {100 * (vw + iw) / total_w:.1f} % / {100 * (vc + ic) / total_c:.1f} % "
          f"(total {total_w:.2f} s wall, {total_c:.2f} s CPU)")
    print(f"RESULT N={args.N} route={args.route} total_wall={total_w:.3f} total_cpu={total_c:.3f} "
          f"verdicts_wall={vw:.3f} verdicts_cpu={vc:.3f} input_wall={iw:.3f} input_cpu={ic:.3f}")


if __name__ == "__main__":
    main()
