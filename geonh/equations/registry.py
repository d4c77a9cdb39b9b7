"""The one registry of equation forms: name → builder, with the form's source and route.

Used by the certificate, the models, the CLI and the docs.  ``route`` says how a form reaches
the motion: ``"engine"`` — a declaration on Lagrange's central equation
(:mod:`geonh.equations.engine`); ``"independent"`` — on purpose another way (multipliers,
Maggi's projection, Appell's S, Kane's partial velocities, Tzénoff), so that agreement between
routes is evidence.  ``takes`` names what the builder uses of a model besides its system:
``"frame"`` (an adapted frame; default the Voronets frame), ``"dependent"`` (the dependent
coordinates) or nothing.  Forms for other system kinds (Chetaev–Lagrange, Appell,
Maggi for nonlinear constraints, Gauss, Udwadia–Kalaba, Hertz) and Hamilton's principle
(:data:`geonh.equations.hamilton.PRINCIPLE_FORMS`) take other inputs and are called directly.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import NotAdaptedError, NotFoundError
from ..kernel.frames import Frame
from ..systems.mechanical import MechanicalSystem
from .base import Equations
from .frame_forms import boltzmann_hamel, chaplygin, chaplygin_obstruction, neimark_fufaev, volterra, voronets
from .independent import gibbs_appell, hamel_raw, kane, lagrange, maggi, tzenoff

__all__ = ["EquationForm", "FORMS", "derive"]


def _no_obstruction(system, dependent=None) -> str:
    return ""


def _holonomic_only(system, dependent=None) -> str:
    return "the system has constraints (Volterra's form is for holonomic systems)" if system.n_constraints else ""


@dataclass(frozen=True)
class EquationForm:
    """An entry of the form registry.  ``obstruction(system, dependent)`` says why the form does not
    apply to a system ("" when it does)."""

    name: str
    builder: Callable[..., Equations]
    takes: str  # "frame", "dependent" or "none"
    route: str  # "engine" or "independent"
    source: str
    obstruction: Callable[..., str] = _no_obstruction

    def applies(self, system: MechanicalSystem, dependent: Sequence | None = None) -> bool:
        """Does the form apply to this system (with these dependent coordinates)?"""
        return self.obstruction(system, dependent) == ""

    def __call__(self, system: MechanicalSystem, frame: Frame | None = None,
                 dependent: Sequence | None = None) -> Equations:
        if self.takes == "frame":
            return self.builder(system, frame)
        if self.takes == "dependent":
            return self.builder(system, dependent)
        return self.builder(system)


def _tzenoff(kind: int):
    return lambda system, dependent=None: tzenoff(system, kind, dependent)


def _nf_hamel(system, dependent=None):
    """Neimark–Fufaev with k = n − m (Hamel's point of view); other k: call neimark_fufaev."""
    return neimark_fufaev(system, system.n_constraints, dependent)


FORMS: dict[str, EquationForm] = {f.name: f for f in (
    EquationForm("lagrange", lagrange, "none", "independent",
         "Lagrange's equations with multipliers, Chetaev-ideal constraints (CONVENTIONS.md)"),
    EquationForm("boltzmann-hamel", boltzmann_hamel, "frame", "engine",
         "Hamel 1924, eq. (19') (Lagrange–Euler equations); Volterra's (III) without constraints"),
    EquationForm("volterra", volterra, "frame", "engine", "Hamel 1924, eq. (III)", _holonomic_only),
    EquationForm("voronets", voronets, "dependent", "engine", "Neimark–Fufaev 1960, eq. (2.7); Hamel 1924, eq. (V)"),
    EquationForm("chaplygin", chaplygin, "dependent", "engine",
         "Voronets's equations for a Chaplygin system (Neimark–Fufaev 1960, § 2)", chaplygin_obstruction),
    EquationForm("neimark-fufaev", _nf_hamel, "dependent", "engine", "Neimark–Fufaev 1960, eq. (2.5), here k = n − m"),
    EquationForm("maggi", maggi, "frame", "independent", "Juschkov (seed 003), eqs. (28), (30)"),
    EquationForm("hamel-raw", hamel_raw, "dependent", "independent", "Hamel 1924, eq. (8)"),
    EquationForm("gibbs-appell", gibbs_appell, "frame", "independent", "Appell's equations; Hamel 1924, § 2, eq. (10)"),
    EquationForm("kane", kane, "frame", "independent", "Kane's equations F_r + F*_r = 0"),
    EquationForm("tzenoff-I", _tzenoff(1), "dependent", "independent", "Hamel 1924, § 1, eq. (II)"),
    EquationForm("tzenoff-II", _tzenoff(2), "dependent", "independent", "Hamel 1924, § 1, eq. (I)"),
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
