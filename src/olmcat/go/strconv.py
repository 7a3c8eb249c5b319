"""Go's shortest float formatting (``strconv.FormatFloat(f, 'g', -1, 64)``, ``fmt``'s ``%v`` and
``%g`` of a float64), which yaml.v2, ``fmt`` messages and crdify's findings all print."""

from __future__ import annotations

import math


def format_g(value: float, *, nan: str = "NaN", inf: str = "+Inf", neg_inf: str = "-Inf") -> str:
    """``value`` in Go's 'g' format with the shortest round-trip digits: an exponent (at least two
    digits) below 1e-4 and from 1e+06, plain digits between. NaN and the infinities take the
    names given (Go's by default; yaml.v2 writes ``.nan``, ``.inf``, ``-.inf``)."""
    if math.isnan(value):
        return nan
    if math.isinf(value):
        return inf if value > 0 else neg_inf
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    # repr() yields the same shortest round-trip digits Go uses; only the layout differs.
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exp_text) if exp_text else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
