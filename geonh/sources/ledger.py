"""The audit ledger: every numbered formula of the five seeds that geonh implements, with its
printed form, the form geonh computes from brackets, and a check that decides between them.

A :class:`Formula` is one numbered formula of one seed.  Its ``check`` builds the printed formula
*literally* (misprints included, typed in as sympy code, never parsed from text) and the form
geonh computes from brackets (fields → frames → transposition → equations), on an example
system, and returns a :class:`Finding`:

============  ====================================================================================
status        meaning
============  ====================================================================================
agrees        printed − computed is identically zero on the example (generic-point decision)
misprint      printed − computed ≠ 0; the finding carries the difference on the example
hypothesis    the printed form holds only under an extra hypothesis the paper does not state
              (the finding names it and shows the difference without it, zero with it)
============  ====================================================================================

The status the docs record for each formula is ``Formula.expected``; :func:`audit` runs the
checks and reports any finding that differs from it (a regression either in geonh or in the
record).  The rule of CONVENTIONS.md holds throughout: coefficients are computed from brackets,
and the printed closed forms are only compared against them, never used to compute.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Literal, Mapping, Sequence

import sympy as sp

from ..kernel.display import shorten_for_display
from ..errors import GeonhError, NotFoundError, ParseError, SingularMapError
from ..kernel.generic_point import generic_rank, is_zero
from ..kernel.parsing import as_expr, as_exprs, as_matrix, as_sequence, as_substitution, as_symbols
from ..kernel.progress import steps

__all__ = ["Status", "Finding", "Formula", "AuditRow", "AuditReport", "SOURCES", "formula", "formulas",
           "audit", "compare", "definition", "show", "solve_linear"]

Status = Literal["agrees", "misprint", "hypothesis"]
STATUSES: tuple[str, ...] = ("agrees", "misprint", "hypothesis")

#: key -> (citation, seed file prefix).  The keys are the labels of docs/bibliography.md.
SOURCES: dict[str, tuple[str, str]] = {
    "hamel1924": ("Hamel 1924", "000"),
    "aumann1971": ("Aumann 1971", "001"),
    "appell1911": ("Appell 1911", "002"),
    "juschkov": ("Juschkov", "003"),
    "neimark-fufaev1960": ("Neimark & Fufaev 1960", "004"),
}
#: the modules of geonh.sources that hold each source's formulas, in the paper's order
_MODULES: dict[str, tuple[str, ...]] = {
    "hamel1924": ("hamel", "hamel_forms"),
    "aumann1971": ("aumann",),
    "appell1911": ("appell",),
    "juschkov": ("juschkov_newton", "juschkov_maggi"),
    "neimark-fufaev1960": ("neimark_fufaev",),
}


@dataclass(frozen=True)
class Finding:
    """The result of one check: the status, the example it was decided on, and the difference
    printed − computed on that example (0 when they agree; for ``hypothesis``, the difference
    without the hypothesis)."""

    status: Status
    example: str
    difference: sp.Basic | dict = sp.S.Zero
    detail: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ParseError(f"unknown audit status {self.status!r}; expected one of {STATUSES}")

    @property
    def shown(self) -> str:
        """The difference on one line: the non-zero entries (at most three) of a matrix or a
        labelled family, or the scalar."""
        return show(self.difference)


@dataclass(frozen=True)
class Formula:
    """One numbered formula of a seed.

    ``printed`` is the formula as the paper prints it (transcribed to plain Unicode, misprints
    kept); ``computed`` is what geonh computes in its place, in the paper's notation; ``api``
    names the geonh function or object that computes it; ``expected`` is the status the docs
    record; ``check`` decides it on an example (see the module docstring)."""

    source: str
    number: str
    topic: str
    printed: str
    computed: str
    api: str
    expected: Status
    check: Callable[[], Finding] = field(compare=False, repr=False)

    @property
    def key(self) -> str:
        """``"<source> <number>"``, e.g. ``"hamel1924 (17)"``."""
        return f"{self.source} {self.number}"

    @property
    def citation(self) -> str:
        return f"{SOURCES[self.source][0]}, eq. {self.number}"

    def run(self) -> "AuditRow":
        """Run the check; an exception inside it becomes a failed row (status ``"error"``)."""
        start = time.perf_counter()
        try:
            found = self.check()
            if not isinstance(found, Finding):
                raise ParseError(f"the check of {self.key} returned {type(found).__name__}, not a Finding")
            error = ""
        except Exception as exc:  # a broken check must show in the report, not abort it
            found, error = None, f"{type(exc).__name__}: {exc}"
        return AuditRow(self, found, time.perf_counter() - start, error)


@dataclass(frozen=True)
class AuditRow:
    """A formula and what its check found.  ``ok``: the finding is the recorded one."""

    formula: Formula
    finding: Finding | None
    seconds: float
    error: str = ""

    @property
    def status(self) -> str:
        return self.finding.status if self.finding is not None else "error"

    @property
    def ok(self) -> bool:
        return self.finding is not None and self.finding.status == self.formula.expected

    def as_dict(self) -> dict:
        f = self.formula
        return {"source": f.source, "number": f.number, "topic": f.topic, "printed": f.printed,
                "computed": f.computed, "api": f.api, "expected": f.expected, "status": self.status,
                "ok": self.ok, "example": self.finding.example if self.finding else "",
                "difference": self.finding.shown if self.finding else "",
                "detail": (self.finding.detail if self.finding else self.error), "seconds": round(self.seconds, 3)}


class AuditReport:
    """The rows of an audit run, in the order of the sources and of the papers."""

    def __init__(self, rows: Iterable[AuditRow]):
        self.rows: list[AuditRow] = list(as_sequence(rows, "audit rows"))

    def __iter__(self) -> Iterator[AuditRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def ok(self) -> bool:
        """Every finding is the recorded one."""
        return all(r.ok for r in self.rows)

    @property
    def unexpected(self) -> list[AuditRow]:
        return [r for r in self.rows if not r.ok]

    def counts(self) -> dict[str, dict[str, int]]:
        """source -> status -> number of formulas."""
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            c = out.setdefault(r.formula.source, {s: 0 for s in (*STATUSES, "error")})
            c[r.status] += 1
        return out

    def to_markdown(self) -> str:
        """A table per source: number, topic, printed, computed, verdict, example / difference."""
        lines: list[str] = []
        for src, (cite, seed) in SOURCES.items():
            rows = [r for r in self.rows if r.formula.source == src]
            if not rows:
                continue
            lines += [f"## {cite}", "",
                      "| eq. | topic | printed | computed | verdict | example, difference |",
                      "|---|---|---|---|---|---|"]
            for r in rows:
                f = r.formula
                verdict = r.status + ("" if r.ok else f" (recorded: {f.expected})")
                if r.finding is None:
                    tail = r.error
                else:
                    tail = r.finding.example
                    if r.finding.shown != "0":
                        tail += f"; printed − computed: {r.finding.shown}"
                    if r.finding.detail:
                        tail += f"; {r.finding.detail}"
                cells = [f.number, f.topic, f.printed, f.computed, verdict, tail]
                lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            lines.append("")
        return "\n".join(lines)

    def __repr__(self) -> str:
        c = {s: sum(1 for r in self.rows if r.status == s) for s in (*STATUSES, "error")}
        return (f"AuditReport({len(self.rows)} formulas: " + ", ".join(f"{v} {k}" for k, v in c.items() if v)
                + ("" if self.ok else f"; {len(self.unexpected)} differ from the record") + ")")


def _cell(text: str) -> str:
    """A Markdown table cell: pipes and brackets escaped (``[X, Y](g)`` must not become a link),
    one line."""
    for a, b in (("\\", "\\\\"), ("|", "\\|"), ("[", "\\["), ("]", "\\]"), ("*", "\\*"), ("_", "\\_"),
                 ("`", "\\`"), ("<", "&lt;"), ("\n", " ")):
        text = text.replace(a, b)
    return text


# -- the registry ------------------------------------------------------------------------------
_REGISTRY: dict[str, list[Formula]] = {s: [] for s in SOURCES}


def formula(source: str, number: str, *, topic: str, printed: str, computed: str, api: str,
            expected: Status) -> Callable[[Callable[[], Finding]], Callable[[], Finding]]:
    """Decorator: register the decorated zero-argument function as the check of a formula."""
    if source not in SOURCES:
        raise ParseError(f"unknown source {source!r}; expected one of {sorted(SOURCES)}")
    if expected not in STATUSES:
        raise ParseError(f"unknown audit status {expected!r}; expected one of {STATUSES}")

    def register(check: Callable[[], Finding]) -> Callable[[], Finding]:
        if any(f.number == number for f in _REGISTRY[source]):
            raise ParseError(f"{source} {number} is registered twice")
        _REGISTRY[source].append(Formula(source, number, topic, printed, computed, api, expected, check))
        return check

    return register


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}


def order(number: str) -> tuple:
    """Sort key of an equation number in a paper: (1) < (2) < (2') < (10) < (1.5) < (I) < (IV)."""
    body = number.strip("()")
    primes = len(body) - len(body.rstrip("'*"))
    body = body.rstrip("'*")
    letter = ""
    if body and body[-1].isalpha() and body[:-1] and not set(body) <= set(_ROMAN):
        body, letter = body[:-1], body[-1]
    if set(body) <= set(_ROMAN) and body:
        vals = [_ROMAN[c] for c in body]
        val = sum(-v if i + 1 < len(vals) and v < vals[i + 1] else v for i, v in enumerate(vals))
        return (1, (val,), letter, primes)
    try:
        return (0, tuple(int(x) for x in body.split(".")), letter, primes)
    except ValueError:
        return (2, (0,), body, primes)


def _load(source: str) -> None:
    import importlib
    for name in _MODULES[source]:
        importlib.import_module(f"{__package__}.{name}")


def formulas(source: str | None = None, number: str | None = None) -> list[Formula]:
    """The registered formulas, of one source (a key of :data:`SOURCES`) or all, in the papers'
    order; ``number`` (e.g. ``"(17)"`` or ``"17"``) picks one."""
    if source is not None and source not in SOURCES:
        raise NotFoundError(f"unknown source {source!r}; the sources are {', '.join(SOURCES)}")
    keys = [source] if source is not None else list(SOURCES)
    out: list[Formula] = []
    for k in keys:
        _load(k)
        out += sorted(_REGISTRY[k], key=lambda f: order(f.number))
    if number is not None:
        want = number if number.startswith("(") else f"({number})"
        out = [f for f in out if f.number == want]
        if not out:
            raise NotFoundError(f"no audited formula {want} in {source or 'the sources'}")
    return out


def audit(source: str | None = None, number: str | None = None) -> AuditReport:
    """Run the audit: every numbered formula of the seeds that geonh implements (or those of one
    source / one number, see :func:`formulas`), each with its printed form, the form computed
    from brackets and the verdict.  ``report.ok`` is True when every verdict is the recorded one.
    Each formula is reported to the progress listeners (:mod:`geonh.kernel.progress`).
    """
    return AuditReport(f.run() for f in steps("audit formulas", formulas(source, number), label=lambda f: f.key))


# -- helpers for the checks --------------------------------------------------------------------
def show(D, most: int = 3) -> str:
    """One line for a difference (see :attr:`Finding.shown`)."""
    if isinstance(D, dict):
        items = [(str(k), v) for k, v in D.items()]
    elif isinstance(D, sp.MatrixBase):
        if D.shape == (1, 1):
            return sp.sstr(D[0, 0])
        items = [((f"[{i}]" if 1 in D.shape else f"[{i},{j}]"), D[i, j])
                 for i in range(D.rows) for j in range(D.cols)]
        if D.cols == 1:
            items = [(f"[{i}]", D[i, 0]) for i in range(D.rows)]
    else:
        return sp.sstr(D)
    nz = [(k, v) for k, v in items if v != 0]
    if not nz:
        return "0"
    text = "; ".join(f"{k}: {sp.sstr(v)}" for k, v in nz[:most])
    return text + (f"; … ({len(nz) - most} more non-zero)" if len(nz) > most else "")


def _as_matrix(x) -> sp.Matrix:
    if isinstance(x, (sp.MatrixBase, list, tuple)):
        return as_matrix(x, what="audited value")
    return sp.Matrix([[as_expr(x, what="audited value")]])


def _difference(printed, computed):
    if isinstance(printed, dict) or isinstance(computed, dict):
        if not (isinstance(printed, dict) and isinstance(computed, dict)) or printed.keys() != computed.keys():
            raise GeonhError("printed and computed families must be dicts with the same labels")
        return {k: as_expr(printed[k], what="printed value") - as_expr(computed[k], what="computed value")
                for k in printed}
    P, C = _as_matrix(printed), _as_matrix(computed)
    if P.shape != C.shape:
        raise GeonhError(f"printed and computed forms have different shapes {P.shape} and {C.shape}")
    D = P - C
    return D[0, 0] if D.shape == (1, 1) else D


def _zero(D) -> bool:
    if isinstance(D, dict):
        return all(is_zero(e) for e in D.values())
    if isinstance(D, sp.MatrixBase):
        return all(is_zero(e) for e in D)
    return is_zero(D)


def compare(printed, computed, example: str, *, hypothesis: str = "",
            under: Mapping | Sequence | Callable[[sp.Basic], sp.Basic] | None = None, detail: str = "") -> Finding:
    """Decide a printed form (a scalar, a matrix, or a dict label -> expression, typed in
    literally) against the form geonh computes, on an example.

    Identically equal (at the generic point) → ``agrees``.  Otherwise, when ``under`` is given
    (a substitution, or a function applied to the difference, that imposes ``hypothesis``) and
    the difference vanishes under it → ``hypothesis``; otherwise ``misprint``.  The finding
    carries printed − computed (simplified where cheap) as the difference.
    """
    if under is not None and not callable(under):
        under = as_substitution((under,), what="under")  # sympy's subs would evaluate strings
    D = _difference(printed, computed)
    if _zero(D):
        return Finding("agrees", example, sp.S.Zero, detail)
    shown = _shortened(D)
    if under is not None:
        def impose(e):
            return under(e) if callable(under) else e.subs(under)
        Dh = {k: impose(v) for k, v in D.items()} if isinstance(D, dict) else impose(D)
        if _zero(Dh):
            text = f"holds only if {hypothesis}" if hypothesis else "holds only under an extra hypothesis"
            return Finding("hypothesis", example, shown, (text + ("; " + detail if detail else "")))
    return Finding("misprint", example, shown, detail)


def solve_linear(equations, unknowns) -> dict:
    """{unknown: value} of equations linear in ``unknowns``, by LU on the coefficient matrix
    (never ``sympy.solve``, whose simplification can run for minutes); for the printed sides
    of the checks."""
    unknowns = list(as_symbols(unknowns, what="unknowns"))
    if len(set(unknowns)) != len(unknowns):
        raise GeonhError("the unknowns must be distinct symbols")
    equations = as_exprs(equations, what="equations")
    A, b = sp.linear_eq_to_matrix([sp.expand(e) if sp.count_ops(e) < 400 else e for e in equations], unknowns)
    if A.shape[0] != A.shape[1]:
        raise GeonhError(f"{A.shape[0]} equations for {A.shape[1]} unknowns")
    if not generic_rank(A) == A.rows:
        raise SingularMapError("the equations do not determine the unknowns (singular coefficient matrix)")
    return dict(zip(unknowns, A.LUsolve(b)))


def definition(value, expected, example: str, detail: str = "") -> Finding:
    """A defining formula (a definition the paper sets up, e.g. a constraint or a quasi-velocity):
    ``agrees`` when geonh's object equals the printed definition on the example."""
    return compare(value, expected, example, detail=detail)


def _shortened(D):
    """A readable difference: each small entry simplified by
    :func:`geonh.kernel.display.shorten_for_display`, large ones left as they are."""
    def one(e):
        return shorten_for_display(e, limit=200)[0]
    if isinstance(D, dict):
        return {k: one(v) for k, v in D.items()}
    if isinstance(D, sp.MatrixBase):
        return D.applyfunc(one)
    return one(D)
