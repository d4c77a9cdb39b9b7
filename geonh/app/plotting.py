"""Plots with matplotlib (the optional extra ``geonh[plot]``; imported only when a function here
is called).

From a :class:`~geonh.Trajectory` (:func:`geonh.simulate`):

* :func:`trajectory_figure` — coordinates and speeds against time;
* :func:`phase_figure` — one state variable against another (a phase portrait);
* :func:`reactions_figure` — the reaction forces (Lagrange's form) or Maggi's Λ;
* :func:`invariants_figure` — the constraint residuals |φ| and the energy drift T + V − E₀;
* :func:`overview` — trajectory, energy and residual in one figure (``geonh simulate --plot``).

From a linearization (:mod:`geonh.analysis.linearize`): :func:`eigenvalues_figure` (real and
imaginary parts of the eigenvalues against a parameter) and :func:`bicycle_figure` (the
Whipple bicycle's weave, capsize and castor curves against the forward speed, with the weave
and capsize speeds marked).  From a distribution: :func:`growth_vector_figure` (the ranks of
the derived flag D¹ ⊂ D² ⊂ … up to n).

Every function returns a :class:`matplotlib.figure.Figure`; save it with ``fig.savefig(path)``.
Outside a notebook it is built without pyplot (no global state, no display needed); in a
Jupyter kernel (IPython with a kernel) it joins pyplot's figures, so that it shows at the end of
the cell as ``plt.subplots()``'s figures do, last expression or not.  An ``ax`` argument draws
into an existing Axes instead (and returns its figure).

Labels are mathtext: a state variable prints as its symbol (``$\\theta$``, ``$\\dot{x}$`` for a
coordinate velocity, ``$\\phi_{R}$`` for ``phiR``); the lines keep the variables' names as their
labels (``line.get_label()``), the legends show the typeset names.  The ranks of a growth
vector have integer ticks.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Sequence

import numpy as np
import sympy as sp
from sympy.printing.latex import greek_letters_set

from ..errors import GeonhError, MissingDependencyError, ParseError
from ..kernel import display
from ..kernel.parsing import as_float, as_floats, as_sequence

__all__ = ["bicycle_figure", "eigenvalues_figure", "growth_vector_figure", "invariants_figure", "mathtext",
           "overview", "phase_figure", "reactions_figure", "trajectory_figure"]


def in_notebook() -> bool:
    """Is this a Jupyter kernel (IPython running with a kernel)?  Looked up in ``sys.modules``
    only: never imports IPython."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if callable(get) else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def _figure(nrows: int = 1, ncols: int = 1, *, figsize=(7.0, 4.0), sharex=False):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise MissingDependencyError("geonh's plots need matplotlib: pip install 'geonh[plot]'") from e
    if in_notebook():   # a notebook: pyplot's figure, shown at the end of the cell as pyplot's are
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=figsize, layout="constrained")
    else:
        fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)
    return fig, axes


#: a Greek letter's name followed by capitals or digits: ``phiR`` -> φ_R, ``theta2`` -> θ_2
_GREEK_SUFFIX = re.compile(r"^(" + "|".join(sorted(greek_letters_set, key=len, reverse=True)) + r")([A-Z0-9]+)$")


def mathtext(name: str, symbols: Sequence = ()) -> str:
    """The mathtext label (``$…$``) of a variable called ``name``: the LaTeX of the symbol of
    that name among ``symbols`` (so a coordinate velocity prints with its dot, by role), else of
    the name itself (``phiR`` -> ``$\\phi_{R}$``, ``Lambda_1`` -> ``$\\Lambda_{1}$``)."""
    if not isinstance(name, str):
        raise ParseError(f"a label is a name (str), not {type(name).__name__}")
    for s in as_sequence(symbols, "symbols"):
        if isinstance(s, sp.Symbol) and s.name == name:
            return "$" + display.latex(s) + "$"
    m = _GREEK_SUFFIX.match(name)
    if m:
        name = f"{m.group(1)}_{m.group(2)}"
    return "$" + display.name_latex(name) + "$"


def _symbols(traj) -> list:
    """The symbols a trajectory's names may name (coordinates, velocities, speeds)."""
    try:
        eqs = traj.equations
        return list(eqs.space.coords) + list(eqs.space.qd) + [u for u in eqs.u if isinstance(u, sp.Symbol)]
    except (AttributeError, GeonhError):  # pragma: no cover - not a geonh trajectory
        return []


