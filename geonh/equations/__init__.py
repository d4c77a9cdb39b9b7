"""Equations of motion in every classical form, and the :class:`Equations` type they return.

One engine — Lagrange's central equation for a d field V and δ fields W
(:mod:`geonh.equations.engine`) — serves the frame forms, each a short
:class:`FormDeclaration` that checks its mathematics when built
(:mod:`geonh.equations.declaration`), returned by a ``declare_<form>`` builder
(:mod:`geonh.equations.frame_forms`: Boltzmann–Hamel, Volterra, Voronets, Chaplygin,
Neimark–Fufaev for every k).  Independent routes reach the motion another
way on purpose (:mod:`geonh.equations.independent`: Lagrange with multipliers, Maggi, Hamel's
raw form, Gibbs–Appell, Kane, Tzénoff I/II); forms for constraints nonlinear in the velocities
(:mod:`~geonh.equations.nonlinear`), Gauss's principle (:mod:`~geonh.equations.gauss`), Hertz's
representation (:mod:`~geonh.equations.hertz`) and Hamilton's principle
(:mod:`~geonh.equations.hamilton`) complete the set; the vakonomic (variational) equations,
whose motions differ, are in :mod:`~geonh.equations.vakonomic`.  :data:`FORMS` is the one registry of
forms for mechanical systems.

This package derives equations and holds their type; what analyses finished equations
(linearization, the frame advisor, invariant measures, integrals, conserved quantities, the
certificate) is in :mod:`geonh.analysis`, code generation in :mod:`geonh.numerics`.
"""
from .base import Equations
from .declaration import Citation, FormDeclaration, FormInfo, FramedMotion, Inputs, Route, in_frame, solve, verify
from .engine import central_equations
from .frame_forms import (boltzmann_hamel, chaplygin, chaplygin_obstruction, declare_boltzmann_hamel, declare_chaplygin,
                          declare_neimark_fufaev, declare_volterra, declare_voronets, is_chaplygin, neimark_fufaev,
                          volterra, voronets)
from .independent import gibbs_appell, hamel_raw, kane, lagrange, maggi, multiplier_equations, tzenoff
from .nonlinear import (appell, boltzmann_hamel_nonlinear, chetaev_lagrange, gibbs_appell_nonlinear,
                        invert_quasi_velocities, maggi_nonlinear, reactions_at, velocity_frame)
from .gauss import gauss, udwadia_kalaba
from .hertz import hertz
from .hamilton import hamilton_equations
from .vakonomic import constraint_exterior, multiplier_transport, vakonomic, vakonomic_defect
from .registry import FORMS, EquationForm, derive

from ..moved import package_getattr

__all__ = [
    "Equations", "FormDeclaration", "central_equations", "in_frame", "solve", "verify", "FramedMotion",
    "Route", "Inputs", "Citation", "FormInfo",
    "declare_boltzmann_hamel", "declare_volterra", "declare_voronets", "declare_chaplygin", "declare_neimark_fufaev",
    "boltzmann_hamel", "chaplygin", "chaplygin_obstruction", "is_chaplygin", "neimark_fufaev", "volterra",
    "voronets", "gibbs_appell", "hamel_raw", "kane", "lagrange", "maggi", "multiplier_equations", "tzenoff",
    "appell", "chetaev_lagrange", "invert_quasi_velocities", "maggi_nonlinear", "reactions_at",
    "velocity_frame", "gibbs_appell_nonlinear", "boltzmann_hamel_nonlinear",
    "gauss", "udwadia_kalaba", "hertz", "hamilton_equations", "FORMS", "EquationForm", "derive",
    "vakonomic", "vakonomic_defect", "multiplier_transport", "constraint_exterior",
]

#: names that moved give a MovedError naming their new home (geonh.moved.MOVED)
__getattr__ = package_getattr(__name__)
