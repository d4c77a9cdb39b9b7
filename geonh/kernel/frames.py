"""Frames, coframes, quasi-velocities and structure coefficients.

A frame X_a = C^i_a ∂_i (the columns of C) has the dual coframe θ^a = B^a_i dq^i with
B = C⁻¹, so θ^a(X_b) = δ^a_b.  Quasi-velocities are ω^a = θ^a(q̇) = B^a_i q̇^i and
q̇^i = C^i_a ω^a.  Structure coefficients (CONVENTIONS.md):

    [X_a, X_b] = c^d_ab X_d,   c^d_ab = θ^d([X_a, X_b]) = −dθ^d(X_a, X_b)
              = (∂_j B^d_i − ∂_i B^d_j) C^i_a C^j_b,

which is Hamel's β (Hamel 1924, eq. (17)) with β_{a,b,d} = c^d_ab: first slot the δ
direction, second the d direction, third the component.
"""
from __future__ import annotations

from typing import Any, Sequence, cast

import sympy as sp

from ..errors import DependentFieldsError, DimensionError, ImmutableError, ParseError, SingularMapError
from . import backend as _be
from .algebra import PerBackend
from .budget import check, gc_paused
from .fields import VectorField, check_same_space, fields_matrix
from .forms import OneForm, exterior_derivative, velocity_form
from .generic_point import (all_zero, generic_rank, inverse, lu_inverse, singleton_pivots, singleton_reduced_inverse,
                            singular_error)
from .parsing import as_expr, as_exprs, as_matrix, as_names, as_sequence
from .space import ConfigurationSpace


