"""Python source that rebuilds a geonh object, for pasting a counterexample into a bug report.

geonh's classes keep their short display reprs (``VectorField((q1)*d_q2)``, ``Frame([w1, w2] on
…)``, ``MechanicalSystem(random system: …, 1 constraint(s))``: :mod:`geonh.kernel.display`),
which are made for notebooks and are not valid Python.  :func:`source` gives the other text:
one Python expression that, evaluated in the namespace

    from sympy import *
    from geonh import *
    from geonh.kernel.velocity_frames import VelocityFrame

(:data:`NAMESPACE_IMPORTS`) builds an object equal to the given one (same space, same components, same symbols with the
same assumptions; the components are the same expressions, up to sympy's automatic
rewriting when the text is read back, e.g. of 2*(a + b) into 2*a + 2*b).  The symbols are bound once, by a lambda's default arguments, so the body
reads as the math::

    (lambda q1=Symbol('q1', real=True), q2=Symbol('q2', real=True):
        VectorField(ConfigurationSpace(['q1', 'q2']), [q1*q2, sin(q1)/2]))()

A symbol whose name is not a Python identifier, or is a name of that namespace (``S``,
``sin``, ``Frame`` …), is written in place as ``Symbol('name', …)``; rationals are exact
(``x/2``, ``Rational(1, 2)``).

Importing :mod:`geonh.testing.strategies` registers :func:`source` as hypothesis's pretty
printer for these types (hypothesis prints a falsifying example with its vendored IPython
pretty printer, which asks, in order: a singleton printer, the object's ``_repr_pretty_``, how
the object was built by ``st.builds``/``map``, then the printers registered by type —
``hypothesis.vendor.pretty.for_type_by_name`` adds one without touching the classes), so
the example hypothesis prints is valid Python in the namespace above.  sympy expressions and
matrices are printed the same way in those examples (their plain repr needs the symbols
defined).  The reprs themselves are unchanged.
"""
from __future__ import annotations

import builtins
import keyword
from typing import Any

import sympy as sp
from hypothesis.vendor.pretty import for_type_by_name
from sympy.printing.str import StrPrinter

from ..errors import ParseError
from ..kernel.distributions import Codistribution, Distribution
from ..kernel.fields import VectorField
from ..kernel.forms import Form, OneForm
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..kernel.velocity_frames import VelocityFrame
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from ..transposition.relations import ConstrainedSetting

__all__ = ["source", "NAMESPACE_IMPORTS"]

#: the imports under which :func:`source` text evaluates to the object
NAMESPACE_IMPORTS = ("from sympy import *\nfrom geonh import *\n"
                     "from geonh.kernel.velocity_frames import VelocityFrame\n")


def _taken_names() -> frozenset:
    import geonh
    return frozenset(dir(sp)) | frozenset(geonh.__all__) | frozenset(dir(builtins)) | {"VelocityFrame"}


class _Printer(StrPrinter):
    """sympy's str printer with exact rationals; a symbol prints as its name (collected in
    ``bound``) when that name can be bound by the lambda header, else as its srepr."""

    def __init__(self, taken: frozenset):
        super().__init__()
        self.taken = taken
        self.bound: dict[str, sp.Symbol] = {}

    def _print_Symbol(self, expr: sp.Symbol) -> str:   # noqa: N802 (sympy's printer protocol)
        name = expr.name
        if name.isidentifier() and not keyword.iskeyword(name) and name not in self.taken \
                and self.bound.get(name, expr) == expr:
            self.bound[name] = expr
            return name
        return sp.srepr(expr)

    _print_Dummy = _print_Symbol

    def _print_Function(self, expr) -> str:   # noqa: N802
        if isinstance(expr, sp.core.function.AppliedUndef):
            return f"Function({expr.func.__name__!r})({', '.join(self._print(a) for a in expr.args)})"
        return super()._print_Function(expr)

    def _print_Rational(self, expr) -> str:   # noqa: N802  (1/2 would be a Python float)
        return f"Rational({expr.p}, {expr.q})"

    def _print_Float(self, expr) -> str:   # noqa: N802
        return f"Float({str(expr)!r}, {expr._prec})"

    def _print_MatrixBase(self, expr) -> str:   # noqa: N802
        return f"Matrix({self.rows(expr)})"

    _print_MutableDenseMatrix = _print_ImmutableDenseMatrix = _print_MatrixBase

    def rows(self, M) -> str:
        return "[" + ", ".join("[" + ", ".join(self._print(e) for e in M.row(i)) + "]"
                               for i in range(M.rows)) + "]"


