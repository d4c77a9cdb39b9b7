"""Hostile inputs: measure how far geonh can be trusted on every route (issue 20).

A corpus of hostile or edge inputs (string injection into every string-accepting entry,
dependent frames with hidden identities on both backends, huge numbers, deep and long
expressions, malformed model files, bad command lines, numerics that misbehave, interop,
threads, LaTeX) goes through geonh's public API and its ``geonh`` command.  **Each entry runs
in its own process**, in its own empty working directory, with a wall-time limit (the parent
kills the whole process group) and an address-space limit (``RLIMIT_AS`` in the child).  Every
outcome is put in exactly one class:

==========  ===================================================================================
class       meaning
==========  ===================================================================================
ok          the right answer, where one exists (the entry's checker accepts the result)
clear       a ``GeonhError`` (CLI: exit status ≠ 0, one error line, no traceback) with a
            helpful message (rule below)
unclear     a ``GeonhError`` whose message fails the rule below, or an error where the entry
            has a right answer that must not be refused (``refused`` in the JSON line)
raw         a non-geonh exception (``ValueError``, ``RecursionError``, ``MemoryError`` …), a
            traceback or other interpreter noise from the CLI, or a process that died
hang        no answer within the wall-time limit
silent      a result where an error was due (``expect="raise"``), or a result the entry's
            checker rejects: a wrong answer
code-ran    the injection marker file ``PWNED`` appeared in the working directory (overrides
            every other class: the input was run as code)
harness     the entry itself failed (an exception with no geonh frame in its traceback): a
            bug of the corpus, not of geonh; must be 0
==========  ===================================================================================

The message rule (``unclear``), deliberately simple so that it can be checked mechanically:

1. the message (for the CLI: the ``geonh: error:`` / click ``Error:`` line) is not empty;
2. it does not contradict itself: no "N < N", "N > N", "N != N" with the same number on both
   sides (e.g. "rank 2 < 2");
3. it names the problem: it contains at least one of the entry's ``names`` (words from the
   input — a parameter, a key, an option, a construct — or, for inputs without names, the
   word that states the problem), compared case-insensitively; entries without ``names``
   skip this part;
4. it is a message, not a dump: at most 2000 characters; for the CLI, no second error line.

Usage::

    python benchmarks/hostile_inputs.py                      # all entries, 2 processes at a time
    python benchmarks/hostile_inputs.py -o benchmarks/results/hostile_after.json
    python benchmarks/hostile_inputs.py -k inject -v         # entries whose name contains 'inject'
    python benchmarks/hostile_inputs.py --list               # the corpus
    python benchmarks/hostile_inputs.py --compare benchmarks/results/hostile_before.json after.json
    PYTHONPATH=/path/to/other/checkout python benchmarks/hostile_inputs.py   # another geonh

The output file has one JSON object per line: a first ``{"meta": …}`` line, then one line per
entry (name, group, class, detail, seconds, peak memory).  Unix only (process groups,
``RLIMIT_AS``, ``wait4``).
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
CLASSES = ("ok", "clear", "unclear", "raw", "hang", "silent", "code-ran", "harness")
MARKER = "PWNED"                 # created (relative to the entry's directory) if a payload runs
DEFAULT_TIMEOUT = 20.0           # seconds of wall time per entry (CLI and Dask entries get more)
DEFAULT_MEMORY_GB = 3.0          # RLIMIT_AS of each entry's process
MAX_MESSAGE = 2000


# ================================================================================================
# the corpus
# ================================================================================================
@dataclass
class Entry:
    """One hostile input.

    ``fn()`` runs it and returns a result (for the CLI a :class:`Cli`).  ``expect``: ``"raise"``
    (a geonh error is due; a result is ``silent``), ``"any"`` (a result or a clear error, both
    fine) or a checker ``result -> bool`` (True: ``ok``; False: ``silent``).  ``refuse_ok``:
    with a checker, may a clear geonh error stand in for the answer (else ``unclear``,
    refused)?  ``names``: the words of the message rule.  ``foreign_ok``: an exception without
    a geonh frame still counts as ``raw`` (pickling, threads: geonh's objects fail inside the
    standard library), not as ``harness``."""

    name: str
    group: str
    fn: Callable[[], Any]
    expect: Any = "raise"
    names: tuple = ()
    timeout: float | None = None
    refuse_ok: bool = True
    foreign_ok: bool = False
    note: str = ""


CORPUS: list[Entry] = []


def add(name: str, group: str, fn: Callable[[], Any], expect: Any = "raise", **kw) -> None:
    if any(e.name == name for e in CORPUS):
        raise SystemExit(f"duplicate corpus entry {name}")
    CORPUS.append(Entry(name, group, fn, expect, **kw))


# -- helpers the entries share (imports inside: the parent never imports geonh's heavy parts) ----
def _g():
    import geonh
    return geonh


def _sp():
    import sympy
    return sympy


def _space(names: str = "x y", **kw):
    return _g().ConfigurationSpace(names, **kw)


def _particle_T(S):
    sp = _sp()
    m = sp.Symbol("m", positive=True)
    return m * sum(v ** 2 for v in S.qd) / 2


def _sleigh():
    return _g().models.get("chaplygin-sleigh")


def _sleigh_bh():
    return _sleigh().equations("boltzmann-hamel")


def _symbol(eqs, name: str):
    """The symbol called ``name`` in the equations (state, speeds or parameters)."""
    pool = set(eqs.space.state_symbols) | set(eqs.u)
    for e in list(eqs.mass_matrix) + list(eqs.forcing) + list(eqs.kinematics):
        pool |= e.free_symbols
    for s in pool:
        if s.name == name:
            return s
    raise LookupError(f"no symbol {name} in the equations")


SLEIGH_PARAMS = {"m": 1.0, "a": 0.5, "I": 0.2}
SLEIGH_Y0 = [0.0, 0.0, 0.3, 1.0, 0.8]


def _sleigh_point(eqs, **over):
    """{symbol: value} of a state of the sleigh's Boltzmann–Hamel equations (x, y, θ, v, w)."""
    vals = {"x": 0, "y": 0, "theta": 0.3, "v": 1, "w": 0.5, "m": 1, "a": 0.5, "I": 0.2}
    vals.update(over)
    return {_symbol(eqs, k): v for k, v in vals.items()}


def _sleigh_coordinate_state(eqs, **over):
    """{symbol: value} in coordinates (x, y, θ, ẋ, ẏ, θ̇) on the sleigh's constraint."""
    import math
    th, v, w = 0.3, 1.0, 0.5
    vals = {"x": 0, "y": 0, "theta": th, "x_dot": v * math.cos(th), "y_dot": v * math.sin(th),
            "theta_dot": w, "m": 1, "a": 0.5, "I": 0.2}
    vals.update(over)
    S = eqs.space
    byname = {s.name: s for s in S.state_symbols}
    out = {}
    for k, v in vals.items():
        out[byname[k] if k in byname else _symbol(eqs, k)] = v
    return out


class Cli:
    """The outcome of one ``geonh`` command: exit status, stdout, stderr (and ``extra`` data
    the entry's checker needs)."""

    def __init__(self, code: int, out: str, err: str, extra: Any = None):
        self.code, self.out, self.err, self.extra = code, out, err, extra

    def __repr__(self) -> str:
        return f"Cli(exit {self.code}, stdout {len(self.out)} chars, stderr {self.err.strip()[-200:]!r})"


def cli(*argv: str, stdout_path: str | None = None, files: dict[str, str] | None = None,
        keep: str | None = None) -> Cli:
    """Run ``python -m geonh ARGV`` in the current directory (the entry's own); ``files``
    are written first; ``stdout_path`` redirects stdout there (e.g. ``/dev/full``); ``keep``:
    a file whose text after the run goes to ``Cli.extra``."""
    for name, text in (files or {}).items():
        Path(name).write_text(text, encoding="utf-8")
    cmd = [sys.executable, "-m", "geonh", *argv]
    if stdout_path is not None:
        with open(stdout_path, "w") as out:
            p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        return Cli(p.returncode, "", p.stderr)
    p = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, text=True)
    extra = Path(keep).read_text(encoding="utf-8", errors="replace") if keep and Path(keep).exists() else None
    return Cli(p.returncode, p.stdout, p.stderr, extra)


def _toml_str(s: str) -> str:
    return json.dumps(s)       # a JSON string is a valid TOML basic string


SLEIGH_TOML = dict(
    name=_toml_str("sleigh-file"),
    T=_toml_str("m/2*((x_dot - a*sin(theta)*theta_dot)**2 + (y_dot + a*cos(theta)*theta_dot)**2)"
                " + I/2*theta_dot**2"),
    V=_toml_str("0"),
    C=_toml_str("sin(theta)*x_dot - cos(theta)*y_dot"),
    Q=", ".join(_toml_str(s) for s in ("cos(theta)*x_dot + sin(theta)*y_dot", "theta_dot",
                                       "sin(theta)*x_dot - cos(theta)*y_dot")),
    m="1", theta="0.3", initial_extra="v = 1.0\nw = 0.8",
)


def sleigh_toml(**over: str) -> str:
    """The Chaplygin sleigh as a model file; ``over`` replaces raw TOML fragments."""
    d = dict(SLEIGH_TOML, **over)
    return textwrap.dedent("""\
        name = {name}
        coordinates = ["x", "y", "theta"]
        [parameters]
        m = ["positive"]
        a = ["positive"]
        I = ["positive"]
        [dynamics]
        kinetic_energy = {T}
        potential = {V}
        constraints = [{C}]
        [frame]
        names = ["v", "w", "c"]
        quasi_velocities = [{Q}]
        dependent = ["y"]
        [values]
        m = {m}
        a = 0.5
        I = 0.2
        [initial]
        theta = {theta}
        {initial_extra}
        """).format(**d)


SPRING_TOML = textwrap.dedent("""\
    name = "spring"
    coordinates = ["x"]
    [parameters]
    m = ["positive"]
    k = ["positive"]
    [dynamics]
    kinetic_energy = "m*x_dot**2/2"
    potential = "k*x**2/2"
    [values]
    m = 1
    k = 1
    """)


def _loads(text: str):
    from geonh.models import files
    return files.loads(text, "hostile.toml")