class Frame:
    """n vector fields independent at the generic point, with their dual coframe.

    Build it from fields (``Frame(fields)``), from one-forms (:meth:`from_coframe`) or from
    quasi-velocity definitions ω = B(q) q̇ (:meth:`from_quasi_velocities`).  Independence is
    checked at the generic point (:func:`geonh.kernel.generic_point.generic_rank`) and the inverse is
    computed by LU; a dependent set raises :class:`DependentFieldsError`.  The long loops
    (inversion, structure coefficients) report progress to and stop at a :func:`geonh.budget`.

    The fields are the columns of C, the coframe θ^a the rows of B = C⁻¹, the quasi-velocities
    ω^a = θ^a(q̇); the structure coefficients follow CONVENTIONS.md, [X_a, X_b] = c^d_ab X_d,
    stored as ``c[d, a, b]``.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, Frame, VectorField
        >>> S = ConfigurationSpace("x y z")
        >>> x, y, z = S.q
        >>> F = Frame([VectorField(S, [1, 0, 0]), VectorField(S, [0, 1, x]), VectorField(S, [0, 0, 1])])
        >>> F.B.tolist()
        [[1, 0, 0], [0, 1, 0], [0, -x, 1]]
        >>> F.quasi_velocities()
        [x_dot, y_dot, -x*y_dot + z_dot]
        >>> c = F.structure_coefficients()
        >>> c[2, 0, 1], c[2, 1, 0]                     # [X_1, X_2] = +X_3
        (1, -1)
        >>> F.structure_coefficients(method="exterior")[2, 0, 1]    # −dθ^3(X_1, X_2), the other route
        1
    """

    _native: tuple[_be.Translation, Any, Any] | None  # (Translation, C, B) in symengine, see __init__
    _c: sp.Array | None  # the structure coefficients of the bracket route, cached

    @gc_paused()   # a graph pass over the frame's entries (budget.gc_paused)
    def __init__(self, fields: Sequence[VectorField], *, names: Sequence[str] | None = None,
                 coframe: Sequence[OneForm] | None = None):
        fields = as_sequence(fields, "frame fields")
        names = as_names(names, "frame names") if names is not None else None
        if not fields:
            raise DimensionError("a frame needs at least one field")
        for X in fields:
            if not isinstance(X, VectorField):
                raise ParseError(f"a frame is built from VectorFields, got {type(X).__name__}")
            check_same_space(fields[0], X, "build a frame from")
        space = fields[0].space
        if len(fields) != space.dim:
            raise DimensionError(f"a frame on {space!r} has {space.dim} fields, got {len(fields)}")
        C = fields_matrix(fields)
        if coframe is not None:
            # a known dual coframe (closed forms beat an LU inverse); duality is verified
            coframe = as_sequence(coframe, "coframe")
            if len(coframe) != space.dim or any(not isinstance(f, OneForm) or f.space != space for f in coframe):
                raise DimensionError(f"the coframe must be {space.dim} OneForms on {space!r}")
            Bk = sp.Matrix([list(f.covector) for f in coframe])
            native = _check_duality(C, Bk)
            B = Bk
            self._set(fields, C, B, names)
            self._native = native
            return
        # one regularity verdict on both backends (generic_point.regular_pivot_order): the
        # symengine route defers to it whenever it cannot prove its own inverse
        try:
            native = _native_inverse(C, "frame matrix C")
            B = None if native is not None else lu_inverse(C, what="frame matrix C", check=False)
        except SingularMapError as exc:
            raise DependentFieldsError(
                f"the {space.dim} fields are dependent at the generic point (rank {_rank_of(exc, C)}); "
                "they do not form a frame") from None
        if native is not None:
            T, Cs, Bs, B_sympy = native
            # B stays in symengine until it is asked for (Frame.B converts it once)
            self._set(fields, C, None, names, B_sympy=B_sympy)
            self._native = (T, Cs, Bs)
            return
        self._set(fields, C, B, names)

    def _set(self, fields, C: sp.Matrix, B: sp.Matrix | None, names, *, B_sympy=None) -> None:
        space = fields[0].space
        self.space: ConfigurationSpace = space
        self.fields: tuple[VectorField, ...] = tuple(fields)
        self.C: sp.Matrix = C
        # B = C⁻¹ as a sympy Matrix, or None with B_sympy() building it on first access
        self._B = sp.Matrix(B) if B is not None else None
        self._B_sympy = B_sympy
        self.names: tuple[str, ...] = tuple(names) if names is not None else tuple(
            f"w{a + 1}" for a in range(space.dim))
        if len(self.names) != space.dim:
            raise DimensionError(f"{len(self.names)} names for {space.dim} quasi-velocities")
        # caches (the rule of geonh.kernel.algebra): the structure coefficients per backend, and
        # the symengine images (Translation, C, B), read only under the symengine backend
        self._c: PerBackend | None = None
        self._native = None

    @property
    def B(self) -> sp.Matrix:
        """The coframe matrix B = C⁻¹ (rows θ^a); when the inverse was computed in symengine
        it is converted to sympy on first access (the same matrix the sympy route gives)."""
        if self._B is None:
            self._B = sp.Matrix(self._B_sympy())
            self._B_sympy = None
        return self._B

    @B.setter
    def B(self, value) -> None:
        """Refused: B is the inverse of the fields, proved when the frame is built, and the
        verdicts carried for the frame (adaptedness, regularity) rest on it."""
        raise ImmutableError("a Frame's coframe B is fixed when the frame is built (it is the inverse of its "
                             "fields); build a new one: Frame(fields, coframe=B)")

    def __getstate__(self) -> dict:
        """Pickling keeps the sympy data only: B converted, the symengine matrices and the
        lazily converted structure coefficients dropped (both are rebuilt on demand)."""
        state = dict(self.__dict__)
        state["_B"], state["_B_sympy"] = self.B, None
        state["_native"], state["_c"] = None, None
        return state

    @classmethod
    def _assemble(cls, fields: Sequence[VectorField], B: sp.Matrix, names) -> "Frame":
        """A frame whose inverse B = C⁻¹ this module has just computed (no second check)."""
        out = cls.__new__(cls)
        out._set(list(fields), fields_matrix(list(fields)), B, names)
        return out

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def coordinate(cls, space: ConfigurationSpace) -> "Frame":
        """The coordinate frame ∂_1, …, ∂_n (all structure coefficients vanish)."""
        n = space.dim
        fields = [VectorField.coordinate(space, s) for s in space.coords]
        return cls._assemble(fields, sp.eye(n), [f"{s.name}_dot" for s in space.coords])

    @classmethod
    def from_coframe(cls, forms: Sequence[OneForm], *, names: Sequence[str] | None = None) -> "Frame":
        """Frame dual to n one-forms θ^a = B^a_i dq^i: C = B⁻¹ by LU, rows of one entry first
        (:func:`~geonh.kernel.generic_point.singleton_reduced_inverse`) when B has functions."""
        forms = as_sequence(forms, "coframe forms")
        names = as_names(names, "frame names") if names is not None else None
        if not forms:
            raise DimensionError("a coframe needs at least one form")
        for f in forms:
            if not isinstance(f, OneForm):
                raise ParseError(f"a coframe is built from OneForms, got {type(f).__name__}")
            check_same_space(forms[0], f, "build a coframe from")
        space = forms[0].space
        if len(forms) != space.dim:
            raise DimensionError(f"a coframe on {space!r} has {space.dim} forms, got {len(forms)}")
        B = sp.Matrix([list(f.covector) for f in forms])
        # rows of one entry (ω = q̇^i among constraints) are pivots first, the rest is inverted
        # alone (:func:`~geonh.kernel.generic_point.singleton_reduced_inverse`)
        pivots = singleton_pivots(B) if any(e.has(sp.Function) for e in B) else []
        try:
            if pivots:
                native, C = None, singleton_reduced_inverse(B, pivots, _inverse, what="coframe matrix B")
            else:
                native = _native_inverse(B, "coframe matrix B")
                C = None if native is not None else lu_inverse(B, what="coframe matrix B", check=False)
        except SingularMapError as exc:
            raise SingularMapError(
                f"the {space.dim} one-forms are dependent at the generic point (rank {_rank_of(exc, B)}); "
                "the quasi-velocity map is not invertible") from None
        if native is not None:
            T, Bs, Cs, C_sympy = native
            C = C_sympy()  # the fields need sympy components now
        # C = B⁻¹ is computed from checked input: no second boundary check (VectorField._derived)
        fields = [VectorField._derived(space, list(cast(sp.Matrix, C)[:, a])) for a in range(space.dim)]
        out = cls._assemble(fields, B, names)
        if native is not None:
            out._native = (T, Cs, Bs)
        return out

    @classmethod
    def from_quasi_velocities(cls, space: ConfigurationSpace, omegas: Sequence,
                              *, names: Sequence[str] | None = None) -> "Frame":
        """Frame from quasi-velocity definitions ω^a = B^a_i(q) q̇^i (Hamel 1924, eq. (13)).

        Each ω^a must be linear and homogeneous in the velocities ``space.qd``.  For a
        rheonomic space the time column B^a_t is the coefficient-free part (ω = B q̇ + B_t),
        so affine definitions are allowed there and only there.
        """
        omegas = [as_expr(w, space.state_symbols, what="quasi-velocity") for w in as_sequence(omegas, "quasi-velocities")]
        if len(omegas) != space.dim:
            raise DimensionError(f"{space!r} needs {space.dim} quasi-velocities, got {len(omegas)}")
        forms = [velocity_form(space, w, "quasi-velocity") for w in omegas]
        return cls.from_coframe(forms, names=names)

    # -- basic data -------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self.space.dim

    def __getitem__(self, a: int) -> VectorField:
        return self.fields[a]

    def __iter__(self):
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def coframe(self) -> tuple[OneForm, ...]:
        """θ^a = B^a_i dq^i, dual to the fields: θ^a(X_b) = δ^a_b."""
        return tuple(OneForm(self.space, list(self.B[a, :])) for a in range(self.dim))

    def components(self, X: VectorField) -> list[sp.Expr]:
        """Frame components θ^a(X) of a field X = θ^a(X) X_a."""
        check_same_space(self.fields[0], X, "decompose")
        v = self.B * X.as_matrix()
        return list(v)

    def quasi_velocities(self) -> list[sp.Expr]:
        """ω^a = B^a_i q̇^i as expressions in the velocity symbols (time velocity 1)."""
        v = sp.Matrix(self.space.velocities)
        return list(self.B * v)

    def velocities_from(self, omega: Sequence) -> list[sp.Expr]:
        """q̇^i = C^i_a ω^a for given quasi-velocity values/symbols (components over coords)."""
        omega = as_exprs(omega, self.space.state_symbols, what="quasi-velocity values")
        if len(omega) != self.dim:
            raise DimensionError(f"{self.dim} quasi-velocities needed, got {len(omega)}")
        return list(self.C * sp.Matrix(omega))

    # -- structure coefficients -------------------------------------------------------------
    def structure_coefficients(self, method: str = "bracket") -> sp.Array:
        """c[d, a, b] = c^d_ab with [X_a, X_b] = c^d_ab X_d.

        ``method="bracket"``: c^d_ab = θ^d([X_a, X_b]) from the Lie brackets of the fields.
        ``method="exterior"``: c^d_ab = −dθ^d(X_a, X_b) from the exterior derivatives of the
        coframe, i.e. (∂_j B^d_i − ∂_i B^d_j) C^i_a C^j_b.  The two routes are independent;
        the tests compare them.  The bracket result is cached per backend
        (:class:`~geonh.kernel.algebra.PerBackend`: never served under the other backend).
        """
        n = self.dim
        if method == "bracket":
            if self._c is None:
                self._c = PerBackend()
            return self._c.get(self._bracket_coefficients)
        if method == "exterior":
            c = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
            done, total = 0, n * n * (n - 1) // 2
            for dd, theta in enumerate(self.coframe):
                dth = exterior_derivative(theta)
                for a in range(n):
                    for b in range(a + 1, n):
                        check("structure coefficients (exterior)", done, total, "entries")
                        done += 1
                        v = -dth(self.fields[a], self.fields[b])
                        c[dd][a][b] = v
                        c[dd][b][a] = -v
            return sp.Array(c)
        raise ParseError(f"method must be 'bracket' or 'exterior', not {method!r}")

    def _bracket_coefficients(self) -> sp.Array:
        """c^d_ab = θ^d([X_a, X_b]) on the current backend: in symengine when it is active and
        C, B convert (:func:`_structure_coefficients_native`), else in sympy."""
        n = self.dim
        native = self._native_matrices()
        if native is not None:
            return _structure_coefficients_native(*native, self.space.coords)
        c = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
        cols = [X.as_matrix() for X in self.fields]
        coords = self.space.coords
        # Jacobians of the frame fields, computed once: J[a][k, i] = ∂_i X_a^k
        J = []
        for a in range(n):
            check("structure coefficients (Jacobians of the fields)", a, n, "fields")
            J.append(sp.Matrix(n, n, lambda k, i, a=a: sp.diff(self.C[k, a], coords[i])))
        done, total = 0, n * (n - 1) // 2
        for a in range(n):
            for b in range(a + 1, n):
                check("structure coefficients", done, total, "brackets")
                done += 1
                br = J[b] * cols[a] - J[a] * cols[b]
                if all(e == 0 for e in br):
                    continue
                comp = self.B * br
                for dd in range(n):
                    c[dd][a][b] = comp[dd]
                    c[dd][b][a] = -comp[dd]
        return _be.TidyArray(c)   # displays tidied, as the symengine route's LazyArray

    def _native_matrices(self) -> tuple[_be.Translation, Any, Any] | None:
        """(Translation, C, B) in symengine when that backend is active and C, B are supported
        (else None: the sympy route, see :mod:`geonh.kernel.backend`)."""
        if not _be.use_symengine():
            return None
        if self._native is None:
            if not _be.supports([self.C, self.B]):
                return None
            T = _be.Translation()
            self._native = (T, T.to_symengine(self.C), T.to_symengine(self.B))
        return self._native

    def hamel_beta(self) -> sp.Array:
        """Hamel's β[a, b, d] = β_{a,b,d} = c^d_ab (Hamel 1924, eq. (17); CONVENTIONS.md)."""
        c = self.structure_coefficients()
        n = self.dim
        return sp.Array([[[c[dd, a, b] for dd in range(n)] for b in range(n)] for a in range(n)])

    # -- change of frame --------------------------------------------------------------------
    def change(self, A: sp.MatrixBase) -> "Frame":
        """The frame X'_a = X_b A^b_a for an invertible matrix function A (columns = new fields
        in the old frame)."""
        A = as_matrix(A, self.space.state_symbols, what="change-of-frame matrix")
        if A.shape != (self.dim, self.dim):
            raise DimensionError(f"change-of-frame matrix must be {self.dim}x{self.dim}, got {A.shape}")
        for e in A:  # the new fields are built unchecked from C·A (VectorField._derived): check A here
            as_expr(e, self.space.state_symbols, what="change-of-frame matrix entry")
        Ainv = lu_inverse(A, what="change-of-frame matrix")   # refuses a singular A with its generic rank
        C2 = self.C * A
        fields = [VectorField._derived(self.space, list(C2[:, a])) for a in range(self.dim)]
        return Frame._assemble(fields, Ainv * self.B, None)

    def _repr_latex_(self) -> str:
        from .display import repr_latex  # duck-typed renderer: imports none of these classes
        return repr_latex(self)

    def __repr__(self) -> str:
        return f"Frame([{', '.join(self.names)}] on {self.space!r})"


