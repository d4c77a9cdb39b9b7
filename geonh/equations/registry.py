"""The one registry of equation forms: name → builder, with the form's route, inputs and sources.

Used by the certificate, the models, the CLI and the docs.  Each entry carries its form's
:class:`~geonh.equations.declaration.FormInfo`: the :class:`~geonh.equations.declaration.Route`
(``Route.ENGINE`` — a declaration on Lagrange's central equation, whose ``declare_<form>``
builder returns it (:mod:`geonh.equations.frame_forms`); ``Route.INDEPENDENT`` — on purpose
another way (multipliers, Maggi's projection, Appell's S, Kane's partial velocities, Tzénoff),
so that agreement between routes is evidence), the
:class:`~geonh.equations.declaration.Inputs` the builder uses of a model besides its system
(``FRAME``: an adapted frame, default the Voronets frame; ``DEPENDENT``: the dependent
coordinates; ``NONE``), and the sources (:class:`~geonh.equations.declaration.Citation`
records).  An engine form's record is the one its declaration carries; the independent forms
have theirs here.  Forms for other system kinds (Chetaev–Lagrange, Appell, Maggi for nonlinear
constraints, Gauss, Udwadia–Kalaba, Hertz) and Hamilton's principle
(:data:`geonh.equations.hamilton.PRINCIPLE_FORMS`) take other inputs and are called directly.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import NotAdaptedError, NotFoundError, ParseError
from ..kernel.frames import Frame
from ..systems.mechanical import MechanicalSystem
from .base import Equations
from .declaration import (APPELL_1899, HAMEL_1924, JUSCHKOV, KANE_1985, TZENOFF_1924, Citation, FormDeclaration,
                          FormInfo, Inputs, Route)
from .frame_forms import (BOLTZMANN_HAMEL, CHAPLYGIN, NEIMARK_FUFAEV, VOLTERRA, VORONETS, boltzmann_hamel,
                          chaplygin, chaplygin_obstruction, declare_boltzmann_hamel, declare_chaplygin,
                          declare_neimark_fufaev, declare_volterra, declare_voronets, neimark_fufaev, volterra,
                          voronets)
from .independent import gibbs_appell, hamel_raw, kane, lagrange, maggi, tzenoff

__all__ = ["EquationForm", "FORMS", "derive"]

LAGRANGE = FormInfo("lagrange", Route.INDEPENDENT, Inputs.NONE, (
    JUSCHKOV.at("(5)", "(6)", "(7)", "(14)", "(16)", note="multipliers, Chetaev's rule"),
    HAMEL_1924.at("(9)", note="Lagrange's expressions")))
MAGGI = FormInfo("maggi", Route.INDEPENDENT, Inputs.FRAME, (JUSCHKOV.at("(28)", "(30)"),))
HAMEL_RAW = FormInfo("hamel-raw", Route.INDEPENDENT, Inputs.DEPENDENT, (HAMEL_1924.at("(8)"),))
GIBBS_APPELL = FormInfo("gibbs-appell", Route.INDEPENDENT, Inputs.FRAME, (
    HAMEL_1924.at("§ 2", "(10)"), APPELL_1899.at(note="the acceleration energy S")))
KANE = FormInfo("kane", Route.INDEPENDENT, Inputs.FRAME, (KANE_1985.at("ch. 6", note="F_r + F*_r = 0"),))
TZENOFF_I = FormInfo("tzenoff-I", Route.INDEPENDENT, Inputs.DEPENDENT, (HAMEL_1924.at("§ 1", "(II)"), TZENOFF_1924))
TZENOFF_II = FormInfo("tzenoff-II", Route.INDEPENDENT, Inputs.DEPENDENT, (HAMEL_1924.at("§ 1", "(I)"), TZENOFF_1924))


def _no_obstruction(system, dependent=None) -> str:
    return ""


def _holonomic_only(system, dependent=None) -> str:
    return "the system has constraints (Volterra's form is for holonomic systems)" if system.n_constraints else ""


@dataclass(frozen=True)
class EquationForm:
    """An entry of the form registry: the form's :class:`~geonh.equations.declaration.FormInfo`
    (``name``, ``route``, ``inputs``, ``sources`` read it), its ``builder``, its
    ``obstruction(system, dependent)`` — why the form does not apply to a system ("" when it
    does) — and, for an engine form, ``declare``, the builder of its declaration."""

    info: FormInfo
    builder: Callable[..., Equations]
    obstruction: Callable[..., str] = _no_obstruction
    declare: Callable[..., FormDeclaration] | None = None

    def __post_init__(self):
        if not isinstance(self.info, FormInfo):
            raise ParseError(f"a registry entry needs a FormInfo, not {type(self.info).__name__}")
        if (self.declare is not None) != (self.info.route is Route.ENGINE):
            raise ParseError(f"{self.info.name}: an engine form (and only one) has a declaration builder")

    @property
    def name(self) -> str:
        """The form's registry name."""
        return self.info.name

    @property
    def route(self) -> Route:
        """How the form reaches the motion (:class:`~geonh.equations.declaration.Route`)."""
        return self.info.route

    @property
    def inputs(self) -> Inputs:
        """What the builder uses besides the system (:class:`~geonh.equations.declaration.Inputs`)."""
        return self.info.inputs

    @property
    def sources(self) -> tuple[Citation, ...]:
        """Where the form is printed (:class:`~geonh.equations.declaration.Citation` records)."""
        return self.info.sources

    @property
    def source(self) -> str:
        """The sources on one line (:attr:`FormInfo.source <geonh.equations.declaration.FormInfo.source>`)."""
        return self.info.source

    def applies(self, system: MechanicalSystem, dependent: Sequence | None = None) -> bool:
        """Does the form apply to this system (with these dependent coordinates)?"""
        return self.obstruction(system, dependent) == ""

    def _args(self, system, frame, dependent) -> tuple:
        if self.inputs is Inputs.FRAME:
            return (system, frame)
        if self.inputs is Inputs.DEPENDENT:
            return (system, dependent)
        return (system,)

    def declaration(self, system: MechanicalSystem, frame: Frame | None = None,
                    dependent: Sequence | None = None) -> FormDeclaration:
        """The engine form's declaration for this system (NotFoundError for an independent form,
        which has none)."""
        if self.declare is None:
            raise NotFoundError(f"{self.name} is an independent form: it has no engine declaration")
        return self.declare(*self._args(system, frame, dependent))

    def __call__(self, system: MechanicalSystem, frame: Frame | None = None,
                 dependent: Sequence | None = None) -> Equations:
        return self.builder(*self._args(system, frame, dependent))