# ------------------------------------------------------------------------------------------------
# 1. injection: strings that run code if anything evaluates them
# ------------------------------------------------------------------------------------------------
PAYLOADS = {   # name: (text, words a clear refusal names)
    "import": ("__import__('os').system('touch PWNED')", ("__import__",)),
    "open": ("open('PWNED', 'w').close()", ("open", "close")),
    "pathlib": ("__import__('pathlib').Path('PWNED').touch()", ("__import__", "pathlib", "touch")),
    "exec": ("exec(\"open('PWNED', 'w')\")", ("exec",)),
    "lambda": ("(lambda: __import__('os').system('touch PWNED'))()", ("lambda", "__import__")),
    "hidden": ("x + 0*__import__('os').system('touch PWNED')", ("__import__",)),
    "getattr": ("getattr(__import__('os'), 'system')('touch PWNED')", ("getattr", "__import__")),
}
_PAYLOAD_NAMES = list(PAYLOADS)


def _inj_is_zero(P):
    return _g().is_zero(P)


def _inj_generic_rank(P):
    return _g().generic_rank([[P, 1], [1, 1]])


def _inj_value_at_expr(P):
    from geonh.kernel.evaluation import value_at
    return value_at(P)


def _inj_value_at_values(P):
    from geonh.kernel.evaluation import value_at
    x = _sp().Symbol("x")
    return value_at(x + 1, {x: P})


def _inj_to_symengine(P):
    from geonh.kernel.backend import to_symengine
    return to_symengine(P)


def _inj_bilinear(P):
    from geonh.transposition.relations import bilinear_matrix
    a, b = _sp().symbols("a b")
    return bilinear_matrix(P, [a], [b])


def _inj_solve_point(P):
    eqs = _sleigh_bh()
    return eqs.solve_point(_sleigh_point(eqs, m=P))


def _inj_accelerations(P):
    eqs = _sleigh_bh()
    return eqs.accelerations(_sleigh_coordinate_state(eqs, theta=P))


def _inj_n_trailer(P):
    from geonh.models.kinematic import n_trailer
    return n_trailer(1, lengths=[P])


def _inj_total_derivative(P):
    return _space().total_derivative(P)


def _inj_to_dynamic(P):
    return _space().to_dynamic(P)


def _inj_hertz_mass(P):
    g = _g()
    return g.HertzSpace(_sleigh().system, total_mass=P)


def _inj_linearize_value(P):
    eqs = _sleigh_bh()
    return eqs.linearize({"x": 0, "y": 0, "theta": P, "v": 1, "w": 0, **SLEIGH_PARAMS})


SYMPIFY_TARGETS = {   # entries that reach sympify / se.sympify / xreplace with the user's value
    "is_zero": (_inj_is_zero, ()),
    "generic_rank": (_inj_generic_rank, ()),
    "value_at.expr": (_inj_value_at_expr, ()),
    "value_at.values": (_inj_value_at_values, ("x",)),
    "to_symengine": (_inj_to_symengine, ()),
    "bilinear_matrix": (_inj_bilinear, ()),
    "solve_point": (_inj_solve_point, ("m",)),
    "accelerations": (_inj_accelerations, ("theta",)),
    "n_trailer.lengths": (_inj_n_trailer, ("length",)),
    "total_derivative": (_inj_total_derivative, ()),
    "to_dynamic": (_inj_to_dynamic, ()),
    "HertzSpace.total_mass": (_inj_hertz_mass, ("mass",)),
    "linearize.value": (_inj_linearize_value, ("theta",)),
}


def _T_xy():
    S = _space()
    return S, _particle_T(S)


def _ms(**kw):
    S, T = _T_xy()
    return _g().MechanicalSystem(S, kw.pop("T", T), **kw)


PARSED_TARGETS = {   # entries that parse strings (geonh.kernel.parsing): must refuse, never run
    "ConfigurationSpace.names": (lambda P: _g().ConfigurationSpace(P), ("name", "coordinate")),
    "ConfigurationSpace.time": (lambda P: _g().ConfigurationSpace("x y", time=P), ("time",)),
    "VectorField": (lambda P: _g().VectorField(_space(), [P, 0]), ()),
    "OneForm": (lambda P: _g().OneForm(_space(), [P, 0]), ()),
    "differential": (lambda P: _g().differential(_space(), P), ()),
    "from_quasi_velocities": (lambda P: _g().Frame.from_quasi_velocities(_space(), [P, "y_dot"]),
                              ("quasi-velocit",)),
    "MechanicalSystem.T": (lambda P: _ms(T=P), ("kinetic",)),
    "MechanicalSystem.V": (lambda P: _ms(V=P), ("potential",)),
    "MechanicalSystem.forces": (lambda P: _ms(forces={"x": P}), ("force",)),
    "MechanicalSystem.constraints": (lambda P: _ms(constraints=[P]), ("constraint",)),
    "MechanicalSystem.conditions": (lambda P: _ms(conditions=[P + " > 0"]), ("condition",)),
    "Codistribution.from_constraints": (lambda P: _g().Codistribution.from_constraints(_space(), [P]),
                                        ("constraint",)),
    "simulate.params": (lambda P: _g().simulate(_sleigh_bh(), SLEIGH_Y0, (0, 0.1), dict(SLEIGH_PARAMS, m=P)),
                        ("m",)),
    "sweep.grid": (lambda P: _g().sweep(_sleigh_bh(), {"m": [P], "a": [0.5], "I": [0.2]}, SLEIGH_Y0, (0, 0.1)),
                   ("m", "grid")),
    "ode_function.params": (lambda P: _sleigh_bh().ode_function(params=dict(SLEIGH_PARAMS, m=P)), ("m",)),
    "derive.form": (lambda P: _g().derive(P, _sleigh().system), ("form",)),
    "models.get": (lambda P: _g().models.get(P), ("model",)),
    "model_file.kinetic_energy": (lambda P: _loads(sleigh_toml(T=_toml_str(P))), ("kinetic_energy",)),
    "model_file.values": (lambda P: _loads(sleigh_toml(m=_toml_str(P))), ("values.m",)),
    "model_file.initial": (lambda P: _loads(sleigh_toml(theta=_toml_str(P))), ("initial.theta",)),
    "model_file.frame": (lambda P: _loads(sleigh_toml(Q=", ".join(_toml_str(s) for s in (P, "theta_dot", "y_dot")))),
                         ("quasi_velocities",)),
    "cli.--param": (lambda P: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--param", f"m={P}"),
                    ("--param", "m")),
    "cli.--at": (lambda P: cli("linearize", "chaplygin-sleigh", "--at", f"theta={P}"), ("--at", "theta")),
    "cli.--init": (lambda P: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--init", f"theta={P}"),
                   ("--init", "theta")),
    "cli.model_file": (lambda P: cli("show", "m.toml", files={"m.toml": sleigh_toml(T=_toml_str(P))}),
                       ("kinetic_energy",)),
}


def _injection_entries() -> None:
    """Every target gets payloads in rotation (three each for the sympify-prone targets, one
    for the parsed ones), so that every payload reaches several targets of both kinds."""
    k = len(_PAYLOAD_NAMES)
    for i, (target, (fn, words)) in enumerate(SYMPIFY_TARGETS.items()):
        for pname in (_PAYLOAD_NAMES[(3 * i + j) % k] for j in range(3)):
            text, pwords = PAYLOADS[pname]
            add(f"inject.{target}.{pname}", "injection", (lambda fn=fn, text=text: fn(text)), "raise",
                names=tuple(words) + tuple(pwords), timeout=40 if target in ("solve_point", "accelerations",
                                                                             "linearize.value") else None)
    for i, (target, (fn, words)) in enumerate(PARSED_TARGETS.items()):
        pname = _PAYLOAD_NAMES[i % k]
        text, pwords = PAYLOADS[pname]
        add(f"inject.{target}.{pname}", "injection", (lambda fn=fn, text=text: fn(text)), "raise",
            names=tuple(words) + tuple(pwords), timeout=40 if target.startswith(("cli", "sweep", "simulate"))
            else None)


_injection_entries()


# ------------------------------------------------------------------------------------------------
# 2. dependent frames: hidden identities, on both backends
# ------------------------------------------------------------------------------------------------
def _identities():
    """name: k(x) ≡ 1 written so that no automatic simplification sees it."""
    sp = _sp()
    x = _space().q[0]
    return {
        "sin2+cos2": sp.sin(x) ** 2 + sp.cos(x) ** 2,
        "cosh2-sinh2": sp.cosh(x) ** 2 - sp.sinh(x) ** 2,
        "sec2-tan2": 1 / sp.cos(x) ** 2 - sp.tan(x) ** 2,
        "cos2x+2sin2": sp.cos(2 * x) + 2 * sp.sin(x) ** 2,
        "cos4-sin4": sp.cos(x) ** 4 - sp.sin(x) ** 4 - sp.cos(2 * x) + 1,
        "sin(x+1)": sp.sin(x + 1) - sp.sin(x) * sp.cos(1) - sp.cos(x) * sp.sin(1) + 1,
    }


def _with_backend(backend: str, fn):
    with _g().using_backend(backend):
        return fn()


def _k(name):
    return _identities()[name]


def _frame_1y_kky(kname):
    g = _g()
    S = _space()
    x, y = S.q
    k = _k(kname)
    return g.Frame([g.VectorField(S, [1, y]), g.VectorField(S, [k, k * y])])


def _frame_sin_combo(kname):
    """X1, X2 and X3 = sin(x)·k·X1 + X2 on (x, y, z)."""
    g, sp = _g(), _sp()
    S = g.ConfigurationSpace("x y z")
    x, y, z = S.q
    k = _identities()[kname].xreplace({_space().q[0]: x})
    X1 = g.VectorField(S, [1, 0, y])
    X2 = g.VectorField(S, [0, 1, x])
    X3 = g.VectorField(S, [sp.sin(x) * k * c1 + c2 for c1, c2 in zip(X1.components, X2.components)])
    return g.Frame([X1, X2, X3])


def _distribution_rank(kname):
    g = _g()
    S = _space("x y z")
    x, y, z = S.q
    k = _identities()[kname].xreplace({_space().q[0]: x})
    return g.Distribution([g.VectorField(S, [1, y, 0]), g.VectorField(S, [k, k * y, 0])]).rank


def _qv_dependent(kname):
    g = _g()
    S = _space()
    x, y = S.q
    xd, yd = S.qd
    k = _k(kname)
    return g.Frame.from_quasi_velocities(S, [xd + y * yd, k * xd + k * y * yd])


