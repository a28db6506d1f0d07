"""Inputs and the check of paged-vs-dense.mlir: one sequence of T tokens
compressed into shuffled pages, selected through its block table by
select_paged, and by the dense select of the same codes; the expanded
tokens must be the same.

  paged_vs_dense.py make DIR    writes DIR/*.npy, the arguments of @both
  paged_vs_dense.py check PAGED.npy DENSE.npy

Plain Python (no NumPy), so that any python3 runs it."""
import os
import random
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import read_npy, write_npy  # noqa: E402

T, D, H, P, E, K, PAGES = 512, 64, 4, 4, 16, 16, 10
LENGTHS = [T, T - 7 * P]


def make(out):
    rng = random.Random(9)
    gauss = lambda n: [rng.gauss(0, 1) for _ in range(n)]
    groups = T // P
    table = rng.sample(range(PAGES), groups // E)
    write_npy(out + "/keys.npy", "<f4", (T, D), gauss(T * D))
    write_npy(out + "/scores.npy", "<f4", (T,), gauss(T))
    write_npy(out + "/pages.npy", "|i1", (PAGES, E * (D + 4)),
              [rng.randrange(-128, 128) for _ in range(PAGES * E * (D + 4))])
    write_npy(out + "/slots.npy", "<i8", (groups,),
              [table[g // E] * E + g % E for g in range(groups)])
    write_npy(out + "/table.npy", "<i4", (1, len(table)), table)
    q, w = gauss(2 * H * D), gauss(2 * H)
    write_npy(out + "/q3.npy", "<f4", (2, H, D), q)
    write_npy(out + "/q4.npy", "<f4", (1, 2, H, D), q)
    write_npy(out + "/w2.npy", "<f4", (2, H), w)
    write_npy(out + "/w3.npy", "<f4", (1, 2, H), w)
    write_npy(out + "/lengths.npy", "<i4", (1, 2), LENGTHS)
    write_npy(out + "/valid.npy", "<i4", (2,), [l // P for l in LENGTHS])


def check(paged_path, dense_path):
    _, paged = read_npy(paged_path)
    _, dense = read_npy(dense_path)
    width = K * P + P - 1
    for row in range(2):
        got = paged[row * width:(row + 1) * width]
        want = dense[row * K * P:(row + 1) * K * P] + [-1] * (P - 1)
        if got != want:
            sys.exit("row %d: paged %r, dense %r" % (row, got, want))
    print("paged == dense: %d tokens in %d rows"
          % (sum(t >= 0 for t in paged), 2))


if sys.argv[1] == "make":
    make(sys.argv[2])
else:
    check(sys.argv[2], sys.argv[3])
