"""The verdicts of ``geonh.control`` (issue 25, parts 1–2) with their times: median wall and CPU.

    python benchmarks/control_verdicts.py [--repeats 3]

Each repeat clears sympy's cache and builds the system again (the build is timed apart), then
times one verdict; the table prints the answer, whether it is final, the witness's size and the
times.  Systems: the knife edge driven by a force and a torque (and by the force alone), the
Chaplygin sleigh driven by a force and a torque (and by a torque alone), the planar rigid body
with one thruster off its centre of mass and with two forces, ẋ = y², ẏ = u, the kinematic
unicycle and car.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # an installed geonh or PYTHONPATH comes first

import sympy as sp  # noqa: E402
from sympy.core.cache import clear_cache  # noqa: E402


def cases():
    """(system name, builder) pairs; a builder returns (kind, system, point)."""
    from geonh import ConfigurationSpace, MechanicalSystem, VectorField, models
    from geonh.control import AffineConnectionSystem, ControlAffineSystem, DriftlessSystem
    m, J, h = sp.symbols("m J h", positive=True)

    def knife():
        S = ConfigurationSpace("x y theta")
        xd, yd, thd = S.qd
        th = S.q[2]
        return MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2,
                                constraints=[sp.sin(th) * xd - sp.cos(th) * yd]), th

    def body():
        S = ConfigurationSpace("x y theta")
        xd, yd, thd = S.qd
        return MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2), S.q[2]

    def rest(cas):
        return {s.name: 0 for s in cas.space.coords}

    def cas(make, acts, **kw):
        def build():
            system, th = make()
            c = ControlAffineSystem.from_mechanical(system, acts(th), **kw)
            return "cas", c, rest(c)
        return build

    def sleigh(acts):
        def build():
            sl = models.get("chaplygin-sleigh")
            c = ControlAffineSystem.from_mechanical(sl.system, acts(sl.system.space.q[2]), frame=sl.frame)
            return "cas", c, rest(c)
        return build

    def acs(make, acts):
        def build():
            system, th = make()
            a = AffineConnectionSystem(system, acts(th))
            return "acs", a, {"x": 0, "y": 0, "theta": 0}
        return build

    def square():
        S = ConfigurationSpace("x y")
        return "cas", ControlAffineSystem(VectorField(S, [S.q[1] ** 2, 0]), [VectorField(S, [0, 1])]), {"x": 0, "y": 0}

    def unicycle():
        S = ConfigurationSpace("x y theta")
        th = S.q[2]
        return "cas", DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), 0]), VectorField(S, [0, 0, 1])]), \
            {"x": 0, "y": 0, "theta": 0}

    def car():
        S = ConfigurationSpace("x y theta phi")
        th, ph = S.q[2], S.q[3]
        L = sp.Symbol("L", positive=True)
        return "cas", DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), sp.tan(ph) / L, 0]),
                                       VectorField(S, [0, 0, 0, 1])]), {s.name: 0 for s in S.coords}

    def snakeboard():
        """Board (x, y, θ), rotor ψ, wheel angle φ, two no-slip wheels (Lewis, Ostrowski, Murray &
        Burdick 1994), torques on ψ and φ, at φ = 1/5."""
        S = ConfigurationSpace("x y theta psi phi")
        x, y, th, psi, ph = S.q
        xd, yd, thd, psid, phd = S.qd
        l, Jr, Jw = sp.symbols("l J_r J_w", positive=True)
        T = m * (xd**2 + yd**2) / 2 + m * l**2 * thd**2 / 2 + Jr * (thd + psid)**2 / 2 + Jw * phd**2
        cons = [-sp.sin(th + ph) * xd + sp.cos(th + ph) * yd - l * sp.cos(ph) * thd,
                -sp.sin(th - ph) * xd + sp.cos(th - ph) * yd + l * sp.cos(ph) * thd]
        a = AffineConnectionSystem(MechanicalSystem(S, T, constraints=cons), [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1]])
        return "acs", a, {"x": 0, "y": 0, "theta": 0, "psi": 0, "phi": sp.Rational(1, 5)}

    blade = lambda th: [sp.cos(th), sp.sin(th), 0]  # noqa: E731
    torque = [0, 0, 1]
    thr = lambda th: [-sp.sin(th), sp.cos(th), h]  # noqa: E731
    return [
        ("knife edge, force + torque", cas(knife, lambda th: [blade(th), torque])),
        ("knife edge, force only", cas(knife, lambda th: [blade(th)])),
        ("sleigh, force + torque", sleigh(lambda th: [blade(th), torque])),
        ("sleigh, torque only", sleigh(lambda th: [torque])),
        ("planar body, 1 thruster (state)", cas(body, lambda th: [thr(th)])),
        ("planar body, 2 forces (state)", cas(body, lambda th: [blade(th), thr(th)])),
        ("x' = y², y' = u", square),
        ("unicycle (driftless)", unicycle),
        ("car (driftless)", car),
        ("planar body, 1 thruster (ACS)", acs(body, lambda th: [thr(th)])),
        ("planar body, F1 only (ACS)", acs(body, lambda th: [blade(th)])),
        ("planar body, 2 forces (ACS)", acs(body, lambda th: [blade(th), thr(th)])),
        ("knife edge, force + torque (ACS)", acs(knife, lambda th: [blade(th), torque])),
        ("snakeboard-like (ACS)", snakeboard),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from geonh import control
    verdicts = {"cas": [control.accessibility, control.sussmann],
                "acs": [control.configuration_accessibility, control.configuration_controllability,
                        control.kinematic_controllability]}
    print("| system | build s | verdict | answer | witness | wall s (median) | CPU s (median) |")
    print("|---|---|---|---|---|---|---|")
    for name, build in cases():
        for vi in range(3):
            walls, cpus, builds = [], [], []
            result = None
            for _ in range(args.repeats):
                clear_cache()
                t0 = time.perf_counter()
                kind, system, point = build()
                builds.append(time.perf_counter() - t0)
                fns = verdicts[kind]
                if vi >= len(fns):
                    break
                w, c = time.perf_counter(), time.process_time()
                result = fns[vi](system, point)
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
            if result is None:
                continue
            answer = ("holds" if result.holds else "fails" if result.final else "undecided")
            print(f"| {name} | {statistics.median(builds):.2f} | {fns[vi].__name__} | {answer} | "
                  f"{', '.join(result.witness)} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
