"""Accessibility and small-time local controllability, with witnesses.

For ẋ = f₀(x) + Σ uᵢ fᵢ(x) (:class:`~geonh.control.ControlAffineSystem`; a
:class:`~geonh.control.DriftlessSystem` has f₀ = 0):

* **LARC** (:func:`accessibility`): the accessibility algebra Lie{f₀, f₁, …, f_m} has rank n
  at x₀ (Sussmann & Jurdjevic 1972; Nijmeijer & van der Schaft 1990, Thm. 3.9): the system is
  then accessible from x₀.  For a driftless system the LARC at x₀ is Chow–Rashevskii's
  condition and gives small-time local controllability.
* **Sussmann's sufficient condition** (:func:`sussmann`; Sussmann 1987, Thm. 7.3, with θ = 1)
  at an equilibrium f₀(x₀) = 0: a bracket B of the generators has the degrees δ⁰(B) in f₀ and
  δⁱ(B) in fᵢ; B is *bad* when δ⁰ is odd and every δⁱ even, *good* otherwise.  If the LARC
  holds and for every bad B the symmetrization β(B) = Σ_{π ∈ S_m} π(B) (π permuting
  f₁ … f_m) is, at x₀, a combination of good brackets of lower degree (δ⁰ + Σδⁱ), the system
  is STLC at x₀.  The test is **sufficient only**: "not satisfied" does not mean "not STLC".

The brackets are the Lyndon (Hall) brackets of the generators — a basis of each multidegree of
the free Lie algebra (Reutenauer 1993, Thm. 5.1), so every bracket of a multidegree is a
combination of them and testing them decides the condition for all brackets.  Degree by
degree: the bad brackets of degree k are tested against the good brackets of degrees < k, then
the good ones of degree k join.  Once the good brackets span the tangent space at x₀ every bad
bracket of higher degree is neutralized, so the answer is final.

Values at x₀ are exact: each bracket is formed symbolically (:meth:`VectorField.bracket`) and
x₀ substituted; ranks of the values are exact over the numbers, and at the generic point of the
remaining parameters (:func:`~geonh.kernel.generic_rank`) — a verdict holds for generic
parameter values.  When the search stops at ``max_degree`` undecided the verdict says so
(``final=False``); a failing LARC is final when the generic rank of the whole algebra (the
stabilized Lie flag of span{f₀, …, f_m}, :meth:`Distribution.derived_flag`) is below n: then the
rank is below n at every point.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence, Union

import sympy as sp

from ..errors import DimensionError, NotEquilibriumError, ParseError, SingularMapError, SpaceMismatchError
from ..kernel.distributions import Distribution
from ..kernel.fields import VectorField
from ..kernel.parsing import as_exprs, as_names, as_sequence, as_values, brief
from ..kernel.generic_point import generic_rank, is_zero
from ..kernel.space import ConfigurationSpace
from .systems import ControlAffineSystem, DriftlessSystem, point_values

__all__ = ["Verdict", "accessibility", "sussmann", "lyndon_words", "lyndon_bracket", "Tree", "tree_name",
           "tree_degrees", "SpanAtPoint", "generic_lie_rank", "finite_at"]

#: a formal product of generators: a leaf (the generator's index) or a pair (left, right)
Tree = Union[int, tuple]


@dataclass(frozen=True)
class Verdict:
    """A decided verdict with its witness, printed readably by ``str``.

    ``question`` names the property and ``source`` the theorem used; ``holds`` is the answer
    (``bool(verdict)`` too); ``final`` is False only when the search stopped at the degree limit
    without deciding (then ``holds`` is False and ``reason`` says so).  ``witness`` names the
    brackets (or symmetric products, or fields) that span, or the one that obstructs, and
    ``values`` gives each one's components at the point; ``rank`` is the rank reached at the
    point of a space of dimension ``dim``; ``legend`` names the generators; ``seconds`` is the
    wall time of the decision.  Values that still contain parameters were decided at the generic
    point of the parameters; ``str`` says so."""

    question: str
    holds: bool
    final: bool
    point: Mapping = field(compare=False)
    rank: int
    dim: int
    witness: tuple[str, ...]
    values: tuple[tuple[sp.Expr, ...], ...]
    reason: str
    source: str
    legend: str = ""
    seconds: float = field(default=0.0, compare=False)

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        head = ("holds" if self.holds else ("does not hold" if self.final else "not decided")) + \
            f": {self.question}"
        at = ", ".join(f"{k}={v}" for k, v in self.point.items())
        lines = [head, f"  at ({at}); rank {self.rank} of {self.dim}", f"  {self.reason}"]
        if self.legend:
            lines.append(f"  generators: {self.legend}")
        params = sorted({str(s) for vals in self.values for v in vals for s in v.free_symbols})
        if params:
            lines.append(f"  (decided for generic values of the parameters {', '.join(params)})")
        if self.witness:
            lines.append("  witness:")
            for name, vals in zip(self.witness, self.values):
                lines.append(f"    {name} = ({', '.join(str(v) for v in vals)})")
        lines.append(f"  source: {self.source}")
        return "\n".join(lines)


# -- formal brackets ---------------------------------------------------------------------------
def lyndon_words(letters: int, length: int) -> list[tuple[int, ...]]:
    """The Lyndon words of exactly ``length`` over the alphabet 0 … letters−1, in lexicographic
    order (Duval's algorithm: Duval 1983)."""
    if not isinstance(letters, int) or not isinstance(length, int) or letters < 1 or length < 1:
        raise DimensionError(f"lyndon_words needs positive integers, got {letters!r} and {length!r}")
    out: list[tuple[int, ...]] = []
    w = [-1]
    while w:
        w[-1] += 1
        if len(w) == length:
            out.append(tuple(w))
        m = len(w)
        while len(w) < length:
            w.append(w[len(w) - m])
        while w and w[-1] == letters - 1:
            w.pop()
    return out


def lyndon_bracket(word: Sequence[int]) -> Tree:
    """The standard bracketing of a Lyndon word: a letter is itself; w = uv with v the longest
    proper suffix that is a Lyndon word gives [bracket(u), bracket(v)] (Reutenauer 1993, §5.1)."""
    word = tuple(as_sequence(word, "word"))
    if not word or not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in word):
        raise ParseError(f"a word is a non-empty sequence of letter indices, got {word!r}")
    if not _is_lyndon(word):
        raise ParseError(f"{word!r} is not a Lyndon word (strictly smaller than each of its rotations)")
    return _standard(word)


