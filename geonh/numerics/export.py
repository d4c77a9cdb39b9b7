"""Export of equations of motion to CasADi, JAX and C: ``eqs.to_casadi()``, ``eqs.to_jax()``,
``eqs.to_c()`` (and the same on a :class:`~geonh.analysis.Linearization`).

What is exported is what :func:`~geonh.numerics.ode_function` compiles: the explicit
first-order system ẏ = f(t, y, p), y = (q, u), with q̇ = K(t, q, u) and u̇ the first n_u
unknowns x = (u̇, λ) of M x = F — M is never inverted symbolically; the exported function
solves M x = F numerically at every call (CasADi's ``solve``, ``jax.numpy.linalg.solve``, in C
Gaussian elimination with partial pivoting, :data:`geonh.numerics.cbackend.GAUSS_C`) — and an
**outputs** map of the quantities pydy users ask for (pydy issue #136): ``unknowns`` (u̇, λ),
``multipliers`` (λ), ``reactions`` (:attr:`Equations.reactions`: Lagrange's R_i = λ_κ A_κi,
Maggi's Λ), ``energy`` (T + V at q̇ = K) and ``constraint_residuals`` (φ(t, q, K(t, q, u)) of
every velocity constraint, :func:`~geonh.numerics.velocity_constraints`).  Signatures are
arrays (state in, derivative out; sympy issue #25999): ``(t, y, p)`` with ``p`` the open
parameters in the order of ``ODEFunction.parameters`` (sorted by name; ``params=`` binds some
at export time, as ``ode_function`` does).

One program for all three: K, M and F go through geonh's code generation exactly as for the
compiled backends (:func:`geonh.numerics.codegen.symengine_program`: converted once, sums
factored), then ``symengine.cse`` over the whole program into steps in static single
assignment form (:func:`geonh.numerics.cbackend.program_steps`).  The C export prints the steps
with the C backend's printer (no symbol name or user string reaches the compiler: names go
only into comments, escaped); CasADi and JAX replay the same steps on their own symbols, so
shared subexpressions stay shared in every export.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Mapping, Sequence

import sympy as sp

from ..equations.base import Equations, register_method
from ..errors import DimensionError, MissingDependencyError, ParseError
from ..kernel.parsing import sympy_of
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from .cbackend import GAUSS_C, c_statement, program_steps
from .codegen import symengine_program
from .compiled import EquationsParts, equations_parts
from .constraints import velocity_constraints

__all__ = ["ExportedProgram", "CasadiExport", "JaxExport", "CExport", "export_program", "to_casadi", "to_jax",
           "to_c", "matrices_to_casadi", "matrices_to_jax", "matrices_to_c"]

#: the names of the outputs map, in the order they are laid out
OUTPUT_NAMES = ("unknowns", "multipliers", "reactions", "energy", "constraint_residuals")


class _Program:
    """Steps (:func:`~geonh.numerics.cbackend.program_steps`) of expressions in arguments."""

    def __init__(self, exprs: Sequence, args: Sequence, what: str):
        se_args, se_exprs = symengine_program(list(exprs), list(args), what=what)
        self.nin = len(se_args)
        self.steps, self.outputs = program_steps(se_args, se_exprs)

    def replay(self, inputs: Sequence, ops: Mapping[str, Callable]) -> list:
        """The outputs computed from ``inputs`` (one value per argument) by the step functions
        ``ops`` (kind → function; "+" and "*" n-ary, "/" binary): symbolic values for CasADi,
        traced arrays for JAX."""
        vals: dict[str, Any] = {}

        def operand(o: str):
            if o.startswith("in["):
                return inputs[int(o[3:-1])]
            v = vals.get(o)
            return v if v is not None else _constant(o)

        for name, kind, raw in self.steps:
            xs = [operand(o) for o in raw]
            if kind == "+":
                acc = xs[0]
                for x in xs[1:]:
                    acc = acc + x
            elif kind == "*":
                acc = xs[0]
                for x in xs[1:]:
                    acc = acc * x
            elif kind == "/":
                acc = xs[0] / xs[1]
            else:
                acc = ops[kind](*xs)
            vals[name] = acc
        return [operand(o) for o in self.outputs]

    def c_body(self, out: str) -> list[str]:
        """The program as C statements writing ``out[i]`` (inputs read from ``in``)."""
        body = [f"    const double {v} = {c_statement(kind, ops)};" for v, kind, ops in self.steps]
        return body + [f"    {out}[{i}] = {o};" for i, o in enumerate(self.outputs)]


def _constant(o: str) -> float:
    """A number operand of a step (printed by geonh: ``repr(float)``, maybe parenthesized)."""
    return float(o.strip("()"))


class ExportedProgram:
    """What every export prints (:func:`export_program`): the equations' K, M, F as one
    program in the arguments (t, y, p), the outputs as a second one in (t, y, p, x).

    Attributes: ``parts`` (:class:`~geonh.numerics.compiled.EquationsParts`: symbols,
    parameters, bindings), ``n_q``, ``n_u``, ``k`` (number of unknowns), ``state_names``,
    ``parameter_names``, ``outputs`` ({name: (offset, size)} in the flat outputs vector),
    ``output_names`` ({name: names of the entries}).
    """

    def __init__(self, eqs: Equations, params: Mapping | None = None, outputs: bool = True):
        parts = equations_parts(eqs, params)
        self.parts: EquationsParts = parts
        self.equations = eqs
        self.n_q, self.n_u, self.k = len(parts.q), len(parts.u), len(parts.unknowns)
        self.state = parts.q + parts.u
        self.state_names = tuple(s.name for s in self.state)
        self.parameters = parts.parameters
        self.parameter_names = tuple(s.name for s in self.parameters)
        self.args = (parts.time,) + self.state + self.parameters
        self.main = _Program(list(parts.K) + list(parts.M) + list(parts.F), self.args,
                             f"the {eqs.form} equations")
        self.outputs: dict[str, tuple[int, int]] = {}
        self.output_names: dict[str, tuple[str, ...]] = {}
        exprs: list = []
        if outputs:
            for name, (items, labels) in _output_exprs(eqs).items():
                self.outputs[name] = (len(exprs), len(items))
                self.output_names[name] = labels
                exprs.extend(items)
        self.n_outputs = len(exprs)
        prepared, _ = parts.prepare(exprs) if exprs else ([], set())
        self.out = _Program(prepared, self.args + parts.unknowns, "the outputs") if prepared else None


def _output_exprs(eqs: Equations) -> dict[str, tuple[list, tuple[str, ...]]]:
    """{name: (expressions in t, q, u, p, x, entry names)} of the outputs map (module doc)."""
    S = eqs.space
    nu = len(eqs.ud)
    x = list(eqs.unknowns)
    out: dict[str, tuple[list, tuple[str, ...]]] = {
        "unknowns": (x, tuple(s.name for s in x)),
        "multipliers": (x[nu:], tuple(s.name for s in x[nu:])),
    }
    out["reactions"] = (list(eqs.reactions), tuple(f"reaction {i + 1}" for i in range(len(eqs.reactions))))
    sub = dict(zip(S.qd, eqs.kinematics))
    system = eqs.system
    if isinstance(system, (MechanicalSystem, NonlinearSystem)):
        E = (sympy_of(system.T) + sympy_of(getattr(system, "V", 0))).xreplace(sub)
        out["energy"] = ([E], ("energy",))
    else:
        out["energy"] = ([], ())
    phis = [sympy_of(e).xreplace(sub) for e in velocity_constraints(system)]
    out["constraint_residuals"] = (phis, tuple(f"constraint {k + 1}" for k in range(len(phis))))
    return out


def export_program(eqs: Equations, params: Mapping | None = None, *, outputs: bool = True) -> ExportedProgram:
    """The program every export of ``eqs`` prints (:class:`ExportedProgram`; module doc);
    ``params`` binds parameters as :func:`~geonh.numerics.ode_function` does."""
    if not isinstance(eqs, Equations):
        raise ParseError(f"export takes Equations, not {type(eqs).__name__}")
    return ExportedProgram(eqs, params, outputs)


# -- CasADi -----------------------------------------------------------------------------------------
def _casadi():
    try:
        import casadi
    except ImportError:
        raise MissingDependencyError("to_casadi needs CasADi: pip install 'geonh[casadi]'") from None
    return casadi


def _casadi_ops(ca) -> dict:
    return {"sin": ca.sin, "cos": ca.cos, "tan": ca.tan, "asin": ca.asin, "acos": ca.acos, "atan": ca.atan,
            "sinh": ca.sinh, "cosh": ca.cosh, "tanh": ca.tanh, "asinh": ca.asinh, "acosh": ca.acosh,
            "atanh": ca.atanh, "log": ca.log, "exp": ca.exp, "sqrt": ca.sqrt, "fabs": ca.fabs, "floor": ca.floor,
            "ceil": ca.ceil, "atan2": ca.atan2, "pow": ca.power, "fmax": ca.fmax, "fmin": ca.fmin,
            "sign": ca.sign}


class CasadiExport:
    """CasADi functions of the equations (:func:`to_casadi`).

    * ``rhs``: ``casadi.Function`` (t, y, p) → dy, ẏ = f(t, y, p) (M x = F solved by Gaussian
      elimination with partial pivoting in the graph, ``_gauss``);
    * ``outputs``: (t, y, p) → one output per name of ``output_layout`` (``unknowns``,
      ``multipliers``, ``reactions``, ``energy``, ``constraint_residuals``; empty where the
      equations have none);
    * ``jacobian_y``, ``jacobian_p``: (t, y, p) → ∂f/∂y (n × n), ∂f/∂p (n × n_p), by CasADi's
      automatic differentiation of the same graph;
    * ``state_names``, ``parameter_names``: the order of y and p; ``output_names``.
    """

    def __init__(self, prog: ExportedProgram, symbolic: str):
        ca = _casadi()
        if symbolic not in ("SX", "MX"):
            raise ParseError(f"to_casadi: symbolic must be 'SX' or 'MX', not {symbolic!r}")
        self.program = prog
        self.state_names, self.parameter_names = prog.state_names, prog.parameter_names
        self.output_names = dict(prog.output_names)
        n, npar = len(prog.state), len(prog.parameters)
        Sym = ca.SX if symbolic == "SX" else ca.MX
        t, y, p = Sym.sym("t"), Sym.sym("y", n), Sym.sym("p", npar)
        ops = _casadi_ops(ca)
        # the program and the solve as one SX function (shared subexpressions once), called on
        # the symbols (SX or MX)
        ts, ys, ps = ca.SX.sym("t"), ca.SX.sym("y", n), ca.SX.sym("p", npar)
        ins = [ts] + [ys[i] for i in range(n)] + [ps[i] for i in range(npar)]
        vals = prog.main.replay(ins, ops)
        nq, k = prog.n_q, prog.k
        xs_ = _gauss(ca, [vals[nq + i * k:nq + (i + 1) * k] for i in range(k)], vals[nq + k * k:nq + k * k + k])
        core = ca.Function("geonh_rhs", [ts, ys, ps], [ca.vertcat(*vals[:nq], *xs_[:prog.n_u]),
                                                       ca.vertcat(*xs_) if k else ca.SX(0, 1)])
        dy, x = core(t, y, p)
        self.rhs = ca.Function("rhs", [t, y, p], [dy], ["t", "y", "p"], ["dy"])
        self.jacobian_y = ca.Function("jacobian_y", [t, y, p], [ca.jacobian(dy, y)], ["t", "y", "p"], ["dfdy"])
        self.jacobian_p = ca.Function("jacobian_p", [t, y, p], [ca.jacobian(dy, p)], ["t", "y", "p"], ["dfdp"])
        names = list(prog.outputs)
        if prog.out is not None:
            xs = ca.SX.sym("x", k)
            out = ca.Function("geonh_outputs", [ts, ys, ps, xs],
                              [ca.vertcat(*prog.out.replay(ins + [xs[i] for i in range(k)], ops))])
            flat = out(t, y, p, x)
            parts = [flat[o:o + s] if s else Sym(0, 1) for o, s in prog.outputs.values()]
        else:
            parts = [Sym(0, 1) for _ in names]
        self.outputs = ca.Function("outputs", [t, y, p], parts, ["t", "y", "p"], names)

    def __repr__(self) -> str:
        return (f"CasadiExport(y = {list(self.state_names)}, p = {list(self.parameter_names)}, "
                f"outputs {list(self.output_names)})")


def _gauss(ca, M: list, F: list) -> list:
    """x of M x = F on CasADi scalars (rows of M as lists): Gaussian elimination with partial
    pivoting, the pivot chosen by ``if_else`` on |entries| (the rows swapped symbolically), so
    the exported function is as accurate as LU with pivoting at every state — CasADi's
    ``solve`` on SX (a symbolic QR) lost 4 digits on the Whipple bicycle at a condition number
    of 4e5.  The operations on the chosen rows are those of :data:`GAUSS_C`."""
    k = len(F)
    a = [list(M[i]) + [F[i]] for i in range(k)]
    for j in range(k):
        for i in range(j + 1, k):
            c = ca.fabs(a[i][j]) > ca.fabs(a[j][j])
            a[j], a[i] = ([ca.if_else(c, ai, aj) for ai, aj in zip(a[i], a[j])],
                          [ca.if_else(c, aj, ai) for ai, aj in zip(a[i], a[j])])
        for i in range(j + 1, k):
            r = a[i][j] / a[j][j]
            a[i] = [a[i][c] if c <= j else a[i][c] - r * a[j][c] for c in range(k + 1)]
    x: list = [None] * k
    for i in reversed(range(k)):
        acc = a[i][k]
        for c in range(i + 1, k):
            acc = acc - a[i][c] * x[c]
        x[i] = acc / a[i][i]
    return x


def to_casadi(eqs: Equations, params: Mapping | None = None, *, symbolic: str = "SX") -> CasadiExport:
    """CasADi functions of ẏ = f(t, y, p), the outputs map and the Jacobians ∂f/∂y, ∂f/∂p
    (:class:`~geonh.numerics.export.CasadiExport`; module doc).  ``symbolic``: "SX" (scalar graph, default) or "MX"
    (matrix graph: the program and its solve are one SX function called in it).
    ``params`` binds parameters as :func:`~geonh.numerics.ode_function` does; the others are
    the entries of ``p`` (``parameter_names``).  Needs the extra ``geonh[casadi]``."""
    if not isinstance(symbolic, str):
        raise ParseError(f"to_casadi: symbolic must be 'SX' or 'MX', not {type(symbolic).__name__}")
    return CasadiExport(export_program(eqs, params), symbolic)


# -- JAX --------------------------------------------------------------------------------------------
def _jax(enable_x64: bool):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        raise MissingDependencyError("to_jax needs JAX: pip install 'geonh[jax]'") from None
    if enable_x64 and not getattr(jax.config, "jax_enable_x64", False):
        jax.config.update("jax_enable_x64", True)
    return jax, jnp


def _jax_ops(jnp) -> dict:
    return {"sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "asin": jnp.arcsin, "acos": jnp.arccos,
            "atan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh, "asinh": jnp.arcsinh,
            "acosh": jnp.arccosh, "atanh": jnp.arctanh, "log": jnp.log, "exp": jnp.exp, "sqrt": jnp.sqrt,
            "fabs": jnp.abs, "floor": jnp.floor, "ceil": jnp.ceil, "atan2": jnp.arctan2, "pow": jnp.power,
            "fmax": jnp.fmax, "fmin": jnp.fmin, "sign": jnp.sign}


class JaxExport:
    """Pure JAX functions of the equations (:func:`to_jax`): ``rhs(t, y, p)`` → ẏ and
    ``outputs(t, y, p)`` → {name: array}, built from jax.numpy operations only, so
    ``jax.jit``, ``jax.vmap`` and ``jax.jacfwd`` apply; ``state_names``, ``parameter_names``,
    ``output_names``."""

    def __init__(self, prog: ExportedProgram, enable_x64: bool):
        jax, jnp = _jax(enable_x64)
        self.program = prog
        self.state_names, self.parameter_names = prog.state_names, prog.parameter_names
        self.output_names = dict(prog.output_names)
        ops = _jax_ops(jnp)
        n, npar, nq, k, nu = len(prog.state), len(prog.parameters), prog.n_q, prog.k, prog.n_u
        main, out = prog.main, prog.out
        layout = dict(prog.outputs)

        def inputs(t, y, p):
            y, p = jnp.asarray(y), jnp.asarray(p)
            return [jnp.asarray(t, dtype=y.dtype)] + [y[i] for i in range(n)] + [p[i] for i in range(npar)]

        def solved(ins):
            vals = main.replay(ins, ops)
            K = jnp.stack([jnp.asarray(v, dtype=ins[0].dtype) for v in vals[:nq]]) if nq else jnp.zeros(0)
            if k == 0:
                return K, jnp.zeros(0)
            M = jnp.stack([jnp.asarray(v, dtype=ins[0].dtype) for v in vals[nq:nq + k * k]]).reshape(k, k)
            F = jnp.stack([jnp.asarray(v, dtype=ins[0].dtype) for v in vals[nq + k * k:]])
            return K, jnp.linalg.solve(M, F)

        def rhs(t, y, p):
            """ẏ = f(t, y, p) (K, u̇)."""
            K, x = solved(inputs(t, y, p))
            return jnp.concatenate([K, x[:nu]])

        def outputs(t, y, p):
            """{name: array} of the outputs map at (t, y, p)."""
            ins = inputs(t, y, p)
            _, x = solved(ins)
            flat = out.replay(ins + [x[i] for i in range(k)], ops) if out is not None else []
            vals = [jnp.asarray(v, dtype=ins[0].dtype) for v in flat]
            return {name: jnp.stack(vals[o:o + s]) if s else jnp.zeros(0) for name, (o, s) in layout.items()}

        self.rhs = rhs
        self.outputs = outputs

    def __repr__(self) -> str:
        return f"JaxExport(y = {list(self.state_names)}, p = {list(self.parameter_names)})"


def to_jax(eqs: Equations, params: Mapping | None = None, *, enable_x64: bool = True) -> JaxExport:
    """Pure JAX functions ``rhs(t, y, p)`` and ``outputs(t, y, p)`` of the equations
    (:class:`~geonh.numerics.export.JaxExport`; module doc), jit-able and vmap-able.  ``enable_x64`` (default) turns
    on JAX's 64-bit mode (``jax_enable_x64``), without which JAX computes in float32; False
    leaves JAX's configuration alone.  Needs the extra ``geonh[jax]``."""
    if not isinstance(enable_x64, bool):
        raise ParseError(f"to_jax: enable_x64 must be True or False, not {enable_x64!r}")
    return JaxExport(export_program(eqs, params), enable_x64)