def _ms_dependent_constraints(kname):
    g = _g()
    S = _space("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    k = _identities()[kname].xreplace({_space().q[0]: x})
    c = zd - y * xd
    return g.MechanicalSystem(S, _particle_T(S), constraints=[c, k * c])


def _dependent_entries() -> None:
    for backend in ("symengine", "sympy"):
        for kname in ("sin2+cos2", "cosh2-sinh2", "sec2-tan2", "sin(x+1)"):
            add(f"dependent.{backend}.frame(1,y)(k,ky).{kname}", "dependent-frames",
                lambda b=backend, k=kname: _with_backend(b, lambda: _frame_1y_kky(k)), "raise",
                names=("depend", "singular"))
        for kname in ("sin2+cos2", "cos4-sin4"):
            add(f"dependent.{backend}.frame X3=sin(x)kX1+X2.{kname}", "dependent-frames",
                lambda b=backend, k=kname: _with_backend(b, lambda: _frame_sin_combo(k)), "raise",
                names=("depend", "singular"))
            add(f"dependent.{backend}.distribution_rank.{kname}", "dependent-frames",
                lambda b=backend, k=kname: _with_backend(b, lambda: _distribution_rank(k)), lambda r: r == 1,
                refuse_ok=False)
            add(f"dependent.{backend}.quasi_velocities.{kname}", "dependent-frames",
                lambda b=backend, k=kname: _with_backend(b, lambda: _qv_dependent(k)), "raise",
                names=("singular", "depend"))
            add(f"dependent.{backend}.MechanicalSystem_constraints.{kname}", "dependent-frames",
                lambda b=backend, k=kname: _with_backend(b, lambda: _ms_dependent_constraints(k)), "raise",
                names=("depend", "rank"))


_dependent_entries()


# ------------------------------------------------------------------------------------------------
# 3. huge numbers
# ------------------------------------------------------------------------------------------------
def _is_false(r):
    return r is False


def _huge_entries() -> None:
    tower = "((9**999)**999)**999"
    add("huge.is_zero.tower", "huge-numbers", lambda: _g().is_zero(tower), _is_false, names=("exponent", "large", "big"))
    add("huge.VectorField.tower", "huge-numbers", lambda: _g().VectorField(_space(), [tower + "*x", 1]), "any",
        names=("exponent", "large", "big"))
    add("huge.MechanicalSystem.T.tower", "huge-numbers", lambda: _ms(T=tower + "*(x_dot**2 + y_dot**2)"), "any",
        names=("exponent", "large", "big", "kinetic"))
    add("huge.model_file.tower", "huge-numbers", lambda: _loads(sleigh_toml(m=_toml_str(tower))), "any",
        names=("values.m",))
    add("huge.cli.--param.tower", "huge-numbers",
        lambda: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--param", f"m={tower}"), "raise",
        names=("--param", "m"), timeout=40)
    add("huge.is_zero.1e999999", "huge-numbers", lambda: _g().is_zero("1e999999*x - 1e999999*x"), lambda r: r is True)
    add("huge.is_zero.1e999999_nonzero", "huge-numbers", lambda: _g().is_zero("1e999999*x"), _is_false)
    add("huge.MechanicalSystem.1e999999", "huge-numbers", lambda: _ms(T="1e999999*(x_dot**2 + y_dot**2)"),
        lambda s: s.T.coeff(s.space.qd[0] ** 2) == 10 ** 999999)
    add("huge.simulate.1e999999", "huge-numbers",
        lambda: _g().simulate(_sleigh_bh(), SLEIGH_Y0, (0, 0.1), dict(SLEIGH_PARAMS, m=_sp().Rational("1e999999"))),
        "any", names=("m", "finite"))
    add("huge.cli.--param.1e999999", "huge-numbers",
        lambda: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--param", "m=1e999999"), "raise",
        names=("--param", "m"), timeout=40)
    add("huge.cli.--t.1e999999", "huge-numbers",
        lambda: cli("simulate", "chaplygin-sleigh", "--t", "1e999999", "--points", "3"), "raise",
        names=("--t",), timeout=40)
    add("huge.is_zero.10**10**10", "huge-numbers", lambda: _g().is_zero("10**10**10 - x"), "raise",
        names=("exponent", "10000000000"))
    add("huge.is_zero.9**999**999", "huge-numbers", lambda: _g().is_zero("9**999**999"), "any",
        names=("exponent",))
    add("huge.is_zero.(10**1000)**1000**1000", "huge-numbers", lambda: _g().is_zero("((10**1000)**1000)**1000*x"),
        _is_false, names=("exponent", "large", "big"))
    add("huge.is_zero.sin(10**1000)", "huge-numbers", lambda: _g().is_zero("sin(10**1000)*x"), _is_false)
    add("huge.is_zero.exp(10**1000)", "huge-numbers", lambda: _g().is_zero("exp(10**1000)*x - exp(10**1000)*y"),
        _is_false)
    add("huge.Frame.10**10**6_sympy_number", "huge-numbers",
        lambda: _g().Frame([_g().VectorField(_space(), [_sp().Integer(10) ** (10 ** 6), 1]),
                            _g().VectorField(_space(), [1, 1])]), "any")
    add("huge.VectorField.int_10**10**6", "huge-numbers",
        lambda: _g().VectorField(_space(), [10 ** (10 ** 6), 1]).components[0] == 10 ** (10 ** 6), lambda r: r is True)
    add("huge.VectorField.1e999999", "huge-numbers",
        lambda: _g().VectorField(_space(), ["1e999999*x - 1e999999*x", 1]).components[0] == 0, lambda r: r is True,
        names=("large", "big", "digits"))


_huge_entries()


# ------------------------------------------------------------------------------------------------
# 4. deep and long expressions
# ------------------------------------------------------------------------------------------------
def _deep_entries() -> None:
    minus = "-" * 15000 + "x"                        # even count: x
    add("deep.is_zero.15000_unary_minus", "deep-long", lambda: _g().is_zero(minus), _is_false,
        names=("deep", "nest", "long", "recursion"))
    add("deep.VectorField.15000_unary_minus", "deep-long",
        lambda: _g().VectorField(_space(), [minus, 0]).components[0] == _space().q[0], lambda r: r is True,
        names=("deep", "nest", "long", "recursion"))
    add("deep.MechanicalSystem.15000_unary_minus", "deep-long", lambda: _ms(V=minus), "any",
        names=("deep", "nest", "potential"))
    add("deep.cli.--param.15000_unary_minus", "deep-long",
        lambda: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--param", "m=" + "-" * 15000 + "1"),
        "any", names=("--param", "m"), timeout=40)
    add("deep.model_file.15000_unary_minus", "deep-long", lambda: _loads(sleigh_toml(V=_toml_str(minus))), "any",
        names=("potential",))
    add("deep.is_zero.1000_parentheses", "deep-long", lambda: _g().is_zero("(" * 1000 + "x" + ")" * 1000), _is_false,
        names=("nest", "parenthes", "deep"))
    for n in (1000, 1500, 3000):
        s = "+".join(["x"] * n)
        add(f"deep.VectorField.sum_{n}_terms", "deep-long",
            lambda s=s, n=n: _g().VectorField(_space(), [s, 0]).components[0] == n * _space().q[0],
            lambda r: r is True, refuse_ok=False)
    add("deep.is_zero.sum_1000_terms", "deep-long",
        lambda: _g().is_zero("+".join(f"x**{k}" for k in range(1, 1001)) + " - (" +
                             "+".join(f"x**{k}" for k in range(1, 1001)) + ")"), lambda r: r is True, refuse_ok=False)
    add("deep.MechanicalSystem.T.sum_1000_terms", "deep-long",
        lambda: _ms(T="+".join(["x_dot**2"] * 999 + ["y_dot**2"])).T.coeff(_space().qd[0] ** 2) == 999,
        lambda r: r is True, refuse_ok=False)
    def model_sum():
        sp = _sp()
        mdl = _loads(SPRING_TOML.replace('"m*x_dot**2/2"', _toml_str("+".join(["m*x_dot**2/2000"] * 1000))))
        T = mdl.system.T
        m = next(s for s in T.free_symbols if s.name == "m")
        return sp.expand(T - m * mdl.system.space.qd[0] ** 2 / 2) == 0
    add("deep.model_file.T.sum_1000_terms", "deep-long", model_sum, lambda r: r is True, refuse_ok=False)
    add("deep.cli.--param.sum_1000_terms", "deep-long",
        lambda: cli("simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--format", "json",
                    "--param", "m=" + "+".join(["1"] * 1000)),
        lambda c: c.code == 0 and '"m": "1000' in c.out, refuse_ok=False, timeout=40)
    add("deep.condition.sum_1000_terms", "deep-long",
        lambda: _ms(conditions=["+".join(["m"] * 1000) + " > 0"]), lambda s: len(s.conditions) <= 1, refuse_ok=False)
    add("deep.is_zero.product_3000_factors", "deep-long", lambda: _g().is_zero("*".join(["x"] * 3000)), _is_false,
        refuse_ok=False)
    add("deep.is_zero.power_tower_500", "deep-long", lambda: _g().is_zero("**".join(["x"] * 500)), "any",
        names=("exponent", "deep", "nest"))

    def big_sum_frame():
        g, sp = _g(), _sp()
        S = _space()
        x, y = S.q
        a = sp.symbols("a0:100000", positive=True)
        big = sp.Add(*[ai * x for ai in a])
        return g.Frame([g.VectorField(S, [1, big]), g.VectorField(S, [0, 1])])
    add("deep.Frame.10^5_term_sum", "deep-long", big_sum_frame, lambda F: F.dim == 2, names=("large", "terms", "big"))

    def factorial_frame():
        g, sp = _g(), _sp()
        S = _space()
        x, y = S.q
        f = sp.factorial(sp.Integer(10) ** 8, evaluate=False)
        F = g.Frame([g.VectorField(S, [1, f * y]), g.VectorField(S, [0, x])])
        return F.structure_coefficients()
    add("deep.Frame.factorial(10**8)", "deep-long", factorial_frame, "any", names=("factorial",))
    add("deep.is_zero.factorial(10**8)", "deep-long",
        lambda: _g().is_zero(_sp().factorial(_sp().Integer(10) ** 8, evaluate=False) * _space().q[0]), _is_false)

    def dense_trig_frame(n=9):
        g, sp = _g(), _sp()
        S = g.ConfigurationSpace(" ".join(f"q{i}" for i in range(n)))
        q, qd = S.q, S.qd
        om = [sum(((3 if a == i else 0) + sp.sin(q[i]) * sp.cos(q[a] + i)) * qd[i] for i in range(n)) for a in range(n)]
        F = g.Frame.from_quasi_velocities(S, om)
        return F
    add("deep.Frame.dense_9x9_trig_quasi_velocities", "deep-long", dense_trig_frame, lambda F: F.dim == 9,
        names=("large", "size", "budget"), timeout=40)
    add("deep.structure_coefficients.dense_9x9_trig", "deep-long",
        lambda: dense_trig_frame().structure_coefficients().shape == (9, 9, 9), lambda r: r is True,
        names=("large", "size", "budget"), timeout=40)
    add("deep.VectorField.string_20001_chars", "deep-long", lambda: _g().VectorField(_space(), ["x" + "+0" * 10000, 0]),
        "any", names=("characters", "long"))


_deep_entries()


# ------------------------------------------------------------------------------------------------
# 5. model files (TOML)
# ------------------------------------------------------------------------------------------------
def _toml_entries() -> None:
    deep_arrays = "a = " + "[" * 50000 + "]" * 50000 + "\n"
    deep_tables = "a = " + "{b = " * 50000 + "1" + "}" * 50000 + "\n"
    add("toml.nested_arrays_50000", "model-files", lambda: _loads(deep_arrays), "raise", names=("deep", "nest", "toml"))
    add("toml.nested_tables_50000", "model-files", lambda: _loads(deep_tables), "raise", names=("deep", "nest", "toml"))
    add("toml.cli.nested_arrays_50000", "model-files",
        lambda: cli("show", "deep.toml", files={"deep.toml": deep_arrays}), "raise", names=("deep", "nest", "toml"))
    add("toml.name=5", "model-files", lambda: _loads(sleigh_toml(name="5")), "raise", names=("name",))
    add("toml.name=[1]", "model-files", lambda: _loads(sleigh_toml(name="[1]")), "raise", names=("name",))
    add("toml.cli.name=5", "model-files", lambda: cli("show", "n.toml", files={"n.toml": sleigh_toml(name="5")}),
        "raise", names=("name",))
    add("toml.values.m=-2_positive", "model-files", lambda: _loads(sleigh_toml(m="-2")), "raise",
        names=("m", "positive"))
    add("toml.values.m=nan", "model-files", lambda: _loads(sleigh_toml(m="nan")), "raise", names=("m", "values"))
    add("toml.values.m=inf", "model-files", lambda: _loads(sleigh_toml(m="inf")), "raise", names=("m", "values"))
    add("toml.initial.theta=nan", "model-files", lambda: _loads(sleigh_toml(theta="nan")), "raise",
        names=("theta", "initial"))
    add("toml.initial.theta=1e999", "model-files", lambda: _loads(sleigh_toml(theta="1e999")), "raise",
        names=("theta", "initial"))
    add("toml.kinetic_energy=5", "model-files", lambda: _loads(sleigh_toml(T="5")), "raise", names=("kinetic", "T"))
    add("toml.kinetic_energy_20001_chars", "model-files",
        lambda: _loads(sleigh_toml(T=_toml_str("x_dot**2" + "+0" * 10000))), "raise", names=("kinetic", "characters"))
    add("toml.coordinate_clash_x_dot", "model-files",
        lambda: _loads(sleigh_toml().replace('["x", "y", "theta"]', '["x", "x_dot", "theta"]')), "raise",
        names=("x_dot",))
    add("toml.inconsistent_assumptions", "model-files",
        lambda: _loads(sleigh_toml().replace('m = ["positive"]', 'm = ["positive", "negative"]')), "raise",
        names=("m", "assumption"))
    add("toml.cli.not_utf8", "model-files", lambda: (Path("b.toml").write_bytes(b"name = \"\xff\xfe\"\n"), cli("show", "b.toml"))[1],
        "raise", names=("utf", "b.toml"))
    add("toml.cli.directory", "model-files", lambda: (os.mkdir("d.toml"), cli("show", "d.toml"))[1], "raise",
        names=("d.toml",))
    add("toml.cli.empty_file", "model-files", lambda: cli("show", "e.toml", files={"e.toml": ""}), "raise",
        names=("coordinates",))

    def initial_off_constraints(c: Cli) -> bool:
        # reported as a note on stdout (before issue 20) or a warning on stderr with the correction
        notes = [ln for ln in c.out.splitlines() if ln.startswith("note:")]
        notes += [ln for ln in c.err.splitlines() if ln.startswith("geonh: warning:")]
        return c.code == 0 and any("constraint" in n or "project" in n for n in notes)
    off = sleigh_toml(Q='"x_dot", "y_dot", "theta_dot"', initial_extra="x_dot = 1.0\ny_dot = 0.0\ntheta_dot = 0.5").replace(
        'names = ["v", "w", "c"]\n', "").replace('dependent = ["y"]\n', "")
    off = off.replace("[frame]\nquasi_velocities = [\"x_dot\", \"y_dot\", \"theta_dot\"]\n", "")
    add("toml.cli.initial_off_constraints", "model-files",
        lambda: cli("simulate", "off.toml", "--t", "0.5", "--points", "3", files={"off.toml": off}),
        initial_off_constraints, names=("initial", "constraint"), timeout=40,
        note="[initial] velocities violate sin(θ)ẋ − cos(θ)ẏ = 0 (Lagrange's form, no frame)")
    add("toml.initial.unknown_name", "model-files", lambda: _loads(sleigh_toml(initial_extra="v = 1.0\nspeed = 2")),
        "raise", names=("speed",))


_toml_entries()


# ------------------------------------------------------------------------------------------------
# 6. the command line: output paths, options
# ------------------------------------------------------------------------------------------------
def _cli_entries() -> None:
    spring = {"s.toml": SPRING_TOML}
    report = ("report", "s.toml", "--t", "0", "--no-certify", "-o")
    add("cli.report.-o_missing_directory", "cli", lambda: cli(*report, "no/such/dir/r.html", files=spring), "raise",
        names=("no/such/dir", "r.html", "director"), timeout=60)
    add("cli.report.-o_unwritable", "cli", lambda: cli(*report, "/proc/geonh-report.html", files=spring), "raise",
        names=("geonh-report.html", "/proc"), timeout=60)
    add("cli.report.-o_/dev/full", "cli", lambda: cli(*report, "/dev/full", files=spring), "raise",
        names=("/dev/full", "space"), timeout=60)
    add("cli.report.-o_directory", "cli", lambda: (os.mkdir("outdir"), cli(*report, "outdir", files=spring))[1],
        "raise", names=("outdir", "director"), timeout=60)
    add("cli.report.-o_onto_its_input", "cli", lambda: cli(*report, "s.toml", files=spring, keep="s.toml"),
        lambda c: c.extra == SPRING_TOML, names=("s.toml",), timeout=60,
        note="the report must not overwrite the model file it reads")
    add("cli.show>/dev/full", "cli", lambda: cli("show", "unicycle", stdout_path="/dev/full"), "raise",
        names=("space", "write", "output"))
    add("cli.list>/dev/full", "cli", lambda: cli("list", stdout_path="/dev/full"), "raise",
        names=("space", "write", "output"))
    add("cli.equations>/dev/full", "cli", lambda: cli("equations", "chaplygin-sleigh", stdout_path="/dev/full"), "raise",
        names=("space", "write", "output"), timeout=40)
    add("cli.simulate.--plot_missing_directory", "cli",
        lambda: cli("simulate", "s.toml", "--t", "0.1", "--points", "3", "--plot", "no/dir/p.png", files=spring),
        "raise", names=("no/dir", "p.png"), timeout=60)
    sim = ("simulate", "chaplygin-sleigh", "--t", "0.1")
    for pts in ("0", "-1", "1"):
        add(f"cli.simulate.--points_{pts}", "cli", lambda pts=pts: cli(*sim, "--points", pts), "raise",
            names=("--points", "points"), timeout=40)
    add("cli.simulate.--points_10**9", "cli", lambda: cli(*sim, "--points", str(10 ** 9)), "raise",
        names=("--points", "points"), timeout=40)
    add("cli.simulate.--t_nan", "cli", lambda: cli("simulate", "chaplygin-sleigh", "--t", "nan"), "raise",
        names=("--t",), timeout=40)
    add("cli.simulate.--param_m=-2_positive", "cli", lambda: cli(*sim, "--points", "3", "--param", "m=-2"), "raise",
        names=("m", "positive"), timeout=40)
    add("cli.simulate.--param_m=0", "cli", lambda: cli(*sim, "--points", "3", "--param", "m=0"), "raise",
        names=("m", "positive", "singular"), timeout=40)
    add("cli.simulate.--param_unknown", "cli", lambda: cli(*sim, "--points", "3", "--param", "mass=2"), "raise",
        names=("mass",), timeout=40)
    add("cli.simulate.--init_1e308", "cli", lambda: cli(*sim, "--points", "3", "--init", "v=1e308"), "any",
        names=("v", "finite"), timeout=40)
    add("cli.simulate.--form_bogus", "cli", lambda: cli(*sim, "--points", "3", "--form", "Bogus"), "raise",
        names=("Bogus",), timeout=40)
    add("cli.linearize.--at_unknown_name", "cli", lambda: cli("linearize", "chaplygin-sleigh", "--at", "thta=0.1"),
        "raise", names=("thta",), timeout=40, note="a misspelt operating-point name")
    add("cli.linearize.--at_no_equals", "cli", lambda: cli("linearize", "chaplygin-sleigh", "--at", "theta"), "raise",
        names=("--at", "theta"))
    add("cli.linearize.--sweep_non_bike", "cli",
        lambda: cli("linearize", "chaplygin-sleigh", "--sweep", "m=1:2:3"), "any", names=("m",), timeout=40)
    add("cli.linearize.--sweep_bad", "cli", lambda: cli("linearize", "chaplygin-sleigh", "--sweep", "m=a:b:c"), "raise",
        names=("--sweep",))
    add("cli.relations.--k_99", "cli", lambda: cli("relations", "rolling-disk", "--k", "99"), "raise", names=("k",))
    add("cli.relations.--k_-1", "cli", lambda: cli("relations", "rolling-disk", "--k", "-1"), "raise", names=("k",))
    add("cli.equations.--form_bogus", "cli", lambda: cli("equations", "chaplygin-sleigh", "--form", "Bogus"), "raise",
        names=("Bogus",))
    add("cli.show.missing_model_file", "cli", lambda: cli("show", "nothing-here.toml"), "raise",
        names=("nothing-here.toml",))


_cli_entries()


# ------------------------------------------------------------------------------------------------
# 7. numerics: solvers, sweeps, pickling, n_trailer
# ------------------------------------------------------------------------------------------------
def _stiff():
    """A stiff spring–damper under the default solver: eigenvalues −1 and −10⁶; from the slow
    mode x(0) = 1, ẋ(0) = −1 the exact motion is x = e^{−t}."""
    import math
    g = _g()
    S = g.ConfigurationSpace("x")
    x, = S.q
    xd, = S.qd
    sp = _sp()
    m, k, c = sp.symbols("m k c", positive=True)
    sysm = g.MechanicalSystem(S, m * xd ** 2 / 2, V=k * x ** 2 / 2, forces=[-c * xd])
    tr = g.simulate(g.lagrange(sysm), [1.0, -1.0], (0.0, 10.0), {"m": 1.0, "k": 1e6, "c": 1e6 + 1})
    return abs(float(tr.y[0, -1]) - math.exp(-10.0)) < 1e-6


def _sweep_task_entries() -> None:
    grid = {"a": [0.1, 0.2, 0.3]}

    def hang(params, y0):
        time.sleep(10 ** 6)

    def kill(params, y0):
        os._exit(7)

    def fail(params, y0):
        return {"r": 1 / 0}

    def lie(params, y0):
        return {"point": 0, "a": 99}

    def rows_truthful(res) -> bool:
        pts = [r["point"] for r in res.rows]
        return pts == list(range(3)) and [r["a"] for r in res.rows] == grid["a"]

    def ok_or_failed_rows(res) -> bool:
        return len(res.rows) == 3 and all(r["status"] != "ok" for r in res.rows)

    add("sweep.task_hangs", "numerics", lambda: _g().sweep(_sleigh_bh(), grid, task=hang), ok_or_failed_rows,
        names=("task", "time"), note="no per-task time limit exists in today's API")
    add("sweep.task_hangs_with_timeout", "numerics", lambda: _g().sweep(_sleigh_bh(), grid, task=hang, timeout=2),
        ok_or_failed_rows, names=("task", "time"), note="the per-task timeout added by issue 20")
    add("sweep.task_raises_ZeroDivisionError", "numerics", lambda: _g().sweep(_sleigh_bh(), grid, task=fail),
        ok_or_failed_rows, names=("task", "ZeroDivisionError"))
    add("sweep.task_returns_point_and_grid_keys", "numerics", lambda: _g().sweep(_sleigh_bh(), grid, task=lie),
        rows_truthful, names=("point", "a"))
    add("sweep.dask.task_kills_its_worker", "numerics",
        lambda: _g().sweep(_sleigh_bh(), grid, task=kill, client="local", retries=0), ok_or_failed_rows,
        names=("worker", "killed"), timeout=90)
    add("sweep.dask.task_hangs", "numerics",
        lambda: _g().sweep(_sleigh_bh(), grid, task=hang, client="local"), ok_or_failed_rows,
        names=("task", "time"), timeout=60)
    add("sweep.dask.task_hangs_with_timeout", "numerics",
        lambda: _g().sweep(_sleigh_bh(), grid, task=hang, client="local", timeout=2), ok_or_failed_rows,
        names=("task", "time"), timeout=90, note="the per-task timeout added by issue 20")
    add("sweep.dask.task_returns_point_and_grid_keys", "numerics",
        lambda: _g().sweep(_sleigh_bh(), grid, task=lie, client="local"), rows_truthful, names=("point", "a"),
        timeout=90)
    add("sweep.grid_string_value", "numerics",
        lambda: _g().sweep(_sleigh_bh(), {"m": ["heavy"], "a": [0.5], "I": [0.2]}, SLEIGH_Y0, (0, 0.1)), "raise",
        names=("m", "heavy", "grid"))
    add("sweep.grid_nan", "numerics",
        lambda: _g().sweep(_sleigh_bh(), {"m": [float("nan")], "a": [0.5], "I": [0.2]}, SLEIGH_Y0, (0, 0.1)), "raise",
        names=("m", "finite"))
    add("sweep.grid_nested_list", "numerics",
        lambda: _g().sweep(_sleigh_bh(), {"m": [[1, 2], [3]], "a": [0.5], "I": [0.2]}, SLEIGH_Y0, (0, 0.1)), "raise",
        names=("m", "grid"))


def _numerics_entries() -> None:
    sim = lambda **kw: _g().simulate(_sleigh_bh(), SLEIGH_Y0, (0, 0.1), dict(SLEIGH_PARAMS), **kw)  # noqa: E731
    add("simulate.method=Bogus", "numerics", lambda: sim(method="Bogus"), "raise", names=("Bogus", "method"))
    add("simulate.method=None", "numerics", lambda: sim(method=None), "raise", names=("method",))
    add("simulate.method=42", "numerics", lambda: sim(method=42), "raise", names=("method", "42"))
    add("simulate.t_eval_outside_span", "numerics", lambda: sim(t_eval=[0.5, 2.0]), "raise", names=("t_eval",))
    add("simulate.rtol=-1", "numerics", lambda: sim(rtol=-1.0), "raise", names=("rtol",))
    add("simulate.max_step=0", "numerics", lambda: sim(max_step=0.0), "raise", names=("max_step",))
    add("simulate.t_span_string", "numerics",
        lambda: _g().simulate(_sleigh_bh(), SLEIGH_Y0, ("0", "__import__('os')"), dict(SLEIGH_PARAMS)), "raise",
        names=("t_span",))
    add("simulate.m=-2_positive", "numerics",
        lambda: _g().simulate(_sleigh_bh(), SLEIGH_Y0, (0, 0.1), dict(SLEIGH_PARAMS, m=-2.0)), "raise",
        names=("m", "positive"))
    add("simulate.I=0_singular", "numerics",
        lambda: _g().simulate(_sleigh_bh(), SLEIGH_Y0, (0, 0.1), dict(SLEIGH_PARAMS, I=0.0, a=0.0)), "raise",
        names=("I", "singular", "positive"))
    add("simulate.stiff_default_solver", "numerics", _stiff, lambda r: r is True, names=("stiff", "Radau", "BDF"))
    add("simulate.y0_wrong_length", "numerics",
        lambda: _g().simulate(_sleigh_bh(), [0.0] * 4, (0, 0.1), dict(SLEIGH_PARAMS)), "raise", names=("y0",))
    _sweep_task_entries()

    def pickled_ode():
        f = _sleigh_bh().ode_function(params=dict(SLEIGH_PARAMS))
        f2 = pickle.loads(pickle.dumps(f))
        import numpy as np
        y = np.array(SLEIGH_Y0)
        return bool(np.allclose(f(0.0, y), f2(0.0, y)))
    add("pickle.ODEFunction", "numerics", pickled_ode, lambda r: r is True, names=("pickle",), foreign_ok=True)

    def pickled_ode_lambda():
        f = _sleigh_bh().ode_function(params=dict(SLEIGH_PARAMS), backend="lambda")
        f2 = pickle.loads(pickle.dumps(f))
        import numpy as np
        y = np.array(SLEIGH_Y0)
        return bool(np.allclose(f(0.0, y), f2(0.0, y)))
    add("pickle.ODEFunction.lambda_backend", "numerics", pickled_ode_lambda, lambda r: r is True, names=("pickle",),
        foreign_ok=True)

    def pickled_traj():
        tr = sim(t_eval=[0.0, 0.05, 0.1])
        tr2 = pickle.loads(pickle.dumps(tr))
        import numpy as np
        return bool(np.array_equal(tr.y, tr2.y)) and bool(np.allclose(tr2.energy, tr.energy))
    add("pickle.Trajectory", "numerics", pickled_traj, lambda r: r is True, names=("pickle",), foreign_ok=True)

    def pickled_frame():
        F = _sleigh().frame
        F2 = pickle.loads(pickle.dumps(F))
        return F2.structure_coefficients() == F.structure_coefficients()
    add("pickle.Frame", "numerics", pickled_frame, lambda r: r is True, names=("pickle",), foreign_ok=True)

    def pickled_eqs():
        e = _sleigh_bh()
        e2 = pickle.loads(pickle.dumps(e))
        return e2.mass_matrix == e.mass_matrix
    add("pickle.Equations", "numerics", pickled_eqs, lambda r: r is True, names=("pickle",), foreign_ok=True)

    nt = lambda *a, **k: __import__("geonh.models.kinematic", fromlist=["n_trailer"]).n_trailer(*a, **k)  # noqa: E731
    add("n_trailer(1.5)", "numerics", lambda: nt(1.5), "raise", names=("N", "1.5", "integer"))
    add("n_trailer(-1)", "numerics", lambda: nt(-1), "raise", names=("N", "-1"))
    add("n_trailer(True)", "numerics", lambda: nt(True), "raise", names=("N", "True", "integer"))
    add("n_trailer('2')", "numerics", lambda: nt("2"), "raise", names=("N", "2", "integer"))
    add("n_trailer(2, lengths=[1])", "numerics", lambda: nt(2, lengths=[1]), "raise", names=("length",))
    add("n_trailer(10**6)", "numerics", lambda: nt(10 ** 6), "any", names=("N", "large"))


_numerics_entries()


# ------------------------------------------------------------------------------------------------
# 8. interop with sympy.physics.mechanics
# ------------------------------------------------------------------------------------------------
def _system_velocity_constraints(use_nonholonomic: bool):
    """A particle in the plane, sympy ``System``, with the velocity constraint ẏ = ẋ given as
    ``velocity_constraints`` (or, the control, as a nonholonomic constraint)."""
    import sympy.physics.mechanics as me
    sp = _sp()
    from geonh.models.interop import from_kanes_method
    x, y = me.dynamicsymbols("x y")
    u1, u2 = me.dynamicsymbols("u1 u2")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    s = me.System(N, O)
    s.q_ind = [x, y]
    s.u_ind = [u1]
    s.u_dep = [u2]
    s.kdes = [u1 - x.diff(), u2 - y.diff()]
    s.add_bodies(me.Particle("p", P, m))
    if use_nonholonomic:
        s.add_nonholonomic_constraints(u2 - u1)
    else:
        s.velocity_constraints = [u2 - u1]
    return from_kanes_method(s)


def _rolling_disc():
    """sympy's documentation example: the rolling disc with Kane's method (symbols without
    assumptions, as in the docs)."""
    import sympy.physics.mechanics as me
    sp = _sp()
    from geonh.models.interop import from_kanes_method
    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    r, m, gr = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = me.inertia(L, m / 4 * r ** 2, m / 2 * r ** 2, m / 4 * r ** 2)
    kd = [me.dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    forces = [(Dmc, -m * gr * Y.z)]
    disc = me.RigidBody("disc", Dmc, R, m, (I, Dmc))
    km = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd)
    km.kanes_equations([disc], forces)
    return from_kanes_method(km)


def _interop_entries() -> None:
    add("interop.System.velocity_constraints", "interop", lambda: _system_velocity_constraints(False),
        lambda s: s.constraints.rank == 1, names=("velocity_constraints", "constraint"),
        note="the constraint is given as System.velocity_constraints")
    add("interop.System.nonholonomic_control", "interop", lambda: _system_velocity_constraints(True),
        lambda s: s.constraints.rank == 1, refuse_ok=False)
    add("interop.rolling_disc_sympy_docs", "interop", _rolling_disc, lambda s: s.space.n == 3,
        names=("m", "r", "positive", "Dmc"), timeout=60,
        note="a refusal may also name the contact point Dmc: sympy's docs disc builds its rolling constraint "
             "into the velocities of a point without coordinates, which no T(q, q̇) can carry")
    add("interop.from_kanes_method('string')", "interop",
        lambda: __import__("geonh.models.interop", fromlist=["x"]).from_kanes_method("__import__('os').system('touch PWNED')"),
        "raise", names=("KanesMethod", "System", "str"))
    add("interop.from_kanes_method(None)", "interop",
        lambda: __import__("geonh.models.interop", fromlist=["x"]).from_kanes_method(None), "raise",
        names=("KanesMethod", "System", "None"))


_interop_entries()


# ------------------------------------------------------------------------------------------------
# 9. linearization
# ------------------------------------------------------------------------------------------------
def _fd_agrees(eqs, lin, point: dict, h: float = 1e-6, tol: float = 1e-5) -> bool:
    """Does lin.A agree with central differences of the compiled right-hand side at the point?
    (Only for states that are a subset of (q, u), as for frame forms.)"""
    import numpy as np
    params = {k: v for k, v in point.items() if k not in {s.name for s in eqs.space.q} | {u.name for u in eqs.u}}
    f = eqs.ode_function(params=params)
    names = list(f.state_names)
    y0 = np.array([float(point.get(n, 0.0)) for n in names])
    J = np.zeros((len(names), len(names)))
    for j in range(len(names)):
        e = np.zeros(len(names))
        e[j] = h
        J[:, j] = (np.asarray(f(0.0, y0 + e)) - np.asarray(f(0.0, y0 - e))) / (2 * h)
    idx = [names.index(s.name) for s in lin.state]
    A = np.array(lin.A.evalf(17).tolist(), dtype=float)
    return bool(np.allclose(A, J[np.ix_(idx, idx)], atol=tol, rtol=tol))


def _diff_drive(wheels: bool):
    """A differential-drive robot: body (x, y, θ) on a no-slip axle; with ``wheels`` also the
    wheel angles φ_l, φ_r rolling without slip (wheel radius r, half axle b)."""
    g, sp = _g(), _sp()
    if not wheels:
        S = g.ConfigurationSpace("x y theta")
        x, y, th = S.q
        xd, yd, thd = S.qd
        m, J = sp.symbols("m J", positive=True)
        sysm = g.MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2 + J * thd ** 2 / 2,
                                  constraints=[sp.sin(th) * xd - sp.cos(th) * yd])
        F = g.Frame.from_quasi_velocities(S, [sp.cos(th) * xd + sp.sin(th) * yd, thd, sp.sin(th) * xd - sp.cos(th) * yd],
                                          names=["v", "w", "c"])
        return g.boltzmann_hamel(sysm, F), {"x": 0, "y": 0, "theta": 0, "v": 1, "w": 0, "m": 1, "J": 1}
    S = g.ConfigurationSpace("x y theta phl phr")
    x, y, th, pl, pr = S.q
    xd, yd, thd, pld, prd = S.qd
    m, J, Iw, r, b = sp.symbols("m J I_w r b", positive=True)
    T = m * (xd ** 2 + yd ** 2) / 2 + J * thd ** 2 / 2 + Iw * (pld ** 2 + prd ** 2) / 2
    cons = [sp.sin(th) * xd - sp.cos(th) * yd,
            sp.cos(th) * xd + sp.sin(th) * yd - r * (pld + prd) / 2,
            thd - r * (prd - pld) / (2 * b)]
    sysm = g.MechanicalSystem(S, T, constraints=cons)
    F = g.Frame.from_quasi_velocities(S, [pld, prd] + cons, names=["ul", "ur", "c1", "c2", "c3"])
    return g.boltzmann_hamel(sysm, F), {"x": 0, "y": 0, "theta": 0, "phl": 0, "phr": 0, "ul": 1, "ur": 1,
                                        "m": 1, "J": 1, "I_w": 1, "r": 1, "b": 1}


