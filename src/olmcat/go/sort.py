"""Go's ``sort.Slice``, reproduced exactly.

Go's sort is not stable: for more than 12 elements, equal keys come out in an order only the same
algorithm (pdqsort, Go 1.19 and later) reproduces. opm sorts related images by image alone, and a
CSV may list one image under several names, so byte-identical output needs this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


GO122_SHIFTS: tuple[int, int, int] = (13, 7, 17)
"""The xorshift shifts of pdqsort's pattern breaking from Go 1.22 on."""
GO119_SHIFTS: tuple[int, int, int] = (13, 17, 5)
"""The shifts of Go 1.19 to 1.21 (opm v1.26.5 to v1.40.0 were built with those)."""


def sort_slice(
    items: list[T],
    less: Callable[[T, T], bool],
    *,
    shifts: tuple[int, int, int] | None = None,
) -> None:
    """Sort in place exactly as Go's ``sort.Slice`` does (pdqsort, Go 1.19 and later).

    Go's sort is not stable: past 12 elements, equal keys come out in an order only this
    algorithm reproduces (opm sorts related images by image alone, and a CSV may list one image
    under several names). ``shifts``: the pattern-breaking xorshift of the Go release that built
    the opm being imitated (default :data:`GO122_SHIFTS`).
    """
    first, second, third = shifts or GO122_SHIFTS

    def lt(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def insertion_sort(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def sift_down(root: int, hi: int, first: int) -> None:
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and lt(first + child, first + child + 1):
                child += 1
            if not lt(first + root, first + child):
                return
            swap(first + root, first + child)
            root = child

    def heap_sort(a: int, b: int) -> None:
        hi = b - a
        for i in range((hi - 1) // 2, -1, -1):
            sift_down(i, hi, a)
        for i in range(hi - 1, -1, -1):
            swap(a, a + i)
            sift_down(0, i, a)

    def break_patterns(a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        state, mask = length, (1 << 64) - 1
        modulus = 1 << length.bit_length()
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            # xorshift64: left, right, left (Go 1.22+: 13/7/17, Go 1.19-1.21: 13/17/5)
            state ^= (state << first) & mask
            state ^= state >> second
            state ^= (state << third) & mask
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            swap(idx, a + other)

    def median(a: int, b: int, c: int, swaps: list[int]) -> int:
        def order2(x: int, y: int) -> tuple[int, int]:
            if lt(y, x):
                swaps[0] += 1
                return y, x
            return x, y

        a, b = order2(a, b)
        b, c = order2(b, c)
        a, b = order2(a, b)
        return b

    def choose_pivot(a: int, b: int) -> tuple[int, str]:
        length, swaps = b - a, [0]
        i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= 50:
                i, j, k = (median(x - 1, x, x + 1, swaps) for x in (i, j, k))
            j = median(i, j, k, swaps)
        return j, {0: "increasing", 12: "decreasing"}.get(swaps[0], "unknown")

    def partial_insertion_sort(a: int, b: int) -> bool:
        i = a + 1
        for _ in range(5):
            while i < b and not lt(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < 50:
                return False
            swap(i, i - 1)
            if i - a >= 2:
                for j in range(i - 1, 0, -1):
                    if not lt(j, j - 1):
                        break
                    swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not lt(j, j - 1):
                        break
                    swap(j, j - 1)
        return False

    def partition_equal(a: int, b: int, pivot: int) -> int:
        swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not lt(a, i):
                i += 1
            while i <= j and lt(a, j):
                j -= 1
            if i > j:
                return i
            swap(i, j)
            i, j = i + 1, j - 1

    def partition(a: int, b: int, pivot: int) -> tuple[int, bool]:
        swap(a, pivot)
        i, j = a + 1, b - 1
        already = True
        while True:
            while i <= j and lt(i, a):
                i += 1
            while i <= j and not lt(j, a):
                j -= 1
            if i > j:
                swap(j, a)
                return j, already
            already = False
            swap(i, j)
            i, j = i + 1, j - 1

    def pdqsort(a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= 12:
                insertion_sort(a, b)
                return
            if limit == 0:
                heap_sort(a, b)
                return
            if not was_balanced:
                break_patterns(a, b)
                limit -= 1
            pivot, hint = choose_pivot(a, b)
            if hint == "decreasing":
                i, j = a, b - 1
                while i < j:
                    swap(i, j)
                    i, j = i + 1, j - 1
                pivot, hint = (b - 1) - (pivot - a), "increasing"
            if (
                was_balanced
                and was_partitioned
                and hint == "increasing"
                and partial_insertion_sort(a, b)
            ):
                return
            if a > 0 and not lt(a - 1, pivot):
                a = partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = partition(a, b, pivot)
            if mid - a < b - mid:
                was_balanced = mid - a >= length // 8
                pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = b - mid >= length // 8
                pdqsort(mid + 1, b, limit)
                b = mid

    pdqsort(0, len(items), len(items).bit_length())