def _standard(word: tuple) -> Tree:
    if len(word) == 1:
        return word[0]
    i = next(i for i in range(1, len(word)) if _is_lyndon(word[i:]))  # a suffix of length 1 is Lyndon
    return (_standard(word[:i]), _standard(word[i:]))


def _is_lyndon(w: tuple) -> bool:
    return all(w < w[i:] + w[:i] for i in range(1, len(w)))


def tree_degrees(tree: Tree, letters: int) -> tuple[int, ...]:
    """How often each generator 0 … letters−1 occurs in ``tree``."""
    if isinstance(letters, bool) or not isinstance(letters, int) or letters < 1:
        raise DimensionError(f"letters must be a positive integer, got {letters!r}")
    _check_tree(tree, letters)
    out = [0] * letters
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple):
            stack.extend(t)
        else:
            out[t] += 1
    return tuple(out)


def tree_name(tree: Tree, names: Sequence[str], brackets: str = "[]", sep: str = ", ") -> str:
    """``tree`` written with the generator ``names``: [f0, [f0, f1]] (or ⟨Y1 : Y2⟩ with
    ``brackets="⟨⟩"``, ``sep=" : "``)."""
    names = as_names(names, "generator names")
    _check_tree(tree, len(names))
    return _tree_name(tree, names, brackets, sep)


