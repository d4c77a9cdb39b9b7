"""Follow one MechanicalSystem through boltzmann_hamel → ode_function → linearize and count the
geonh modules the execution enters.  The path is the sequence of geonh modules in which code
runs, sampled at every call and return event (sys.setprofile), with consecutive repeats
collapsed; an *entry* is one element of that sequence, a *return* an entry into a module that
was entered before.  Robust to loop counts: the distinct cross-module call edges
(caller module → callee module) and the module pairs that call each other both ways.  Run in a fresh process (module-level caches cold)."""
from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="chaplygin-sleigh")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args()
    import geonh as g
    from geonh import models
    m = models.get(args.model)
    path: list[str] = []
    edges: dict[str, set] = {}
    current: list[str] = [""]
    crossings: dict[str, int] = {}
    stages: dict[str, tuple[int, int]] = {}

    def prof(frame, event, arg):
        if event not in ("call", "return"):
            return
        if event == "return":
            frame = frame.f_back
            if frame is None:
                return
        mod = frame.f_globals.get("__name__", "")
        if not mod.startswith("geonh"):
            return
        if event == "call":
            caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back is not None else ""
            if caller.startswith("geonh") and caller != mod:
                edges.setdefault(current[0], set()).add((caller, mod))
                crossings[current[0]] = crossings.get(current[0], 0) + 1
        if not path or path[-1] != mod:
            path.append(mod)

    def run(name, fn):
        current[0] = name
        start = len(path)
        sys.setprofile(prof)
        try:
            out = fn()
        finally:
            sys.setprofile(None)
        stages[name] = (start, len(path))
        return out

    t0, c0 = time.perf_counter(), time.process_time()
    eqs = run("boltzmann_hamel", lambda: g.boltzmann_hamel(m.system, m.frame))
    run("ode_function", lambda: eqs.ode_function())
    # a steady motion: all coordinates and speeds 0 except the first speed
    point = {s: 0 for s in eqs.q}
    point.update({s: 0 for s in eqs.u})
    point[eqs.u[0]] = 1
    for p in sorted(eqs.value_symbols - set(point) - set(eqs.ud), key=str):
        point[p] = 1
    try:
        run("linearize", lambda: eqs.linearize(point))
    except Exception as exc:  # report but go on: the count up to the error is still the path
        print(f"linearize: {type(exc).__name__}: {exc}", file=sys.stderr)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    report = {}
    for name, (a, b) in stages.items():
        seq = path[a:b]
        seen: set[str] = set()
        returns = 0
        for mod in seq:
            if mod in seen:
                returns += 1
            seen.add(mod)
        E = edges.get(name, set())
        pingpong = {frozenset(e) for e in E if (e[1], e[0]) in E}
        report[name] = {"modules": len(seen), "cross_module_calls": crossings.get(name, 0), "call_edges": len(E), "back_and_forth_pairs": len(pingpong),
                        "entries": len(seq), "returns": returns,
                        "list": sorted(m.removeprefix("geonh.") for m in seen)}
    seq = path
    seen = set()
    returns = sum(1 for i, mod in enumerate(seq) if mod in seq[:i])
    E = set().union(*edges.values()) if edges else set()
    pingpong = sorted(tuple(sorted(e)) for e in {frozenset(e) for e in E if (e[1], e[0]) in E})
    report["total"] = {"modules": len(set(seq)), "cross_module_calls": sum(crossings.values()), "call_edges": len(E), "back_and_forth_pairs": len(pingpong),
                       "entries": len(seq), "returns": returns, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
    report["back_and_forth"] = [" <-> ".join(p) for p in pingpong]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for k, v in report.items():
            if isinstance(v, dict):
                print(f"{k:16s} " + "  ".join(f"{a}={b}" for a, b in v.items() if a != "list"))
                if "list" in v:
                    print(" " * 17 + ", ".join(v["list"]))
            else:
                print(k + ":\n  " + "\n  ".join(v))


if __name__ == "__main__":
    main()
