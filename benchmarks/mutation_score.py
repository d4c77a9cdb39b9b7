"""Mutation score of geonh's tests: plant classical mistakes, one at a time, and see who catches them.

A declared list of semantic mutations (:data:`MUTATIONS`) — the mistakes people make when they
write the mechanics by hand: a flipped bracket sign, a swapped index in the structure
coefficients, Hamel's β read with the other index order, a dropped transpositional term, the
wrong k of the Neimark–Fufaev family, the wrong sign of a multiplier, a summation range cut
short, a loosened zero or rank tolerance, the Euclidean metric in the projection of initial
velocities, a Frobenius test reading the first constraint form only, the frame-change law
without its derivative term, a wrong transpose.  Each one is an exact snippet of geonh's source
and its replacement.

Each mutation is applied to a COPY of the package (a temporary directory holding ``geonh/``,
``tests/`` and ``pyproject.toml``; the working tree is never written), after checking that every
original snippet occurs exactly once in its file — a refactor that moves the code makes the
script fail loudly (``--dry-check``; ``tests/test_mutation_score.py`` runs that check), never
pass silently.  Then pytest runs the test target in the copy (the copy's ``geonh`` is imported:
the plugin below asserts it) under the ``geonh-fast`` hypothesis profile when geonh's pytest
plugin provides it, else tests/conftest.py's ``ci`` profile, and a small plugin records

* caught or not, and by which test (the first failing test id);
* after how many hypothesis examples: test cases of that test up to its first failing one,
  counted through hypothesis's observability callbacks (``1`` for a plain test);
* the wall and CPU time (time.perf_counter / time.process_time of the pytest process, from
  the start of the session) to the catch: to the first failing example of a hypothesis test
  (before shrinking), to the failure report of a plain test.

The target (``--target``) is a pytest argument list.  The default is the shipped properties
on the shipped strategies, ``tests/testing/test_shipped_properties.py``; ``--target layer``
runs, for each mutation, the fast tests (``-m "not slow"``) of the mutated module's layer
(tests/kernel, tests/transposition, tests/equations, tests/numerics).

``--target properties`` runs every declared mutation against the shipped properties under
``GEONH_HYPOTHESIS_PROFILE=geonh-fast`` with hypothesis's shrink phase off (``--no-shrink``: the
recorder derives ``geonh-fast-noshrink`` from the loaded profile, phases without
``Phase.shrink``), the whole file each time (``--every``), and records for every failing test
the shipped property it failed in (the outermost frame of a public function of
geonh/testing/properties.py in the traceback) and the exception; the table says which property
caught each mutation first, every property that failed on it, and per property the mutations
it kills.

Output: a markdown table on stdout and a JSON file (``--json``).

    python benchmarks/mutation_score.py --dry-check
    python benchmarks/mutation_score.py --target properties --processes 2 --json benchmarks/results/mutation_score_properties.json
    python benchmarks/mutation_score.py --target layer --json benchmarks/results/mutation_layer.json
    python benchmarks/mutation_score.py --only beta-index-order --target tests/kernel/test_frames.py
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, asdict, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGET = "tests/testing/test_shipped_properties.py"


@dataclass(frozen=True)
class Mutation:
    """One planted mistake: in ``file`` (relative to the repository), each ``original``
    snippet of ``edits`` (exactly once in the file) becomes its replacement."""

    name: str
    cls: str
    file: str
    edits: tuple[tuple[str, str], ...]
    description: str

    @property
    def layer(self) -> str:
        """The layer of the mutated module (geonh/<layer>/…), whose tests live in tests/<layer>."""
        return Path(self.file).parts[1]


def _m(name, cls, file, original, replacement, description, *more) -> Mutation:
    return Mutation(name, cls, file, ((original, replacement),) + tuple(more), description)


MUTATIONS: tuple[Mutation, ...] = (
    # -- kernel ------------------------------------------------------------------------------
    _m("bracket-sign", "flipped sign", "geonh/kernel/backend.py",
       "    return [directional_derivative(X, b, syms) - directional_derivative(Y, a, syms)",
       "    return [directional_derivative(Y, a, syms) - directional_derivative(X, b, syms)",
       "the Lie bracket [X, Y] computed as [Y, X]"),
    _m("structure-coefficients-sign", "flipped sign", "geonh/kernel/frames.py",
       "            else:\n                br = J[b] * cols[a] - J[a] * cols[b]",
       "            else:\n                br = J[a] * cols[b] - J[b] * cols[a]",
       "c^d_ab from J_a X_b − J_b X_a (the symengine route, both fields non-constant)"),
    _m("beta-index-order", "swapped index", "geonh/kernel/frames.py",
       "        return sp.Array([[[c[dd, a, b] for dd in range(n)] for b in range(n)] for a in range(n)])",
       "        return sp.Array([[[c[dd, b, a] for dd in range(n)] for b in range(n)] for a in range(n)])",
       "Hamel's β[a, b, d] read as c^d_ba"),
    _m("exterior-derivative-sign", "flipped sign", "geonh/kernel/forms.py",
       "            out[K] = out.get(K, sp.S.Zero) + sign * sp.diff(w, s)",
       "            out[K] = out.get(K, sp.S.Zero) - sign * sp.diff(w, s)",
       "dω with the opposite sign"),
    _m("is-zero-tolerance", "loosened tolerance", "geonh/kernel/generic_point.py",
       "    free = expr.free_symbols\n    tol = _roundoff()\n    seen = 0",
       "    free = expr.free_symbols\n    tol = mpmath.mpf('1e-6')\n    seen = 0",
       "is_zero with the round-off tolerance 1e-6 instead of 10^-30"),
    _m("rank-tolerance", "loosened tolerance", "geonh/kernel/linalg.py",
       "    tol = max(top, 1) * _roundoff()",
       "    tol = max(top, 1) * mpmath.mpf('1e-3')",
       "the numeric rank of a sample with the relative tolerance 1e-3 instead of 10^-30"),
    _m("frobenius-first-form-only", "one form of several", "geonh/kernel/distributions.py",
       "        for th in self.basis:\n            w = wedge(exterior_derivative(th), top)",
       "        for th in self.basis[:1]:\n            w = wedge(exterior_derivative(th), top)",
       "Frobenius: dθ^1 ∧ θ^1 ∧ … ∧ θ^r only, the other forms unread"),
    _m("frame-change-no-derivative", "dropped term", "geonh/kernel/frames.py",
       "                s += newf[a](A[e, b]) - newf[b](A[e, a])\n",
       "",
       "the frame-change law of c without X'_a(A^e_b) − X'_b(A^e_a)"),
    _m("frame-change-range-short", "summation range cut short", "geonh/kernel/frames.py",
       "                s = sum(c[e, f, g] * A[f, a] * A[g, b] for f in range(n) for g in range(n) if c[e, f, g] != 0)",
       "                s = sum(c[e, f, g] * A[f, a] * A[g, b] for f in range(n - 1) for g in range(n) if c[e, f, g] != 0)",
       "the frame-change law summing f over all but the last field"),
    _m("frame-change-transpose", "wrong transpose", "geonh/kernel/frames.py",
       "        C2 = self.C * A\n",
       "        C2 = self.C * A.T\n",
       "Frame.change builds X'_a = X_b A^a_b (Aᵀ) while its coframe uses A⁻¹"),
    # -- transposition -------------------------------------------------------------------------
    _m("nf-k-mirrored", "wrong k", "geonh/equations/frame_forms.py",
       "    tr = st.transposition(k)\n    m = st.m",
       "    tr = st.transposition(st.n - st.m - k)\n    m = st.m",
       "Neimark–Fufaev's declaration built with k ↔ n − m − k (the motion is the same)",
       ("    pidot = list(u) + [sp.S.Zero] * k + ",
        "    pidot = list(u) + [sp.S.Zero] * (st.n - st.m - k) + ")),
    _m("gamma-index-order", "swapped index", "geonh/transposition/relations.py",
       "            return sp.Array([[[c[lam, nu, mu] for mu in range(p)] for lam in range(p)] for nu in range(p)])",
       "            return sp.Array([[[c[lam, mu, nu] for mu in range(p)] for lam in range(p)] for nu in range(p)])",
       "γ_νλμ read as c^λ_μν"),
    _m("B-transpose", "wrong transpose", "geonh/transposition/relations.py",
       "                M = bilinear_matrix(comps[self.space.index(q)], left, right)",
       "                M = bilinear_matrix(comps[self.space.index(q)], right, left)",
       "B^σ_rs read with d and δ exchanged"),
    _m("quasi-relation-sign", "flipped sign", "geonh/transposition/relations.py",
       "            e = self.V(th(W)) - W(th(self.V))",
       "            e = W(th(self.V)) - self.V(th(W))",
       "dδπ − δdπ computed as δdπ − dδπ"),
    # -- the equation engine -------------------------------------------------------------------
    _m("engine-drop-transpositional", "dropped term", "geonh/equations/engine.py",
       "pWdot - WT + trans - QW)", "pWdot - WT - QW)",
       "the central equation without p·[W, V]"),
    _m("engine-transpositional-sign", "flipped sign", "geonh/equations/engine.py",
       "pWdot - WT + trans - QW)", "pWdot - WT - trans - QW)",
       "the transpositional term with the wrong sign"),
    _m("engine-force-sign", "flipped sign", "geonh/equations/engine.py",
       "pWdot - WT + trans - QW)", "pWdot - WT + trans + QW)",
       "the generalized forces with the wrong sign"),
    _m("engine-drop-pWdot", "dropped term", "geonh/equations/engine.py",
       "+ pWdot - WT + trans - QW)", "- WT + trans - QW)",
       "d/dt(p·W) without p·Ẇ"),
    _m("engine-drop-pWV", "dropped term", "geonh/equations/engine.py",
       " + [sl.p[j] * WV[j] for j in range(n) if WV[j] != zero])", ")",
       "W(T(q, V)) without p·W(V)"),
    _m("engine-bracket-order", "flipped sign", "geonh/equations/engine.py",
       "br = [sub(WVraw[k] - derivative(Vc, Wraw[k])) for k in range(n)]",
       "br = [sub(derivative(Vc, Wraw[k]) - WVraw[k]) for k in range(n)]",
       "the engine's bracket [V, W] instead of [W, V]"),
    _m("engine-drop-a0", "dropped term", "geonh/equations/engine.py",
       "self.pdot = [Macc0[i] + P.pdot0[i] for i in range(n)]",
       "self.pdot = [P.pdot0[i] for i in range(n)]",
       "ṗ without M a0 (the velocity-dependent acceleration ∂_t K + ∂_q K K)"),
    _m("engine-dTdq-sign", "flipped sign", "geonh/equations/engine.py",
       "self.LQ0 = [self.pdot[i] - self.dTdq[i] - self.Q[i] for i in range(n)]",
       "self.LQ0 = [self.pdot[i] + self.dTdq[i] - self.Q[i] for i in range(n)]",
       "Lagrange's split with +∂T/∂q"),
    _m("engine-mass-range-short", "summation range cut short", "geonh/equations/engine.py",
       "self.MdK = [[add([M[i][j] * dKdu[j][s] for j in range(n) if",
       "self.MdK = [[add([M[i][j] * dKdu[j][s] for j in range(n - 1) if",
       "M ∂K/∂u summed over all but the last coordinate"),
    # -- reactions -----------------------------------------------------------------------------
    _m("multiplier-sign", "wrong multiplier sign", "geonh/equations/independent.py",
       "    res = [accel[i] - system.Q[i] - reactions[i] for i in range(S.n)]",
       "    res = [accel[i] - system.Q[i] + reactions[i] for i in range(S.n)]",
       "Lagrange's multipliers with the wrong sign (R = −λA; the motion is the same)"),
    _m("maggi-reactions-no-udot", "dropped term", "geonh/equations/independent.py",
       "    reac = [sp.Add(*[r * v for r, v in zip(fs.rows[a], ud) if r != 0], fs.rests[a]) for a in range(m, n)]",
       "    reac = [fs.rests[a] for a in range(m, n)]",
       "Maggi's reactions Λ_κ without their u̇ part"),
    _m("maggi-reactions-sign", "wrong multiplier sign", "geonh/equations/independent.py",
       "    reac = [sp.Add(*[r * v for r, v in zip(fs.rows[a], ud) if r != 0], fs.rests[a]) for a in range(m, n)]",
       "    reac = [-sp.Add(*[r * v for r, v in zip(fs.rows[a], ud) if r != 0], fs.rests[a]) for a in range(m, n)]",
       "Maggi's reactions Λ_κ with the wrong sign"),
    _m("lagrange-constraints-no-Adot", "dropped term", "geonh/equations/independent.py",
       "    res += [S.total_derivative(f) for f in phis]",
       "    res += [sum((sp.diff(f, v) * a for v, a in zip(S.qd, S.qdd)), sp.S.Zero) for f in phis]",
       "Lagrange's acceleration-level constraints A q̈ = 0 without d/dt(A) q̇ + ḃ"),
    # -- systems ---------------------------------------------------------------------------------
    _m("potential-force-sign", "flipped sign", "geonh/systems/mechanical.py",
       "        gradV = [-sp.diff(self.V, s) for s in S.q]",
       "        gradV = [sp.diff(self.V, s) for s in S.q]",
       "the potential's generalized force +∂V/∂q instead of −∂V/∂q"),
    # -- numerics ------------------------------------------------------------------------------
    _m("projection-euclidean", "wrong metric", "geonh/numerics/constraints.py",
       "            G = metric_of(eqs.system).xreplace(self._sub)",
       "            G = sp.eye(n)",
       "initial velocities projected in the Euclidean metric instead of the kinetic-energy one"),
)


# -- the snippets ----------------------------------------------------------------------------------
def snippet_problems(root: Path = ROOT, mutations=MUTATIONS) -> list[str]:
    """Every way the declared list no longer fits the source under ``root``: a file missing, an
    original snippet found not exactly once, a replacement equal to its original, a name twice."""
    problems = []
    names = [m.name for m in mutations]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"mutation name {n!r} declared twice")
    for m in mutations:
        path = root / m.file
        if not path.is_file():
            problems.append(f"{m.name}: {m.file} does not exist")
            continue
        text = path.read_text(encoding="utf-8")
        for original, replacement in m.edits:
            count = text.count(original)
            if count != 1:
                problems.append(f"{m.name}: {m.file}: the original snippet occurs {count} times "
                                f"(expected exactly once): {original!r}")
            if original == replacement:
                problems.append(f"{m.name}: the replacement equals the original")
    return problems


def mutated_text(text: str, m: Mutation) -> str:
    """``text`` with the mutation's edits applied (each original must occur exactly once)."""
    for original, replacement in m.edits:
        if text.count(original) != 1:
            raise SystemExit(f"{m.name}: {m.file}: the original snippet occurs {text.count(original)} "
                             f"times, expected exactly once: {original!r}")
        text = text.replace(original, replacement)
    return text