#: the duality verdicts decided so far (validate once): the entries of (C, B) of every pair
#: found dual, so a frame given again in the same closed form is not checked again.  Only the
#: positive verdict is kept (a refusal raises); the key is the entries themselves, so a
#: verdict is never served for other matrices.  Bounded: cleared beyond DUALITY_CACHE pairs.
_DUAL: dict[tuple, bool] = {}
DUALITY_CACHE = 256


def _check_duality(C: sp.Matrix, B: sp.Matrix) -> tuple[_be.Translation, Any, Any] | None:
    """Verify θ^a(X_b) = δ^a_b, i.e. B·C − I ≡ 0 at the generic point, or raise
    :class:`DependentFieldsError`; returns the symengine (Translation, C, B) when that backend
    computed the product (kept by the frame), else None.

    One batched zero verdict (:func:`~geonh.kernel.generic_point.all_zero`: every entry of
    B·C − I evaluated together at PRECISION digits at each sample point, a value above the
    tolerance proving the pair not dual) on the entries that are not structurally zero; the
    product is formed in symengine when it is active.  A pair of matrices found dual once is
    not checked again (:data:`_DUAL`)."""
    n = C.rows
    key = (tuple(C), tuple(B))
    native = None
    if _be.use_symengine() and _be.supports([C, B]):
        T = _be.Translation()
        Cs, Bs = T.to_symengine(C), T.to_symengine(B)
        native = (T, Cs, Bs)
        if key in _DUAL:
            return native
        Ps = [e for e in Bs * Cs - _be.se.eye(n) if e != 0]   # structural zeros are not tested
        dual = all_zero([T.to_sympy(e) for e in Ps], natives=Ps)
    else:
        if key in _DUAL:
            return None
        dual = all_zero(list(B * C - sp.eye(n)))
    if not dual:
        raise DependentFieldsError("the given coframe is not dual to the fields (θ^a(X_b) ≠ δ^a_b)")
    if len(_DUAL) >= DUALITY_CACHE:
        _DUAL.clear()
    _DUAL[key] = True
    return native