def _linearize_entries() -> None:
    def drive(wheels: bool, drop_xy: bool):
        eqs, point = _diff_drive(wheels)
        op = dict(point)
        if drop_xy:
            op.pop("x"), op.pop("y")
        lin = eqs.linearize(op)
        return _fd_agrees(eqs, lin, point)
    add("linearize.boltzmann_hamel.diff_drive_theta0", "linearize", lambda: drive(False, False), lambda r: r is True,
        refuse_ok=False)
    add("linearize.boltzmann_hamel.diff_drive_theta0_no_xy", "linearize", lambda: drive(False, True),
        lambda r: r is True, names=("x", "y"))
    add("linearize.boltzmann_hamel.diff_drive_wheels_theta0", "linearize", lambda: drive(True, False),
        lambda r: r is True, refuse_ok=False, timeout=60)
    add("linearize.boltzmann_hamel.diff_drive_wheels_theta0_no_xy", "linearize", lambda: drive(True, True),
        lambda r: r is True, names=("x", "y"), timeout=60)

    def mismatched(key_names: tuple):
        sp = _sp()
        eqs = _sleigh_bh()
        named = {"x": 0, "y": 0, "theta": 0.3, "v": 1, "w": 0, "m": 1, "a": 0.5, "I": 0.2}   # a steady motion
        ref = eqs.linearize(named).A
        keyed = {(sp.Symbol(k) if k in key_names else k): v for k, v in named.items()}
        A = eqs.linearize(keyed).A
        return bool((A - ref).norm() < 1e-20)    # a sympy truth value: is True only after bool()
    add("linearize.assumption_mismatched_keys.theta", "linearize", lambda: mismatched(("theta",)),
        lambda r: r is True, names=("theta",), timeout=40)
    add("linearize.assumption_mismatched_keys.m_a_I", "linearize", lambda: mismatched(("m", "a", "I")),
        lambda r: r is True, names=("m", "a", "I"), timeout=40)
    add("linearize.value_nan", "linearize",
        lambda: _sleigh_bh().linearize({"x": 0, "y": 0, "theta": float("nan"), "v": 1, "w": 0, **SLEIGH_PARAMS}),
        "raise", names=("theta", "finite"))
    add("linearize.value_string", "linearize",
        lambda: _sleigh_bh().linearize({"x": 0, "y": 0, "theta": "heavy", "v": 1, "w": 0, **SLEIGH_PARAMS}),
        "raise", names=("theta", "heavy"))