def make_copy(dest: Path, root: Path = ROOT) -> None:
    """The repository ``root`` copied into ``dest`` (what the tests read: geonh/, tests/,
    docs/, examples/, benchmarks/, pyproject.toml, README.md …) without the virtual
    environment, git data, caches and build output."""
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", ".mypy_cache", "*.egg-info",
                                    "_build", ".hypothesis", ".pytest_cache")
    shutil.copytree(root, dest, ignore=ignore, dirs_exist_ok=True)


# -- the pytest plugin run inside the copy ---------------------------------------------------------
PLUGIN = r'''
"""Recorder of the mutation score (written by benchmarks/mutation_score.py)."""
import json, os, time
from pathlib import Path

import pytest

_out = Path(os.environ["GEONH_MUTATION_OUT"])
_state = {"t0": None, "c0": None, "caught": None, "cases": {}, "tests_run": 0, "failed": [], "errors": [],
          "catches": [], "profile": None}
_PROPERTIES = "geonh/testing/properties.py"


def _property_of(excinfo):
    """The shipped property (a public function of geonh/testing/properties.py) through which
    the failure was raised: the outermost such frame of the traceback, else None."""
    try:
        from geonh.testing import properties
        public = set(properties.__all__)
    except Exception:
        return None
    for entry in excinfo.traceback:
        path = str(entry.path).replace(os.sep, "/")
        if path.endswith(_PROPERTIES) and entry.name in public:
            return entry.name
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None:
        report.user_properties.append(("geonh_property", _property_of(call.excinfo)))
        report.user_properties.append(("geonh_exception", call.excinfo.typename))


def _observe(obs, *rest):
    if getattr(obs, "type", None) != "test_case":
        return
    rec = _state["cases"].setdefault(obs.property, {"n": 0, "first_failure": None})
    rec["n"] += 1
    if obs.status == "failed" and rec["first_failure"] is None and _state["t0"] is not None:
        # the first failing example, before hypothesis shrinks it
        rec["first_failure"] = rec["n"]
        rec["wall"] = time.perf_counter() - _state["t0"]
        rec["cpu"] = time.process_time() - _state["c0"]


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    import geonh
    here = Path(os.environ["GEONH_MUTATION_COPY"]).resolve()
    where = Path(geonh.__file__).resolve()
    if here not in where.parents:
        raise RuntimeError(f"the mutation run imported {where}, not the mutated copy under {here}")
    try:
        from hypothesis.internal.observability import add_observability_callback
        add_observability_callback(_observe)
    except ImportError:  # an older hypothesis: no example counts
        pass
    from hypothesis import Phase, settings
    if os.environ.get("GEONH_MUTATION_NO_SHRINK"):
        # hypothesis's shrink phase off (after every plugin and conftest chose the profile, before
        # the test modules are imported): the first failing example is the catch
        cur = settings.get_current_profile_name()
        settings.register_profile(cur + "-noshrink", parent=settings.get_profile(cur),
                                  phases=[p for p in Phase if p is not Phase.shrink])
        settings.load_profile(cur + "-noshrink")
    _state["profile"] = settings.get_current_profile_name()
    _state["t0"], _state["c0"] = time.perf_counter(), time.process_time()


def pytest_runtest_logstart(nodeid, location):
    _state.setdefault("starts", {})[nodeid] = (time.perf_counter(), time.process_time())


def pytest_runtest_logreport(report):
    if report.when == "call":
        _state["tests_run"] += 1
    if report.failed:
        _state["failed"].append(report.nodeid)
        props = dict(report.user_properties)
        name = report.nodeid.split("::")[-1].split("[")[0]
        rec = next((r for p, r in _state["cases"].items() if p.split(".")[-1] == name or p.endswith("::" + name)), None)
        catch = {"test": report.nodeid, "property": props.get("geonh_property"),
                 "exception": props.get("geonh_exception"),
                 "wall": time.perf_counter() - _state["t0"], "cpu": time.process_time() - _state["c0"],
                 "examples": None}
        if rec is not None and rec.get("first_failure"):
            catch.update(examples=rec["first_failure"], wall=rec["wall"], cpu=rec["cpu"])
        w0, c0 = _state.get("starts", {}).get(report.nodeid, (_state["t0"], _state["c0"]))
        # the same instant measured from the start of the catching test
        catch["test_wall"] = catch["wall"] - (w0 - _state["t0"])
        catch["test_cpu"] = catch["cpu"] - (c0 - _state["c0"])
        _state["catches"].append(catch)
    if report.failed and _state["caught"] is None:
        _state["caught"] = {"test": report.nodeid, "when": report.when,
                            "wall": time.perf_counter() - _state["t0"],
                            "cpu": time.process_time() - _state["c0"],
                            "message": (report.longreprtext or "").strip().splitlines()[-1:] }


def pytest_collectreport(report):
    if report.failed:
        _state["errors"].append([report.nodeid, (report.longreprtext or "").strip().splitlines()[-1:]])


def pytest_sessionfinish(session, exitstatus):
    out = {"exitstatus": int(exitstatus), "tests_run": _state["tests_run"],
           "wall": time.perf_counter() - _state["t0"], "cpu": time.process_time() - _state["c0"],
           "caught": _state["caught"], "cases": _state["cases"],
           "failed": _state["failed"], "errors": _state["errors"], "catches": _state["catches"],
           "profile": _state["profile"]}
    _out.write_text(json.dumps(out))
'''