# -- C ------------------------------------------------------------------------------------------------
_C_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_C_KEYWORDS = frozenset("auto break case char const continue default do double else enum extern float for goto if "
                        "inline int long register restrict return short signed sizeof static struct switch typedef "
                        "union unsigned void volatile while".split())


def _c_name(name) -> str:
    if not isinstance(name, str) or not _C_NAME.fullmatch(name) or name in _C_KEYWORDS:
        raise ParseError(f"to_c: name must be a C identifier (letters, digits, _; not a keyword), got {name!r}")
    return name


def _comment(text: str) -> str:
    """``text`` safe inside a C block comment: printable ASCII, others as \\uXXXX, no ``*/``."""
    s = "".join(c if 32 <= ord(c) < 127 else f"\\u{ord(c):04x}" for c in str(text))
    return s.replace("*/", "*\\/")


@dataclasses.dataclass(frozen=True)
class CExport:
    """A self-contained C source and its header (:func:`to_c`, :func:`matrices_to_c`):
    ``name``, ``header``, ``source``, ``state_names``, ``parameter_names``, ``output_names``
    ({output: entry names}); :meth:`write` puts ``<name>.c`` and ``<name>.h`` in a directory."""

    name: str
    header: str
    source: str
    state_names: tuple[str, ...]
    parameter_names: tuple[str, ...]
    output_names: Mapping[str, tuple[str, ...]]

    def write(self, directory) -> tuple[str, str]:
        """Write ``<name>.h`` and ``<name>.c`` into ``directory`` (which must exist); returns
        their paths."""
        import os
        if not isinstance(directory, (str, os.PathLike)) or not os.path.isdir(directory):
            raise ParseError(f"CExport.write: {directory!r} is not a directory")
        paths = []
        for ext, text in (("h", self.header), ("c", self.source)):
            path = os.path.join(os.fspath(directory), f"{self.name}.{ext}")
            with open(path, "w", encoding="ascii") as fh:
                fh.write(text)
            paths.append(path)
        return paths[0], paths[1]

    def __repr__(self) -> str:
        return f"CExport({self.name}: y = {list(self.state_names)}, p = {list(self.parameter_names)})"