_linearize_entries()


# ------------------------------------------------------------------------------------------------
# 10. systems and spaces
# ------------------------------------------------------------------------------------------------
def _inertia_T(n_angles: int):
    """T = ½ ωᵀ I ω with symbolic products of inertia (real, any sign): indefinite somewhere."""
    g, sp = _g(), _sp()
    S = g.ConfigurationSpace(" ".join(f"a{i}" for i in range(n_angles)))
    w = S.qd
    T = 0
    for i in range(n_angles):
        T += sp.Symbol(f"I_{i}{i}", positive=True) * w[i] ** 2 / 2
        for j in range(i + 1, n_angles):
            T += sp.Symbol(f"I_{i}{j}", real=True) * w[i] * w[j]
    return g.MechanicalSystem(S, T)


def _systems_entries() -> None:
    def other_space_velocity():
        g = _g()
        S1, S2 = g.ConfigurationSpace("x y"), g.ConfigurationSpace("u v")
        return g.MechanicalSystem(S1, _particle_T(S1) + S2.qd[0] ** 2)
    add("systems.T_with_velocity_of_another_space", "systems", other_space_velocity, "raise", names=("u_dot",))

    def other_space_same_names():
        g = _g()
        S1, S2 = g.ConfigurationSpace("x y"), g.ConfigurationSpace("x y", time=True)
        return g.MechanicalSystem(S1, _particle_T(S2))
    add("systems.T_from_a_space_with_time", "systems", other_space_same_names, "any", names=("x_dot", "space"))
    add("systems.indefinite_T_inertia_products_3", "systems", lambda: _inertia_T(3), "raise",
        names=("positive", "I_01"), timeout=10, note="the message must come fast (10 s)")
    add("systems.indefinite_T_inertia_products_6", "systems", lambda: _inertia_T(6), "raise",
        names=("positive", "I_01"), timeout=15, note="the message must come fast (15 s)")
    add("systems.T_cubic", "systems", lambda: _ms(T="x_dot**3 + y_dot**2"), "raise", names=("quadratic", "kinetic"))
    add("systems.T_negative", "systems", lambda: _ms(T="-x_dot**2 - y_dot**2"), "raise", names=("positive", "kinetic"))
    add("systems.constraints_inconsistent", "systems", lambda: _ms(constraints=["x_dot - 1", "x_dot - 2"]), "raise",
        names=("constraint", "inconsistent"))
    add("systems.V_with_velocity", "systems", lambda: _ms(V="x_dot"), "raise", names=("potential", "velocit"))
    add("systems.conditions_truth_value", "systems", lambda: _ms(conditions=[True]), "raise", names=("condition",))
    add("space.repeated_name", "systems", lambda: _g().ConfigurationSpace("x x"), "raise", names=("x", "repeat"))
    add("space.empty", "systems", lambda: _g().ConfigurationSpace(""), "raise", names=("coordinate",))
    add("space.keyword_name", "systems", lambda: _g().ConfigurationSpace("lambda"), "raise", names=("lambda",))
    add("space.non_string_name", "systems", lambda: _g().ConfigurationSpace(["x", 5]), "raise", names=("5",))
    add("space.x_and_x_dot", "systems", lambda: _g().ConfigurationSpace("x x_dot"), "raise", names=("x_dot",))
    add("frame.wrong_count", "systems",
        lambda: _g().Frame([_g().VectorField(_space(), [1, 0])]), "raise", names=("field",))
    add("frame.names_wrong_count", "systems",
        lambda: _g().Frame.from_quasi_velocities(_space(), ["x_dot", "y_dot"], names=["a"]), "raise",
        names=("name",))
    add("frame.names_not_identifiers", "systems",
        lambda: _g().Frame.from_quasi_velocities(_space(), ["x_dot", "y_dot"], names=["a b", "__import__"]), "raise",
        names=("name", "a b", "__import__"))
    add("vectorfield.wrong_length", "systems", lambda: _g().VectorField(_space(), [1, 2, 3]), "raise",
        names=("component",))
    add("codistribution.nonlinear", "systems",
        lambda: _g().Codistribution.from_constraints(_space(), ["x_dot**2"]), "raise", names=("linear",))
    add("derive.unknown_dependent", "systems",
        lambda: _g().derive("voronets", _sleigh().system, dependent=["z"]), "raise", names=("z",))


