"""The geonh exception hierarchy.

Every error geonh raises on bad input is a :class:`GeonhError`, raised at the boundary
(the constructor or function that received the input) with a message naming what is wrong.
Each subclass also derives from the matching built-in exception, so ``except ValueError``
keeps working for users who do not know geonh's classes.
"""
from __future__ import annotations

import dataclasses


class GeonhError(Exception):
    """Base class of every error geonh raises on purpose."""


class DimensionError(GeonhError, ValueError):
    """Components of the wrong length, or objects of mismatched degree or size."""


class SpaceMismatchError(GeonhError, ValueError):
    """Objects that live on different configuration spaces were combined."""


class UnknownCoordinateError(GeonhError, KeyError):
    """A coordinate (or velocity) that the configuration space does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DependentFieldsError(GeonhError, ValueError):
    """Vector fields (or forms) that should be independent at the generic point are not."""


class SingularMapError(GeonhError, ValueError):
    """A matrix that must be inverted (quasi-velocity map, mass matrix, ...) is singular."""

    #: the matrix's generic rank where the refusal states it (kernel.generic_point.singular_error)
    rank: int | None = None


class RankError(GeonhError, ValueError):
    """Constraints (or a distribution) of deficient or unexpected rank."""


class NotLinearError(GeonhError, ValueError):
    """An expression required to be linear (or quadratic) in the velocities is not."""


class NotPositiveDefiniteError(GeonhError, ValueError):
    """A kinetic energy (metric) that is not positive definite."""


class NotAdaptedError(GeonhError, ValueError):
    """A frame that is not adapted to the constraints where an adapted frame is required."""


class NotFoundError(GeonhError, LookupError):
    """sympy could not find the requested closed form (first integral, inverse map, ...)."""


class InconsistentStateError(GeonhError, ValueError):
    """A state (initial data) that violates the constraints, constraints or parameter conditions
    that no state satisfies, or numerical data (a state, a parameter value) that is not finite."""


class MissingValueError(GeonhError, ValueError):
    """A numeric evaluation lacks values: the state or the parameters given do not cover every
    symbol of the expression (the message names the symbols)."""


class ParseError(GeonhError, ValueError, TypeError):
    """A string that is not a safe formula, or an input of the wrong kind where an expression,
    a name or a condition is expected (see :mod:`geonh.kernel.parsing`).  Also a ``TypeError``,
    since many such inputs are of the wrong type (``None``, a bool, a dict)."""


class LimitError(ParseError):
    """An input beyond one of geonh's size limits: a formula string that is too long or too
    deeply nested, a number with too many digits (a literal, a decimal such as ``1e999999``, or
    the result of an operation such as ``(9**999)**999``), an exponent that is too large, or a
    sympy expression with too many nodes, too deep a tree or a number too large to work with.
    The message names the limit and how to raise it (``with geonh.limits(...)``, see
    :mod:`geonh.kernel.parsing`).  A :class:`ParseError`, so ``except ParseError`` catches it."""


class ModelFileError(ParseError):
    """A model file (``geonh.models.files``) that cannot be read as a model: not readable,
    not UTF-8, not TOML, too big or nested too deeply, an unknown key, a value of the wrong
    type, or a formula or name that is refused.  The message names the file, the key and what
    was expected.  A :class:`ParseError`, so code catching that keeps working."""


class UnsupportedSetupError(GeonhError, ValueError):
    """A sympy.physics.mechanics set-up (KanesMethod, LagrangesMethod, System) holds something
    that :mod:`geonh.models.interop` cannot bring into a MechanicalSystem without changing the motion
    (a constraint built into the velocities, a configuration constraint the velocity constraints
    do not enforce, inconsistent acceleration constraints, …); the message names it and says how
    to state it so that it comes in."""


class IntegrationError(GeonhError, RuntimeError):
    """A numerical integration that stopped before the end of its interval: the system is stiff
    for an explicit method, the step size collapsed (a singularity, a blow-up), or the step or
    time limit was reached (:func:`geonh.simulate`).  ``reason`` is one of ``"stiff"``,
    ``"step_limit"``, ``"time_limit"`` and ``"step_size"``; ``trajectory`` is the motion up to
    the last accepted output (a :class:`~geonh.numerics.Trajectory`, or None)."""

    def __init__(self, message: str, reason: str = "step_size", trajectory=None):
        super().__init__(message)
        self.reason = reason
        self.trajectory = trajectory

    def __reduce__(self):  # keep reason and trajectory across processes (Dask, multiprocessing)
        return type(self), (self.args[0] if self.args else "", self.reason, self.trajectory)


class NotPicklableError(GeonhError, TypeError):
    """An object that holds compiled machine code (an ``ODEFunction``, an ``Observable``) was
    pickled for another process (Dask, multiprocessing) or a file.  Ship what it was built from
    instead (the ``Equations``, or the model's name) and compile it there, once per process."""


class BudgetExceededError(GeonhError, TimeoutError):
    """The time budget of a :func:`geonh.budget` block ran out during a long symbolic step.

    The message names the step and how far it got (``structure coefficients: stopped after
    12 of 36 brackets``) and how to raise the budget; the attributes ``step``, ``done``,
    ``total``, ``unit`` and ``seconds`` carry the same data.  Also a :class:`TimeoutError`."""

    def __init__(self, step: str, done: int, total: int | None = None, unit: str = "steps",
                 seconds: float | None = None):
        self.step, self.done, self.total, self.unit, self.seconds = step, done, total, unit, seconds
        of = f" of {total}" if total is not None else ""
        limit = f"the time budget of {seconds:g} s" if seconds is not None else "the time budget"
        super().__init__(
            f"{step}: stopped after {done}{of} {unit}: {limit} is used up. Raise it "
            "(`with geonh.budget(seconds=...):` around the call) or make the input smaller")

    def __str__(self) -> str:  # OSError's formatting would show an errno
        return str(self.args[0]) if self.args else ""

    def __reduce__(self):  # pickles (and crosses process boundaries) with its data
        return (type(self), (self.step, self.done, self.total, self.unit, self.seconds))


class MovedError(GeonhError, ModuleNotFoundError):
    """A public module or name that moved to another home (issue 21: the application floor
    :mod:`geonh.app`, analysis in :mod:`geonh.analysis`, code generation in
    :mod:`geonh.numerics`): ``import geonh.workbench`` or ``from geonh.equations import
    linearize`` says where it lives now.  ``old`` and ``new`` are the two dotted paths (the
    table is :data:`geonh.moved.MOVED`).  Also a :class:`ModuleNotFoundError`, hence an
    :class:`ImportError`."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        super().__init__(f"{old} has moved to {new} (import it from there)")

    def __reduce__(self):
        return type(self), (self.old, self.new)


class DeclarationError(GeonhError, ValueError):
    """A form declaration (:class:`~geonh.equations.declaration.FormDeclaration`) whose mathematics
    is wrong, refused when it is built: the d field V on the motion differs from the kinematics K
    (or K violates a constraint), the speeds evaluated on q̇ = K do not give back u, a δ field W
    is not an admissible virtual displacement, or the W are dependent or too few.  ``form`` is the
    declaration's form, ``check`` the check that failed (``"kinematics"``, ``"speeds"``,
    ``"admissibility"`` or ``"independence"``; ``"route"`` for the record of a form that is not
    an engine form), ``item`` the component, speed or δ field it failed on; the message names
    all three."""

    def __init__(self, form: str, check: str, item: str, detail: str):
        self.form, self.check, self.item, self.detail = form, check, item, detail
        super().__init__(f"{form}: the declaration fails its {check} check at {item}: {detail}")

    def __reduce__(self):  # pickles with its data
        return (type(self), (self.form, self.check, self.item, self.detail))


class MissingDependencyError(GeonhError, ImportError):
    """An optional dependency that a feature needs is not installed (matplotlib for the plots,
    pandas, xarray or dask.distributed for the sweeps); the message names the feature and the
    ``pip install 'geonh[...]'`` extra that brings it.  Also an :class:`ImportError`."""


class SelfCheckError(GeonhError, RuntimeError):
    """One of geonh's own cross-checks failed: two computations that must agree by a theorem
    (an energy balance computed term by term and as a whole, a momentum conserved by its
    equation and along the motion, a linearization and its known structure) do not.  A bug in
    geonh or an input outside the theorem's assumptions; please report it with the input.
    Also a :class:`RuntimeError`."""


class AttributeAccessError(GeonhError, AttributeError):
    """An attribute that an object does not have.  Also an :class:`AttributeError`, so
    ``hasattr``, ``getattr(obj, name, default)`` and pickling keep working."""


class ImmutableError(AttributeAccessError, dataclasses.FrozenInstanceError):
    """An attribute set or deleted on an immutable object (:class:`~geonh.Equations`): pass it
    to the constructor, or make a changed copy.  Also a :class:`dataclasses.FrozenInstanceError`
    (what a frozen dataclass raises), hence an :class:`AttributeError`."""


class RenamedError(GeonhError, TypeError):
    """A call whose form changed (issue 23): ``eqs.rhs(symbolic=True)``, ``random_state(system,
    rng)`` and the other old calls of :data:`geonh.moved.RENAMED` fail at once with the new
    call in the message, not later with an unrelated error.  ``old`` and ``new`` are the two
    calls as text.  Also a :class:`TypeError` (what a wrong call raises)."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        super().__init__(f"{old} is no longer a call of geonh: use {new}")

    def __reduce__(self):
        return type(self), (self.old, self.new)


class NotEquilibriumError(GeonhError, ValueError):
    """A question posed at an equilibrium asked at a point that is not one: small-time local
    controllability by Sussmann's condition needs the drift to vanish at the point
    (:func:`geonh.control.sussmann`); the message gives the drift's value there."""


class NoChainedFormError(GeonhError, ValueError):
    """A control system that has no chained form (Murray & Sastry 1993), or none geonh can build:
    not two inputs, a growth vector other than (2, 3, …, n), or no function h1 meeting Murray's
    conditions (the message names which)."""
