"""geonh's LARC and Sussmann verdicts beside those of NLcontrollability's Python port
(afvillaverde/NLcontrollability, ``Python/NL_controllability_py``), on the same systems.

    python benchmarks/nlcontrollability_compare.py PEER_DIR [--timeout 300] [--only NAME ...]
    NLCONTROLLABILITY_PY=PEER_DIR python benchmarks/nlcontrollability_compare.py

PEER_DIR is a checkout of the peer's Python port (the folder holding ``runPY.py`` and
``nl_controllability_py.py``); without one the script prints geonh's side only.  Nothing of the
peer enters this repository: for each system the script copies the peer's folder into a
temporary directory, writes there the system in the peer's own model format (``models/NAME.py``
and the affine form ``models/affine_NAME.py``: x, p, h, u, f, fu, fxw, ...) and an
``options.py`` (LARC and GSC at the rest point x0), runs ``runPY.py`` in that directory with a
timeout (stdin closed: the peer asks questions only when it has no affine file) and reads its
verdict from what it prints: "The LARC is fulfilled" / "not fulfilled", "The GSC is fulfilled";
otherwise crash (the last line of its traceback) or timeout.  The peer replaces every parameter
by a random integer from 1 to 10; geonh decides for generic parameter values.

Systems (the issue's list): the kinematic unicycle and car (driftless); the knife edge driven by
a force along the blade and a torque; the planar rigid body with the forces F1 (along the body
axis) and F2 (lateral, at the offset h from the mass centre); the Chaplygin sleigh driven by a
torque — each mechanical one on its state (q, speeds) at rest (q = 0, speeds 0), built by
:meth:`geonh.control.ControlAffineSystem.from_mechanical`.  Where the peer answers, geonh must
agree (asserted); the table shows both verdicts, geonh's witnesses and both times (wall; CPU for
geonh).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # an installed geonh or PYTHONPATH comes first

import sympy as sp  # noqa: E402


def cases():
    """(name, builder) pairs; a builder returns (geonh system, rest point {name: value})."""
    from geonh import ConfigurationSpace, MechanicalSystem, VectorField, models
    from geonh.control import ControlAffineSystem, DriftlessSystem

    m, J, h, L = sp.symbols("m J h L", positive=True)

    def origin(system):
        return {s.name: 0 for s in system.space.coords}

    def unicycle():
        S = ConfigurationSpace("x y theta")
        th = S.q[2]
        sysd = DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), 0]), VectorField(S, [0, 0, 1])])
        return sysd, origin(sysd)

    def car():
        S = ConfigurationSpace("x y theta phi")
        th, ph = S.q[2], S.q[3]
        sysd = DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), sp.tan(ph) / L, 0]),
                                VectorField(S, [0, 0, 0, 1])])
        return sysd, origin(sysd)

    def knife():
        S = ConfigurationSpace("x y theta")
        xd, yd, thd = S.qd
        th = S.q[2]
        system = MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2,
                                  constraints=[sp.sin(th) * xd - sp.cos(th) * yd])
        c = ControlAffineSystem.from_mechanical(system, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]])
        return c, origin(c)

    def body():
        S = ConfigurationSpace("x y theta")
        xd, yd, thd = S.qd
        th = S.q[2]
        system = MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2)
        c = ControlAffineSystem.from_mechanical(system, [[sp.cos(th), sp.sin(th), 0],
                                                         [-sp.sin(th), sp.cos(th), -h]])
        return c, origin(c)

    def sleigh():
        sl = models.get("chaplygin-sleigh")
        c = ControlAffineSystem.from_mechanical(sl.system, [[0, 0, 1]], frame=sl.frame)
        return c, origin(c)

    return [("unicycle", unicycle), ("car", car), ("knife_edge", knife), ("planar_body", body),
            ("sleigh_torque", sleigh)]


# -- the peer, in its own model format, in a temporary directory ----------------------------------
#: names the peer's model files bind themselves (a symbol of the system with one of these names is renamed)
RESERVED = {"x", "p", "u", "h", "f", "w", "fu", "hu", "fxw", "hxw", "ics", "known_ics", "variables_locales",
            "sin", "cos", "tan", "sqrt", "symbols", "Matrix"}


def _peer_model(name: str, system, point: dict) -> tuple[str, str]:
    """The system as the peer's model file and its affine file (text); symbols named like the
    file's own variables (x, h, ...) get the suffix ``_s``."""
    syms = set(system.space.coords).union(*(c.free_symbols for X in (system.drift, *system.fields)
                                            for c in X.components))
    rename = {s: sp.Symbol(f"{s.name}_s") for s in syms if s.name in RESERVED}
    state = [rename.get(s, s) for s in system.space.coords]
    inputs = [sp.Symbol(f"uin{i + 1}") for i in range(len(system.fields))]
    drift = [c.xreplace(rename) for c in system.drift.components]
    cols = [[c.xreplace(rename) for c in f.components] for f in system.fields]
    f = [d + sum((u * col[i] for u, col in zip(inputs, cols)), sp.S.Zero) for i, d in enumerate(drift)]
    params = sorted(set().union(*(e.free_symbols for e in f)) - set(state) - set(inputs), key=str)
    head = "from sympy import symbols, Matrix, sin, cos, tan, sqrt\n"
    decl = ""
    for group in (state, params, inputs):
        if group:
            decl += f"{', '.join(map(str, group))} = symbols('{' '.join(map(str, group))}')\n"
    decl += f"x = [{', '.join(f'[{s}]' for s in state)}]\n"
    decl += f"p = [{', '.join(f'[{s}]' for s in params)}]\n"
    decl += f"u = [{', '.join(map(str, inputs))}]\n"
    decl += f"h = [[{state[0]}]]\n"
    decl += "ics = []\nknown_ics = []\nw = []\n"
    model = head + decl + f"f = [{', '.join(f'[{e}]' for e in f)}]\nvariables_locales = locals().copy()\n"
    fu = "Matrix([" + ", ".join("[" + ", ".join(str(col[i]) for col in cols) + "]" for i in range(len(state))) + "])"
    fxw = "Matrix([" + ", ".join(f"[{d}]" for d in drift) + "])"
    affine = (head + decl + f"f = [{', '.join(f'[{e}]' for e in f)}]\n" + f"fu = {fu}\n"
              + f"hu = Matrix([[0]])\nfxw = {fxw}\nhxw = Matrix([[{state[0]}]])\n"
              + "variables_locales = locals().copy()\n")
    return model, affine