def _doc_lines(prog: ExportedProgram) -> list[str]:
    eqs = prog.equations
    lines = [f" * Equations: {_comment(eqs.form)} form of {_comment(repr(eqs.system))}.",
             f" * State y ({len(prog.state)}): q then u.",
             *[f" *   y[{i}] = {_comment(nm)}" for i, nm in enumerate(prog.state_names)],
             f" * Parameters p ({len(prog.parameters)}):",
             *[f" *   p[{i}] = {_comment(nm)}" for i, nm in enumerate(prog.parameter_names)]]
    if prog.parts.bound:
        lines.append(" * Bound at export: " + _comment(", ".join(f"{s.name} = {v!r}" for s, v in prog.parts.bound.items())))
    lines.append(f" * Outputs out ({prog.n_outputs}):")
    for name, (o, s) in prog.outputs.items():
        for j, label in enumerate(prog.output_names[name]):
            lines.append(f" *   out[{o + j}] = {_comment(name)}: {_comment(label)}")
    return lines


def _c_export(prog: ExportedProgram, name: str) -> CExport:
    N = name.upper()
    n, npar, nq, k, nu = len(prog.state), len(prog.parameters), prog.n_q, prog.k, prog.n_u
    nin = 1 + n + npar
    nmain = nq + k * k + k
    doc = ["/*", f" * {name}: generated by geonh (geonh.numerics.export.to_c); plain C99, no Python.",
           *_doc_lines(prog),
           " * Functions return 0, or 1 where the mass matrix is singular (outputs then unwritten).",
           " */"]
    offsets = [f"#define {N}_OUT_{nm.upper()} {o}" for nm, (o, s) in prog.outputs.items()]
    header = "\n".join([f"#ifndef {N}_H", f"#define {N}_H", *doc,
                        f"#define {N}_NY {n}", f"#define {N}_NP {npar}", f"#define {N}_NX {k}",
                        f"#define {N}_NOUT {prog.n_outputs}", *offsets, "",
                        "/* dy = f(t, y, p): dy[0 .. NY-1] = (K, u dot) */",
                        f"int {name}_rhs(double t, const double *y, const double *p, double *dy);",
                        "/* x = (u dot, multipliers) of M x = F */",
                        f"int {name}_unknowns(double t, const double *y, const double *p, double *x);",
                        "/* the outputs map (offsets above) */",
                        f"int {name}_outputs(double t, const double *y, const double *p, double *out);",
                        "", f"#endif /* {N}_H */", ""])
    nbuf = max(nmain, 1)
    out_body = prog.out.c_body("out") if prog.out is not None else []
    src = [*doc, "#include <math.h>", "#include <string.h>", f'#include "{name}.h"', "",
           GAUSS_C,
           f"/* K (n_q), M (k x k, row-major), F (k) at in = (t, y, p) */",
           f"static void {name}_program(const double *in, double *out)", "{",
           *prog.main.c_body("out"), "}", "",
           f"static int {name}_solve(double t, const double *y, const double *p, double *in, double *v, double *x)",
           "{",
           "    in[0] = t;",
           f"    memcpy(in + 1, y, {n} * sizeof(double));" if n else "",
           f"    if ({npar}) memcpy(in + {1 + n}, p, {npar} * sizeof(double));" if npar else "    (void)p;",
           f"    {name}_program(in, v);",
           *([f"    double a[{k * (k + 1)}];",
              f"    return geonh_gauss({k}, v + {nq}, v + {nq + k * k}, x, a);"] if k else ["    (void)x;", "    return 0;"]),
           "}", "",
           f"int {name}_unknowns(double t, const double *y, const double *p, double *x)", "{",
           f"    double in[{nin + k}], v[{nbuf}];",
           f"    return {name}_solve(t, y, p, in, v, x);", "}", "",
           f"int {name}_rhs(double t, const double *y, const double *p, double *dy)", "{",
           f"    double in[{nin + k}], v[{nbuf}], x[{max(k, 1)}];",
           f"    if ({name}_solve(t, y, p, in, v, x)) return 1;",
           f"    memcpy(dy, v, {nq} * sizeof(double));" if nq else "",
           f"    memcpy(dy + {nq}, x, {nu} * sizeof(double));" if nu else "",
           "    return 0;", "}", ""]
    if prog.out is not None:
        src += [f"static void {name}_outputs_program(const double *in, double *out)", "{", *out_body, "}", "",
                f"int {name}_outputs(double t, const double *y, const double *p, double *out)", "{",
                f"    double in[{nin + k}], v[{nbuf}];",
                f"    if ({name}_solve(t, y, p, in, v, in + {nin})) return 1;",
                f"    {name}_outputs_program(in, out);", "    return 0;", "}", ""]
    else:
        src += [f"int {name}_outputs(double t, const double *y, const double *p, double *out)",
                "{", "    (void)t; (void)y; (void)p; (void)out;", "    return 0;", "}", ""]
    source = "\n".join(line for line in src if line != "" or True)
    return CExport(name, header, source, tuple(prog.state_names), tuple(prog.parameter_names),
                   dict(prog.output_names))