_systems_entries()


# ------------------------------------------------------------------------------------------------
# 11. threads and the backend switch
# ------------------------------------------------------------------------------------------------
def _thread_switch():
    """Thread A holds ``using_backend(other)``; thread B, meanwhile, asks for the backend."""
    import threading
    g = _g()
    start = g.get_backend()
    other = "sympy" if start == "symengine" else "symengine"
    inside, done, seen = threading.Event(), threading.Event(), {}

    def a():
        with g.using_backend(other):
            inside.set()
            done.wait(10)

    def b():
        inside.wait(10)
        seen["b"] = g.get_backend()
        done.set()
    ts = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return start, seen.get("b")


def _thread_restore():
    """Two threads' ``using_backend`` blocks interleave (A enters, B enters, A leaves, B
    leaves): afterwards the process must be back on its backend."""
    import threading
    g = _g()
    start = g.get_backend()
    other = "sympy" if start == "symengine" else "symengine"
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def a():
        with g.using_backend(other):
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b():
        a_in.wait(10)
        with g.using_backend(start):
            b_in.set()
            a_out.wait(10)
    ts = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return start, g.get_backend()


def _thread_results():
    """A frame's structure coefficients computed in a thread while another thread switches
    backends: the same answer as alone."""
    import threading
    g, sp = _g(), _sp()
    F = _sleigh().frame
    ref = F.structure_coefficients()
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            g.set_backend("sympy")
            g.set_backend("symengine")
    t = threading.Thread(target=flip)
    t.start()
    try:
        out = [_sleigh().frame.structure_coefficients() for _ in range(3)]
    finally:
        stop.set()
        t.join()
    return all(sp.simplify(sp.Array(o) - sp.Array(ref)) == sp.Array.zeros(*ref.shape) for o in out)


