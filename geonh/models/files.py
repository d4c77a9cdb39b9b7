"""Model files: a mechanical system written in TOML, read safely.

A model file names its coordinates and parameters and gives every formula as a string.  The
strings are parsed by :mod:`geonh.kernel.parsing` (an AST allow-list, never ``eval`` or
``sympify``), and every name in a formula must be a coordinate, a velocity (``<q>_dot``),
time or a declared parameter: a misspelt name is an error, not a new symbol.  Every problem
raises :class:`~geonh.errors.ParseError` naming the file and the key.  Example
(``examples/models/chaplygin_sleigh.toml``)::

    name = "my-sleigh"                       # optional (default: the file name)
    description = "Chaplygin sleigh"         # optional
    coordinates = ["x", "y", "theta"]        # required
    time = false                             # optional: true, false or the time's name

    [parameters]                             # name = list of sympy assumptions (or one string)
    m = ["positive"]
    a = ["positive"]
    I = ["positive"]

    [dynamics]
    kinetic_energy = "m/2*(x_dot**2 + y_dot**2) + ..."   # required
    potential = "0"                                      # optional
    forces = { theta = "0" }                             # optional: coordinate = Q
    constraints = ["sin(theta)*x_dot - cos(theta)*y_dot"]   # optional, each = 0
    holonomic = []                                       # optional, f(t, q) = 0

    [frame]                                  # optional: an adapted frame
    names = ["v", "w", "c"]
    quasi_velocities = ["cos(theta)*x_dot + sin(theta)*y_dot", "theta_dot",
                        "sin(theta)*x_dot - cos(theta)*y_dot"]
    dependent = ["y"]                        # optional: dependent coordinates

    [values]                                 # optional: numbers for simulate/linearize
    m = 1
    [initial]                                # optional: initial state for simulate
    theta = 0.3                              # by name: coordinates, velocities or free
    v = 1.0                                  # quasi-velocities of the frame

:func:`load` returns a :class:`~geonh.models.MechanicalModel` (``extra`` holds ``values``,
``initial`` and ``source``).  :func:`loads` reads the same from a string.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import sympy as sp

from ..errors import GeonhError, ParseError
from ..kernel.frames import Frame
from ..kernel.parsing import parse
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem
from .mechanical import MechanicalModel

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["ASSUMPTIONS", "is_model_file", "load", "loads"]

#: the assumptions a parameter may carry
ASSUMPTIONS = ("positive", "negative", "nonnegative", "nonpositive", "nonzero", "real", "integer")

_TOP = {"name", "description", "coordinates", "time", "parameters", "dynamics", "frame", "values", "initial",
        "notes"}
_DYNAMICS = {"kinetic_energy", "potential", "forces", "constraints", "holonomic"}
_FRAME = {"names", "quasi_velocities", "dependent"}
_NAME_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def is_model_file(arg: str) -> bool:
    """Does a command-line MODEL argument name a model file (``*.toml`` or an existing file)?"""
    if not isinstance(arg, str):
        raise ParseError(f"a model argument is a string, not {type(arg).__name__}")
    return arg.endswith(".toml") or Path(arg).is_file()


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, msg: str) -> ParseError:
        return ParseError(f"{self.source}: {key}: {msg}")

    def table(self, data: dict, key: str, allowed: set, required: bool = False) -> dict:
        if key not in data:
            if required:
                raise self.fail(key, "missing (required)")
            return {}
        t = data[key]
        if not isinstance(t, dict):
            raise self.fail(key, f"must be a table ([{key}]), not {type(t).__name__}")
        self.known(t, allowed, key)
        return t

    def known(self, t: dict, allowed: set | None, where: str) -> None:
        if allowed is None:
            return
        bad = sorted(set(t) - allowed)
        if bad:
            raise self.fail(f"{where}.{bad[0]}" if where else bad[0],
                            f"unknown key; allowed keys: {', '.join(sorted(allowed))}")

    def name(self, value, key: str) -> str:
        if not isinstance(value, str) or not value or not set(value) <= _NAME_OK or value[0].isdigit() \
                or value.startswith("_"):
            raise self.fail(key, f"{value!r} is not a name (letters, digits and _, not starting with a digit or _)")
        return value

    def names(self, value, key: str) -> list[str]:
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of names, not {type(value).__name__}")
        out = [self.name(v, f"{key}[{i}]") for i, v in enumerate(value)]
        if len(set(out)) != len(out):
            raise self.fail(key, f"repeated name in {out}")
        return out

    def expr(self, value, key: str, allowed: dict[str, sp.Symbol]) -> sp.Expr:
        if isinstance(value, bool):
            raise self.fail(key, f"{value!r} is not a formula")
        if isinstance(value, int):
            return sp.Integer(value)
        if isinstance(value, float):
            return sp.Rational(repr(value))
        if not isinstance(value, str):
            raise self.fail(key, f"must be a formula string, not {type(value).__name__}")
        try:
            e = parse(value, allowed.values(), what=key)
        except ParseError as err:
            raise ParseError(f"{self.source}: {err}") from None
        unknown = sorted(s.name for s in e.free_symbols if allowed.get(s.name) != s)
        if unknown:
            raise self.fail(key, f"unknown symbol {unknown[0]!r} in {value!r}; declare it under [parameters] "
                                 f"(known: {', '.join(sorted(allowed))})")
        return e

    def exprs(self, value, key: str, allowed) -> list[sp.Expr]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of formulas, not {type(value).__name__}")
        return [self.expr(v, f"{key}[{i}]", allowed) for i, v in enumerate(value)]

    def number(self, value, key: str) -> sp.Expr:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.fail(key, f"must be a number, not {value!r}")
        e = self.expr(value, key, {})
        if not e.is_number or not e.is_real:
            raise self.fail(key, f"{value!r} is not a real number")
        return e


def _assumptions(r: _Reader, name: str, spec) -> dict:
    key = f"parameters.{name}"
    if isinstance(spec, str):
        spec = [spec]
    if isinstance(spec, dict):
        r.known(spec, set(ASSUMPTIONS), key)
        bad = [k for k, v in spec.items() if not isinstance(v, bool)]
        if bad:
            raise r.fail(f"{key}.{bad[0]}", "must be true or false")
        out = dict(spec)
    elif isinstance(spec, list):
        out = {}
        for a in spec:
            if a not in ASSUMPTIONS:
                raise r.fail(key, f"unknown assumption {a!r}; allowed: {', '.join(ASSUMPTIONS)}")
            out[a] = True
    else:
        raise r.fail(key, "give a list of assumptions, e.g. [\"positive\"]")
    out.setdefault("real", True)
    return out


def loads(text: str, source: str = "<model file>") -> MechanicalModel:
    """Read a model from TOML text (module docstring); ``source`` names it in errors."""
    r = _Reader(source)
    if not isinstance(text, str):
        raise ParseError(f"{source}: a model file's text is a string, not {type(text).__name__}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ParseError(f"{source}: not valid TOML: {e}") from None
    r.known(data, _TOP, "")
    if "coordinates" not in data:
        raise r.fail("coordinates", "missing (required): the list of coordinate names")
    coords = r.names(data["coordinates"], "coordinates")
    if not coords:
        raise r.fail("coordinates", "at least one coordinate is needed")
    time = data.get("time", False)
    if isinstance(time, str):
        time = r.name(time, "time")
        if time in coords:
            raise r.fail("time", f"{time!r} is also a coordinate")
    elif not isinstance(time, bool):
        raise r.fail("time", f"must be true, false or a name, not {time!r}")
    try:
        S = ConfigurationSpace(coords, time=time)
    except (ValueError, TypeError) as e:
        raise r.fail("coordinates", str(e)) from None
    allowed: dict[str, sp.Symbol] = {s.name: s for s in S.state_symbols}
    params = r.table(data, "parameters", None)
    psyms = []
    for name, spec in params.items():
        r.name(name, f"parameters.{name}")
        if name in allowed:
            raise r.fail(f"parameters.{name}", "is a coordinate, velocity or time already")
        assumptions = _assumptions(r, name, spec)
        try:
            sym = sp.Symbol(name, **assumptions)
        except (ValueError, TypeError, sp.core.facts.InconsistentAssumptions):
            raise r.fail(f"parameters.{name}", f"inconsistent assumptions {spec!r}") from None
        allowed[name] = sym
        psyms.append(sym)
    dyn = r.table(data, "dynamics", _DYNAMICS, required=True)
    if "kinetic_energy" not in dyn:
        raise r.fail("dynamics.kinetic_energy", "missing (required)")
    T = r.expr(dyn["kinetic_energy"], "dynamics.kinetic_energy", allowed)
    V = r.expr(dyn.get("potential", 0), "dynamics.potential", allowed)
    forces = dyn.get("forces")
    Q = None
    if forces is not None:
        if not isinstance(forces, dict):
            raise r.fail("dynamics.forces", "must be a table {coordinate = formula}")
        Q = {}
        for q, f in forces.items():
            if q not in coords:
                raise r.fail(f"dynamics.forces.{q}", f"{q!r} is not a coordinate ({', '.join(coords)})")
            Q[S.coordinate(q)] = r.expr(f, f"dynamics.forces.{q}", allowed)
    cons = r.exprs(dyn.get("constraints", []), "dynamics.constraints", allowed)
    hol = r.exprs(dyn.get("holonomic", []), "dynamics.holonomic", allowed)
    name = data.get("name", Path(source).stem if source != "<model file>" else "model")
    name = name if isinstance(name, str) and name else "model"
    description = data.get("description", f"model file {source}")
    if not isinstance(description, str):
        raise r.fail("description", "must be a string")
    try:
        system = MechanicalSystem(S, T, V=V, forces=Q, constraints=cons, holonomic=hol, name=name)
    except GeonhError as e:
        raise ParseError(f"{source}: [dynamics]: {e}") from None
    frame = None
    dependent = None
    ft = r.table(data, "frame", _FRAME)
    if ft:
        if "dependent" in ft:
            dependent = tuple(r.names(ft["dependent"], "frame.dependent"))
            for d in dependent:
                if d not in coords:
                    raise r.fail("frame.dependent", f"{d!r} is not a coordinate ({', '.join(coords)})")
        if "quasi_velocities" in ft:
            omegas = r.exprs(ft["quasi_velocities"], "frame.quasi_velocities", allowed)
            fnames = r.names(ft["names"], "frame.names") if "names" in ft else None
            if fnames is not None and len(fnames) != len(omegas):
                raise r.fail("frame.names", f"{len(fnames)} names for {len(omegas)} quasi-velocities")
            try:
                frame = Frame.from_quasi_velocities(S, omegas, names=fnames)
            except GeonhError as e:
                raise ParseError(f"{source}: frame.quasi_velocities: {e}") from None
        elif "names" in ft:
            raise r.fail("frame.names", "names without [frame] quasi_velocities")
    values = {}
    for k, v in r.table(data, "values", None).items():
        if k not in allowed or allowed[k] not in psyms:
            raise r.fail(f"values.{k}", f"{k!r} is not a declared parameter")
        values[allowed[k]] = r.number(v, f"values.{k}")
    initial = {}
    state_names = [s.name for s in S.q + S.qd] + (list(frame.names[:system.dof]) if frame is not None else [])
    for k, v in r.table(data, "initial", None).items():
        if k not in state_names:
            raise r.fail(f"initial.{k}", f"{k!r} is not a coordinate, velocity or free quasi-velocity "
                                         f"({', '.join(state_names)})")
        initial[k] = r.number(v, f"initial.{k}")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise r.fail("notes", "must be a string")
    return MechanicalModel(name, description, system, frame, dependent, tuple(psyms), notes=notes,
                           extra={"values": values, "initial": initial, "source": source})


def load(path) -> MechanicalModel:
    """Read a model file (module docstring)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ParseError(f"a model file's path is a string or a path, not {type(path).__name__}")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ParseError(f"{path}: cannot read the model file ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise ParseError(f"{path}: the model file is not UTF-8 text") from None
    return loads(text, str(path))
