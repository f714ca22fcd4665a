"""Advantage helpers (harness §7.4) against a plain NumPy reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