add("threads.using_backend_switches_another_thread", "threads", _thread_switch, lambda r: r[0] == r[1],
    foreign_ok=True)
add("threads.using_backend_interleaved_restore", "threads", _thread_restore, lambda r: r[0] == r[1],
    foreign_ok=True)
add("threads.results_while_another_thread_switches", "threads", _thread_results, lambda r: r is True,
    foreign_ok=True, timeout=60)


# ------------------------------------------------------------------------------------------------
# 12. LaTeX of the velocity symbols
# ------------------------------------------------------------------------------------------------
def _latex_ok(text: str) -> bool:
    """The velocity x_dot is \\dot{x}, not \\dot{x}_{dot} (nor x_{dot})."""
    return "_{dot" not in text


def _latex_entries() -> None:
    for form in ("voronets", "chaplygin", "neimark-fufaev"):
        def eqs(form=form):
            sl = _sleigh()
            return _g().derive(form, sl.system, dependent=sl.dependent)
        add(f"latex.{form}.display.equations_latex", "latex",
            lambda eqs=eqs: __import__("geonh.kernel.display", fromlist=["x"]).equations_latex(eqs()), _latex_ok,
            refuse_ok=False)
        add(f"latex.{form}.cli.equations--latex", "latex",
            lambda form=form: cli("equations", "chaplygin-sleigh", "--form", form, "--latex"),
            lambda c: c.code == 0 and _latex_ok(c.out), refuse_ok=False, timeout=40)


_latex_entries()


# ================================================================================================
# running one entry (the child process)
# ================================================================================================
def _geonh_frame(tb) -> bool:
    for fr in traceback.extract_tb(tb):
        if f"{os.sep}geonh{os.sep}" in fr.filename:
            return True
    return False


def run_child(name: str, out: str, memory_gb: float) -> int:
    """Run one entry in this (fresh) process and write its raw record to ``out``."""
    limit = int(memory_gb * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    e = {x.name: x for x in CORPUS}[name]
    rec: dict = {"name": name}
    t0 = time.perf_counter()
    try:
        import geonh
        GeonhError = geonh.GeonhError
    except BaseException as exc:  # noqa: BLE001
        rec.update(kind="raised", type=type(exc).__name__, geonh=False, geonh_frame=True,
                   message=f"geonh does not import: {exc}")
        Path(out).write_text(json.dumps(rec))
        return 0
    try:
        result = e.fn()
    except BaseException as exc:  # noqa: BLE001 - the census classifies everything
        rec.update(kind="raised", type=type(exc).__name__, geonh=isinstance(exc, GeonhError),
                   geonh_frame=_geonh_frame(exc.__traceback__), message=str(exc)[:4000],
                   where=" <- ".join(f"{Path(f.filename).name}:{f.lineno}"
                                     for f in reversed(traceback.extract_tb(exc.__traceback__)[-4:])))
    else:
        rec["kind"] = "cli" if isinstance(result, Cli) else "returned"
        if isinstance(result, Cli):
            rec.update(code=result.code, stdout=result.out[-2000:], stderr=result.err[-4000:])
        rec["repr"] = _short_repr(result)
        if callable(e.expect):
            try:
                rec["check"] = bool(e.expect(result))
            except BaseException as exc:  # noqa: BLE001 - a result the checker cannot read is wrong
                rec["check"] = False
                rec["check_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    rec["seconds_inside"] = round(time.perf_counter() - t0, 3)
    Path(out).write_text(json.dumps(rec, default=str))
    return 0


def _short_repr(x) -> str:
    try:
        s = repr(x)
    except BaseException as exc:  # noqa: BLE001
        s = f"<unprintable {type(x).__name__}: {type(exc).__name__}>"
    return s if len(s) <= 300 else s[:300] + f"… ({len(s)} chars)"


# ================================================================================================
# classification (the parent)
# ================================================================================================
_CONTRADICTION = re.compile(r"(?<![\w.])(\d+)\s*(<|>|!=|≠|<=|>=)\s*\1(?![\w.])")
_CLICK_NOISE = ("Usage:", "Try '", "Try \"")


def _names_it(msg: str, name: str) -> bool:
    """Does ``msg`` contain ``name`` (case-insensitively; a name of one or two characters as a
    whole word, so that "m" is not found in "the")?"""
    if len(name) <= 2:
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", msg, re.IGNORECASE) is not None
    return name.lower() in msg.lower()


def message_problems(msg: str, names: tuple) -> list[str]:
    """The message rule of the module docstring; returns the parts it fails."""
    bad = []
    if not msg.strip():
        bad.append("empty message")
    m = _CONTRADICTION.search(msg)
    if m:
        bad.append(f"self-contradicting ({m.group(0)!r})")
    if names and not any(_names_it(msg, n) for n in names):
        bad.append(f"names none of {list(names)}")
    if len(msg) > MAX_MESSAGE:
        bad.append(f"{len(msg)} characters")
    return bad


def _cli_error(rec: dict) -> tuple[str | None, list[str]]:
    """(the error line, other problems) of a failed CLI run; None if there is no clean error."""
    err = rec.get("stderr", "")
    if "Traceback (most recent call last)" in err or "Exception ignored" in err:
        return None, []
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(_CLICK_NOISE)]
    errors = [ln for ln in lines if ln.startswith(("geonh: error:", "Error:", "geonh: aborted"))]
    if not errors:
        return None, []
    extra = [] if len(lines) == 1 else [f"{len(lines)} lines on stderr"]
    return errors[0], extra


def classify(e: Entry, rec: dict | None, *, timed_out: bool, marker: bool, rc: int | None,
             stderr_tail: str) -> tuple[str, str]:
    """(class, detail) of one entry's run."""
    if marker:
        return "code-ran", "the injection marker file appeared"
    if timed_out:
        return "hang", f"no answer in {e.timeout or DEFAULT_TIMEOUT:g} s"
    if rec is None:
        tail = " | ".join(stderr_tail.strip().splitlines()[-2:])
        return "raw", f"the process died (exit {rc}) {tail}"[:400]
    kind = rec["kind"]
    refusal = None
    if kind == "raised":
        if rec["geonh"]:
            refusal = f"{rec['type']}: {rec['message']}"
            msg = rec["message"]
            problems = message_problems(msg, e.names)
        elif not rec.get("geonh_frame") and not e.foreign_ok:
            return "harness", f"{rec['type']}: {rec['message'][:200]} at {rec.get('where', '')}"
        else:
            return "raw", f"{rec['type']}: {rec['message'][:300]} at {rec.get('where', '')}"
    elif kind == "cli" and rec["code"] != 0:
        line, problems = _cli_error(rec)
        if line is None:
            tail = " | ".join((rec.get("stderr") or "").strip().splitlines()[-2:])
            return "raw", f"exit {rec['code']}: {tail}"[:400]
        refusal = f"exit {rec['code']}: {line}"
        msg = line.split(":", 2)[-1] if line.startswith("geonh: error:") else line.split(":", 1)[-1]
        problems = problems + message_problems(msg, e.names)
    if refusal is not None:
        if callable(e.expect) and not e.refuse_ok:
            return "unclear", f"refused a valid input: {refusal[:300]}"
        if problems:
            return "unclear", f"{'; '.join(problems)}: {refusal[:300]}"
        return "clear", refusal[:300]
    # a result
    if e.expect == "raise":
        return "silent", f"returned {rec.get('repr', '')[:200]}"
    if e.expect == "any":
        return "ok", f"returned {rec.get('repr', '')[:200]}"
    if rec.get("check"):
        return "ok", f"returned {rec.get('repr', '')[:200]}"
    why = rec.get("check_error") or "the checker rejects the result"
    return "silent", f"{why}: {rec.get('repr', '')[:200]}"


# ================================================================================================
# running the corpus (the parent)
# ================================================================================================
def _child_env() -> dict:
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        env[k] = "1"
    env.setdefault("PYTHONHASHSEED", "0")
    return env


class _Run:
    def __init__(self, e: Entry, memory_gb: float, scale: float, base: Path):
        self.e = e
        self.dir = Path(tempfile.mkdtemp(prefix="hostile_", dir=base))
        self.out = self.dir.parent / (self.dir.name + ".json")
        self.err = open(self.dir.parent / (self.dir.name + ".stderr"), "w+")
        self.limit = (e.timeout or DEFAULT_TIMEOUT) * scale
        self.t0 = time.monotonic()
        self.p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", e.name,
                                   "--out", str(self.out), "--memory-gb", str(memory_gb)],
                                  cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err,
                                  env=_child_env(), start_new_session=True)
        self.rc: int | None = None
        self.rss = 0.0
        self.timed_out = False

    def poll(self) -> bool:
        """True once finished (or killed at its limit)."""
        pid, status, usage = os.wait4(self.p.pid, os.WNOHANG)
        if pid:
            self.rc = os.waitstatus_to_exitcode(status)
            self.p.returncode = self.rc
            self.rss = usage.ru_maxrss / 1024
            self._reap_group()
            return True
        if time.monotonic() - self.t0 > self.limit:
            self.timed_out = True
            self._reap_group()
            _, status, usage = os.wait4(self.p.pid, 0)
            self.rc = os.waitstatus_to_exitcode(status)
            self.p.returncode = self.rc
            self.rss = usage.ru_maxrss / 1024
            return True
        return False

    def _reap_group(self) -> None:
        try:
            os.killpg(self.p.pid, signal.SIGKILL)   # the child and whatever it started
        except (ProcessLookupError, PermissionError):
            pass

    def result(self) -> dict:
        seconds = time.monotonic() - self.t0
        rec = None
        if self.out.exists():
            try:
                rec = json.loads(self.out.read_text())
            except ValueError:
                rec = None
        self.err.seek(0)
        tail = self.err.read()[-2000:]
        self.err.close()
        marker = (self.dir / MARKER).exists()
        cls, detail = classify(self.e, rec, timed_out=self.timed_out, marker=marker, rc=self.rc, stderr_tail=tail)
        shutil.rmtree(self.dir, ignore_errors=True)
        for p in (self.out, Path(self.err.name)):
            p.unlink(missing_ok=True)
        return {"name": self.e.name, "group": self.e.group, "class": cls, "detail": " ".join(detail.split()),
                "expect": self.e.expect if isinstance(self.e.expect, str) else "check",
                "seconds": round(seconds, 2), "max_rss_mb": round(self.rss, 1), "note": self.e.note}


