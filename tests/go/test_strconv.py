"""Go's strconv.FormatFloat(f, 'g', -1, 64): values whose Go output is known (%v of float64)."""

from __future__ import annotations

import math

import pytest

from olmcat.go.strconv import format_g


@pytest.mark.parametrize(
    ("value", "go"),
    [
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (123456.0, "123456"),
        (1234567.0, "1.234567e+06"),
        (1e21, "1e+21"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (100.0, "100"),
        (-0.0, "-0"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (math.nan, "NaN"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
    ],
)
def test_format_g_as_go_prints_it(value: float, go: str) -> None:
    assert format_g(value) == go


def test_yaml_names_for_nan_and_infinities() -> None:
    assert format_g(math.nan, nan=".nan", inf=".inf", neg_inf="-.inf") == ".nan"
    assert format_g(-math.inf, nan=".nan", inf=".inf", neg_inf="-.inf") == "-.inf"
