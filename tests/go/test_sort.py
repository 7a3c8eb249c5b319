"""Go's sort.Slice reproduced: sorts, stable for short lists, and opm's tie order on the corpus."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from olmcat.go.sort import sort_slice


@given(st.lists(st.tuples(st.integers(0, 3), st.integers()), max_size=80))
def test_sorts_and_is_stable_up_to_twelve(items: list[tuple[int, int]]) -> None:
    result = list(items)
    sort_slice(result, lambda a, b: a[0] < b[0])
    assert [k for k, _ in result] == sorted(k for k, _ in items)
    assert sorted(result) == sorted(items)
    if len(items) <= 12:
        assert result == sorted(items, key=lambda item: item[0])


def test_ties_beyond_twelve_come_out_as_go_orders_them() -> None:
    # Expected order printed by Go 1.19.8's sort.Slice for this input (a 17-element slice with
    # six equal keys "c"); a stable sort would give c1 c3 c6 c9 c13 c16.
    keys = ["m", "c", "x", "c", "a", "q", "c", "b", "z", "c", "e", "f", "g", "c", "h", "i", "c"]
    items = [(key, index) for index, key in enumerate(keys)]
    sort_slice(items, lambda a, b: a[0] < b[0])
    assert " ".join(f"{k}{i}" for k, i in items) == (
        "a4 b7 c1 c16 c3 c13 c6 c9 e10 f11 g12 h14 i15 m0 q5 x2 z8"
    )
