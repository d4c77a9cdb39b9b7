"""One boundary for user input: no string is ever run as code (issue 20).

sympy's ``sympify`` (and everything that calls it on a string: ``Matrix([...])``, ``subs``,
``sin(...)``, ``diff``, ``Tuple``, ...) *evaluates* a string as Python.  geonh reads strings
only through :mod:`geonh.kernel.parsing`.  This file makes that rule checkable:

* it **enumerates** the public surface by introspection — every callable in the ``__all__``
  of every public module of geonh (walked with ``pkgutil``; a module without ``__all__`` must
  be listed in :data:`NO_ALL` with a reason), and the public methods of the classes there;
* it decides which parameters take expressions or values from the signatures
  (:func:`injectable`: annotations, and the small table :data:`KIND` for names without one);
* it feeds every such parameter an **injection corpus** (:func:`corpus`: code strings, and
  the same inside lists, tuples, nested lists, dict values and keys, nested mappings, sets,
  bytes, numpy strings, objects whose ``str`` is code, sympy symbols and functions named by
  code), the other arguments built by :data:`ARGS` from geonh's built-in models;
* and proves with a marker file in a temporary directory that nothing ran.  Any exception is
  acceptable except a non-geonh one: every exception must be a :class:`geonh.GeonhError`.

A public callable that is neither coverable (its required arguments can be built) nor listed
in :data:`NOT_COVERED` (with the reason) fails :func:`test_every_public_callable_is_covered`,
so a new public function cannot slip past the boundary unnoticed.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import random
import re
import signal
import tempfile
import time
import types
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh import models

# -- the corpus --------------------------------------------------------------------------------
MARKER = Path(tempfile.mkdtemp(prefix="geonh_boundary_")) / "pwned"
M = str(MARKER)

#: code that creates the marker when evaluated (by ``eval`` or by sympy's ``sympify``)
CODE = [
    f"__import__('os').system('touch {M}')",
    f"open('{M}', 'w')",
    f"exec(\"open('{M}', 'w')\")",
    f"eval(\"open('{M}', 'w')\")",
    f"(lambda: open('{M}', 'w'))()",
    f"getattr(__import__('builtins'), 'open')('{M}', 'w')",
    f"().__class__.__mro__[1].__subclasses__() and open('{M}', 'w')",
    f"max(().__class__.__mro__[1].__subclasses__(), key=lambda c: c.__name__ == 'catch_warnings')()"
    f"._module.__builtins__['open']('{M}', 'w')",
    f"Symbol.__new__.__globals__['__builtins__']['open']('{M}', 'w')",
    f"x + __import__('os').system('touch {M}')",
    f"  \n open('{M}', 'w')  ",
    f"dict(a=open('{M}', 'w'))",
]


class CodeInStr:
    """An object whose ``str`` is code (sympy's old string fallback evaluated it)."""

    def __str__(self) -> str:
        return CODE[1]

    __repr__ = __str__


def corpus() -> list[tuple[str, Any]]:
    """(label, payload) pairs: every code string bare, then one of them in every container."""
    code = CODE[1]
    x = sp.Symbol("x", real=True)
    bad = sp.Symbol(code)
    out: list[tuple[str, Any]] = [(f"str {k}", c) for k, c in enumerate(CODE)]
    out += [
        ("list", [code]), ("tuple", (code,)), ("nested list", [[code, 0], [0, code]]),
        ("dict value", {x: code}), ("dict str value", {"x": code}), ("dict key", {code: 1}),
        ("nested mapping", {"x": {"y": code}}), ("dict of list", {x: [code]}), ("set", {code}),
        ("bytes", code.encode()), ("numpy str", np.str_(code)), ("numpy array", np.array([code, code], dtype=object)),
        ("str() is code", CodeInStr()),
        ("Symbol named by code", bad), ("expression with it", x + bad), ("list with it", [bad, 1]),
        ("Function named by code", sp.Function(code)(x)), ("dict key Symbol", {bad: 1}),
        ("Matrix with it", sp.Matrix([[bad, 0], [0, 1]])),
    ]
    return out


def test_the_corpus_is_potent():
    """Each code string creates the marker when sympy's sympify or Python's eval runs it, so
    the absence of the marker below means that nothing ran."""
    import warnings
    for code in CODE:
        made = False
        for run in (lambda c: eval(c, {"x": 1}), sp.sympify):  # noqa: S307 - the point of the test
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    run(code)
                except Exception:  # noqa: BLE001
                    pass
            if MARKER.exists():
                MARKER.unlink()
                made = True
        assert made, code
    # code inside containers and as a Symbol's name reaches eval through sympify / lambdify
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for value in ([CODE[1]], {"a": CODE[1]}, np.array([CODE[1]], dtype=object)):
            try:
                sp.sympify(value)
            except Exception:  # noqa: BLE001
                pass
            assert MARKER.exists(), value
            MARKER.unlink()
        x = sp.Symbol("x")
        try:
            sp.lambdify([x], x + sp.Symbol(CODE[1]))(1)
        except Exception:  # noqa: BLE001
            pass
        assert MARKER.exists()
        MARKER.unlink()


# -- the public surface ------------------------------------------------------------------------
#: public modules without ``__all__``, and why they have none (their names are re-exported by a
#: package's ``__all__``, or they are the command line's back end, tested through it)
NO_ALL = {
    "geonh.app": "the application floor's package: its modules (cli, workbench, report, plotting) are listed here",
    "geonh.app.cli": "the command line (click); its option strings are parsed through geonh.app.workbench "
                 "and geonh.kernel.parsing, tested in tests/app/test_cli.py",
    "geonh.app.report": "the HTML report of `geonh report`, built from geonh.app.workbench results",
    "geonh.app.workbench": "the command line's back end; called by geonh.app.cli with models and option values",
    "geonh.errors": "exception classes only (re-exported by geonh.__all__)",
    "geonh.kernel.distributions": "re-exported by geonh.kernel.__all__",
    "geonh.kernel.fields": "re-exported by geonh.kernel.__all__",
    "geonh.kernel.forms": "re-exported by geonh.kernel.__all__",
    "geonh.kernel.frames": "re-exported by geonh.kernel.__all__",
    "geonh.kernel.generic_point": "re-exported by geonh.kernel.__all__ (is_zero, generic_rank)",
    "geonh.kernel.space": "re-exported by geonh.kernel.__all__",
    "geonh.models.kinematic": "model builders without arguments, listed by geonh.models (names/get)",
    "geonh.sources.appell": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.aumann": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.hamel": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.hamel_forms": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.juschkov_maggi": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.juschkov_newton": "the audit's formula checks (no arguments), run by geonh.sources.audit",
    "geonh.sources.neimark_fufaev": "the audit's formula checks (no arguments), run by geonh.sources.audit",
}


def public_modules() -> list[types.ModuleType]:
    """geonh and every module below it whose dotted name has no part starting with '_'."""
    mods = [g]
    for info in pkgutil.walk_packages(g.__path__, "geonh."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        mods.append(importlib.import_module(info.name))
    return mods


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public callable: a function, a class (its constructor) or a method of a class."""

    name: str                 # qualified name, e.g. "geonh.kernel.fields.VectorField.subs"
    obj: Callable
    owner: type | None = None  # the class of a method (None for functions and constructors)


def is_record(cls: type) -> bool:
    """A dataclass whose generated ``__init__`` only stores its arguments (no ``__post_init__``):
    it reads nothing, so there is nothing to inject into (its methods are still covered)."""
    init = cls.__dict__.get("__init__")
    return dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and init is not None \
        and init.__code__.co_filename == "<string>"


def _qualname(obj) -> str:
    q = obj.__qualname__
    return f"{obj.__module__}.{obj.__name__ if '<locals>' in q else q}"


def public_callables() -> list[Entry]:
    """Every public function and class of the walked ``__all__``s, and each class's public
    methods defined in geonh (exceptions, typing constructs and Protocols excepted: they take
    no user expressions)."""
    seen: dict[int, Entry] = {}
    for mod in public_modules():
        names = getattr(mod, "__all__", None)
        if names is None:
            assert mod.__name__ in NO_ALL, f"{mod.__name__} has no __all__: add one, or list it in NO_ALL"
            continue
        for n in names:
            obj = getattr(mod, n)
            if id(obj) in seen or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if inspect.isclass(obj) and (issubclass(obj, BaseException) or getattr(obj, "_is_protocol", False)):
                continue
            seen[id(obj)] = Entry(_qualname(obj), obj)
    out = list(seen.values())
    for e in list(out):
        if not inspect.isclass(e.obj):
            continue
        fields = {f.name for f in dataclasses.fields(e.obj)} if dataclasses.is_dataclass(e.obj) else set()
        for mname, raw in inspect.getmembers_static(e.obj):
            if mname.startswith("_") or mname in fields:  # a dataclass field holding a function is data
                continue
            fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
            if not inspect.isfunction(fn) or not (fn.__module__ or "").startswith("geonh"):
                continue
            out.append(Entry(f"{e.name}.{mname}", getattr(e.obj, mname), e.obj))
    return sorted(out, key=lambda e: e.name)


# -- which parameters take values ----------------------------------------------------------------
#: parameter kinds by name, where the annotation does not decide (or there is none):
#: "object" — a geonh object built by geonh (system, equations, frame, model, trajectory, ...);
#: "option" — a flag, a count, a name or a callback; "value" — an expression or a value
KIND = {
    # objects
    "system": "object", "eqs": "object", "eq": "object", "model": "object", "frame": "object",
    "traj": "object", "km": "object", "rel": "object", "translation": "object", "client": "object",
    "ax": "object", "axes": "object", "sampler": "object", "progress": "object",
    "function": "object", "raw": "object", "batch": "object", "single": "object", "into": "object",
    "builder": "object", "check": "object", "obstruction": "object", "leaf": "object", "node": "object",
    "fn": "object", "task": "object", "cache": "object", "memo": "object", "pending": "object", "simplify": "object",
    "settings": "option", "rng": "object", "exact": "option", "largest": "option", "span": "option",
    "assumed_signs": "option", "negative": "option", "digits": "value", "formula": "object", "finding": "object", "best": "object",
    # strings that are formulas or text read by geonh
    "text": "value", "tex": "value", "arg": "value", "coord": "value", "coordinates": "value",
    "equations": "object", "k": "option", "rule": "option",
    "geonh.transposition.relations.ConstrainedSetting.from_equations.equations": "value",
    "geonh.sources.ledger.solve_linear.equations": "value",
    "geonh.systems.hertz.HertzSpace.reactions.k": "value", "geonh.equations.hertz.hertz.k": "value",
}
#: annotation words that mean "takes expressions or values"
VALUE_WORDS = {"sp", "Expr", "Basic", "Symbol", "Matrix", "MatrixBase", "Mapping", "dict", "Sequence",
               "Iterable", "list", "tuple", "float", "complex", "Any", "np", "ndarray", "mpmath", "matrix"}


def injectable(p: inspect.Parameter, where: str = "") -> bool:
    """Does parameter ``p`` (of the callable named ``where``) take expressions or values (and so
    gets the corpus)?  :data:`KIND` decides for the names it lists (``"callable.param"`` first,
    then ``"param"``), else the annotation (any word of :data:`VALUE_WORDS`), else yes.
    ``**kwargs`` only forward options (no); ``*args`` do (yes)."""
    if p.kind is p.VAR_KEYWORD:
        return False
    kind = KIND.get(f"{where}.{p.name}", KIND.get(p.name))
    if kind is not None:
        return kind == "value"
    if p.annotation is p.empty:
        return True
    text = str(p.annotation)
    while "Callable[" in text:  # a callback's signature names types, it takes no values itself
        i = j = text.index("Callable[") + len("Callable[")
        depth = 1
        while depth and j < len(text):
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            j += 1
        text = text[:i - len("Callable[")] + "Callable" + text[j:]
    words = set(re.findall(r"[A-Za-z_]\w*", text))
    return bool(words & VALUE_WORDS)


def parameters(e: Entry) -> list[inspect.Parameter]:
    """The parameters of ``e`` a caller gives (``self``/``cls`` dropped)."""
    sig = inspect.signature(e.obj)
    ps = list(sig.parameters.values())
    if e.owner is not None and not isinstance(inspect.getattr_static(e.owner, e.name.rsplit(".", 1)[1]),
                                              (classmethod, staticmethod)):
        ps = ps[1:]  # unbound method: self is given by the instance
    return ps


# -- valid arguments, from geonh's built-in models -----------------------------------------------
class Ctx:
    """Valid objects to fill the parameters that are not under test (built once, lazily)."""

    @cached_property
    def model(self):
        return models.get("chaplygin-sleigh")

    @cached_property
    def system(self):
        return self.model.system

    @cached_property
    def space(self):
        return self.system.space

    @cached_property
    def sym(self):
        """x, y, theta, x_dot, y_dot, theta_dot"""
        return (*self.space.q, *self.space.qd)

    @cached_property
    def expr(self):
        x, y, th, xd, yd, thd = self.sym
        return x**2 + sp.sin(th) * xd

    @cached_property
    def frame(self):
        return self.model.frame

    @cached_property
    def eqs(self):
        return self.model.equations("voronets")

    @cached_property
    def params(self) -> dict:
        return {s: 1 for s in self.model.parameters}

    @cached_property
    def ode(self):
        return self.eqs.ode_function(self.params)

    @cached_property
    def y0(self):
        return np.array([0.0, 0.0, 0.1, 0.5, 0.2])

    @cached_property
    def state(self) -> dict:
        """A consistent state of the sleigh's equations (q, u and the parameters)."""
        S, e = self.space, self.eqs
        st = dict(zip(S.q, [0, 0, sp.Rational(1, 10)]))
        st.update(zip(e.u, [sp.Rational(1, 2), sp.Rational(1, 5)]))
        st.update(self.params)
        return st

    @cached_property
    def qstate(self) -> dict:
        """The same state in (q, q̇)."""
        st = {k: v for k, v in self.state.items() if k not in self.eqs.u}
        sub = dict(self.state)
        st.update({qd: sp.sympify(k).xreplace(sub) for qd, k in zip(self.space.qd, self.eqs.kinematics)})
        return st

    @cached_property
    def traj(self):
        return g.simulate(self.eqs, self.y0, (0.0, 0.05), self.params)

    @cached_property
    def decl(self):
        from geonh.equations.declaration import in_frame
        return in_frame("boltzmann-hamel", self.system, self.frame)

    @cached_property
    def field(self):
        return g.VectorField(self.space, [1, 0, 0])

    @cached_property
    def oneform(self):
        return g.OneForm(self.space, [0, 0, 1])

    @cached_property
    def cod(self):
        return self.system.constraints

    @cached_property
    def setting(self):
        return g.ConstrainedSetting.from_codistribution(self.cod)

    @cached_property
    def relations(self):
        return self.setting.transposition(0)

    @cached_property
    def free(self):
        return g.FreeSystem.from_system(self.system)

    @cached_property
    def gauss(self):
        return g.GaussSystem.from_system(self.system)

    @cached_property
    def nonlinear(self):
        return g.NonlinearSystem.from_mechanical(self.system)

    @cached_property
    def hertz(self):
        return g.HertzSpace(self.system)

    @cached_property
    def matrix(self):
        x = self.space.q[0]
        return sp.Matrix([[1, x, 0], [0, 1, 0], [0, 0, 2]])

    @cached_property
    def bicycle(self):
        from geonh.models import bicycle
        return bicycle.whipple_bicycle()

    @cached_property
    def bicycle_eqs(self):
        return self.bicycle.equations("boltzmann-hamel")

    @cached_property
    def bicycle_mats(self):
        from geonh.models import bicycle
        return bicycle.benchmark_matrices(self.bicycle_eqs)

    @cached_property
    def operating_point(self) -> dict:
        """The sleigh moving straight ahead."""
        return {**dict(zip(self.space.q, (0, 0, 0))), self.eqs.u[0]: 1, self.eqs.u[1]: 0, **self.params}

    @cached_property
    def linearization(self):
        return self.eqs.linearize(self.operating_point)

    @cached_property
    def sleigh_generators(self) -> list:
        """SE(2) acting on the sleigh: ∂x, ∂y and the rotation −y ∂x + x ∂y + ∂θ."""
        x, y, th = self.space.q
        return [[1, 0, 0], [0, 1, 0], [-y, x, 1]]

    @cached_property
    def steady(self):
        """The sleigh's straight steady motions (a family in xi1)."""
        return g.analysis.steady.steady_motions(self.eqs, self.sleigh_generators)[0]

    @cached_property
    def quasi(self) -> list:
        """Quasi-velocities of the sleigh, the constraint last."""
        xd, yd, thd = self.space.qd
        return [xd, thd, self.constraint]

    @cached_property
    def constraint(self):
        """The sleigh's velocity constraint, an expression in q and q̇."""
        return sum(c * v for c, v in zip(self.cod.forms[0].covector, self.space.velocities))

    @cached_property
    def velocity_frame(self):
        return g.velocity_frame(self.system, self.quasi)

    @cached_property
    def mechanics(self):
        """A particle on a line in sympy.physics.mechanics: (coordinates, bodies, frame, KanesMethod)."""
        from sympy.physics import mechanics as me
        q, u = me.dynamicsymbols("q u")
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        P = O.locatenew("P", q * N.x)
        O.set_vel(N, 0)
        P.set_vel(N, u * N.x)
        p = me.Particle("p", P, sp.Symbol("m", positive=True))
        km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
        km.kanes_equations([p], [])
        return [q], [p], N, km

    @cached_property
    def lagranges(self):
        """The same particle as a sympy.physics.mechanics ``LagrangesMethod``."""
        from sympy.physics import mechanics as me
        q = me.dynamicsymbols("q")
        m = sp.Symbol("m", positive=True)
        lm = me.LagrangesMethod(m * q.diff() ** 2 / 2, [q])
        lm.form_lagranges_equations()
        return lm

    @cached_property
    def translation(self):
        from geonh.kernel.backend import Translation
        return Translation()

    @cached_property
    def sympy_algebra(self):
        from geonh.kernel.algebra import SympyAlgebra
        return SympyAlgebra(self.space.coords)

    @cached_property
    def symengine_algebra(self):
        from geonh.kernel.algebra import SymengineAlgebra
        return SymengineAlgebra(self.space.coords)

    @cached_property
    def per_backend(self):
        from geonh.kernel.algebra import PerBackend
        return PerBackend()


def _x(c):
    return c.space.q[0]


#: how to build a valid value of each required parameter, by name (``c`` is the :class:`Ctx`)
ARGS: dict[str, Callable[[Ctx], Any]] = {
    "space": lambda c: c.space, "system": lambda c: c.system, "eqs": lambda c: c.eqs, "eq": lambda c: c.eqs,
    "eq1": lambda c: c.eqs, "eq2": lambda c: c.eqs, "equations": lambda c: c.eqs, "model": lambda c: c.model,
    "frame": lambda c: c.frame, "traj": lambda c: c.traj, "rng": lambda c: random.Random(0),
    "translation": lambda c: c.translation, "cod": lambda c: c.cod, "free": lambda c: c.free,
    "hs": lambda c: c.hertz, "setting": lambda c: c.setting, "constraints": lambda c: [c.constraint],
    "km": lambda c: c.mechanics[3], "new_space": lambda c: g.ConfigurationSpace("u v w"),
    "expr": lambda c: c.expr, "e": lambda c: c.expr, "I": lambda c: c.expr, "value": lambda c: c.expr,
    "obj": lambda c: c.expr, "f": lambda c: c.expr, "g": lambda c: c.expr, "text": lambda c: "x + 1",
    "tex": lambda c: "x", "arg": lambda c: "x", "path": lambda c: "no-such-model.toml",
    "exprs": lambda c: [c.expr, _x(c)], "phis": lambda c: [c.expr], "phi": lambda c: [c.expr],
    "accel": lambda c: list(c.space.qdd), "vec": lambda c: [1, 0, 0], "K": lambda c: list(c.decl.kinematics),
    "u": lambda c: list(c.decl.u), "ud": lambda c: list(c.decl.ud), "kinematics": lambda c: list(c.decl.kinematics),
    "speeds": lambda c: list(c.decl.speeds), "V": lambda c: c.decl.V, "W": lambda c: list(c.decl.W),
    "on_motion": lambda c: c.decl.on_motion[0] if c.decl.on_motion else {},
    "values": lambda c: c.state, "state": lambda c: c.state, "point": lambda c: c.state, "params": lambda c: c.params,
    "M": lambda c: c.matrix, "A": lambda c: c.matrix, "Theta": lambda c: sp.Matrix([[0, 1, 0]]),
    "matrix": lambda c: c.matrix, "jacobian": lambda c: c.matrix, "F": lambda c: sp.Matrix([1, 2, 3]),
    "rhs": lambda c: sp.Matrix([1, 2, 3]), "symbols": lambda c: list(c.space.q), "coords": lambda c: list(c.space.q),
    "q": lambda c: list(c.space.q), "left": lambda c: list(c.space.qd), "right": lambda c: list(c.space.qd),
    "variables": lambda c: list(c.space.q), "vstar": lambda c: [sp.Symbol("v1"), sp.Symbol("v2"), sp.Symbol("v3")],
    "components": lambda c: [1, 0, _x(c)], "comps": lambda c: {"x": 1}, "coordinates": lambda c: "a b",
    "coord": lambda c: "x", "fields": lambda c: [c.field], "forms": lambda c: [c.oneform],
    "omegas": lambda c: list(c.space.qd), "omega": lambda c: [1, 0, 0], "generators": lambda c: [c.field],
    "quasi": lambda c: c.quasi, "T": lambda c: c.system.T, "X": lambda c: c.field, "Y": lambda c: c.field,
    "t": lambda c: 0.0, "y": lambda c: c.y0, "Y_": lambda c: np.array([c.y0]), "w": lambda c: [1, 0, 0],
    "a": lambda c: [1, 0, 0], "b": lambda c: [0, 1, 0], "r": lambda c: [1, 0, 0], "B": lambda c: [[0, 1, 0]],
    "c": lambda c: [0], "D": lambda c: {"x": _x(c)}, "printed": lambda c: _x(c), "computed": lambda c: _x(c),
    "example": lambda c: "test", "expected": lambda c: _x(c), "status": lambda c: "agrees",
    "unknowns": lambda c: [_x(c)], "what": lambda c: "x", "m": lambda c: 2, "k": lambda c: 0, "a_int": lambda c: 0,
    "candidates": lambda c: list(c.eqs.u),
    "degree": lambda c: 1, "rank": lambda c: 1, "form": lambda c: "lagrange", "n_steps": lambda c: 2,
    "q0": lambda c: [0.0, 0.0, 0.1], "qd0": lambda c: [0.5, 0.0, 0.2], "h": lambda c: 0.01,
    "y0": lambda c: c.y0, "t_span": lambda c: (0.0, 0.05), "grid": lambda c: {"m": [1.0]},
    "mats": lambda c: c.bicycle_mats, "v": lambda c: 5, "basu": lambda c: {}, "iterable": lambda c: [1, 2],
    "speeds_f": lambda c: [1.0], "eigenvalues": lambda c: [[1j, -1j]], "growth": lambda c: [2, 3],
    "natives": lambda c: [__import__("symengine").Symbol("x")], "cache": lambda c: {},
    "leaf": lambda c: (lambda e: e), "fn": lambda c: (lambda e: e), "node": lambda c: (lambda e, args: e), "rows": lambda c: [],
    "bodies": lambda c: c.mechanics[1], "dependent": lambda c: ["y"], "section": lambda c: c.field,
    "theta": lambda c: c.oneform, "decl": lambda c: c.decl, "wrt": lambda c: [_x(c)], "args": lambda c: [_x(c)],
    "names": lambda c: ["v1", "v2"], "x": lambda c: sp.Rational(1, 2),
    "sym": lambda c: c.space.qd[0], "s": lambda c: c.space.qd[0], "rate": lambda c: c.space.qd[0],
    "of": lambda c: c.space.q[0], "known": lambda c: list(c.space.state_symbols),
    "symbol": lambda c: c.space.qd[0], "role": lambda c: "velocity", "coordinate": lambda c: c.space.q[0],
    "lm": lambda c: c.lagranges, "setup": lambda c: c.mechanics[3],
    "terms": lambda c: [c.expr, _x(c)], "mapping": lambda c: {_x(c): 1},
    "inputs": lambda c: [c.expr], "algebra": lambda c: c.sympy_algebra,
    "exact": lambda c: True, "vector": lambda c: [1, 0, 0], "E": lambda c: np.zeros((3, 3)),
    "condition": lambda c: c.space.q[0] > 0, "digits": lambda c: 60,
    "matrices": lambda c: {"A": c.matrix}, "directory": lambda c: tempfile.mkdtemp(prefix="geonh_boundary_dir_"),
    "z": lambda c: list(c.space.q), "duration": lambda c: 0.1, "field": lambda c: c.field, "weights": lambda c: [1, 1, 2], "up_to": lambda c: 2,
    "plan": lambda c: [g.control.Segment(0.1, 0.1, 0.1)], "z0": lambda c: [0.0, 0.0, 0.0],
    "zf": lambda c: [0.1, 0.0, 0.0], "segments": lambda c: [(c.field, 0.1)], "qf": lambda c: [0.1, 0.0, 0.0],
    "Z": lambda c: c.field, "name": lambda c: "x", "step_limit": lambda c: None, "time_limit": lambda c: None, "method": lambda c: "RK45", "source": lambda c: c.traj, "integral": lambda c: c.eqs.system.T, "d_symbols": lambda c: {},
}

_B = "geonh.models.bicycle."
_SX = lambda c: [c.constraint]  # noqa: E731 - the sleigh's constraint, as an expression


def _qqd(c):
    """The sleigh's consistent state as (q, q̇) numbers (the vakonomic comparison's y0)."""
    return [float(c.qstate[s]) for s in (*c.space.q, *c.space.qd)]


def _on_motion_tuple(c):
    return tuple(c.decl.on_motion)


#: per-callable arguments where the by-name table does not fit
OVERRIDES: dict[str, dict[str, Callable[[Ctx], Any]]] = {
    "geonh.kernel.forms.Form": {"components": lambda c: {(2,): 1}},
    "geonh.kernel.budget.count_nodes": {"limit": lambda c: 10},
    "geonh.kernel.progress.steps": {"step": lambda c: "forms", "items": lambda c: ["maggi", "kane"]},
    "geonh.analysis.hamiltonization.InvariantMeasure.density_in": {
        "old_of_new": lambda c: {c.space.q[0]: 2 * sp.Symbol("s")}, "new": lambda c: [sp.Symbol("s")]},
    "geonh.moved.MovedFinder.find_spec": {"fullname": lambda c: "geonh.no_such_module"},
    "geonh.numerics.codegen.CompiledFunction": {
        "args": lambda c: [_x(c)], "shape": lambda c: (1,), "size": lambda c: 1, "backend": lambda c: "numpy",
        "single": lambda c: (lambda x: x), "batch": lambda c: (lambda X: X), "into": lambda c: (lambda x, o: None)},
    "geonh.numerics.compiled.Observable": {
        "f": lambda c: c.ode, "exprs": lambda c: [_x(c)], "unknowns": lambda c: False, "what": lambda c: "x",
        "backend": lambda c: None},
    "geonh.numerics.constraints.ConstraintSet": {"f": lambda c: c.ode},
    "geonh.transposition.relations.ConstrainedSetting": {"a": lambda c: c.setting.a},
    "geonh.transposition.relations.ConstrainedSetting.from_equations": {"equations": _SX},
    "geonh.models.interop.kane_frame": {
        "system": lambda c: __import__("geonh.models.interop", fromlist=["x"]).from_kanes_method(c.mechanics[3])},
    "geonh.transposition.relations.TranspositionalRelations": {
        "Q": lambda c: c.setting.quasi, "Qa": lambda c: sp.zeros(c.setting.m, 1)},
    "geonh.systems.gauss.FreeSystem": {"f": lambda c: [0, 0, 0]},
    "geonh.systems.gauss.FreeSystem.transform": {
        "X": lambda c: dict(zip(c.space.q, sp.symbols("u v w", real=True)))},
    "geonh.systems.gauss.GaussSystem": {"constraints": _SX},
    "geonh.systems.gauss.GaussSystem.regularized": {"constraints": _SX},
    "geonh.systems.gauss.GaussSystem.accelerations_at": {"state": lambda c: c.qstate},
    "geonh.systems.nonlinear.NonlinearSystem.check_state": {"state": lambda c: c.qstate},
    "geonh.systems.constraint_analysis.ConstraintReport.check_state": {"state": lambda c: c.qstate},
    "geonh.systems.constraint_analysis.ConstraintReport.violations": {"state": lambda c: c.qstate},
    "geonh.systems.constraint_analysis.analyze_constraints": {"constraints": _SX},
    "geonh.kernel.distributions.Codistribution.from_constraints": {"constraints": _SX},
    "geonh.systems.nonlinear.sample_consistent_state": {
        "phi": _SX, "solved": lambda c: g.systems.nonlinear.solve_dependent_velocities(c.space, _SX(c))},
    "geonh.systems.nonlinear.solve_dependent_velocities": {"phi": _SX},
    "geonh.systems.gauss.constrained_acceleration": {"a": lambda c: [1, 0, 0], "B": lambda c: [[0, 1, 0]],
                                                     "c": lambda c: [0]},
    "geonh.systems.gauss.moore_penrose": {"A": lambda c: __import__("mpmath").matrix([[1, 0], [0, 1]])},
    "geonh.systems.mechanical.quadratic_form": {"qd": lambda c: list(c.space.qd)},
    "geonh.systems.mechanical.velocity_quadratic_parts": {
        "qd": lambda c: list(c.space.qd), "blocks": lambda c: [(1, [c.space.qd[0], 0, 0])]},
    "geonh.systems.mechanical.body_quadratic_parts": {
        "space": lambda c: g.ConfigurationSpace("q"), "frame": lambda c: c.mechanics[2]},
    "geonh.systems.mechanical.MechanicalSystem.from_mechanics": {
        "coordinates": lambda c: c.mechanics[0], "frame": lambda c: c.mechanics[2]},
    "geonh.equations.base.Equations": {
        "form": lambda c: "custom", "u": lambda c: list(c.eqs.u), "ud": lambda c: list(c.eqs.ud),
        "kinematics": lambda c: list(c.eqs.kinematics), "speeds": lambda c: list(c.eqs.speeds)},
    "geonh.equations.base.Equations.linearize": {"operating_point": lambda c: c.operating_point},
    "geonh.analysis.vakonomic.vakonomic_multiplier": {"y0": _qqd},
    "geonh.analysis.vakonomic.compare_vakonomic": {"y0": _qqd, "mu0": lambda c: [0.5]},
    "geonh.analysis.linearize.linearize": {"operating_point": lambda c: c.operating_point},
    "geonh.analysis.linearize.eigenvalues": {"A": lambda c: sp.Matrix([[0, 1], [-1, 0]])},
    "geonh.analysis.linearize.state_generator": {"components": lambda c: c.sleigh_generators[2]},
    "geonh.analysis.steady.steady_motions": {"generators": lambda c: c.sleigh_generators},
    "geonh.analysis.steady.stability_boundary": {"motion": lambda c: c.steady, "values": lambda c: c.params},
    "geonh.analysis.steady.eigenvalue_diagram": {"motion": lambda c: c.steady, "parameter": lambda c: "xi1",
                                                 "grid": lambda c: [1], "values": lambda c: c.params},
    "geonh.analysis.steady.SteadyMotion.tangents": {
        "lin": lambda c: c.steady.linearize({**c.params, "xi1": 1})},
    "geonh.analysis.steady.StabilityBoundary.holds": {"values": lambda c: {"xi1": 1}},
    "geonh.equations.declaration.FormDeclaration": {
        "form": lambda c: "boltzmann-hamel", "W": lambda c: tuple(c.decl.W), "on_motion": _on_motion_tuple,
        "u": lambda c: tuple(c.decl.u), "ud": lambda c: tuple(c.decl.ud),
        "kinematics": lambda c: tuple(c.decl.kinematics), "speeds": lambda c: tuple(c.decl.speeds)},
    "geonh.equations.engine.central_equations": {"on_motion": lambda c: c.decl.on_motion[0]},
    "geonh.equations.declaration.contract": {"a": lambda c: 0},
    "geonh.equations.declaration.Citation": {
        "key": lambda c: "hamel1924", "authors": lambda c: ("Hamel",), "year": lambda c: 1924, "work": lambda c: "w"},
    "geonh.equations.declaration.FormInfo": {
        "route": lambda c: g.Route.ENGINE, "inputs": lambda c: g.Inputs.NONE},
    "geonh.equations.independent.multiplier_equations": {
        "phis": _SX, "Theta": lambda c: c.cod.matrix(), "accel": lambda c: list(c.system.lagrange_operator)},
    "geonh.kernel.velocity_frames.VelocityFrame": {
        "quasi": lambda c: list(c.velocity_frame.quasi), "symbols": lambda c: list(c.velocity_frame.v),
        "inverse": lambda c: list(c.velocity_frame.inverse)},
    "geonh.kernel.velocity_frames.singular_at": {"states": lambda c: [c.qstate]},
    "geonh.kernel.frames.Frame": {"fields": lambda c: list(c.frame.fields)},
    "geonh.kernel.frames.Frame.from_coframe": {"forms": lambda c: list(c.frame.coframe)},
    "geonh.kernel.frames.Frame.change": {"A": lambda c: c.matrix},
    "geonh.kernel.backend.LazyArray.from_native": {
        "shape": lambda c: (1,), "values": lambda c: [__import__("symengine").Integer(1)],
        "pending": lambda c: {}},
    "geonh.kernel.evaluation.native_values": {"values": lambda c: {__import__("symengine").Symbol("x"): 1}},
    "geonh.transposition.printed.printed_nf_gamma": {"a": lambda c: c.matrix},
    "geonh.transposition.printed.corrected_nf_gamma": {
        "a": lambda c: c.matrix, "a_sigma": lambda c: None, "q_sigma": lambda c: []},
    "geonh.transposition.printed.printed_nf_B": {
        "a": lambda c: sp.Matrix([[1, c.space.q[2]]]), "q_free": lambda c: [c.space.q[0], c.space.q[2]],
        "q_dep": lambda c: [c.space.q[1]]},
    "geonh.transposition.printed.printed_hamel_beta": {"b": lambda c: c.matrix, "c": lambda c: c.matrix},
    "geonh.sources.ledger.solve_linear": {"equations": lambda c: [_x(c) - 1]},
    "geonh.sources.ledger.compare": {"computed": lambda c: 0},  # a difference, so that ``under`` is read
    "geonh.numerics.trajectory.Trajectory": {
        "t": lambda c: np.zeros(1), "y": lambda c: np.zeros((1, 5)), "function": lambda c: c.ode,
        "raw": lambda c: None},
    "geonh.numerics.compiled.ODEFunction.batch": {"Y": lambda c: np.array([c.y0])},
    "geonh.numerics.compiled.ODEFunction.batch_unknowns": {"Y": lambda c: np.array([c.y0])},
    "geonh.numerics.compiled.Observable.batch": {"Y": lambda c: np.array([c.y0])},
    "geonh.numerics.constraints.ConstraintSet.residuals_batch": {"Y": lambda c: np.array([c.y0])},
    "geonh.numerics.codegen.CompiledFunction.batch": {"X": lambda c: np.array([[1.0]])},
    "geonh.numerics.compiled.ODEFunction.into": {"out": lambda c: np.empty(c.ode.n_q + c.ode.n_u)},
    "geonh.numerics.codegen.CompiledFunction.of_lambdify": {
        "shape": lambda c: (1,), "size": lambda c: 1,
        "lam": lambda c: __import__("symengine").Lambdify([__import__("symengine").Symbol("x")],
                                                          [__import__("symengine").Symbol("x")], backend="llvm")},
    **{"geonh.numerics.cbackend." + name: {"se_args": lambda c: [__import__("symengine").Symbol("x")],
                                          "se_exprs": lambda c: [__import__("symengine").Symbol("x")]}
       for name in ("build", "c_function", "c_source", "c_program", "program_steps")},
    "geonh.numerics.cbackend.c_statement": {"kind": lambda c: "+", "ops": lambda c: ["v0", "in[0]"]},
    "geonh.numerics.forward.jet_program": {"exprs": lambda c: [__import__("symengine").Symbol("x")],
                                           "wrt": lambda c: [__import__("symengine").Symbol("x")]},
    "geonh.app.plotting.bicycle_figure": {"speeds": lambda c: [1.0]},
    "geonh.app.plotting.eigenvalues_figure": {"values": lambda c: [1.0]},
    "geonh.analysis.conserved.IntegralSearch.contains": {},
    "geonh.testing.properties.transpositional_relations": {"obj": lambda c: c.setting},
    "geonh.testing.properties.same_motion": {"form_a": lambda c: "voronets", "form_b": lambda c: "lagrange"},
    "geonh.testing.properties.first_integral": {"F": lambda c: c.system.T},
    _B + "basu_mandal_accelerations": {"model": lambda c: c.bicycle, "eqs": lambda c: c.bicycle_eqs},
    _B + "benchmark_matrices": {"equations": lambda c: c.bicycle_eqs},
    _B + "basu_mandal_state": {"model": lambda c: c.bicycle},
    _B + "basu_to_geonh": {"model": lambda c: c.bicycle},
    _B + "benchmark_operating_point": {"model": lambda c: c.bicycle},
    _B + "constraint_residuals": {"model": lambda c: c.bicycle, "values": lambda c: {}},
}

# -- geonh.control (issue 25): a torque-driven sleigh, as a control-affine and an affine connection system
_CONTROL: dict = {}


def _control(c: Ctx, key: str):
    """The sleigh driven by a torque: ``"cas"`` its control-affine system, ``"point"`` a rest point of
    it, ``"acs"`` its affine connection system, ``"q"`` a configuration (built once)."""
    if not _CONTROL:
        from geonh import control
        cas = control.ControlAffineSystem.from_mechanical(c.system, [[0, 0, 1]], frame=c.frame)
        _CONTROL.update(cas=cas, point={s.name: 0 for s in cas.space.coords},
                        acs=control.AffineConnectionSystem(c.system, [[0, 0, 1]]), q={"x": 0, "y": 0, "theta": 0})
    return _CONTROL[key]


_C = "geonh.control."
OVERRIDES.update({
    _C + "accessibility.accessibility": {"system": lambda c: _control(c, "cas"), "point": lambda c: _control(c, "point")},
    _C + "accessibility.sussmann": {"system": lambda c: _control(c, "cas"), "point": lambda c: _control(c, "point")},
    _C + "accessibility.lyndon_bracket": {"word": lambda c: (0, 1)},
    _C + "accessibility.tree_name": {"tree": lambda c: (0, 1), "names": lambda c: ["f0", "f1"]},
    _C + "systems.ControlAffineSystem": {"drift": lambda c: c.field},
    _C + "systems.ControlAffineSystem.from_mechanical": {"actuators": lambda c: [[0, 0, 1]]},
    _C + "systems.ControlAffineSystem.is_equilibrium": {"point": lambda c: _control(c, "point")},
    _C + "systems.ControlAffineSystem.velocity": {"controls": lambda c: {"u1": 1}},
    _C + "systems.DriftlessSystem.velocity": {"controls": lambda c: {"u1": 1}},
    _C + "systems.DriftlessSystem.from_distribution": {"distribution": lambda c: c.cod.annihilator()},
    _C + "systems.actuator_forces": {"actuators": lambda c: [[0, 0, 1]]},
    _C + "systems.point_values": {"point": lambda c: {"x": 0, "y": 0, "theta": 0}},
    _C + "connection.AffineConnectionSystem": {"actuators": lambda c: [[0, 0, 1]]},
    **{_C + "connection." + name: {"acs": lambda c: _control(c, "acs"), "point": lambda c: _control(c, "q")}
       for name in ("configuration_accessibility", "configuration_controllability", "kinematic_controllability")},
    _C + "connection.decoupling_fields": {"acs": lambda c: _control(c, "acs")},
    # a model with force symbols, so that the inputs and the point are read (the sleigh has none)
    "geonh.app.controls.control_inputs": {"model": lambda c: models.get("planar-body-thruster")},
    "geonh.app.controls.control_verdicts": {"model": lambda c: models.get("planar-body-thruster")},
    # the sleigh under SE(2): one family of steady motions, cheap
    "geonh.app.steadies.steady_report": {"model": lambda c: models.get("chaplygin-sleigh"),
                                         "generators": lambda c: [["1", "0", "0"], ["0", "1", "0"], ["-y", "x", "1"]]},
})

_REDUCED: dict = {}


def _disk_reduced():
    """The vertical rolling disk reduced by its translations (geonh.analysis.reduction; built once)."""
    if not _REDUCED:
        _REDUCED["red"] = g.analysis.reduced_equations(models.get("vertical-disk").system,
                                                       [[1, 0, 0, 0], [0, 1, 0, 0]])
    return _REDUCED["red"]


_R = "geonh.analysis.reduction."
OVERRIDES.update({
    _R + "driven_system": {"gait": lambda c: {"x": 0}},
    _R + "phase_integral": {"connection": lambda c: _disk_reduced().connection,
                            "region": lambda c: {"theta": (0, 1), "phi": (0, 1)}},
    _R + "curvature": {"connection": lambda c: _disk_reduced().connection},
    _R + "ReducedEquations.reconstruct": {"gait": lambda c: {"theta": 0, "phi": 0}, "t_span": lambda c: (0, 1),
                                          "values": lambda c: {"R": 1}},
    _R + "ReducedEquations.in_speeds": {"expr": lambda c: _disk_reduced().connection.system.space.qd[2]},
})


#: instances on which to call the methods of each class
INSTANCES: dict[str, Callable[[Ctx], Any]] = {
    "geonh.kernel.space.ConfigurationSpace": lambda c: c.space,
    "geonh.control.steering.Segment": lambda c: g.control.Segment(0.1, 0.1, 0.1),
    "geonh.kernel.fields.VectorField": lambda c: c.field,
    "geonh.kernel.forms.Form": lambda c: c.oneform,
    "geonh.kernel.forms.OneForm": lambda c: c.oneform,
    "geonh.kernel.frames.Frame": lambda c: c.frame,
    "geonh.kernel.distributions.Codistribution": lambda c: c.cod,
    "geonh.kernel.distributions.Distribution": lambda c: c.cod.annihilator(),
    "geonh.kernel.velocity_frames.VelocityFrame": lambda c: c.velocity_frame,
    "geonh.kernel.backend.Translation": lambda c: c.translation,
    "geonh.kernel.backend.LazyArray": lambda c: g.kernel.backend.LazyArray([1, 2]),
    "geonh.numerics.codegen.CompiledFunction": lambda c: g.numerics.codegen.compile_function([_x(c)], [_x(c)]),
    "geonh.equations.base.Equations": lambda c: c.eqs,
    "geonh.numerics.compiled.ODEFunction": lambda c: c.ode,
    "geonh.numerics.compiled.EquationsParts": lambda c: g.numerics.compiled.equations_parts(c.eqs),
    "geonh.numerics.export.CExport": lambda c: c.eqs.to_c(name="boundary"),
    "geonh.numerics.compiled.Observable": lambda c: c.ode.observable([c.space.q[0]]),
    "geonh.kernel.algebra.Algebra": lambda c: c.sympy_algebra,
    "geonh.kernel.algebra.SympyAlgebra": lambda c: c.sympy_algebra,
    "geonh.kernel.algebra.SymengineAlgebra": lambda c: c.symengine_algebra,
    "geonh.kernel.algebra.PerBackend": lambda c: c.per_backend,
    "geonh.analysis.linearize.Linearization": lambda c: c.linearization,
    "geonh.analysis.steady.SteadyMotion": lambda c: c.steady,
    "geonh.analysis.reduction.ReducedEquations": lambda c: _disk_reduced(),
    "geonh.analysis.reduction.NonholonomicConnection": lambda c: _disk_reduced().connection,
    "geonh.analysis.steady.StabilityBoundary": lambda c: g.analysis.steady.stability_boundary(c.steady, c.params),
    "geonh.equations.registry.EquationForm": lambda c: g.FORMS["voronets"],
    "geonh.transposition.relations.ConstrainedSetting": lambda c: c.setting,
    "geonh.transposition.relations.TranspositionalRelations": lambda c: c.relations,
    "geonh.systems.mechanical.MechanicalSystem": lambda c: c.system,
    "geonh.systems.nonlinear.NonlinearSystem": lambda c: c.nonlinear,
    "geonh.systems.gauss.FreeSystem": lambda c: c.free,
    "geonh.systems.gauss.GaussSystem": lambda c: c.gauss,
    "geonh.systems.hertz.HertzSpace": lambda c: c.hertz,
    "geonh.systems.constraint_analysis.ConstraintReport": lambda c: g.analyze_constraints(c.space, _SX(c)),
    "geonh.numerics.constraints.ConstraintSet": lambda c: g.numerics.constraints.ConstraintSet(c.ode),
    "geonh.numerics.dla.DLAScheme": lambda c: g.numerics.dla.dla_scheme(c.system),
    "geonh.analysis.conserved.IntegralSearch": lambda c: g.polynomial_first_integrals(c.eqs, 1),
    "geonh.moved.MovedFinder": lambda c: g.moved.MovedFinder(),
    "geonh.kernel.linalg.Echelon": lambda c: g.kernel.linalg.Echelon(),
    _C + "accessibility.SpanAtPoint": lambda c: importlib.import_module("geonh.control").SpanAtPoint(),
    _C + "systems.ControlAffineSystem": lambda c: _control(c, "cas"),
    _C + "systems.DriftlessSystem": lambda c: importlib.import_module("geonh.control").DriftlessSystem([c.field]),
    _C + "connection.AffineConnectionSystem": lambda c: _control(c, "acs"),
    "geonh.analysis.hamiltonization.InvariantMeasure": lambda c: g.analysis.hamiltonization.InvariantMeasure(
        (c.space.q[0],), (), sp.cos(c.space.q[0]) + 2, sp.S.One),
}

#: public callables with value parameters that this test does not call, and why
NOT_COVERED: dict[str, str] = {
    "geonh.numerics.dla.DLATrajectory": "a result record of dla_integrate: __post_init__ only freezes its "
                                        "arrays with numpy (no sympy)",
}


# -- the plan: which call gets which payload -----------------------------------------------------
@dataclasses.dataclass
class Plan:
    entry: Entry
    targets: list[inspect.Parameter]           # the parameters that get the corpus
    build: Callable[[Ctx, str, Any], tuple]     # (ctx, target name, payload) -> (callable, args, kwargs)


class Uncoverable(Exception):
    """The test cannot build the arguments of a callable."""


def plan(e: Entry) -> Plan | None:
    """How to call ``e`` with a payload in each value parameter (None: nothing to inject into).
    Raises :class:`Uncoverable` naming what is missing."""
    if e.owner is None and inspect.isclass(e.obj) and is_record(e.obj):
        return None
    ps = [p for p in parameters(e) if not p.name.startswith("_")]
    targets = [p for p in ps if injectable(p, e.name)]
    if not targets:
        return None
    over = OVERRIDES.get(e.name, {})
    missing = [p.name for p in ps if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               and p.name not in over and p.name not in ARGS]
    owner = _qualname(e.owner) if e.owner is not None else None
    bound = e.owner is not None and not isinstance(
        inspect.getattr_static(e.owner, e.name.rsplit(".", 1)[1]), (classmethod, staticmethod))
    if bound and owner not in INSTANCES:
        missing.append(f"an instance of {owner} (INSTANCES)")
    if missing:
        raise Uncoverable(f"{e.name}: no valid value for {', '.join(missing)}")

    def build(c: Ctx, target: str, payload):
        fn = getattr(INSTANCES[owner](c), e.name.rsplit(".", 1)[1]) if bound else e.obj
        args, kwargs = [], {}
        for p in ps:
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.kind is p.VAR_POSITIONAL:
                if p.name == target:
                    args.append(payload)
                continue
            if p.name == target:
                v = payload
            elif p.name in over:
                v = over[p.name](c)
            elif p.default is not p.empty:
                continue
            else:
                v = ARGS[p.name](c)
            if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and any(
                    q.kind is q.VAR_POSITIONAL and q.name == target for q in ps)):
                args.append(v)
            else:
                kwargs[p.name] = v
        return fn, args, kwargs

    return Plan(e, targets, build)


def test_every_public_callable_is_covered():
    """Each public callable with value parameters is called below, or listed in NOT_COVERED
    with a reason (and NOT_COVERED lists nothing that does not exist or is covered)."""
    names = {e.name for e in public_callables()}
    problems = []
    for e in public_callables():
        try:
            plan(e)
        except Uncoverable as exc:
            if e.name not in NOT_COVERED:
                problems.append(str(exc))
        else:
            if e.name in NOT_COVERED:
                problems.append(f"NOT_COVERED lists {e.name}, which the test can call: remove it from the list")
    problems += [f"NOT_COVERED lists {n}, which is not a public callable" for n in NOT_COVERED if n not in names]
    assert not problems, "\n".join(problems)


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


#: seconds one call may take before it counts as a hang
CALL_LIMIT = 20.0
#: (seconds, call) of every call of the last run, to find the slow ones
SLOW_CALLS: list = []


def run_corpus(entries: list[Entry], ctx: Ctx) -> tuple[list[str], list[str], dict[str, float]]:
    """Call every entry with every payload in every value parameter: (code that ran, non-geonh
    exceptions, seconds per entry)."""
    import warnings
    ran, foreign, seconds = [], [], {}
    payloads = corpus()
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for e in entries:
            if e.name in NOT_COVERED:
                continue
            try:
                p = plan(e)
            except Uncoverable:
                continue  # test_every_public_callable_is_covered reports it
            if p is None:
                continue
            t0 = time.perf_counter()
            for target in p.targets:
                for label, payload in payloads:
                    where = f"{e.name}({target.name}=<{label}>)"
                    try:
                        fn, args, kwargs = p.build(ctx, target.name, payload)
                    except Exception as exc:  # noqa: BLE001 - the test's own arguments failed
                        foreign.append(f"{where}: building the arguments failed: {type(exc).__name__}: {exc}")
                        break
                    signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT)
                    t1 = time.perf_counter()
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            fn(*args, **kwargs)
                    except _Timeout:
                        foreign.append(f"{where}: still running after {CALL_LIMIT} s")
                    except g.GeonhError:
                        pass
                    except Exception as exc:  # noqa: BLE001 - reported
                        foreign.append(f"{where}: {type(exc).__name__}: {str(exc)[:120]}")
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                    SLOW_CALLS.append((time.perf_counter() - t1, where))
                    if MARKER.exists():
                        MARKER.unlink()
                        ran.append(where)
            seconds[e.name] = time.perf_counter() - t0
    finally:
        signal.signal(signal.SIGALRM, old)
    return ran, foreign, seconds


