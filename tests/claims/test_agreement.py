"""Claim records of two runs compared within what their statistics resolve."""

import pytest

from seqmi.claims.agreement import compare, numbers_agree


def record(cid="p.x.y", kind="statistical", value=0.5, ci=(0.2, 0.8), verdict="reproduced"):
    return {"id": cid, "kind": kind, "value": value, "ci": None if ci is None else list(ci), "verdict": verdict}


def test_numbers_agree_within_the_two_intervals_half_widths_combined():
    tol = 0.3 * 2 ** 0.5  # two intervals 0.6 wide
    small, large = 0.95 * tol, 1.05 * tol
    assert numbers_agree(record(), record(value=0.5 + small, ci=(0.2 + small, 0.8 + small)))[0]
    assert not numbers_agree(record(), record(value=0.5 + large, ci=(0.2 + large, 0.8 + large)))[0]
    assert not numbers_agree(record(), record(ci=(0.2 + large, 0.8 + large)))[0]  # the interval alone moved
    assert not compare([record()], [record(value=0.5 + large, ci=(0.2 + large, 0.8 + large))]).agree
    # Table 5's Copy recall at one and two threads: 2 errors in 2,000 symbols against none
    one = record(value=0.999, ci=(0.996361, 0.999726))
    assert compare([one], [record(value=1.0, ci=(0.998083, 1.0))]).agree
    assert not compare([one], [record(value=0.99, ci=(0.9847, 0.9935))]).agree


def test_a_verdict_that_flips_with_agreeing_numbers_is_at_the_edge_and_otherwise_a_failure():
    # the lower bound sits 0.01 above the threshold 0 in one run and 0.01 below it in the other
    one = record(value=0.3, ci=(0.01, 0.59), verdict="reproduced")
    two = record(value=0.29, ci=(-0.01, 0.58), verdict="inconclusive")
    result = compare([one], [two])
    assert result.agree and len(result.edges) == 1 and result.compared == 1
    far = record(value=-0.3, ci=(-0.6, 0.0), verdict="inconclusive")
    assert not compare([one], [far]).agree


def test_exact_claims_agree_to_rounding_only():
    a = record(kind="exact", value=1.0, ci=None)
    assert compare([a], [record(kind="exact", value=1.0 + 1e-12, ci=None)]).agree
    assert not compare([a], [record(kind="exact", value=1.0 + 1e-6, ci=None)]).agree
    flipped = compare([a], [record(kind="exact", value=1.0, ci=None, verdict="not reproduced")])
    assert not flipped.agree and "exact verdict" in flipped.failures[0]


def test_numbers_without_an_interval_agree_to_two_percent():
    a = record(kind="illustration", value=10.0, ci=None, verdict="not reproduced")
    assert compare([a], [record(kind="illustration", value=10.1, ci=None, verdict="not reproduced")]).agree
    assert not compare([a], [record(kind="illustration", value=10.5, ci=None, verdict="not reproduced")]).agree


@pytest.mark.parametrize("second", [[], [record(cid="p.x.z")], [record(kind="illustration")],
                                    [record(ci=None)]])
def test_missing_claims_other_kinds_and_lost_intervals_fail(second):
    assert not compare([record()], second).agree


def test_missing_values_agree_only_with_missing_values():
    empty = record(value=None, ci=None, verdict="inconclusive")
    assert compare([empty], [empty]).agree
    assert not compare([empty], [record(value=1.0, ci=None, verdict="inconclusive")]).agree
