"""Inputs of paged-edges.mlir: lengths 0, below P, P, at a page boundary and
at the table's end, or (with `bad`) a page id outside the pages and a length
beyond the table, which indexpool-run must refuse.

  paged_edges.py select|append DIR [bad]

Plain Python (no NumPy), so that any python3 runs it."""
import os
import random
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import write_npy  # noqa: E402
from random_pages import random_pages  # noqa: E402

B, P, E, D, H, PAGES, MAX_PAGES = 4, 4, 16, 64, 2, 6, 2


def pages(rng):
    return random_pages(rng, PAGES, E, D)


def gauss(rng, n):
    return [rng.gauss(0, 1) for _ in range(n)]


def main():
    mode, out, bad = sys.argv[1], sys.argv[2], sys.argv[3:] == ["bad"]
    rng = random.Random(3)
    table = [1, 4, 0, 5, 2, 3, 5, 2]
    if bad and mode == "select":  # the second page of sequence 3
        table[7] = PAGES + 3
    write_npy(out + "/pages.npy", "|i1", (PAGES, E * (D + 4)), pages(rng))
    write_npy(out + "/table.npy", "<i4", (B, MAX_PAGES), table)
    capacity = MAX_PAGES * E * P
    if mode == "select":
        S = 2
        lengths = [0, 1, 3, 4, 5, 64, 67, capacity + P - 1]
        write_npy(out + "/q.npy", "<f4", (B, S, H, D), gauss(rng, B * S * H * D))
        write_npy(out + "/w.npy", "<f4", (B, S, H), gauss(rng, B * S * H))
        write_npy(out + "/lengths.npy", "<i4", (B, S), lengths)
    else:
        n = 3
        # Nothing completed, one group, a page's end, the table's end.
        lengths = [0, 1, 62, capacity - 3]
        if bad:
            lengths[3] = capacity + 5
        write_npy(out + "/keys.npy", "<f4", (B, n, D), gauss(rng, B * n * D))
        write_npy(out + "/scores.npy", "<f4", (B, n), gauss(rng, B * n))
        write_npy(out + "/tail_keys.npy", "<f4", (B, P - 1, D),
                  gauss(rng, B * (P - 1) * D))
        write_npy(out + "/tail_scores.npy", "<f4", (B, P - 1),
                  gauss(rng, B * (P - 1)))
        write_npy(out + "/lengths.npy", "<i4", (B,), lengths)


main()