def _check_tree(tree, letters: int) -> None:
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple) and len(t) == 2:
            stack.extend(t)
        elif not (isinstance(t, int) and not isinstance(t, bool) and 0 <= t < letters):
            raise ParseError(f"a tree is a generator index below {letters} or a pair of trees, got {brief(t)}")


def _tree_name(tree: Tree, names: Sequence[str], brackets: str, sep: str) -> str:
    if isinstance(tree, tuple):
        a, b = tree
        return f"{brackets[0]}{_tree_name(a, names, brackets, sep)}{sep}{_tree_name(b, names, brackets, sep)}{brackets[1]}"
    return names[tree]


def _permuted(tree: Tree, perm: Mapping[int, int]) -> Tree:
    if isinstance(tree, tuple):
        return (_permuted(tree[0], perm), _permuted(tree[1], perm))
    return perm.get(tree, tree)


class _Evaluator:
    """Fields of formal products, memoized: leaves are ``generators``, a pair is ``product``."""

    def __init__(self, generators: Sequence[VectorField], product: Callable[[VectorField, VectorField], VectorField],
                 point: Mapping):
        self.generators = list(generators)
        self.product = product
        self.point = point
        self.memo: dict = {}
        self.zero: dict = {}

    def field(self, tree: Tree) -> VectorField:
        if tree not in self.memo:
            if isinstance(tree, tuple):
                a, b = self.field(tree[0]), self.field(tree[1])
                if self.is_zero_field(tree[0]) or self.is_zero_field(tree[1]):
                    self.memo[tree] = VectorField.zero(a.space)
                else:
                    self.memo[tree] = self.product(a, b)
            else:
                self.memo[tree] = self.generators[tree]
        return self.memo[tree]

    def is_zero_field(self, tree: Tree) -> bool:
        if tree not in self.zero:
            self.zero[tree] = self.field(tree).is_zero()
        return self.zero[tree]

    def at(self, tree: Tree) -> tuple[sp.Expr, ...]:
        if self.is_zero_field(tree):
            return tuple(sp.S.Zero for _ in self.generators[0].components)
        return finite_at(self.field(tree), self.point)


@dataclass
class Neutralization:
    """The outcome of :func:`neutralize`: ``holds`` True when the good trees span the target (the
    ``witness`` lists them), False when the bad tree (``bad``: its name, symmetrized; ``bad_value``: its
    value) is not neutralized at ``degree``, None when ``max_degree`` ran out first."""

    holds: bool | None
    degree: int
    good: SpanAtPoint
    witness: list
    bad: tuple[str, ...] = ()
    bad_value: tuple[tuple, ...] = ()


def neutralize(trees: Callable[[int], Sequence[Tree]], is_bad: Callable[[Tree], bool],
               images: Callable[[Tree], Sequence[Tree]], canonical: Callable[[Tree], Tree],
               at: Callable[[Tree], Sequence], name: Callable[[Tree], str], target_rank: int,
               max_degree: int) -> Neutralization:
    """The degree-by-degree search of Sussmann's condition (Sussmann 1987, Thm. 7.3) and of its
    symmetric-product twin (Lewis & Murray 1997): at each degree k, every bad tree B, symmetrized
    β(B) = Σ_π π(B) over its ``images``, must be a combination at the point of the good trees of
    degree < k (else the search stops with B as the witness); then the good trees of degree k join.
    Once the good ones reach ``target_rank`` every later bad tree is neutralized too."""
    good = SpanAtPoint()
    witness: list = []
    for k in range(1, max_degree + 1):
        level = trees(k)
        for tree in level:
            if is_bad(tree):
                imgs = list(images(tree))
                total = tuple(sp.Add(*parts) for parts in zip(*(at(t) for t in imgs)))
                if not good.contains(total):
                    label = name(canonical(tree))
                    if len(imgs) > 1:
                        uniq = list(dict.fromkeys(name(t) for t in imgs))
                        label = f"β({label}) = " + " + ".join(uniq)
                    return Neutralization(False, k, good, witness, (label,), (total,))
        for tree in level:
            if not is_bad(tree):
                t = canonical(tree)
                if good.add(at(t)):
                    witness.append(t)
        if good.rank == target_rank:
            return Neutralization(True, k, good, witness)
    return Neutralization(None, max_degree, good, witness)


