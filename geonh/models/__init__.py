"""The one model library: every built-in model, kinematic, mechanical and from the seeds.

``names()`` lists them (optionally of one kind), ``get(name)`` builds one, ``describe(name)``
gives its one-line description without building it.  Kinds:

* ``"kinematic"`` — a constrained configuration space with an adapted frame
  (:class:`KinematicModel`, :mod:`geonh.models.kinematic`);
* ``"mechanical"`` — a :class:`~geonh.systems.MechanicalSystem` with a recommended adapted
  frame and dependent coordinates (:class:`MechanicalModel`, :mod:`geonh.models.mechanical`);
  the literature's test-bench systems (snakeboard, …) are in :mod:`geonh.models.literature`;
* ``"seed"`` — the worked examples of the source papers (:class:`SeedModel`,
  :mod:`geonh.models.seeds`): constraints nonlinear in the velocities and Aumann's hidden
  holonomic constraint.

Every model has ``name``, ``description`` and ``space``; kinematic and mechanical models also
have ``frame``, ``m``, ``constraints`` and ``distribution``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, ClassVar, Union

from ..errors import NotFoundError
from ..kernel.space import ConfigurationSpace
from ..systems.nonlinear import NonlinearSystem
from . import bicycle, kinematic, literature, mechanical, seeds
from .kinematic import KinematicModel
from .mechanical import MechanicalModel, Symmetry, trig_reduce

__all__ = ["KinematicModel", "MechanicalModel", "SeedModel", "Symmetry", "Model", "names", "get", "describe", "kind",
           "kinematic", "literature", "mechanical", "seeds", "trig_reduce"]


@dataclass(frozen=True)
class SeedModel:
    """A worked example of a seed: a system (or, for a constraint analysis, the raw constraints)."""

    #: what the model is (:data:`KINDS`): the application asks this, never the class
    kind: ClassVar[str] = "seed"

    name: str
    description: str
    space: ConfigurationSpace
    system: NonlinearSystem | None = None
    constraints: tuple = ()
    notes: str = ""


Model = Union[KinematicModel, MechanicalModel, SeedModel]


@dataclass(frozen=True)
class _Entry:
    kind: str
    description: str
    build: Callable[[], Model]


def _seed(name: str, description: str, builder, notes: str = "") -> Callable[[], SeedModel]:
    def build() -> SeedModel:
        system = builder()
        return SeedModel(name, description, system.space, system=system, constraints=tuple(system.phi), notes=notes)
    return build


def _aumann() -> SeedModel:
    S, cons = seeds.aumann_example_31()
    return SeedModel("aumann-3.1", _REGISTRY["aumann-3.1"].description, S, constraints=tuple(cons),
                     notes="x1 + x2 = 0 and x1' + x2' + x3 = 0 hide the holonomic constraint x3 = 0")


_REGISTRY: dict[str, _Entry] = {
    # kinematic
    "unicycle": _Entry("kinematic", "knife edge in the plane: no sideways velocity", kinematic.unicycle),
    "heisenberg": _Entry("kinematic", "the Heisenberg frame: [X1, X2] = X3", kinematic.heisenberg),
    "rolling-disk": _Entry("kinematic", "vertical disk rolling without slipping on a plane (kinematics)",
                           kinematic.rolling_disk),
    "rigid-body": _Entry("kinematic", "body angular velocities on SO(3), z-x-z Euler angles", kinematic.rigid_body),
    "kinematic-car": _Entry("kinematic", "front-wheel-steered car, rear axle reference point (kinematics)",
                            kinematic.kinematic_car),
    **{f"{N}-trailer": _Entry("kinematic", f"unicycle pulling {N} on-axle trailers",
                              partial(kinematic.n_trailer, N)) for N in (1, 2, 3)},
    # mechanical
    "tilted-disk": _Entry("mechanical", "disk rolling without slipping on a plane under gravity (5 coordinates, "
                          "2 constraints)", mechanical.tilted_rolling_disk),
    "chaplygin-sleigh": _Entry("mechanical", "rigid body with a knife edge at the origin, mass centre a ahead",
                               mechanical.chaplygin_sleigh),
    "inclined-knife-edge": _Entry("mechanical", "knife edge on an inclined plane under gravity",
                                  mechanical.inclined_knife_edge),
    "vertical-disk": _Entry("mechanical", "vertical disk rolling without slipping on a plane",
                            mechanical.vertical_rolling_disk),
    "free-rigid-body": _Entry("mechanical", "rigid body about its mass centre (Euler's equations)",
                              mechanical.free_rigid_body),
    "heavy-top": _Entry("mechanical", "heavy rigid body with a fixed point (Euler-Poisson)", mechanical.heavy_top),
    "car": _Entry("mechanical", "Juschkov's car: body and steered front axle (seed 003, § 5)", mechanical.juschkov_car),
    "ball-on-turntable": _Entry("mechanical", "ball rolling on a uniformly rotating table (rheonomic)",
                                mechanical.ball_on_turntable),
    "chaplygin-ball": _Entry("mechanical", "Chaplygin's ball: unbalanced-inertia sphere rolling on a plane",
                             mechanical.chaplygin_ball),
    "rotating-knife-edge": _Entry("mechanical", "knife edge with a prescribed uniformly rotating blade",
                                  mechanical.rotating_knife_edge),
    "skate-on-belt": _Entry("mechanical", "knife edge on a belt moving with speed b t", mechanical.skate_on_belt),
    **{f"dynamic-{N}-trailer": _Entry("mechanical", f"tractor pulling {N} on-axle trailers, with masses and "
                                      "inertias", partial(mechanical.dynamic_n_trailer, N)) for N in (1, 2)},
    "whipple-bicycle": _Entry("mechanical", "Whipple bicycle, Meijaard et al. 2007 benchmark (8 coordinates, 1 "
                              "holonomic and 4 rolling constraints)", bicycle.whipple_bicycle),
    # mechanical, the literature's test bench (geonh.models.literature)
    "snakeboard": _Entry("mechanical", "snakeboard: board on two steered wheel axles with a rotor (BKMM 1996)",
                         literature.snakeboard),
    "planar-body-thruster": _Entry("mechanical", "planar rigid body with a thruster offset h from its mass centre "
                                   "(Lewis & Murray 1997)", literature.planar_body_thruster),
    "differential-drive": _Entry("mechanical", "differential-drive robot: two driven wheels, mass centre b ahead of "
                                 "the axle", literature.differential_drive),
    "roller-racer": _Entry("mechanical", "roller racer: two bodies on wheel axles joined at a pivot (Krishnaprasad "
                           "& Tsakiris)", literature.roller_racer),
    "suslov": _Entry("mechanical", "Suslov's problem: rigid body with a fixed point and a zero body angular "
                     "velocity component", literature.suslov),
    "veselova": _Entry("mechanical", "Veselova's problem: rigid body with a fixed point, no spin about the vertical",
                       literature.veselova),
    "routh-sphere": _Entry("mechanical", "Routh's sphere: a ball with displaced mass centre rolling on a plane",
                           literature.routh_sphere),
    "rattleback": _Entry("mechanical", "rattleback: ellipsoid with misaligned inertia rolling on a plane (Garcia & "
                         "Hubbard 1988)", literature.rattleback),
    "spherical-robot": _Entry("mechanical", "spherical robot: a balanced ball driven by three internal rotors",
                              literature.spherical_robot),
    # seeds
    "appell-hamel": _Entry("seed", "Appell-Hamel particle: z'^2 = a^2 (x'^2 + y'^2) (seed 002)",
                           _seed("appell-hamel", "Appell-Hamel particle: z'^2 = a^2 (x'^2 + y'^2) (seed 002)",
                                 seeds.appell_hamel)),
    "speed-constraint-particle": _Entry(
        "seed", "particle with a prescribed speed x'^2 + y'^2 = v(t)^2 (rheonomic, nonlinear)",
        _seed("speed-constraint-particle", "particle with a prescribed speed x'^2 + y'^2 = v(t)^2 (rheonomic, "
              "nonlinear)", seeds.speed_constraint_particle)),
    "isokinetic-particle": _Entry(
        "seed", "isokinetic particle: constant speed |v| = c (Gaussian thermostat)",
        _seed("isokinetic-particle", "isokinetic particle: constant speed |v| = c (Gaussian thermostat)",
              seeds.isokinetic_particle)),
    "aumann-3.1": _Entry("seed", "Aumann's example 3.1: constraints hiding a holonomic one (seed 001)", _aumann),
}

#: the kinds of model a name can denote: a kinematic model (constraints only), a mechanical
#: model (with energy and forces), or one of the seed systems of the sources
KINDS = ("kinematic", "mechanical", "seed")


def names(kind: str | None = None) -> list[str]:
    """Names of the built-in models (of one ``kind``: "kinematic", "mechanical" or "seed")."""
    if kind is not None and kind not in KINDS:
        raise NotFoundError(f"unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    return sorted(n for n, e in _REGISTRY.items() if kind is None or e.kind == kind)


def _entry(name: str) -> _Entry:
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise NotFoundError(f"unknown model {name!r}; known models: {', '.join(names())}") from None


def describe(name: str) -> str:
    """The one-line description of a model (without building it)."""
    return _entry(name).description


def kind(name: str) -> str:
    """The kind of a model: "kinematic", "mechanical" or "seed"."""
    return _entry(name).kind


def get(name: str) -> Model:
    """Build the model ``name`` (see :func:`names`); NotFoundError lists the known names."""
    return _entry(name).build()