def _space(S: ConfigurationSpace) -> str:
    names = [s.name for s in S.q]
    if S.t is None:
        return f"ConfigurationSpace({names!r})"
    if S.t == sp.Symbol("t", real=True):
        return f"ConfigurationSpace({names!r}, time=True)"
    return f"ConfigurationSpace({names!r}, time={S.t.name!r})"


def _list(p: _Printer, xs) -> str:
    return "[" + ", ".join(_body(p, x) for x in xs) + "]"


def _forces(system) -> list:
    """The given forces f with Q = f − ∂V/∂q (Q stores both)."""
    S = system.space
    return [Q + sp.diff(system.V, q) for Q, q in zip(system.Q, S.q)]


def _opt(p: _Printer, system) -> str:
    out = ""
    if system.V != 0:
        out += f", V={_body(p, system.V)}"
    f = _forces(system)
    if any(x != 0 for x in f):
        out += f", forces={_list(p, f)}"
    return out


def _tail(p: _Printer, system) -> str:
    out = ""
    if system.holonomic:
        out += f", holonomic={_list(p, system.holonomic)}"
    if system.name:
        out += f", name={system.name!r}"
    if system.conditions:
        out += f", conditions={_list(p, system.conditions)}"
    return out


def _mechanical(p: _Printer, system: MechanicalSystem) -> str:
    S = system.space
    given = list(system.constraints.forms)[:len(system.constraints.forms) - len(system.holonomic)]
    vel = list(S.velocities)
    phis = [sp.Add(*[c * v for c, v in zip(th.covector, vel) if c != 0]) for th in given]
    out = f"MechanicalSystem({_space(S)}, {_body(p, system.T)}" + _opt(p, system)
    if phis:
        out += f", constraints={_list(p, phis)}"
    return out + _tail(p, system) + ")"


def _nonlinear(p: _Printer, system: NonlinearSystem) -> str:
    S = system.space
    phis = list(system.phi)[:len(system.phi) - len(system.holonomic)]
    out = f"NonlinearSystem({_space(S)}, {_body(p, system.T)}" + _opt(p, system)
    if phis:
        out += f", constraints={_list(p, phis)}"
    out += _tail(p, system)
    if system.virtual != "chetaev":
        out += f", virtual={_body(p, system.virtual_matrix.tolist())}"
    if system._solved is not None:
        out += f", solved={_body(p, dict(system._solved))}"
    return out + ")"


def _value(p: _Printer, obj: Any) -> str:
    """A value on its own (top level, or in a plain container): a sympy integer keeps its type
    (``Integer(1)``, not the Python int ``1``); inside geonh constructors plain ints are fine."""
    if isinstance(obj, sp.Integer):
        return f"Integer({int(obj)})"
    return _body(p, obj)