def _tzenoff(kind: int):
    return lambda system, dependent=None: tzenoff(system, kind, dependent)


def _nf_hamel(system, dependent=None):
    """Neimark–Fufaev with k = n − m (Hamel's point of view); other k: call neimark_fufaev."""
    return neimark_fufaev(system, system.n_constraints, dependent)


def _declare_nf_hamel(system, dependent=None):
    """The declaration of :func:`_nf_hamel`."""
    return declare_neimark_fufaev(system, system.n_constraints, dependent)


#: every form of the equations of motion, by registry name: {name: EquationForm}
FORMS: dict[str, EquationForm] = {f.name: f for f in (
    EquationForm(LAGRANGE, lagrange),
    EquationForm(BOLTZMANN_HAMEL, boltzmann_hamel, declare=declare_boltzmann_hamel),
    EquationForm(VOLTERRA, volterra, _holonomic_only, declare=declare_volterra),
    EquationForm(VORONETS, voronets, declare=declare_voronets),
    EquationForm(CHAPLYGIN, chaplygin, chaplygin_obstruction, declare=declare_chaplygin),
    EquationForm(NEIMARK_FUFAEV, _nf_hamel, declare=_declare_nf_hamel),
    EquationForm(MAGGI, maggi),
    EquationForm(HAMEL_RAW, hamel_raw),
    EquationForm(GIBBS_APPELL, gibbs_appell),
    EquationForm(KANE, kane),
    EquationForm(TZENOFF_I, _tzenoff(1)),
    EquationForm(TZENOFF_II, _tzenoff(2)),
)}


def derive(form: str, system: MechanicalSystem, frame: Frame | None = None,
           dependent: Sequence | None = None) -> Equations:
    """Equations of ``system`` in the registered ``form`` (a name of :data:`FORMS`), with the
    frame or the dependent coordinates where the form takes them."""
    entry = FORMS.get(form)
    if entry is None:
        raise NotFoundError(f"unknown form {form!r}; known forms: {', '.join(FORMS)}")
    reason = entry.obstruction(system, dependent)
    if reason:
        raise NotAdaptedError(f"{form} does not apply: {reason}")
    return entry(system, frame, dependent)
