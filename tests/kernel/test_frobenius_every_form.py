"""Frobenius reads every form of a codistribution: dθ^κ ∧ θ^1 ∧ … ∧ θ^r = 0 for EVERY κ.

Mutation guard (benchmarks/mutation_score.py, ``frobenius-first-form-only``): a test that
checks dθ of the first form only passes every other test; here the first form is integrable
and the second is not.
"""
import sympy as sp

from geonh.kernel.distributions import Codistribution
from geonh.kernel.forms import OneForm
from geonh.kernel.space import ConfigurationSpace

S = ConfigurationSpace("x y z w")
x, y, z, w = S.q


def form(*c):
    return OneForm(S, list(c))


def test_first_form_integrable_second_not():
    # θ^1 = dz (closed), θ^2 = dw − x dy: dθ^2 ∧ θ^1 ∧ θ^2 = −dx∧dy∧dz∧dw ≠ 0
    D = Codistribution([form(0, 0, 1, 0), form(0, -x, 0, 1)])
    assert D.rank == 2
    assert not D.is_integrable()


def test_the_order_of_the_forms_does_not_matter():
    assert not Codistribution([form(0, -x, 0, 1), form(0, 0, 1, 0)]).is_integrable()
    # both integrable (dz, and dw − y dx − x dy = d(w − x y)): integrable in either order
    for forms in ([form(0, 0, 1, 0), form(-y, -x, 0, 1)], [form(-y, -x, 0, 1), form(0, 0, 1, 0)]):
        assert Codistribution(forms).is_integrable()


def test_integrable_after_a_combination_only():
    # θ^1 = dz − x dy is not closed, θ^2 = dw − x dy neither; their difference dz − dw is:
    # span{θ^1 − θ^2, θ^2} still fails (dθ^2 ∧ θ^1 ∧ θ^2 ≠ 0), and the first form alone passes
    first = form(0, 0, 1, -1)
    D = Codistribution([first, form(0, -x, 0, 1)])
    assert Codistribution([first]).is_integrable()
    assert not D.is_integrable()
