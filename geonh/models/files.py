"""Model files: a mechanical system written in TOML, read safely.

A model file names its coordinates and parameters and gives every formula as a string.  The
strings are parsed by :mod:`geonh.kernel.parsing` (an AST allow-list, never ``eval`` or
``sympify``), and every name in a formula must be a coordinate, a velocity (``<q>_dot``),
time or a declared parameter: a misspelt name is an error, not a new symbol.  Every problem
raises :class:`~geonh.errors.ModelFileError` (a :class:`~geonh.errors.ParseError`) naming the
file and the key: an unknown key (with the closest known one), a value of the wrong type (with
the type the key takes), a file over :data:`MAX_BYTES` or nested deeper than :data:`MAX_DEPTH`.
Example (``examples/models/chaplygin_sleigh.toml``)::

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

    [symmetry]                               # optional: steady motions (geonh steady, the report)
    generators = [["1", "0", "0"], ["0", "1", "0"], ["-y", "x", "1"]]   # SE(2)
    parameter = "xi1"                        # the eigenvalue diagram along xi1 on range
    range = [-1, 1]

:func:`load` returns a :class:`~geonh.models.MechanicalModel` (``extra`` holds ``values``,
``initial`` and ``source``; ``symmetry`` the ``[symmetry]`` table).  :func:`loads` reads the same from a string.
"""
from __future__ import annotations

import datetime
import difflib
import math
import os
import sys
from pathlib import Path

import sympy as sp

from ..errors import GeonhError, ModelFileError, ParseError
from ..kernel.evaluation import check_assumptions
from ..kernel.frames import Frame
from ..kernel.parsing import parse
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem
from .mechanical import MechanicalModel, Symmetry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["ASSUMPTIONS", "MAX_BYTES", "MAX_DEPTH", "is_model_file", "load", "loads"]

#: the assumptions a parameter may carry
ASSUMPTIONS = ("positive", "negative", "nonnegative", "nonpositive", "nonzero", "real", "integer")

#: the largest model file read, in bytes (characters for :func:`loads`): a model file is a few
#: kilobytes, and a bigger one is refused before it is parsed, so no input can exhaust memory
MAX_BYTES = 1_000_000
#: the deepest nesting of arrays and tables accepted (the schema itself needs 3, e.g.
#: ``[parameters] m = { positive = true }``); deeper input is refused by name instead of
#: running the TOML reader or the checks below into Python's recursion limit
MAX_DEPTH = 8
#: the longest model name accepted (the name heads every output line)
MAX_NAME = 200

_TOP = {"name", "description", "coordinates", "time", "parameters", "dynamics", "frame", "values", "initial",
        "notes", "symmetry"}
_DYNAMICS = {"kinetic_energy", "potential", "forces", "constraints", "holonomic"}
_FRAME = {"names", "quasi_velocities", "dependent"}
_SYMMETRY = {"generators", "at", "params", "values", "parameter", "range", "points", "boundary", "source"}
_NAME_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def is_model_file(arg: str) -> bool:
    """Does a command-line MODEL argument name a model file (``*.toml`` or an existing file)?"""
    if not isinstance(arg, str):
        raise ParseError(f"a model argument is a string, not {type(arg).__name__}")
    return arg.endswith(".toml") or Path(arg).is_file()


#: the TOML types of parsed values, as the messages name them (bool before int: a bool is an int)
_KINDS = ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"), (list, "an array"),
          (dict, "a table"), ((datetime.date, datetime.time), "a date/time"))


def _kind(value) -> str:
    """The TOML type of a parsed value, as the messages name it."""
    return next((name for kind, name in _KINDS if isinstance(value, kind)), type(value).__name__)