def not_neutralized_reason(what: str, k: int, inputs: int, lower: str, prop: str) -> str:
    """The one wording of a failed neutralization: ``what`` (e.g. "bad bracket (degree 3: …)") is
    not a combination of the good ``lower`` terms of degree < k; the condition is sufficient only."""
    sym_note = ", symmetrized over the inputs," if inputs > 1 else ""
    return (f"the {what} below{sym_note} is not a combination of {lower} of degree < {k} at the point. "
            f"The condition is sufficient only: this does not show that the system is not {prop}")


def finite_at(X: VectorField, point: Mapping) -> tuple[sp.Expr, ...]:
    """The components of ``X`` at ``point`` ({symbol: value}), exactly; a component without a
    finite value there (the point is singular for the fields, e.g. for their frame) raises
    :class:`~geonh.errors.SingularMapError`."""
    if not isinstance(X, VectorField):
        raise ParseError(f"expected a VectorField, got {type(X).__name__}")
    pt = as_values(point, X.space.coords, what="point")
    out = tuple(c.xreplace(pt) for c in X.components)
    for v in out:
        if v.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            raise SingularMapError(f"the fields have no finite value at the point {pt}: a component is {v}")
    return out


class SpanAtPoint:
    """A growing set of vectors at a point (numbers, or expressions in parameters), kept when
    independent of those kept (rank at the generic parameter values; exact for numbers)."""

    def __init__(self) -> None:
        self.rows: list[tuple[sp.Expr, ...]] = []

    @property
    def rank(self) -> int:
        return len(self.rows)

    def _vector(self, v) -> tuple[sp.Expr, ...]:
        out = tuple(as_exprs(v, what="vector at a point"))
        if self.rows and len(out) != len(self.rows[0]):
            raise DimensionError(f"a vector of {len(out)} entries; the kept ones have {len(self.rows[0])}")
        return out

    def contains(self, v: Sequence[sp.Expr]) -> bool:
        """Is ``v`` a combination of the kept vectors?"""
        v = self._vector(v)
        if all(is_zero(x) for x in v):
            return True
        if not self.rows:
            return False
        return generic_rank(sp.Matrix(self.rows + [v])) == len(self.rows)

    def add(self, v: Sequence[sp.Expr]) -> bool:
        """Keep ``v`` if it is independent of the kept vectors; returns whether it was kept."""
        v = self._vector(v)
        if self.contains(v):
            return False
        self.rows.append(v)
        return True


def _generators(system) -> tuple[list[VectorField], list[str], str]:
    if isinstance(system, (ControlAffineSystem, DriftlessSystem)):
        gens = [system.drift] + list(system.fields)
        names = ["f0"] + [f"f{i + 1}" for i in range(len(system.fields))]
        legend = "f0 = drift, " + ", ".join(f"f{i + 1} = field of input {n}" for i, n in enumerate(system.inputs))
        return gens, names, legend
    raise ParseError(f"expected a ControlAffineSystem or a DriftlessSystem, got {type(system).__name__}")


def _max_degree(value, dim: int) -> int:
    if value is None:
        return dim
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value > 12:
        raise DimensionError(f"max_degree must be an integer from 1 to 12, got {value!r}")
    return value


def generic_lie_rank(fields: Sequence[VectorField], space: ConfigurationSpace) -> int:
    """The rank of the Lie algebra generated by ``fields`` at the generic point: the last rank
    of the stabilized Lie flag of their span (:meth:`Distribution.derived_flag`)."""
    if not isinstance(space, ConfigurationSpace):
        raise ParseError(f"expected a ConfigurationSpace, got {type(space).__name__}")
    fields = as_sequence(fields, "fields")
    for X in fields:
        if not isinstance(X, VectorField):
            raise ParseError(f"expected VectorFields, got {type(X).__name__}")
        if X.space != space:
            raise SpaceMismatchError(f"a field on {X.space!r}, not on {space!r}")
    nonzero = [X for X in fields if not X.is_zero()]
    if not nonzero:
        return 0
    return Distribution(nonzero, space).growth_vector()[-1]