def to_c(eqs: Equations, params: Mapping | None = None, *, name: str = "geonh_model") -> CExport:
    """A self-contained C99 source and header of the equations (:class:`~geonh.numerics.export.CExport`; module doc):
    ``int <name>_rhs(double t, const double *y, const double *p, double *dy)``,
    ``<name>_unknowns`` (x = u̇, λ) and ``<name>_outputs`` (the outputs map), each returning 0,
    or 1 where M is singular; the header's comment gives the order of y, p and the outputs.
    Only math.h and string.h are needed (link with -lm).  ``name`` must be a C identifier."""
    name = _c_name(name)
    return _c_export(export_program(eqs, params), name)


for _name, _fn in (("to_casadi", to_casadi), ("to_jax", to_jax), ("to_c", to_c)):
    register_method(_name, _fn)


# -- matrices (Linearization's A, B) ---------------------------------------------------------------
class _Matrices:
    """Matrices of expressions as one program in their free symbols (sorted by name)."""

    def __init__(self, matrices: Mapping[str, Any]):
        if not isinstance(matrices, Mapping) or not matrices:
            raise ParseError("matrices must be a non-empty mapping {name: sympy matrix}")
        mats: dict[str, sp.Matrix] = {}
        for nm, m in matrices.items():
            if not isinstance(nm, str) or not nm.isidentifier():
                raise ParseError(f"matrix names must be identifiers, got {nm!r}")
            if not isinstance(m, sp.MatrixBase):
                raise ParseError(f"matrix {nm} must be a sympy Matrix, not {type(m).__name__}")
            mats[nm] = sp.Matrix(m)
        flat = [e for m in mats.values() for e in m]
        syms: set = set()
        for e in flat:
            syms |= e.free_symbols
        bad = [s for s in syms if not isinstance(s, sp.Symbol)]
        if bad:
            raise DimensionError(f"matrices contain non-symbol atoms {bad[:3]}")
        self.parameters = tuple(sorted(syms, key=lambda s: (s.name, sp.srepr(s))))
        self.parameter_names = tuple(s.name for s in self.parameters)
        self.shapes = {nm: m.shape for nm, m in mats.items()}
        self.program = _Program(flat, self.parameters, "the matrices")