def run_corpus(entries: list[Entry], jobs: int, memory_gb: float, scale: float, verbose: bool,
               on_result: Callable[[dict], None]) -> list[dict]:
    base = Path(tempfile.mkdtemp(prefix="geonh_hostile_"))
    todo = list(entries)
    running: list[_Run] = []
    results = []
    try:
        while todo or running:
            while todo and len(running) < jobs:
                running.append(_Run(todo.pop(0), memory_gb, scale, base))
            time.sleep(0.05)
            for r in list(running):
                if r.poll():
                    running.remove(r)
                    res = r.result()
                    results.append(res)
                    on_result(res)
                    if verbose:
                        print(f"{res['class']:9s} {res['seconds']:6.1f}s {res['max_rss_mb']:7.0f}MB  "
                              f"{res['name']}: {res['detail'][:150]}", flush=True)
    finally:
        for r in running:
            r._reap_group()
        shutil.rmtree(base, ignore_errors=True)
    order = {e.name: i for i, e in enumerate(entries)}
    return sorted(results, key=lambda r: order[r["name"]])


def confirm_hangs(results: list[dict], jobs: int, memory_gb: float, scale: float, factor: float,
                  verbose: bool) -> list[dict]:
    """Run every entry classed ``hang`` once more with ``factor`` times its limit (a loaded
    machine can push a slow entry past its limit).  An entry that now finishes takes its new
    class, its detail noting the time it needed; one that still does not stays a hang."""
    by_name = {e.name: e for e in CORPUS}
    hung = [by_name[r["name"]] for r in results if r["class"] == "hang" and r["name"] in by_name]
    if not hung:
        return results
    if verbose:
        print(f"confirming {len(hung)} hangs with {factor:g}x the time limit", flush=True)
    again = {r["name"]: r for r in run_corpus(hung, jobs, memory_gb, scale * factor, verbose, lambda r: None)}
    out = []
    for r in results:
        new = again.get(r["name"])
        if new is not None and new["class"] != "hang":
            limit = (by_name[r["name"]].timeout or DEFAULT_TIMEOUT) * scale
            new = dict(new, detail=f"slow: {new['seconds']:.0f} s (limit {limit:g} s); {new['detail']}")
        elif new is not None:
            new = dict(new, detail=f"no answer in {(by_name[r['name']].timeout or DEFAULT_TIMEOUT) * scale * factor:g} s "
                                   f"(confirmed)")
        out.append(new or r)
    return out


def _meta() -> dict:
    import platform
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "python": platform.python_version(),
            "machine": f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}"}
    try:
        out = subprocess.run([sys.executable, "-c", "import geonh, os; print(geonh.__version__); "
                              "print(os.path.dirname(geonh.__file__))"], capture_output=True, text=True, timeout=60)
        version, where = out.stdout.split()
        meta.update(geonh=version, geonh_path=where)
        # the last commit that changed the package itself (the corpus's own commits do not count)
        commit = subprocess.run(["git", "-C", where, "log", "-1", "--format=%h", "--", "."], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--", "."], capture_output=True, text=True)
        meta["commit"] = commit.stdout.strip() + (" (+ uncommitted changes)" if dirty.stdout.strip() else "")
    except (ValueError, OSError, subprocess.SubprocessError):
        pass
    return meta


def table(results: list[dict]) -> str:
    counts = Counter(r["class"] for r in results)
    lines = [f"{len(results)} hostile inputs:"]
    lines += [f"  {c:9s} {counts.get(c, 0):4d}" for c in CLASSES]
    groups: dict[str, Counter] = {}
    for r in results:
        groups.setdefault(r["group"], Counter())[r["class"]] += 1
    lines.append("by group:")
    width = max(len(gname) for gname in groups) if groups else 5
    lines.append("  " + " " * width + "".join(f"{c:>9s}" for c in CLASSES))
    for gname, c in groups.items():
        lines.append(f"  {gname:{width}s}" + "".join(f"{c.get(k, 0) or '.':>9}" for k in CLASSES))
    return "\n".join(lines)


def load_results(path: str) -> tuple[dict, list[dict]]:
    meta, rows = {}, []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if "meta" in obj:
            meta = obj["meta"]
        else:
            rows.append(obj)
    return meta, rows


def compare(before_path: str, after_path: str) -> str:
    mb, before = load_results(before_path)
    ma, after = load_results(after_path)
    cb, ca = Counter(r["class"] for r in before), Counter(r["class"] for r in after)
    out = [f"before: {before_path} ({mb.get('commit', '?')}, {mb.get('date', '?')}), {len(before)} entries",
           f"after:  {after_path} ({ma.get('commit', '?')}, {ma.get('date', '?')}), {len(after)} entries",
           f"  {'class':9s} {'before':>7s} {'after':>7s} {'change':>7s}"]
    for c in CLASSES:
        out.append(f"  {c:9s} {cb.get(c, 0):7d} {ca.get(c, 0):7d} {ca.get(c, 0) - cb.get(c, 0):+7d}")
    bmap = {r["name"]: r for r in before}
    amap = {r["name"]: r for r in after}
    changed = [(n, bmap[n]["class"], amap[n]["class"]) for n in amap if n in bmap and bmap[n]["class"] != amap[n]["class"]]
    good = {"ok", "clear"}
    better = [x for x in changed if x[2] in good and x[1] not in good]
    worse = [x for x in changed if x[1] in good and x[2] not in good]
    out.append(f"changed class: {len(changed)} (better {len(better)}, worse {len(worse)})")
    for n, b, a in sorted(changed, key=lambda x: (x[2] in good, x[0])):
        flag = "WORSE " if (b in good and a not in good) else ""
        out.append(f"  {flag}{n}: {b} -> {a}")
    only = sorted(set(amap) ^ set(bmap))
    if only:
        out.append(f"in one run only: {len(only)} entries")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default=None, help="JSON lines file (default benchmarks/results/hostile_last.json)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="entries run at the same time (default 2)")
    p.add_argument("-k", "--select", action="append", default=[], help="only entries whose name contains this")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per entry as it finishes")
    p.add_argument("--memory-gb", type=float, default=DEFAULT_MEMORY_GB, help="RLIMIT_AS of each entry")
    p.add_argument("--time-scale", type=float, default=1.0, help="multiply every time limit (slow machines)")
    p.add_argument("--list", action="store_true", help="list the corpus and exit")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="before/after counts of two result files")
    p.add_argument("--confirm", type=float, default=3.0, metavar="FACTOR",
                   help="re-run the hangs with FACTOR times the limit (default 3; 0: do not)")
    p.add_argument("--recheck", metavar="FILE", help="only confirm the hangs of an earlier result file (rewrites it)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return run_child(args.child, args.out, args.memory_gb)
    if args.compare:
        print(compare(*args.compare))
        return 0
    if args.recheck:
        meta, rows = load_results(args.recheck)
        rows = confirm_hangs(rows, args.jobs, args.memory_gb, args.time_scale, args.confirm or 3.0, args.verbose)
        meta["hangs_confirmed_with"] = args.confirm or 3.0
        with open(args.recheck, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"meta": meta}) + "\n")
            for res in rows:
                fh.write(json.dumps(res, ensure_ascii=False) + "\n")
        print(table(rows))
        return 0
    entries = [e for e in CORPUS if not args.select or any(s in e.name for s in args.select)]
    if args.list:
        for e in entries:
            exp = e.expect if isinstance(e.expect, str) else "check"
            print(f"{e.group:17s} {exp:6s} {e.name}")
        print(f"{len(entries)} entries")
        return 0
    out = Path(args.output) if args.output else HERE / "results" / "hostile_last.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = _meta()
    meta.update(entries=len(entries), jobs=args.jobs, memory_gb=args.memory_gb, time_scale=args.time_scale)
    t0 = time.monotonic()
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"meta": meta}) + "\n")

        def write(res: dict) -> None:
            fh.write(json.dumps(res, ensure_ascii=False) + "\n")
            fh.flush()
        results = run_corpus(entries, args.jobs, args.memory_gb, args.time_scale, args.verbose, write)
    if args.confirm:
        results = confirm_hangs(results, args.jobs, args.memory_gb, args.time_scale, args.confirm, args.verbose)
        meta["hangs_confirmed_with"] = args.confirm
    # rewrite in corpus order, with the wall time
    meta["wall_seconds"] = round(time.monotonic() - t0, 1)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"meta": meta}) + "\n")
        for res in results:
            fh.write(json.dumps(res, ensure_ascii=False) + "\n")
    print(f"geonh {meta.get('geonh', '?')} at {meta.get('geonh_path', '?')} ({meta.get('commit', '?')})")
    print(table(results))
    print(f"wall time {meta['wall_seconds']:.0f} s with {args.jobs} processes; results in {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
