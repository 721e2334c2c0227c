"""The shared comparisons say what differs, and never call equal values a mismatch."""

import math

import pytest
import torch

from graders.errors import GradingFailure
from graders.judge.checks import assert_tensor_equal

INF = math.inf


def test_an_infinity_equals_itself_and_nan_equals_nan():
    values = torch.tensor([INF, -INF, math.nan, 1.0])
    assert_tensor_equal(values.clone(), values, what="x")
    assert_tensor_equal(values.double(), values.double(), what="x")


def test_an_infinity_of_the_other_sign_or_a_finite_value_is_a_mismatch():
    with pytest.raises(GradingFailure) as info:
        assert_tensor_equal(torch.tensor([-INF, 1.0]), torch.tensor([INF, 1.0]), what="x")
    assert "expected inf, got -inf" in str(info.value)
    with pytest.raises(GradingFailure) as info:
        assert_tensor_equal(torch.tensor([3.0e38, 1.0]), torch.tensor([INF, 1.0]), what="x")
    assert "expected inf, got 3" in str(info.value)
