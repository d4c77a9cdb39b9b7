"""Validate once (issue 22): the adaptedness verdict of check_adapted is decided once per
(constraints, frame) pair and carried; it is never served for another frame, other
constraints or a frame whose coframe was replaced."""
import pytest
import sympy as sp

import geonh
from geonh.equations import boltzmann_hamel, maggi
from geonh.errors import ImmutableError, NotAdaptedError
from geonh.kernel.frames import Frame
from geonh.systems.mechanical import MechanicalSystem
from geonh.transposition import adapted
from geonh.transposition.adapted import check_adapted, voronets_frame


@pytest.fixture
def decisions(monkeypatch):
    """Counts the adaptedness decisions check_adapted takes (the kernel function, wrapped:
    the zero test of A·C[:, adm], product_is_zero, since issue 22 replaced the rank test)."""
    calls = []
    real = adapted.product_is_zero

    def counting(A, X, **kw):
        calls.append((A.shape, X.shape))
        return real(A, X, **kw)

    monkeypatch.setattr(adapted, "product_is_zero", counting)
    return calls


def sleigh():
    """A fresh Chaplygin sleigh and a fresh copy of its adapted frame (no verdict carried yet)."""
    M = geonh.models.get("chaplygin-sleigh")
    F = M.frame
    return M.system, Frame(list(F.fields), coframe=list(F.coframe), names=F.names)


def test_two_forms_one_adaptedness_decision(decisions):
    system, frame = sleigh()
    bh = boltzmann_hamel(system, frame)
    mg = maggi(system, frame)
    assert len(decisions) == 1      # one decision for both forms (two per form before)
    assert bh.u == mg.u
    assert check_adapted(system, frame) == system.dof == 2
    assert len(decisions) == 1


def test_another_adapted_frame_is_decided_again(decisions):
    system, frame = sleigh()
    assert check_adapted(system, frame) == 2
    order = [1, 0, 2]                       # the free fields swapped: adapted too
    other = Frame([frame.fields[a] for a in order], coframe=[frame.coframe[a] for a in order])
    assert check_adapted(system, other) == 2
    assert len(decisions) == 2
    assert check_adapted(system, other) == 2 and check_adapted(system, frame) == 2
    assert len(decisions) == 2


def test_a_frame_that_is_not_adapted_is_refused_every_time(decisions):
    system, frame = sleigh()
    assert check_adapted(system, frame) == 2
    # the same fields, the constraint direction first: not adapted
    order = [2, 0, 1]
    swapped = Frame([frame.fields[a] for a in order], coframe=[frame.coframe[a] for a in order])
    for _ in range(2):
        with pytest.raises(NotAdaptedError):
            check_adapted(system, swapped)
    assert len(decisions) == 3


def test_same_frame_with_other_constraints_is_decided_again(decisions):
    system, frame = sleigh()
    assert check_adapted(system, frame) == 2
    S = system.space
    x, y, th = S.q
    xd, yd, thd = S.qd
    # the same space and energy, but the sleigh may only slide along its lateral axis
    other = MechanicalSystem(S, system.T, constraints=[sp.cos(th) * xd + sp.sin(th) * yd])
    with pytest.raises(NotAdaptedError):
        check_adapted(other, frame)
    with pytest.raises(NotAdaptedError):
        boltzmann_hamel(other, frame)
    assert len(decisions) == 3
    # the sleigh's own constraint in a new system: adapted, decided for it once
    twin = MechanicalSystem(S, system.T, constraints=[sp.sin(th) * xd - sp.cos(th) * yd])
    assert check_adapted(twin, frame) == check_adapted(twin, frame) == 2
    assert len(decisions) == 4


def test_a_frame_s_coframe_cannot_be_replaced(decisions):
    """The verdict rests on B being the inverse of the fields: B cannot be replaced under a
    frame (a frame with other rows is a new frame, decided for itself)."""
    system, frame = sleigh()
    assert check_adapted(system, frame) == 2
    with pytest.raises(ImmutableError):
        frame.B = frame.B[[2, 0, 1], :]        # the constraint form first: would not be adapted
    reordered = Frame([frame.fields[i] for i in (2, 0, 1)], names=[frame.names[i] for i in (2, 0, 1)])
    with pytest.raises(NotAdaptedError):
        check_adapted(system, reordered)
    assert len(decisions) == 2


def test_the_voronets_frame_carries_its_verdict(decisions):
    """Adapted by construction: the default frame of every form is not decided again."""
    system, _ = sleigh()
    frame = voronets_frame(system)
    assert check_adapted(system, frame) == 2
    boltzmann_hamel(system)                     # frame=None: a new Voronets frame
    assert decisions == []


def test_the_voronets_frame_of_a_rheonomic_system_is_adapted():
    M = geonh.models.get("ball-on-turntable")
    system = M.system
    frame = voronets_frame(system)
    assert check_adapted(system, frame) == system.dof
    adapted._ADAPTED.clear()                   # decided afresh: the carried verdict was right
    assert check_adapted(system, frame) == system.dof