@pytest.mark.slow
def test_no_string_is_run_anywhere():
    """The corpus through every value parameter of every public callable: the marker file is
    never created, and every exception is a GeonhError."""
    import matplotlib
    matplotlib.use("Agg")
    ran, foreign, seconds = run_corpus(public_callables(), Ctx())
    assert not ran, "user input ran as code:\n" + "\n".join(ran)
    assert not foreign, f"{len(foreign)} calls raised non-geonh errors:\n" + "\n".join(foreign)


def test_no_sympify_outside_the_parser():
    """The rule, read off the source: only geonh.kernel.parsing may call sympy's ``sympify``,
    ``parse_expr`` or ``S(...)`` (which evaluate strings); everything else converts with
    :func:`geonh.kernel.parsing.sympy_of` and its siblings."""
    import ast
    package = Path(g.__file__).parent
    banned = {"sympify", "parse_expr", "S"}
    found = []
    for path in package.rglob("*.py"):
        if path.relative_to(package).as_posix() == "kernel/parsing.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
            if name in banned and owner in (None, "sp", "sympy"):
                found.append(f"{path.relative_to(package)}:{node.lineno}: {owner + '.' if owner else ''}{name}(...)")
    assert not found, "calls that evaluate strings outside the parser:\n" + "\n".join(found)