def run_peer(peer: Path, name: str, system, point: dict, timeout: float) -> dict:
    """Run the peer on ``system`` at ``point`` in a temporary copy of ``peer``: its verdicts
    (LARC: True / False / None, GSC: True / None), 'ok' / 'crash: …' / 'timeout', wall seconds."""
    with tempfile.TemporaryDirectory(prefix="nlctrl-") as tmp:
        work = Path(tmp) / "peer"
        shutil.copytree(peer, work, ignore=shutil.ignore_patterns("results", "__pycache__"))
        model, affine = _peer_model(name, system, point)
        (work / "models" / f"{name}.py").write_text(model)
        (work / "models" / f"affine_{name}.py").write_text(affine)
        x0 = [point[s.name] for s in system.space.coords]
        (work / "options.py").write_text(
            f"modelname = '{name}'\nLCtest = 0\nnumericLC = 0\nARC = 0\nLARCtest = 1\nGSC = 1\n"
            f"x0 = {x0!r}\nmaxtime = {int(timeout)}\n")
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "runPY.py"], cwd=work, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"larc": None, "gsc": None, "status": f"timeout ({timeout:g} s)",
                    "seconds": time.perf_counter() - start}
        seconds = time.perf_counter() - start
    out = proc.stdout
    larc = True if "The LARC is fulfilled" in out else False if "The LARC is not fulfilled" in out else None
    gsc = True if "The GSC is fulfilled" in out else None
    if proc.returncode != 0:
        last = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        status = "crash: " + (last[-1][:70] if last else f"exit {proc.returncode}")
    elif larc is None:
        status = "no verdict"
    else:
        status = "ok"
    return {"larc": larc, "gsc": gsc, "status": status, "seconds": seconds}


# -- geonh ------------------------------------------------------------------------------------------
def run_geonh(system, point: dict) -> dict:
    """geonh's LARC and Sussmann verdicts (Sussmann only at an equilibrium), with wall and CPU time."""
    from geonh.control import accessibility, sussmann
    from geonh.errors import NotEquilibriumError
    w, c = time.perf_counter(), time.process_time()
    larc = accessibility(system, point)
    try:
        sus = sussmann(system, point)
    except NotEquilibriumError:
        sus = None
    return {"larc": larc, "sussmann": sus, "seconds": time.perf_counter() - w, "cpu": time.process_time() - c}


def _answer(v) -> str:
    if v is None:
        return "—"
    return "holds" if v.holds else ("fails" if v.final else "undecided")


def compare(peer: Path | None, timeout: float, only=None, out=print) -> list[dict]:
    """Run both on every case (``only``: the names to run); print the table; return its rows.
    Where the peer answers, geonh's verdict must be the same (AssertionError otherwise)."""
    rows = []
    out("| system | geonh LARC | geonh Sussmann | geonh witness (Sussmann, else LARC) | geonh wall s | geonh CPU s "
        "| peer LARC | peer GSC | peer status | peer wall s |")
    out("|---|---|---|---|---|---|---|---|---|---|")
    for name, build in cases():
        if only and name not in only:
            continue
        system, point = build()
        g = run_geonh(system, point)
        p = run_peer(peer, name, system, point, timeout) if peer else None
        if p is not None:
            if p["larc"] is not None:
                assert p["larc"] == g["larc"].holds, f"{name}: the peer's LARC {p['larc']}, geonh's {g['larc'].holds}"
            if p["gsc"] is True:
                assert g["sussmann"] is not None and g["sussmann"].holds, f"{name}: the peer says STLC, geonh not"
        wit = g["sussmann"] if g["sussmann"] is not None else g["larc"]
        peer_cells = ("—", "—", "not run", "—") if p is None else (
            {True: "holds", False: "fails", None: "—"}[p["larc"]], "fulfilled" if p["gsc"] else "—", p["status"],
            f"{p['seconds']:.1f}")
        out(f"| {name} | {_answer(g['larc'])} | {_answer(g['sussmann'])} | {', '.join(wit.witness)} | "
            f"{g['seconds']:.2f} | {g['cpu']:.2f} | " + " | ".join(peer_cells) + " |")
        rows.append({"name": name, "geonh": g, "peer": p})
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("peer", nargs="?", default=os.environ.get("NLCONTROLLABILITY_PY"),
                    help="the peer's Python port (folder with runPY.py); default $NLCONTROLLABILITY_PY")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per peer run (default 300)")
    ap.add_argument("--only", nargs="*", default=None, help="run these systems only")
    args = ap.parse_args(argv)
    peer = Path(args.peer) if args.peer else None
    if peer is not None and not (peer / "runPY.py").is_file():
        ap.error(f"{peer} holds no runPY.py: give the folder of NLcontrollability's Python port")
    compare(peer, args.timeout, args.only)


if __name__ == "__main__":
    main()