def accessibility(system, point: Mapping, *, max_degree: int | None = None) -> Verdict:
    """The Lie algebra rank condition at ``point`` ({coordinate: value}, every coordinate):
    rank Lie{f₀, f₁ … f_m}(x₀) = n, from the Lyndon brackets of degree ≤ ``max_degree``
    (default n + 1; the search stops once they span).  The witness lists the brackets that span at x₀ with their values.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, VectorField
        >>> from geonh.control import ControlAffineSystem, accessibility
        >>> S = ConfigurationSpace("x v")
        >>> di = ControlAffineSystem(VectorField(S, [S.q[1], 0]), [VectorField(S, [0, 1])])
        >>> v = accessibility(di, {"x": 0, "v": 0})
        >>> v.holds, v.witness
        (True, ('f1', '[f0, f1]'))
    """
    start = time.perf_counter()
    gens, names, legend = _generators(system)
    S = system.space
    pt = point_values(S, point)
    K = _max_degree(max_degree, S.dim + 1)
    letters = list(range(len(gens))) if not isinstance(system, DriftlessSystem) else list(range(1, len(gens)))
    ev = _Evaluator(gens, VectorField.bracket, pt)
    span = SpanAtPoint()
    witness: list[Tree] = []
    for k in range(1, K + 1):
        for word in lyndon_words(len(letters), k):
            tree = _relabel(lyndon_bracket(word), letters)
            if span.add(ev.at(tree)):
                witness.append(tree)
            if span.rank == S.dim:
                break
        if span.rank == S.dim:
            break
    src = "Lie algebra rank condition (Sussmann & Jurdjevic 1972; Nijmeijer & van der Schaft 1990, Thm. 3.9)"
    if isinstance(system, DriftlessSystem):
        src += "; driftless: Chow–Rashevskii"
    names_w = tuple(tree_name(t, names) for t in witness)
    vals = tuple(ev.at(t) for t in witness)
    if span.rank == S.dim:
        reason = f"the brackets below span the tangent space at the point (degree ≤ {_degree(witness[-1])})"
        holds, final = True, True
    else:
        r = generic_lie_rank(gens, S)
        holds = False
        if r < S.dim:
            final = True
            reason = (f"the accessibility algebra has generic rank {r} < {S.dim}: the rank is below "
                      f"{S.dim} at every point (the brackets below span what it reaches at this point)")
        else:
            final = False
            reason = (f"brackets of degree ≤ {K} reach rank {span.rank} here, the algebra has full rank "
                      "elsewhere: raise max_degree")
    return Verdict("accessibility (LARC)", holds, final, _shown(pt), span.rank, S.dim, names_w, vals, reason, src,
                   legend, time.perf_counter() - start)


