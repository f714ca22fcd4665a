"""Advantage helpers (harness §7.4) against a plain NumPy reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trl_reference
from svbench import advantages as adv


def ref_norm(x: np.ndarray, groups: list[np.ndarray], eps: float, ddof: int) -> np.ndarray:
    out = np.zeros_like(x)
    for idx in groups:
        g = x[idx]
        mean = g.sum() / len(g)
        denom = len(g) - ddof
        std = math.sqrt(((g - mean) ** 2).sum() / denom) if denom > 0 else 0.0
        out[idx] = (g - mean) / (std + eps)
    return out


def contiguous(n: int, size: int) -> list[np.ndarray]:
    return [np.arange(i, i + size) for i in range(0, n, size)]


def test_worked_example():
    a = adv.grpo([1, 0, 0, 1], group_size=4)
    assert a == pytest.approx([0.999998, -0.999998, -0.999998, 0.999998], abs=1e-6)
    assert a[0] == 0.5 / (0.5 + 1e-6)


def test_constant_group_gives_zeros():
    assert adv.grpo([0.3] * 4 + [1, 2, 3, 4], group_size=4)[:4] == [0.0] * 4
    comps = {"a": [1.0] * 4, "b": [2.0] * 4}
    assert adv.component_normalized(comps, {"a": 1.0, "b": 0.5}, group_size=4) == [0.0] * 4


def test_gdpo_batch_is_standardised():
    rng = np.random.default_rng(7)
    comps = {"acc": rng.random(32).tolist(), "fmt": rng.integers(0, 2, 32).astype(float).tolist()}
    a = np.array(adv.gdpo(comps, {"acc": 1.0, "fmt": 0.1}, group_size=8))
    assert abs(a.mean()) < 1e-9
    assert a.std() == pytest.approx(1.0, abs=1e-4)


def test_trl_scaling_and_group_ids():
    r = [0.0, 1.0, 3.0, 1.0, 2.0, 5.0]
    ref = ref_norm(np.array(r), contiguous(6, 3), 1e-4, 1)
    assert adv.grpo(r, group_size=3, eps=1e-4, ddof=1) == pytest.approx(ref.tolist(), rel=1e-12)
    # Interleaved ids give the same numbers as the contiguous layout.
    ids = ["p", "q", "p", "q", "p", "q"]
    inter = [r[0], r[3], r[1], r[4], r[2], r[5]]
    got = adv.grpo(inter, group_ids=ids, eps=1e-4, ddof=1)
    assert got == pytest.approx([ref[0], ref[3], ref[1], ref[4], ref[2], ref[5]], rel=1e-12)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_inputs_raise(bad):
    with pytest.raises(ValueError):
        adv.grpo([0.0, bad], group_size=2)
    with pytest.raises(ValueError):
        adv.gdpo({"a": [0.0, bad]}, {"a": 1.0}, group_size=2)
    with pytest.raises(ValueError):
        adv.component_normalized({"a": [0.0, 1.0]}, {"a": bad}, group_size=2)


def test_shape_errors_raise():
    with pytest.raises(ValueError):
        adv.grpo([1.0, 2.0, 3.0], group_size=2)
    with pytest.raises(ValueError):
        adv.grpo([1.0, 2.0], group_size=2, ddof=2)
    with pytest.raises(ValueError):
        adv.grpo([1.0, 2.0], group_size=2, group_ids=[0, 0])
    with pytest.raises(ValueError):
        adv.gdpo({"a": [1.0, 2.0]}, {"b": 1.0}, group_size=2)


finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(
    g=st.integers(1, 6),
    k=st.integers(1, 5),
    ddof=st.sampled_from([0, 1]),
    eps=st.sampled_from([1e-6, 1e-4]),
    data=st.data(),
)
def test_matches_numpy_reference(g, k, ddof, eps, data):
    n = g * k
    names = ["acc", "fmt", "cal"]
    comps = {c: data.draw(st.lists(finite, min_size=n, max_size=n)) for c in names}
    weights = {c: data.draw(st.floats(0, 2)) for c in names}
    groups = contiguous(n, g)
    totals = sum(weights[c] * np.array(comps[c]) for c in names)
    got = np.array(adv.grpo(totals.tolist(), group_size=g, eps=eps, ddof=ddof))
    np.testing.assert_allclose(got, ref_norm(totals, groups, eps, ddof), rtol=1e-9, atol=1e-9)
    cn_ref = sum(weights[c] * ref_norm(np.array(comps[c]), groups, eps, ddof) for c in names)
    cn = np.array(adv.component_normalized(comps, weights, group_size=g, eps=eps, ddof=ddof))
    np.testing.assert_allclose(cn, cn_ref, rtol=1e-9, atol=1e-9)
    gd = np.array(adv.gdpo(comps, weights, group_size=g, eps=eps, ddof=ddof))
    np.testing.assert_allclose(gd, ref_norm(cn_ref, [np.arange(n)], eps, ddof), rtol=1e-7, atol=1e-7)
    # Group means of GRPO advantages are zero.
    for idx in groups:
        assert abs(got[idx].sum()) <= 1e-6 * max(1.0, np.abs(got[idx]).sum())


# TRL 1.16.0 (see trl_reference.py for the files and functions transcribed).

dyadic = st.integers(-64, 64).map(lambda i: i / 32)


def with_nan(components: dict[str, list[float | None]]) -> np.ndarray:
    """(N, K) in name order with NaN for None, as TRL holds them."""
    return np.array([[np.nan if v is None else v for v in components[c]] for c in sorted(components)]).T


@settings(max_examples=300, deadline=None)
@given(
    g=st.integers(1, 6),
    groups=st.integers(1, 5),
    data=st.data(),
)
def test_gdpo_is_trl_normalize_then_sum(g, groups, data):
    """svbench.advantages.gdpo(eps=TRL_EPS, ddof=1) against TRL 1.16.0's
    ``GRPOTrainer._generate_and_score_completions`` with
    ``multi_objective_aggregation="normalize_then_sum"`` (grpo_trainer.py)
    and ``trl.trainer.utils.nanstd``: None (TRL's NaN) entries, whole rows
    of None, constant groups and groups of one included."""
    n = g * groups
    names = ["acc", "fmt", "cal"]
    value = st.one_of(st.none(), dyadic) if data.draw(st.booleans()) else dyadic
    comps = {c: data.draw(st.lists(value, min_size=n, max_size=n)) for c in names}
    if data.draw(st.booleans()):
        # A constant group in one component.
        comps["fmt"][:g] = [1.0] * g
    weights = {c: data.draw(st.sampled_from([0.0, 0.05, 0.25, 0.5, 1.0, 2.0])) for c in names}
    ref = trl_reference.normalize_then_sum(with_nan(comps), np.array([weights[c] for c in sorted(names)]), g)
    got = adv.gdpo(comps, weights, group_size=g, eps=adv.TRL_EPS, ddof=1)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(g=st.integers(1, 6), groups=st.integers(1, 5), data=st.data())
def test_grpo_of_totals_is_trl_sum_then_normalize(g, groups, data):
    """svbench.advantages.grpo(eps=TRL_EPS, ddof=1) of Σ w_k r_k over the
    present components (None where none is) against TRL 1.16.0's default
    ``sum_then_normalize`` with ``scale_rewards="group"``."""
    n = g * groups
    names = ["a", "b"]
    comps = {c: data.draw(st.lists(st.one_of(st.none(), dyadic), min_size=n, max_size=n)) for c in names}
    weights = {"a": 1.0, "b": 0.25}
    totals = []
    for i in range(n):
        present = [weights[c] * comps[c][i] for c in names if comps[c][i] is not None]
        totals.append(sum(present) if present else None)
    ref = trl_reference.sum_then_normalize(with_nan(comps), np.array([1.0, 0.25]), g)
    got = adv.grpo(totals, group_size=g, eps=adv.TRL_EPS, ddof=1)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_gdpo_is_trl_normalize_then_sum_on_a_training_batch():
    """A batch as GRPOTrainer sees one (32 prompts × 8 generations, 4
    components, uniform values, ~10% None, two completions with no reward
    at all): TRL 1.16.0's normalize_then_sum to 1e-12."""
    rng = np.random.default_rng(16)
    n, names = 256, ["w", "x", "y", "z"]
    comps: dict[str, list[float | None]] = {}
    for c in names:
        values = rng.random(n)
        comps[c] = [None if rng.random() < 0.1 else float(v) for v in values]
    for c in names:
        comps[c][5] = None
        comps[c][77] = None
    weights = {"w": 1.0, "x": 0.1, "y": 0.2, "z": 0.5}
    ref = trl_reference.normalize_then_sum(with_nan(comps), np.array([weights[c] for c in names]), 8)
    got = np.array(adv.gdpo(comps, weights, group_size=8, eps=adv.TRL_EPS, ddof=1))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert got[5] == got[77] == 0.0
    assert np.count_nonzero(got) > 200


def test_none_is_left_out_of_the_group():
    a = adv.grpo([1.0, None, 0.0, 0.5], group_size=4, eps=adv.TRL_EPS, ddof=1)
    b = adv.grpo([1.0, 0.0, 0.5], group_size=3, eps=adv.TRL_EPS, ddof=1)
    assert a == [b[0], 0.0, b[1], b[2]]
    # NaN is still an error, not a missing value.
    with pytest.raises(ValueError):
        adv.gdpo({"a": [None, float("nan")]}, {"a": 1.0}, group_size=2)