def _brief(value, limit: int = 40) -> str:
    """repr(value), cut to ``limit`` characters (a message must stay one readable line)."""
    if isinstance(value, (list, dict)):
        return f"{len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _too_deep(data, limit: int) -> bool:
    """Whether arrays and tables nest more than ``limit`` levels in ``data`` (iterative: no
    recursion on untrusted input)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def _suggest(word: str, choices) -> str:
    """" (did you mean 'x'?)" for the closest of ``choices``, or ""."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Reader:
    """Checks the parsed TOML of one model file; every failure is a :class:`ModelFileError`
    that names the file and the key (``dynamics.potential``, ``coordinates[2]``, ...)."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, msg: str) -> ModelFileError:
        return ModelFileError(f"{self.source}: {key}: {msg}" if key else f"{self.source}: {msg}")

    def wrong(self, key: str, value, expected: str) -> ModelFileError:
        """The error for a value of the wrong type: what the key takes and what it got."""
        return self.fail(key, f"must be {expected}, not {_kind(value)} ({_brief(value)})")

    def table(self, data: dict, key: str, allowed: set | None, required: bool = False, where: str = "") -> dict:
        """The table at ``key`` of ``data`` (``where``: the enclosing table's name), with only
        ``allowed`` keys (None: any); {} when absent and not ``required``."""
        full = f"{where}.{key}" if where else key
        if key not in data:
            if required:
                raise self.fail(full, "missing (required)")
            return {}
        t = data[key]
        if not isinstance(t, dict):
            raise self.wrong(full, t, f"a table ([{full}])" if not where else "a table ({name = value, ...})")
        self.known(t, allowed, full)
        return t

    def known(self, t: dict, allowed: set | None, where: str) -> None:
        if allowed is None:
            return
        bad = sorted(set(t) - allowed)
        if bad:
            raise self.fail(f"{where}.{bad[0]}" if where else bad[0],
                            f"unknown key{_suggest(bad[0], allowed)}; allowed keys: {', '.join(sorted(allowed))}")

    def string(self, data: dict, key: str, default: str, *, one_line: bool = False) -> str:
        """The string at ``key`` (``default`` when absent); ``one_line``: non-empty, printable
        (no newline or control character) and at most :data:`MAX_NAME` characters."""
        value = data.get(key, default)
        if not isinstance(value, str):
            raise self.wrong(key, value, "a string")
        if one_line and not (value.strip() and value.isprintable() and len(value) <= MAX_NAME):
            raise self.fail(key, f"{_brief(value)} must be a non-empty line of at most {MAX_NAME} printable "
                                 "characters")
        return value

    def name(self, value, key: str) -> str:
        if not isinstance(value, str):
            raise self.wrong(key, value, "a name (a string)")
        if not value or not set(value) <= _NAME_OK or value[0].isdigit() or value.startswith("_"):
            raise self.fail(key, f"{_brief(value)} is not a name (letters, digits and _, not starting with a digit "
                                 "or _)")
        return value

    def names(self, value, key: str) -> list[str]:
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list):
            raise self.wrong(key, value, "an array of names")
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
            if not math.isfinite(value):
                raise self.fail(key, f"{value!r} is not a finite number")
            return sp.Rational(repr(value))
        if not isinstance(value, str):
            raise self.wrong(key, value, "a formula (a string or a number)")
        try:
            e = parse(value, allowed.values(), what=key)
        except ParseError as err:
            raise ModelFileError(f"{self.source}: {err}") from None
        unknown = sorted(s.name for s in e.free_symbols if allowed.get(s.name) != s)
        if unknown:
            raise self.fail(key, f"unknown symbol {unknown[0]!r} in {_brief(value, 80)}"
                                 f"{_suggest(unknown[0], allowed)}; declare it under [parameters] "
                                 f"(known: {', '.join(sorted(allowed))})")
        return e

    def exprs(self, value, key: str, allowed) -> list[sp.Expr]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.wrong(key, value, "an array of formulas")
        return [self.expr(v, f"{key}[{i}]", allowed) for i, v in enumerate(value)]

    def number(self, value, key: str) -> sp.Expr:
        """A real number that fits a float (the values feed the numerics)."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.wrong(key, value, "a number (or a formula of numbers such as \"pi/2\")")
        e = self.expr(value, key, {})
        if not e.is_number or not e.is_real:
            raise self.fail(key, f"{_brief(value)} is not a real number")
        try:
            finite = math.isfinite(float(e))
        except (OverflowError, TypeError, ValueError):
            finite = False
        if not finite:
            raise self.fail(key, f"{_brief(value)} is not a finite number of floating-point size")
        return e

    def choice(self, key: str, word: str, choices, what: str) -> None:
        """Refuse ``word`` unless it is one of ``choices`` (naming them and the closest)."""
        if word not in choices:
            raise self.fail(key, f"{word!r} is not {what}{_suggest(word, choices)} ({', '.join(choices)})")


def _assumptions(r: _Reader, name: str, spec) -> dict:
    key = f"parameters.{name}"
    if isinstance(spec, str):
        spec = [spec]
    if isinstance(spec, dict):
        r.known(spec, set(ASSUMPTIONS), key)
        for k, v in spec.items():
            if not isinstance(v, bool):
                raise r.wrong(f"{key}.{k}", v, "true or false")
        out = dict(spec)
    elif isinstance(spec, list):
        out = {}
        for i, a in enumerate(spec):
            if not isinstance(a, str):
                raise r.wrong(f"{key}[{i}]", a, "an assumption (a string)")
            if a not in ASSUMPTIONS:
                raise r.fail(key, f"unknown assumption {_brief(a)}{_suggest(a, ASSUMPTIONS)}; allowed: "
                                  f"{', '.join(ASSUMPTIONS)}")
            out[a] = True
    else:
        raise r.wrong(key, spec, 'an array of assumptions, e.g. ["positive"]')
    out.setdefault("real", True)
    return out


def _toml(text: str, source: str) -> dict:
    """The TOML table of ``text``, bounded in size (:data:`MAX_BYTES`) and depth (:data:`MAX_DEPTH`)."""
    if not isinstance(text, str):
        raise ModelFileError(f"{source}: the model must be TOML text (a string), not {_kind(text)}")
    if len(text) > MAX_BYTES:
        raise ModelFileError(f"{source}: {len(text)} characters: a model file may have at most {MAX_BYTES}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ModelFileError(f"{source}: not valid TOML: {e}") from None
    except (RecursionError, MemoryError):
        # tomllib reads nested arrays and inline tables recursively: depth runs out long
        # before MAX_BYTES does, so this is a nesting far beyond MAX_DEPTH
        raise ModelFileError(f"{source}: arrays or tables nested more than {MAX_DEPTH} levels deep "
                             "(a model file needs at most 3)") from None
    if _too_deep(data, MAX_DEPTH):
        raise ModelFileError(f"{source}: arrays or tables nested more than {MAX_DEPTH} levels deep "
                             "(a model file needs at most 3)")
    return data


def loads(text: str, source: str = "<model file>") -> MechanicalModel:
    """Read a model from TOML text (module docstring); ``source`` names it in errors.  Every
    problem raises :class:`~geonh.errors.ModelFileError` naming the key: an unknown key (with
    the closest known one), a value of the wrong type (with the type expected), a refused name
    or formula, a text longer than :data:`MAX_BYTES` or nested deeper than :data:`MAX_DEPTH`."""
    r = _Reader(source)
    data = _toml(text, source)
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
        raise r.wrong("time", time, "true, false or a name")
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
    Q = None
    if "forces" in dyn:
        forces = r.table(dyn, "forces", None, where="dynamics")
        Q = {}
        for q, f in forces.items():
            r.choice(f"dynamics.forces.{q}", q, coords, "a coordinate")
            Q[S.coordinate(q)] = r.expr(f, f"dynamics.forces.{q}", allowed)
    cons = r.exprs(dyn.get("constraints", []), "dynamics.constraints", allowed)
    hol = r.exprs(dyn.get("holonomic", []), "dynamics.holonomic", allowed)
    name = r.string(data, "name", Path(source).stem if source != "<model file>" else "model", one_line=True)
    description = r.string(data, "description", f"model file {source}")
    notes = r.string(data, "notes", "")
    try:
        system = MechanicalSystem(S, T, V=V, forces=Q, constraints=cons, holonomic=hol, name=name)
    except GeonhError as e:
        raise ModelFileError(f"{source}: [dynamics]: {e}") from None
    frame = None
    dependent = None
    ft = r.table(data, "frame", _FRAME)
    if ft:
        if "dependent" in ft:
            dependent = tuple(r.names(ft["dependent"], "frame.dependent"))
            for d in dependent:
                r.choice("frame.dependent", d, coords, "a coordinate")
            if len(dependent) != system.n_constraints:
                raise r.fail("frame.dependent", f"{len(dependent)} dependent coordinate(s) for constraints of rank "
                                                f"{system.n_constraints}: give exactly {system.n_constraints}")
        if "quasi_velocities" in ft:
            omegas = r.exprs(ft["quasi_velocities"], "frame.quasi_velocities", allowed)
            fnames = r.names(ft["names"], "frame.names") if "names" in ft else None
            if fnames is not None and len(fnames) != len(omegas):
                raise r.fail("frame.names", f"{len(fnames)} names for {len(omegas)} quasi-velocities")
            for i, nm in enumerate(fnames or ()):
                # a quasi-velocity named like a parameter or a coordinate would be two symbols
                # of one name in the equations
                if nm in allowed:
                    what = "a parameter" if allowed[nm] in psyms else "a coordinate, velocity or time"
                    raise r.fail(f"frame.names[{i}]", f"{nm!r} is {what} already; give the quasi-velocity "
                                                      "another name")
            try:
                frame = Frame.from_quasi_velocities(S, omegas, names=fnames)
            except GeonhError as e:
                raise ModelFileError(f"{source}: frame.quasi_velocities: {e}") from None
        elif "names" in ft:
            raise r.fail("frame.names", "names without [frame] quasi_velocities")
    values = {}
    pnames = [p.name for p in psyms]
    for k, v in r.table(data, "values", None).items():
        r.choice(f"values.{k}", k, pnames, "a declared parameter")
        values[allowed[k]] = r.number(v, f"values.{k}")
        try:                      # m = -2 for a positive m: refused here, not at the first simulate
            check_assumptions(allowed[k], values[allowed[k]], f"values.{k}")
        except GeonhError as e:
            raise ModelFileError(f"{source}: {e}") from None
    initial = {}
    state_names = [s.name for s in S.q + S.qd] + (list(frame.names[:system.dof]) if frame is not None else [])
    for k, v in r.table(data, "initial", None).items():
        r.choice(f"initial.{k}", k, state_names, "a coordinate, velocity or free quasi-velocity")
        initial[k] = r.number(v, f"initial.{k}")
    symmetry = _symmetry(r, data, S, allowed, pnames)
    return MechanicalModel(name, description, system, frame, dependent, tuple(psyms), notes=notes,
                           extra={"values": values, "initial": initial, "source": source}, symmetry=symmetry)


def _symmetry(r: _Reader, data: dict, S: ConfigurationSpace, allowed: dict, pnames: list) -> Symmetry | None:
    """The ``[symmetry]`` table (:class:`~geonh.models.Symmetry`): ``generators`` an array of
    arrays of formulas, one component per coordinate; ``at`` coordinates fixed; ``params``
    parameter formulas; ``values`` numbers for the verdicts (parameters or the family's ξ
    components); ``parameter`` and ``range`` the eigenvalue diagram, ``points``, ``boundary``,
    ``source``."""
    st = r.table(data, "symmetry", _SYMMETRY)
    if not st:
        return None
    coords = [q.name for q in S.q]
    if "generators" not in st:
        raise r.fail("symmetry.generators", "missing (required): an array of generators, each an array of "
                                            f"{len(coords)} components over the coordinates {', '.join(coords)}")
    raw = st["generators"]
    if not isinstance(raw, list) or not raw:
        raise r.wrong("symmetry.generators", raw, "a non-empty array of arrays of formulas")
    gens = []
    for i, g in enumerate(raw):
        if not isinstance(g, list):
            raise r.wrong(f"symmetry.generators[{i}]", g, "an array of formulas")
        comps = r.exprs(g, f"symmetry.generators[{i}]", allowed)
        if len(comps) != len(coords):
            raise r.fail(f"symmetry.generators[{i}]", f"{len(comps)} components for the {len(coords)} coordinates "
                                                      f"{', '.join(coords)}")
        gens.append(tuple(comps))
    at = {}
    for k, v in r.table(st, "at", None, where="symmetry").items():
        r.choice(f"symmetry.at.{k}", k, coords, "a coordinate")
        at[k] = r.expr(v, f"symmetry.at.{k}", allowed)
    params = {}
    for k, v in r.table(st, "params", None, where="symmetry").items():
        r.choice(f"symmetry.params.{k}", k, pnames, "a declared parameter")
        params[k] = r.expr(v, f"symmetry.params.{k}", allowed)
    numbers = {}
    for k, v in r.table(st, "values", None, where="symmetry").items():
        numbers[r.name(k, f"symmetry.values.{k}")] = r.number(v, f"symmetry.values.{k}")
    parameter = r.name(st["parameter"], "symmetry.parameter") if "parameter" in st else None
    span = st.get("range")
    if span is not None:
        if not isinstance(span, list) or len(span) != 2:
            raise r.wrong("symmetry.range", span, "an array of two numbers [A, B]")
        span = tuple(float(r.number(x, f"symmetry.range[{i}]")) for i, x in enumerate(span))
    points = st.get("points", 31)
    if isinstance(points, bool) or not isinstance(points, int):
        raise r.wrong("symmetry.points", points, "a whole number")
    boundary = st.get("boundary", True)
    if not isinstance(boundary, bool):
        raise r.wrong("symmetry.boundary", boundary, "true or false")
    try:
        return Symmetry(tuple(gens), at=at, params=params, values=numbers, parameter=parameter, span=span,
                        points=points, boundary=boundary, source=r.string(st, "source", ""))
    except GeonhError as e:
        raise ModelFileError(f"{r.source}: [symmetry]: {e}") from None


def load(path) -> MechanicalModel:
    """Read a model file (module docstring): a regular file of at most :data:`MAX_BYTES` bytes
    of UTF-8 TOML (a directory, a device or a pipe is refused before anything is read)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ModelFileError(f"a model file's path is a string or a path, not {type(path).__name__}")
    p = Path(path)
    try:
        if not p.is_file():
            why = "no such file" if not p.exists() else "not a regular file"
            raise ModelFileError(f"{path}: cannot read the model file ({why})")
        with p.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the model file ({e.strerror or e})") from None
    if len(raw) > MAX_BYTES:
        raise ModelFileError(f"{path}: larger than {MAX_BYTES} bytes: not a model file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: the model file is not UTF-8 text") from None
    return loads(text, str(path))