def sussmann(system, point: Mapping, *, max_degree: int | None = None) -> Verdict:
    """Sussmann's sufficient condition for small-time local controllability at the
    equilibrium ``point`` (f₀(x₀) = 0, else :class:`~geonh.errors.NotEquilibriumError`), with
    weights θ = 1 (Sussmann 1987, Thm. 7.3): every bad bracket, symmetrized over the inputs, is
    a combination at x₀ of good brackets of lower degree, and the good brackets span.  Degrees up
    to ``max_degree`` (default n + 1); the search stops at the first bad bracket not neutralized
    or once the good brackets span.

    ``holds`` True: STLC at x₀, the witness lists the good brackets that span.  ``holds`` False
    and ``final``: the witness is the bad bracket β(B) that is not neutralized (or the LARC
    fails); the condition is only sufficient, so the system may still be STLC.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, VectorField
        >>> from geonh.control import ControlAffineSystem, sussmann
        >>> S = ConfigurationSpace("x y")
        >>> x, y = S.q
        >>> sys = ControlAffineSystem(VectorField(S, [y**2, 0]), [VectorField(S, [0, 1])])  # ẋ = y², ẏ = u
        >>> v = sussmann(sys, {"x": 0, "y": 0})
        >>> v.holds, v.final, v.witness[0]
        (False, True, '[[f0, f1], f1]')
    """
    start = time.perf_counter()
    gens, names, legend = _generators(system)
    S = system.space
    pt = point_values(S, point)
    drift_at = [c.xreplace(pt) for c in gens[0].components]
    if not all(is_zero(c) for c in drift_at):
        raise NotEquilibriumError(f"Sussmann's condition is stated at an equilibrium; the drift at the point is "
                                  f"({', '.join(str(c) for c in drift_at)}), not zero")
    K = _max_degree(max_degree, S.dim + 1)
    m = len(gens) - 1
    ev = _Evaluator(gens, VectorField.bracket, pt)
    src = "Sussmann's sufficient condition for STLC (Sussmann 1987, Thm. 7.3, θ = 1); sufficient only"
    perms = [dict(zip(range(1, m + 1), p)) for p in itertools.permutations(range(1, m + 1))]

    def bad(tree: Tree) -> bool:
        deg = tree_degrees(tree, m + 1)
        return deg[0] % 2 == 1 and all(d % 2 == 0 for d in deg[1:])

    found = neutralize(lambda k: [lyndon_bracket(w) for w in lyndon_words(m + 1, k)], bad,
                       lambda t: [_permuted(t, p) for p in perms], lambda t: t, ev.at,
                       lambda t: tree_name(t, names), S.dim, K)
    good, witness, k = found.good, found.witness, found.degree
    if found.holds is False:
        reason = not_neutralized_reason(f"bad bracket (degree {k}: odd in f0, even in every input field)", k, m,
                                        "good brackets", "STLC")
        return Verdict("small-time local controllability (Sussmann's condition)", False, True,
                       _shown(pt), good.rank, S.dim, found.bad, found.bad_value, reason, src, legend,
                       time.perf_counter() - start)
    if found.holds:
        reason = (f"every bad bracket of degree ≤ {k} is neutralized and the good brackets below span the "
                  "tangent space, so every bad bracket of higher degree is neutralized too: STLC")
        return Verdict("small-time local controllability (Sussmann's condition)", True, True, _shown(pt),
                       good.rank, S.dim, tuple(tree_name(t, names) for t in witness),
                       tuple(ev.at(t) for t in witness), reason, src, legend, time.perf_counter() - start)
    r = generic_lie_rank(gens, S)
    final = r < S.dim
    reason = (f"the LARC fails: the accessibility algebra has generic rank {r} < {S.dim}" if final else
              f"every bad bracket of degree ≤ {K} is neutralized but the good brackets reach rank {good.rank} "
              f"< {S.dim} only: raise max_degree")
    return Verdict("small-time local controllability (Sussmann's condition)", False, final, _shown(pt), good.rank,
                   S.dim, tuple(tree_name(t, names) for t in witness), tuple(ev.at(t) for t in witness), reason, src,
                   legend, time.perf_counter() - start)


def _relabel(tree: Tree, letters: Sequence[int]) -> Tree:
    if isinstance(tree, tuple):
        return (_relabel(tree[0], letters), _relabel(tree[1], letters))
    return letters[tree]


def _degree(tree: Tree) -> int:
    return sum(tree_degrees(tree, _max_leaf(tree) + 1))


def _max_leaf(tree: Tree) -> int:
    if isinstance(tree, tuple):
        return max(_max_leaf(tree[0]), _max_leaf(tree[1]))
    return tree


def _shown(pt: Mapping) -> dict:
    return {str(k): v for k, v in pt.items()}