def matrices_to_casadi(matrices: Mapping[str, Any], *, name: str = "matrices"):
    """A ``casadi.Function`` p → the matrices (one output per name, in order), p the free
    symbols of the matrices sorted by name (``parameter_names`` returned beside it): returns
    (function, parameter_names).  What ``Linearization.to_casadi`` exports."""
    ca = _casadi()
    m = _Matrices(matrices)
    p = ca.SX.sym("p", len(m.parameters))
    vals = m.program.replay([p[i] for i in range(len(m.parameters))], _casadi_ops(ca))
    outs, o = [], 0
    for nm, (r, c) in m.shapes.items():
        block = vals[o:o + r * c]
        outs.append(ca.reshape(ca.vertcat(*block), c, r).T if r * c else ca.SX(r, c))
        o += r * c
    return ca.Function(_c_name(name), [p], outs, ["p"], list(m.shapes)), m.parameter_names


def matrices_to_jax(matrices: Mapping[str, Any], *, enable_x64: bool = True):
    """A pure JAX function p → {name: matrix} of the matrices' free symbols p (sorted by name):
    returns (function, parameter_names)."""
    jax, jnp = _jax(enable_x64)
    m = _Matrices(matrices)
    ops = _jax_ops(jnp)
    shapes = dict(m.shapes)
    npar = len(m.parameters)

    def matrices_of(p):
        p = jnp.asarray(p)
        vals = m.program.replay([p[i] for i in range(npar)], ops)
        out, o = {}, 0
        for nm, (r, c) in shapes.items():
            block = [jnp.asarray(v, dtype=jnp.result_type(float)) for v in vals[o:o + r * c]]
            out[nm] = jnp.stack(block).reshape(r, c) if block else jnp.zeros((r, c))
            o += r * c
        return out

    return matrices_of, m.parameter_names