def _rank_of(exc: SingularMapError, M: sp.Matrix) -> int:
    """The generic rank a singular verdict carries (:func:`~geonh.kernel.generic_point.singular_error`),
    else the rank verdict itself."""
    r = getattr(exc, "rank", None)
    return generic_rank(M) if r is None else r


def _inverse(M: sp.Matrix) -> sp.Matrix:
    """M⁻¹ as a sympy Matrix: adj(M)/det(M) for sizes ≤ 4 (no pivot order: a generic pivot
    may be small where the system moves, :func:`~geonh.kernel.generic_point.inverse`), else
    by the route of the backend (:func:`_native_inverse`, else
    :func:`~geonh.kernel.generic_point.lu_inverse`)."""
    if M.rows <= 4:
        return inverse(M, "coframe matrix B")
    native = _native_inverse(M, "coframe matrix B")
    return native[3]() if native is not None else lu_inverse(M, what="coframe matrix B", check=False)


def _native_inverse(M: sp.Matrix, what: str):
    """M⁻¹ computed for the symengine backend: ``(Translation, M, M⁻¹, to_sympy)`` with M and
    M⁻¹ symengine matrices and ``to_sympy()`` returning M⁻¹ as a sympy Matrix (converted when
    called); ``None`` when the sympy route applies (backend sympy, or M not supported by
    symengine).  A singular M raises :class:`SingularMapError` with the rank of the one
    verdict (:func:`~geonh.kernel.generic_point.singular_error`): the fast route never
    returns an inverse it cannot prove, it defers to the reference route
    (:func:`geonh.kernel.backend.lu_solve`).

    With functions: LU with generic pivots in symengine.  Rational (function-free) data:
    the sympy route's exact fraction-field LU (cancelled entries, the same M⁻¹ as
    generic_point.lu_solve), its numerators and denominators taken straight to symengine
    (:func:`geonh.kernel.backend.fraction_field_inverse`)."""
    if not _be.use_symengine() or not _be.supports(M):
        return None
    T = _be.Translation()
    if not any(e.has(sp.Function) for e in M):
        exact = _be.fraction_field_inverse(M)
        if exact is False:  # singular over the fraction field: exact, so the rank is < n
            exc = singular_error(M, what)
            if exc is not None:
                raise exc
        elif exact is not None:
            Minv, Minv_sympy = exact
            return T, T.to_symengine(M), Minv, Minv_sympy
        # another coefficient domain: the sympy route's inverse, converted once
        Minv = lu_inverse(M, what=what, check=False)
        return T, T.to_symengine(M), T.to_symengine(Minv), lambda: Minv
    Ms = T.to_symengine(M)
    Minv = _be.lu_inverse(Ms, what=what, symbols=T.symbols)
    return T, Ms, Minv, lambda: T.to_sympy(Minv)


