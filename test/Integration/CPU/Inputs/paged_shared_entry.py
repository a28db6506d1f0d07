"""Inputs of paged-shared-entry.mlir: K pairs of sequences that share M + 1
pages (a shared prefix) and both complete entry E - 1 of the last of them,
S, in one append_paged. Sequence j (of the first K) starts at length 0 and
completes (M + 1) * E groups in order, S's entry E - 1 last; its partner
K + j starts at length ((M + 1) * E - 1) * P, completes that entry first,
then (M + 1) * E - 1 groups on M + 1 pages of its own. A parallel loop
splits its rows into contiguous chunks, so with two or more threads the
partner writes the shared entry long before sequence j does: a CPU code
without an order for the two writes keeps sequence j's bytes, where the
reference (and the GPU kernels) keep the later sequence's, the partner's.

  paged_shared_entry.py DIR

Plain Python (no NumPy), so that any python3 runs it."""
import os
import random
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import write_npy  # noqa: E402
from random_pages import random_pages  # noqa: E402

K, M, P, E, D = 2, 31, 4, 16, 64
B, N, MAX_PAGES = 2 * K, (M + 1) * E * P, 2 * M + 2
PAGES = K * MAX_PAGES


def pages(rng):
    return random_pages(rng, PAGES, E, D)


def main():
    out = sys.argv[1]
    rng = random.Random(7)
    # Pair j owns pages j * MAX_PAGES ..: M + 1 shared (S last), then the
    # partner's M + 1; sequence j's table lists the partner's pages too
    # (it never reaches them).
    rows = [[j * MAX_PAGES + i for i in range(MAX_PAGES)] for j in range(K)]
    table = [p for row in rows + rows for p in row]
    lengths = [0] * K + [(N // P - 1) * P] * K
    write_npy(out + "/pages.npy", "|i1", (PAGES, E * (D + 4)), pages(rng))
    write_npy(out + "/table.npy", "<i4", (B, MAX_PAGES), table)
    write_npy(out + "/lengths.npy", "<i4", (B,), lengths)
    write_npy(out + "/keys.npy", "<f4", (B, N, D),
              [rng.gauss(0, 1) for _ in range(B * N * D)])
    write_npy(out + "/scores.npy", "<f4", (B, N),
              [rng.gauss(0, 1) for _ in range(B * N)])
    write_npy(out + "/tail_keys.npy", "<f4", (B, P - 1, D),
              [rng.gauss(0, 1) for _ in range(B * (P - 1) * D)])
    write_npy(out + "/tail_scores.npy", "<f4", (B, P - 1),
              [rng.gauss(0, 1) for _ in range(B * (P - 1))])


main()