def matrices_to_c(matrices: Mapping[str, Any], *, name: str = "geonh_matrices") -> CExport:
    """A self-contained C source: ``void <name>(const double *p, double *<M1>, …)`` writing
    each matrix row-major; the header's comment gives the order of p."""
    name = _c_name(name)
    m = _Matrices(matrices)
    N = name.upper()
    doc = ["/*", f" * {name}: generated by geonh (geonh.numerics.export); plain C99, no Python.",
           f" * Parameters p ({len(m.parameters)}):",
           *[f" *   p[{i}] = {_comment(nm)}" for i, nm in enumerate(m.parameter_names)],
           *[f" * {nm}: {r} x {c}, row-major" for nm, (r, c) in m.shapes.items()], " */"]
    sig = f"void {name}(const double *p, " + ", ".join(f"double *{_c_name(nm)}" for nm in m.shapes) + ")"
    header = "\n".join([f"#ifndef {N}_H", f"#define {N}_H", *doc, f"#define {N}_NP {len(m.parameters)}",
                        sig + ";", f"#endif /* {N}_H */", ""])
    body = [f"    const double {v} = {c_statement(kind, ops)};".replace("in[", "p[")
            for v, kind, ops in m.program.steps]
    o = 0
    for nm, (r, c) in m.shapes.items():
        for i in range(r * c):
            body.append(f"    {nm}[{i}] = {m.program.outputs[o + i].replace('in[', 'p[')};")
        o += r * c
    source = "\n".join([*doc, "#include <math.h>", f'#include "{name}.h"', "", sig, "{", "    (void)p;", *body, "}", ""])
    return CExport(name, header, source, (), tuple(m.parameter_names), {})