def profile_for(copy: Path) -> str:
    """``geonh-fast`` when the copy ships geonh's pytest plugin (geonh/testing/plugin.py, which
    registers it), else tests/conftest.py's ``ci``."""
    return "geonh-fast" if (copy / "geonh" / "testing" / "plugin.py").is_file() else "ci"


def _examples(cases: dict, test_id: str) -> dict | None:
    """The hypothesis record of the catching test (examples up to its first failing one, and
    the time of that example), None for a plain test (one call)."""
    name = test_id.split("::")[-1].split("[")[0]
    for prop, rec in cases.items():
        if prop.split(".")[-1] == name or prop.endswith("::" + name) or prop == name:
            return rec
    return None


@dataclass
class Outcome:
    name: str
    cls: str
    file: str
    description: str
    target: list[str]
    profile: str
    caught: bool
    by: str | None = None
    examples: int | None = None
    wall_to_catch: float | None = None
    cpu_to_catch: float | None = None
    wall_total: float = 0.0
    cpu_total: float = 0.0
    tests_run: int = 0
    exitstatus: int = 0
    message: str = ""
    failed: list[str] = field(default_factory=list)
    property: str | None = None
    exception: str | None = None
    catches: list[dict] = field(default_factory=list)


def run_one(m: Mutation, target: list[str], *, timeout: float, root: Path = ROOT,
            python: str = sys.executable, mutate: bool = True, every: bool = False,
            no_shrink: bool = False) -> Outcome:
    """Apply ``m`` to a fresh copy of ``root`` (``mutate=False``: the unmutated baseline) and
    run pytest on ``target`` there with the recorder plugin (stopping at the first failure,
    or with ``every`` running the whole target to list every failing test)."""
    with tempfile.TemporaryDirectory(prefix=f"geonh-mut-{m.name}-") as tmp:
        copy = Path(tmp)
        make_copy(copy, root)
        if mutate:
            path = copy / m.file
            path.write_text(mutated_text(path.read_text(encoding="utf-8"), m), encoding="utf-8")
        (copy / "_geonh_mutation_recorder.py").write_text(PLUGIN, encoding="utf-8")
        out = copy / "_result.json"
        profile = profile_for(copy)
        env = dict(os.environ, GEONH_MUTATION_OUT=str(out), GEONH_MUTATION_COPY=str(copy),
                   HYPOTHESIS_PROFILE=profile, HYPOTHESIS_EXPERIMENTAL_OBSERVABILITY_NOCOVER="1",
                   GEONH_CACHE="off", PYTHONDONTWRITEBYTECODE="1")
        if profile == "geonh-fast":
            env["GEONH_HYPOTHESIS_PROFILE"] = profile
        env.pop("GEONH_MUTATION_NO_SHRINK", None)
        if no_shrink:
            env["GEONH_MUTATION_NO_SHRINK"] = "1"
        env["PYTHONPATH"] = str(copy) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [python, "-m", "pytest", *([] if every else ["-x"]), "-q", "-p", "no:cacheprovider", "-p", "_geonh_mutation_recorder",
               "--no-header", "-rN", *target]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
            status, tail = proc.returncode, (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        except subprocess.TimeoutExpired:
            status, tail = -1, [f"timed out after {timeout} s"]
        wall = time.perf_counter() - t0
        res = json.loads(out.read_text()) if out.is_file() else None
    o = Outcome(m.name, m.cls, m.file, m.description, target, profile, caught=False, exitstatus=status)
    if res is None:
        # no result file: pytest never got to the session's end (an import error of the
        # mutated geonh in a conftest or plugin, a timeout): reported, not counted as a catch
        o.message = "ERROR: " + " | ".join(tail)
        o.wall_total = wall
        return o
    o.wall_total, o.cpu_total, o.tests_run = res["wall"], res["cpu"], res["tests_run"]
    o.failed = sorted(set(res["failed"]))
    o.catches = res.get("catches", [])
    if res.get("profile"):
        o.profile = res["profile"]
    c = res["caught"]
    if c is not None:
        o.caught, o.by = True, c["test"]
        o.wall_to_catch, o.cpu_to_catch = c["wall"], c["cpu"]
        rec = _examples(res["cases"], c["test"])
        if rec is not None:
            o.examples = rec["first_failure"] or rec["n"]
            if rec.get("wall") is not None:   # the first failing example, not the shrunk report
                o.wall_to_catch, o.cpu_to_catch = rec["wall"], rec["cpu"]
        o.message = " ".join(c["message"])[:200]
        first = next((k for k in o.catches if k["test"] == c["test"]), None)
        if first is not None:
            o.property, o.exception = first["property"], first["exception"]
    elif res["errors"]:
        # a collection error is a catch only when the mutated geonh fails to import; any
        # other (a missing file of the copy, say) is the harness's problem: reported
        node, msg = res["errors"][0]
        o.message = f"ERROR collecting {node}: {' '.join(msg)}"
    elif status not in (0, 5):
        o.message = "ERROR: pytest exit status {}: {}".format(status, " | ".join(tail))
    return o


def layer_target(m: Mutation) -> list[str]:
    """The fast tests of the mutated module's layer."""
    return ["-m", "not slow", f"tests/{m.layer}"]


def table(outcomes: list[Outcome], every: bool = False) -> str:
    """The markdown table: mutation, class, caught by, examples, time to the catch (and with
    ``every`` the number of failing tests)."""
    lines = ["| mutation | class | caught by | examples | wall s | CPU s | tests run |" + (" failing |" if every else ""),
             "|---|---|---|---|---|---|---|" + ("---|" if every else "")]
    for o in outcomes:
        by = f"`{o.by}`" if o.by else ("**error**: " + o.message[:120] if o.message.startswith("ERROR") else "**not caught**")
        ex = "—" if o.examples is None else str(o.examples)
        if o.caught and o.by and "::" in o.by and o.examples is None:
            ex = "1 (plain test)"
        w = f"{o.wall_to_catch:.1f}" if o.wall_to_catch is not None else f"({o.wall_total:.1f})"
        c = f"{o.cpu_to_catch:.1f}" if o.cpu_to_catch is not None else f"({o.cpu_total:.1f})"
        row = f"| {o.name} | {o.cls} | {by} | {ex} | {w} | {c} | {o.tests_run} |"
        if every:
            row += f" {len(o.failed)} |"
        lines.append(row)
    caught = sum(o.caught for o in outcomes)
    lines.append("")
    lines.append(f"caught {caught} of {len(outcomes)}; times are to the first failure from the start of "
                 "the pytest session (in parentheses: the whole run, for a survivor)")
    return "\n".join(lines)


def properties_table(outcomes: list[Outcome]) -> str:
    """Per mutation: the first test that failed, the shipped property it failed in (and the
    exception), the time to that catch, and every property that failed on it; then per shipped
    property the mutations it kills."""
    lines = ["| mutation | class | caught first by | property (exception) | examples | in the test: wall / CPU s | "
             "from the session start: wall / CPU s | every property that failed |",
             "|---|---|---|---|---|---|---|---|"]
    kills: dict[str, list[str]] = {}
    for o in outcomes:
        props = sorted({k["property"] or "(the test's own assert)" for k in o.catches})
        for p in props:
            kills.setdefault(p, []).append(o.name)
        if not o.caught:
            by = "**error**: " + o.message[:120] if o.message.startswith("ERROR") else "**not caught**"
            lines.append(f"| {o.name} | {o.cls} | {by} | — | — | ({o.wall_total:.1f}) | ({o.cpu_total:.1f}) | — |")
            continue
        test = o.by.split("::")[-1] if o.by else "?"
        prop = f"`{o.property}`" if o.property else "(the test's own assert)"
        ex = "—" if o.examples is None else str(o.examples)
        first = next((k for k in o.catches if k["test"] == o.by), {})
        intest = (f"{first['test_wall']:.1f} / {first['test_cpu']:.1f}" if "test_wall" in first else "—")
        lines.append(f"| {o.name} | {o.cls} | `{test}` | {prop} ({o.exception}) | {ex} | {intest} | "
                     f"{o.wall_to_catch:.1f} / {o.cpu_to_catch:.1f} | {', '.join(props)} |")
    caught = sum(o.caught for o in outcomes)
    lines += ["", f"caught {caught} of {len(outcomes)}; times to the first failing example of the first failing "
                  "test (shrink phase off), from the start of that test and from the start of the pytest session "
                  "(which includes the import and the tests before it); in parentheses: the whole run",
              "", "| shipped property | mutations it kills |", "|---|---|"]
    try:
        sys.path.insert(0, str(ROOT))
        from geonh.testing.properties import __all__ as shipped
    except Exception:   # the table still prints without geonh importable here
        shipped = []
    for p in list(shipped) + sorted(set(kills) - set(shipped)):
        lines.append(f"| `{p}` | {', '.join(kills.get(p, [])) or '**none**'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-check", action="store_true",
                    help="only check that every original snippet occurs exactly once")
    ap.add_argument("--list", action="store_true", help="list the declared mutations")
    ap.add_argument("--only", nargs="*", default=None, help="names of the mutations to run")
    ap.add_argument("--target", default=DEFAULT_TARGET,
                    help="pytest arguments (one string, split on spaces), 'properties' (the shipped properties, geonh-fast, no shrinking, every test) or 'layer' for the fast "
                         f"tests of each mutated module's layer (default: {DEFAULT_TARGET})")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per mutation run")
    ap.add_argument("--baseline", action="store_true",
                    help="first run the target on the unmutated copy (it must pass)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the tree to copy (default: this repository), e.g. a worktree of another commit")
    ap.add_argument("--every", action="store_true",
                    help="run the whole target (no -x) and list every test that fails")
    ap.add_argument("--json", type=Path, default=None, help="write the outcomes as JSON here")
    ap.add_argument("--no-shrink", action="store_true",
                    help="hypothesis's shrink phase off (the first failing example is the catch)")
    ap.add_argument("--processes", type=int, default=1, choices=(1, 2),
                    help="mutations run side by side (at most 2)")
    args = ap.parse_args(argv)
    properties_mode = args.target == "properties"
    if properties_mode:
        # every mutation against the shipped properties on the shipped strategies, geonh-fast,
        # the whole file (which properties fail), no shrinking
        args.target, args.every, args.no_shrink = DEFAULT_TARGET, True, True
    root = args.root.resolve()
    problems = snippet_problems(root)
    if problems:
        print("the declared mutations no longer fit the source:", *problems, sep="\n  ", file=sys.stderr)
        return 2
    if args.dry_check:
        print(f"{len(MUTATIONS)} mutations, every original snippet found exactly once")
        return 0
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:32s} {m.cls:28s} {m.file}: {m.description}")
        return 0
    chosen = [m for m in MUTATIONS if args.only is None or m.name in args.only]
    unknown = set(args.only or ()) - {m.name for m in MUTATIONS}
    if unknown:
        print(f"unknown mutations: {sorted(unknown)}", file=sys.stderr)
        return 2
    fixed = None if args.target == "layer" else args.target.split()
    if fixed and not (root / fixed[-1].split("::")[0]).exists():
        print(f"the target {fixed[-1]} does not exist (yet): pass --target", file=sys.stderr)
        return 2
    if args.baseline:
        for tgt in ({tuple(fixed)} if fixed else {tuple(layer_target(m)) for m in chosen}):
            b = run_one(chosen[0], list(tgt), timeout=args.timeout, mutate=False, root=root,
                        no_shrink=args.no_shrink)
            print(f"baseline {' '.join(tgt)}: exit {b.exitstatus}, {b.tests_run} tests, "
                  f"{b.wall_total:.1f} s wall, {b.cpu_total:.1f} s CPU", file=sys.stderr)
            if b.caught or b.by or b.message.startswith("ERROR"):
                print(f"the unmutated copy fails: {b.by or ''} {b.message}", file=sys.stderr)
                return 1
    def one(m: Mutation) -> Outcome:
        o = run_one(m, fixed or layer_target(m), timeout=args.timeout, every=args.every, root=root,
                    no_shrink=args.no_shrink)
        print(f"{m.name}: {'caught by ' + str(o.by) if o.caught else 'NOT caught'}"
              f" ({o.wall_total:.1f} s)", file=sys.stderr, flush=True)
        return o
    if args.processes > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(args.processes) as pool:
            outcomes = list(pool.map(one, chosen))
    else:
        outcomes = [one(m) for m in chosen]
    print(properties_table(outcomes) if properties_mode else table(outcomes, args.every))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1, ensure_ascii=False) + "\n")
    return 0 if all(o.caught for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