def _structure_coefficients_native(T, C, B, coords) -> sp.Array:
    """c^d_ab = θ^d([X_a, X_b]) = B^d_k (J_b X_a − J_a X_b)^k in symengine, with the Jacobians
    J_a[k, i] = ∂_i C^k_a computed once per field (the bracket formula of CONVENTIONS.md:
    [X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k); matrix products in symengine's C++, one
    conversion to sympy per entry on first access (a :class:`~geonh.kernel.backend.LazyArray`;
    c^d_ba = −c^d_ab converted from symengine too, so both are sympy-canonical)."""
    n = C.nrows()
    syms = T.to_symengine(list(coords))
    cols = [C.col(a) for a in range(n)]
    J = [cols[a].jacobian(_be.se.DenseMatrix(syms)) for a in range(n)]
    Jzero = [J[a].is_zero_matrix for a in range(n)]
    values = [sp.S.Zero] * (n * n * n)  # flat c[d, a, b] at (d * n + a) * n + b
    pending = {}
    done, total = 0, n * (n - 1) // 2
    for a in range(n):
        for b in range(a + 1, n):
            check("structure coefficients", done, total, "brackets")
            done += 1
            if Jzero[a] and Jzero[b]:
                continue
            if Jzero[a]:
                br = J[b] * cols[a]
            elif Jzero[b]:
                br = -(J[a] * cols[b])
            else:
                br = J[b] * cols[a] - J[a] * cols[b]
            if br.is_zero_matrix:
                continue
            comp = B * br
            for dd in range(n):
                v = comp[dd, 0]
                if v != 0:
                    k, k2 = (dd * n + a) * n + b, (dd * n + b) * n + a
                    values[k] = values[k2] = None
                    pending[k] = v
                    pending[k2] = -v
    return _be.LazyArray.from_native((n, n, n), values, pending, T)