def _legend(ax, symbols=(), **kw) -> None:
    """A legend of ``ax``'s labelled lines with their labels typeset (:func:`mathtext`)."""
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    ax.legend(lines, [mathtext(ln.get_label(), symbols) for ln in lines], **kw)


def _axes(ax, **kw):
    if ax is not None:
        return ax.figure, ax
    fig, axes = _figure(**kw)
    return fig, axes[0, 0]


def _columns(traj, which: str):
    if which == "q":
        return list(traj.q_names), traj.q.T
    if which == "u":
        return list(traj.u_names), traj.u.T
    if which == "all":
        return list(traj.q_names) + list(traj.u_names), traj.y
    raise ParseError(f"which must be 'q', 'u' or 'all', not {which!r}")


def trajectory_figure(traj, *, which: str = "all", names: Sequence[str] | None = None, ax=None, title: str = ""):
    """State variables of ``traj`` against time (``which``: "q", "u" or "all"; or the
    columns ``names``)."""
    fig, ax = _axes(ax)
    if names is not None:
        cols = [(n, traj[n]) for n in as_sequence(names, "names")]
    else:
        labels, data = _columns(traj, which)
        cols = list(zip(labels, data))
    for label, y in cols:
        ax.plot(traj.t, y, label=label)
    ax.set_xlabel("t")
    ax.set_ylabel({"q": "coordinates", "u": "speeds"}.get(which, "state") if names is None else "state")
    _legend(ax, _symbols(traj), loc="best", fontsize="small", ncol=1 + len(cols) // 6)
    ax.set_title(title or f"{traj.equations.form} equations")
    return fig


def phase_figure(traj, x: str, y: str, *, ax=None, title: str = ""):
    """``y`` against ``x`` along ``traj`` (column names: coordinates, speeds, "t", "energy"),
    with the start marked."""
    fig, ax = _axes(ax, figsize=(5.0, 5.0))
    xs, ys = traj[x], traj[y]
    ax.plot(xs, ys, label=f"{y}({x})")
    ax.plot(xs[:1], ys[:1], "o", label="start")
    syms = _symbols(traj)
    ax.set_xlabel(mathtext(x, syms))
    ax.set_ylabel(mathtext(y, syms))
    ax.set_title(title or f"phase portrait {y} against {x}")
    ax.legend(loc="best", fontsize="small")
    return fig


def reactions_figure(traj, *, ax=None, title: str = ""):
    """The reactions of ``traj``'s equations against time (Lagrange: R_i = λ_κ A_κi per
    coordinate; Maggi: Λ_κ)."""
    fig, ax = _axes(ax)
    R = np.asarray(traj.reactions)
    eqs = traj.equations
    if eqs.form == "lagrange" or R.shape[1] == len(traj.q_names):
        labels = [f"R_{q}" for q in traj.q_names][:R.shape[1]]
    else:
        labels = [f"Lambda_{k + 1}" for k in range(R.shape[1])]
    for k in range(R.shape[1]):
        ax.plot(traj.t, R[:, k], label=labels[k])
    ax.set_xlabel("t")
    ax.set_ylabel("reaction")
    ax.set_title(title or f"reactions ({eqs.form})")
    _legend(ax, loc="best", fontsize="small")
    return fig


def _energy(traj):
    try:
        return np.asarray(traj.energy)
    except (GeonhError, ArithmeticError, ValueError):  # no T + V, or not evaluable along the motion
        return None


def _residuals(traj):
    try:
        r = np.asarray(traj.constraint_residuals)
    except (GeonhError, ArithmeticError, ValueError):
        return None
    return r if r.size else None


def invariants_figure(traj, *, axes=None, title: str = ""):
    """Two panels: the constraint residuals |φ_κ| (log scale) and the energy drift
    T + V − E(0) against time.  A panel without data says so."""
    if axes is None:
        fig, grid = _figure(2, 1, figsize=(7.0, 5.0), sharex=True)
        ax1, ax2 = grid[0, 0], grid[1, 0]
    else:
        ax1, ax2 = axes
        fig = ax1.figure
    _residual_panel(ax1, traj)
    _energy_panel(ax2, traj)
    ax2.set_xlabel("t")
    if title:
        fig.suptitle(title)
    return fig


def _residual_panel(ax, traj):
    r = _residuals(traj)
    ax.set_ylabel("|constraint residual|")
    if r is None:
        ax.text(0.5, 0.5, "no velocity constraints", ha="center", va="center", transform=ax.transAxes)
        return
    cons = traj.constraints    # None on a trajectory read back from a pickle
    names = (list(cons.names) if cons is not None else []) or [f"phi_{k + 1}" for k in range(r.shape[1])]
    floor = 1e-18  # below double-precision round-off: exact zeros are drawn here
    for k in range(r.shape[1]):
        label = str(names[k]) if len(str(names[k])) <= 40 else f"constraint {k + 1}"
        ax.semilogy(traj.t, np.maximum(np.abs(r[:, k]), floor), label=label)
    if not np.any(r):
        ax.text(0.5, 0.5, "identically zero (the constraints hold by construction)", ha="center",
                va="center", transform=ax.transAxes)
    ax.legend(loc="best", fontsize="small")


def _energy_panel(ax, traj):
    E = _energy(traj)
    ax.set_ylabel("energy drift $T + V - E(0)$")
    if E is None:
        ax.text(0.5, 0.5, "no energy T + V", ha="center", va="center", transform=ax.transAxes)
        return
    ax.plot(traj.t, E - E[0], label="$T + V - E(0)$")   # mathtext: a real minus sign
    ax.legend(loc="best", fontsize="small")


def overview(traj, *, title: str = ""):
    """Coordinates, speeds (each on its own axes), constraint residual and energy drift in one
    figure (four panels)."""
    fig, grid = _figure(4, 1, figsize=(7.5, 10.0), sharex=True)
    trajectory_figure(traj, which="q", ax=grid[0, 0], title=title or f"{traj.equations.form} equations")
    trajectory_figure(traj, which="u", ax=grid[1, 0], title=" ")
    for k in (0, 1):
        grid[k, 0].set_xlabel("")
    invariants_figure(traj, axes=(grid[2, 0], grid[3, 0]))
    return fig


def eigenvalues_figure(values: Sequence[float], eigenvalues: Sequence[Sequence[complex]], *,
                       parameter: str = "v", ax=None, title: str = "", imaginary: bool = True):
    """Real parts (dots) and, with ``imaginary``, imaginary parts (crosses) of the eigenvalues
    against a parameter; ``eigenvalues[i]`` are those at ``values[i]``."""
    fig, ax = _axes(ax)
    vals = as_floats(values, "values")
    eigenvalues = _complex_rows(eigenvalues)
    width = max((len(e) for e in eigenvalues), default=0)
    Z = np.full((len(vals), width), np.nan, dtype=complex)
    for i, row in enumerate(eigenvalues):
        row = sorted((complex(z) for z in row), key=lambda z: (z.real, z.imag))
        Z[i, :len(row)] = row
    ax.plot(np.repeat(vals, width), Z.real.ravel(), ".", markersize=3, label="Re λ")
    if imaginary:
        ax.plot(np.repeat(vals, width), np.abs(Z.imag).ravel(), "x", markersize=3, label="|Im λ|")
    ax.axhline(0.0, color="k", linewidth=0.6)
    ax.set_xlabel(parameter)
    ax.set_ylabel("eigenvalues")
    ax.set_title(title or f"eigenvalues against {parameter}")
    ax.legend(loc="best", fontsize="small")
    return fig


def _classify(row) -> dict:
    """The Whipple bicycle's modes at one speed: weave (the oscillatory pair, or at low speed
    the two real roots that merge into it), capsize (the real root that crosses zero slowly)
    and castor (the large negative real root)."""
    zs = sorted((complex(z) for z in row), key=lambda z: z.real)
    out: dict[str, complex | float] = {"castor": zs[0].real}
    rest = zs[1:]
    osc = [z for z in rest if abs(z.imag) > 1e-9]
    if osc:
        out["weave"] = max(osc, key=lambda z: z.imag)
        out["weave2"] = out["weave"].real
        reals = [z for z in rest if abs(z.imag) <= 1e-9]
        out["capsize"] = reals[-1].real if reals else float("nan")
    else:  # at low speed the weave pair is two real roots, which merge where it starts to oscillate
        out["weave"] = complex(rest[-1].real, 0.0) if rest else complex("nan")
        out["weave2"] = rest[-2].real if len(rest) > 2 else float("nan")
        out["capsize"] = rest[0].real if len(rest) > 1 else float("nan")
    return out


def _complex_rows(rows) -> list[list[complex]]:
    """Rows of eigenvalues (numbers: Python, numpy, mpmath or sympy) as complex numbers; strings
    and anything else are refused with ParseError."""
    out = []
    for row in as_sequence(rows, "eigenvalues"):
        vals = []
        for z in as_sequence(row, "a row of eigenvalues"):
            if isinstance(z, (str, bytes)):
                raise ParseError(f"eigenvalues are numbers, not {type(z).__name__}")
            try:
                vals.append(complex(z))
            except (TypeError, ValueError):
                raise ParseError(f"eigenvalues are numbers, not {type(z).__name__}") from None
        out.append(vals)
    return out


def bicycle_figure(speeds: Sequence[float], eigenvalues: Sequence[Sequence[complex]], *,
                   weave_speed: float | None = None, capsize_speed: float | None = None, ax=None,
                   title: str = ""):
    """The Whipple bicycle's eigenvalues against the forward speed v (Meijaard et al. 2007,
    fig. 3): the weave, capsize and castor curves (real parts) and the weave frequency, with
    the weave and capsize speeds (the stable range between them) marked when given."""
    fig, ax = _axes(ax)
    v = as_floats(speeds, "speeds")
    weave_speed = as_float(weave_speed, "weave_speed") if weave_speed is not None else None
    capsize_speed = as_float(capsize_speed, "capsize_speed") if capsize_speed is not None else None
    modes = [_classify(r) for r in _complex_rows(eigenvalues)]
    (weave,) = ax.plot(v, [complex(m["weave"]).real for m in modes], "-", label="weave (Re)")
    ax.plot(v, [m["weave2"] for m in modes], "-", color=weave.get_color(), label="_weave, second real root")
    ax.plot(v, [abs(complex(m["weave"]).imag) for m in modes], "--", label="weave frequency (Im)")
    ax.plot(v, [m["capsize"] for m in modes], "-", label="capsize")
    ax.plot(v, [m["castor"] for m in modes], "-", label="castor")
    ax.axhline(0.0, color="k", linewidth=0.6)
    if weave_speed is not None:
        ax.axvline(float(weave_speed), color="grey", linestyle=":", label=f"v_w = {float(weave_speed):.3f}")
    if capsize_speed is not None:
        ax.axvline(float(capsize_speed), color="grey", linestyle="-.", label=f"v_c = {float(capsize_speed):.3f}")
    lo = min(-10.0, float(np.nanmin([m["castor"] for m in modes])) if modes else -10.0)
    ax.set_ylim(max(lo, -10.0), 10.0)
    ax.set_xlabel("forward speed v [m/s]")
    ax.set_ylabel("eigenvalue [1/s]")
    ax.set_title(title or "Whipple bicycle: weave, capsize and castor")
    ax.legend(loc="best", fontsize="small")
    return fig


def growth_vector_figure(growth: Sequence[int], n: int | None = None, *, ax=None, title: str = ""):
    """The ranks of the derived flag D¹ ⊂ D² ⊂ … (the growth vector) as bars, with the
    dimension n of the space as a line: bracket generating when the last bar reaches it."""
    fig, ax = _axes(ax, figsize=(5.0, 3.5))
    growth = as_sequence(growth, "growth vector")
    if not all(isinstance(g, (int, sp.Integer)) and not isinstance(g, bool) for g in growth):
        raise ParseError("a growth vector is a sequence of integers")
    growth = [int(g) for g in growth]
    steps = np.arange(1, len(growth) + 1)
    ax.bar(steps, growth, color="tab:blue", label="rank of $D^k$")
    for s, g in zip(steps, growth):
        ax.text(s, g, str(g), ha="center", va="bottom")
    if n is not None:
        ax.axhline(n, color="tab:red", linestyle="--", label=f"n = {n}")
    ax.set_xticks(steps, [f"$D^{{{s}}}$" for s in steps])
    from matplotlib.ticker import MaxNLocator   # matplotlib is present: the figure exists
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("derived flag")
    ax.set_ylabel("rank")
    ax.set_ylim(0, max(growth + [n or 0]) + 1)
    ax.set_title(title or f"growth vector {tuple(growth)}")
    ax.legend(loc="lower right", fontsize="small")
    return fig