def _body(p: _Printer, obj: Any) -> str:
    if isinstance(obj, (sp.Basic, sp.MatrixBase)):
        return p.doprint(obj)
    if isinstance(obj, bool) or obj is None:
        return repr(obj)
    if isinstance(obj, (int, float, str)):
        return repr(obj)
    if isinstance(obj, ConfigurationSpace):
        return _space(obj)
    if isinstance(obj, OneForm):
        return f"OneForm({_space(obj.space)}, {_list(p, obj.covector)})"
    if isinstance(obj, Form):
        comps = ", ".join(f"{I!r}: {_body(p, v)}" for I, v in sorted(obj.components.items()))
        return f"Form({_space(obj.space)}, {obj.degree}, {{{comps}}})"
    if isinstance(obj, VectorField):
        return f"VectorField({_space(obj.space)}, {_list(p, obj.components)})"
    if isinstance(obj, Frame):
        B = obj.B
        cof = [OneForm(obj.space, list(B[a, :])) for a in range(obj.dim)]
        return f"Frame({_list(p, obj.fields)}, names={list(obj.names)!r}, coframe={_list(p, cof)})"
    if isinstance(obj, Distribution):
        return f"Distribution({_list(p, obj.fields)}, {_space(obj.space)})"
    if isinstance(obj, Codistribution):
        return f"Codistribution({_list(p, obj.forms)}, {_space(obj.space)})"
    if isinstance(obj, MechanicalSystem):
        return _mechanical(p, obj)
    if isinstance(obj, NonlinearSystem):
        return _nonlinear(p, obj)
    if isinstance(obj, VelocityFrame):
        return (f"VelocityFrame({_space(obj.space)}, {_list(p, obj.quasi)}, {_list(p, obj.v)}, "
                f"{_list(p, obj.inverse)})")
    if isinstance(obj, ConstrainedSetting):
        out = f"ConstrainedSetting({_space(obj.space)}, {[q.name for q in obj.dependent]!r}, {_body(p, obj.a)}"
        if obj.space.t is not None and any(e != 0 for e in obj.affine):
            out += f", {_list(p, list(obj.affine))}"
        if obj.quasi != sp.eye(obj.m):
            out += f", quasi={_body(p, obj.quasi)}"
        return out + ")"
    if isinstance(obj, tuple):
        inner = ", ".join(_value(p, x) for x in obj)
        return f"({inner},)" if len(obj) == 1 else f"({inner})"
    if isinstance(obj, list):
        return "[" + ", ".join(_value(p, x) for x in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{_value(p, k)}: {_value(p, v)}" for k, v in obj.items()) + "}"
    raise ParseError(f"source() rebuilds geonh objects, sympy expressions and containers of them, "
                     f"not {type(obj).__name__}")


def source(obj: Any) -> str:
    """A Python expression that rebuilds ``obj`` (a space, field, form, frame, distribution,
    codistribution, mechanical or nonlinear system, frame on TQ, constrained setting (with its
    default or matrix quasi-velocities), sympy expression or matrix, or a tuple/list/dict of
    them) when evaluated after :data:`NAMESPACE_IMPORTS` (module doc)."""
    p = _Printer(_taken_names())
    body = _value(p, obj)
    if not p.bound:
        return body
    header = ", ".join(f"{n}={sp.srepr(s)}" for n, s in sorted(p.bound.items()))
    return f"(lambda {header}: {body})()"


def _pretty(obj: Any, printer, cycle: bool) -> None:
    """hypothesis pretty-printer hook: the rebuilding source (module doc)."""
    printer.text(source(obj))


#: the types whose hypothesis printout is :func:`source` (registered by geonh.testing.strategies)
PRINTED_TYPES: tuple[type, ...] = (ConfigurationSpace, VectorField, Form, Frame, Distribution, Codistribution,
                                   MechanicalSystem, NonlinearSystem, VelocityFrame, ConstrainedSetting, sp.Expr,
                                   sp.MatrixBase)


def register_pretty_printers() -> None:
    """Register :func:`source` with hypothesis's pretty printer for :data:`PRINTED_TYPES`
    (by module and name, ``hypothesis.vendor.pretty.for_type_by_name``)."""
    for cls in PRINTED_TYPES:
        for_type_by_name(cls.__module__, cls.__name__, _pretty)