def transform_structure_coefficients(frame: Frame, A: sp.MatrixBase) -> sp.Array:
    """Structure coefficients of X'_a = X_b A^b_a from those of ``frame``, by the law

        c'^d_ab = (A⁻¹)^d_e [ c^e_fg A^f_a A^g_b + X'_a(A^e_b) − X'_b(A^e_a) ],

    where X'_a = A^f_a X_f.  (Expand [A^f_a X_f, A^g_b X_g] by Leibniz.)
    """
    A = as_matrix(A, frame.space.state_symbols, what="change-of-frame matrix")
    n = frame.dim
    if A.shape != (n, n):
        raise DimensionError(f"change-of-frame matrix must be {n}x{n}, got {A.shape}")
    c = frame.structure_coefficients()
    Ainv = lu_inverse(A, what="change-of-frame matrix")
    newf = [sum((A[f, a] * frame.fields[f] for f in range(1, n)), A[0, a] * frame.fields[0])
            for a in range(n)]
    out = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    done, total = 0, n * (n - 1) // 2
    for a in range(n):
        for b in range(a + 1, n):
            check("transformed structure coefficients", done, total, "pairs")
            done += 1
            inner = []
            for e in range(n):
                s = sum(c[e, f, g] * A[f, a] * A[g, b] for f in range(n) for g in range(n) if c[e, f, g] != 0)
                s += newf[a](A[e, b]) - newf[b](A[e, a])
                inner.append(s)
            for dd in range(n):
                v = sum(Ainv[dd, e] * inner[e] for e in range(n))
                out[dd][a][b] = v
                out[dd][b][a] = -v
    return sp.Array(out)
