"""Inputs and the check of decode-chain.mlir: 8 sequences of different
lengths prefilled by compress_paged, then appends of 1 and 3 tokens; the
final pages must be byte-identical to one compress_paged of the whole
sequences (docs/serving-layout.md).

  decode_chain.py make DIR      writes DIR/*.npy, the arguments of @chain
  decode_chain.py loop DIR N    the same sequences, then N single-token
                                steps (decode-loop.mlir's @loop)
  decode_chain.py check A B     A and B (int8 pages) byte-identical

Plain Python (no NumPy), so that any python3 runs it."""
import os
import random
import struct
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import read_npy, write_npy  # noqa: E402

P, E, D = 4, 16, 64
PREFILL = [0, 1, 3, 4, 5, 17, 38, 66]
STEPS = [1, 3, 1, 3, 1, 3]
TMAX = 80  # a multiple of P, at least every final length
MAX_PAGES = 2
PAGES = 18


def bf16(x):
    """x rounded down to a bf16 value (the low 16 bits of its f32 cleared)."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0] & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def make(out):
    rng = random.Random(5)
    keys = [[[bf16(rng.gauss(0, 1)) for _ in range(D)] for _ in range(TMAX)]
            for _ in PREFILL]
    scores = [[rng.gauss(0, 1) for _ in range(TMAX)] for _ in PREFILL]
    ids = list(range(PAGES))
    rng.shuffle(ids)
    table = [ids[2 * b:2 * b + 2] for b in range(len(PREFILL))]

    def slots(lengths):
        return [table[b][g // E] * E + g % E if g < lengths[b] // P else -1
                for b in range(len(PREFILL)) for g in range(TMAX // P)]

    final = [l + sum(STEPS) for l in PREFILL]
    flat = lambda rows: [x for row in rows for x in row]
    write_npy(out + "/keys.npy", "<f4", (len(PREFILL) * TMAX, D),
              flat(flat(keys)))
    write_npy(out + "/scores.npy", "<f4", (len(PREFILL) * TMAX,),
              flat(scores))
    write_npy(out + "/pages.npy", "|i1", (PAGES, E * (D + 4)),
              [rng.randrange(-128, 128) for _ in range(PAGES * E * (D + 4))])
    write_npy(out + "/table.npy", "<i4", (len(PREFILL), MAX_PAGES),
              flat(table))
    write_npy(out + "/whole_slots.npy", "<i8", (len(slots(final)),),
              slots(final))
    write_npy(out + "/prefill_slots.npy", "<i8", (len(slots(PREFILL)),),
              slots(PREFILL))
    # The prefill's tail: its last L mod P tokens, then rows no one reads.
    tail_keys, tail_scores = [], []
    for b, l in enumerate(PREFILL):
        for r in range(P - 1):
            t = l - l % P + r if r < l % P else TMAX - 1
            tail_keys += keys[b][t]
            tail_scores.append(scores[b][t])
    write_npy(out + "/tail_keys.npy", "<f4", (len(PREFILL), P - 1, D),
              tail_keys)
    write_npy(out + "/tail_scores.npy", "<f4", (len(PREFILL), P - 1),
              tail_scores)
    lengths = list(PREFILL)
    for i, n in enumerate(STEPS):
        write_npy(out + "/len%d.npy" % i, "<i4", (len(PREFILL),), lengths)
        write_npy(out + "/keys%d.npy" % i, "<f4", (len(PREFILL), n, D),
                  flat(flat(keys[b][l:l + n] for b, l in enumerate(lengths))))
        write_npy(out + "/scores%d.npy" % i, "<f4", (len(PREFILL), n),
                  flat(scores[b][l:l + n] for b, l in enumerate(lengths)))
        lengths = [l + n for l in lengths]


def make_loop(out, steps):
    """The 8 sequences of make(), then `steps` appends of one token each:
    whole-sequence inputs, the prefill's, and step_keys [steps, 8, 1, D]."""
    rng = random.Random(7)
    tmax = -(-(max(PREFILL) + steps) // P) * P
    max_pages = -(-tmax // (P * E))
    pages = max_pages * len(PREFILL)
    keys = [[[bf16(rng.gauss(0, 1)) for _ in range(D)] for _ in range(tmax)]
            for _ in PREFILL]
    scores = [[rng.gauss(0, 1) for _ in range(tmax)] for _ in PREFILL]
    ids = list(range(pages))
    rng.shuffle(ids)
    table = [ids[max_pages * b:max_pages * (b + 1)]
             for b in range(len(PREFILL))]

    def slots(lengths):
        return [table[b][g // E] * E + g % E if g < lengths[b] // P else -1
                for b in range(len(PREFILL)) for g in range(tmax // P)]

    flat = lambda rows: [x for row in rows for x in row]
    final = [l + steps for l in PREFILL]
    write_npy(out + "/keys.npy", "<f4", (len(PREFILL) * tmax, D),
              flat(flat(keys)))
    write_npy(out + "/scores.npy", "<f4", (len(PREFILL) * tmax,),
              flat(scores))
    write_npy(out + "/pages.npy", "|i1", (pages, E * (D + 4)),
              [rng.randrange(-128, 128) for _ in range(pages * E * (D + 4))])
    write_npy(out + "/table.npy", "<i4", (len(PREFILL), max_pages),
              flat(table))
    write_npy(out + "/whole_slots.npy", "<i8", (len(slots(final)),),
              slots(final))
    write_npy(out + "/prefill_slots.npy", "<i8", (len(slots(PREFILL)),),
              slots(PREFILL))
    tail_keys, tail_scores = [], []
    for b, l in enumerate(PREFILL):
        for r in range(P - 1):
            t = l - l % P + r if r < l % P else tmax - 1
            tail_keys += keys[b][t]
            tail_scores.append(scores[b][t])
    write_npy(out + "/tail_keys.npy", "<f4", (len(PREFILL), P - 1, D),
              tail_keys)
    write_npy(out + "/tail_scores.npy", "<f4", (len(PREFILL), P - 1),
              tail_scores)
    write_npy(out + "/lengths.npy", "<i4", (len(PREFILL),), PREFILL)
    write_npy(out + "/step_keys.npy", "<f4", (steps, len(PREFILL), 1, D),
              flat(flat(keys[b][l + i] for b, l in enumerate(PREFILL))
                   for i in range(steps)))
    write_npy(out + "/step_scores.npy", "<f4", (steps, len(PREFILL), 1),
              [scores[b][l + i] for i in range(steps)
               for b, l in enumerate(PREFILL)])


def check(a, b):
    shape_a, bytes_a = read_npy(a)
    shape_b, bytes_b = read_npy(b)
    if shape_a != shape_b or bytes_a != bytes_b:
        diff = next(i for i, (x, y) in enumerate(zip(bytes_a, bytes_b))
                    if x != y)
        sys.exit("pages differ: shapes %r %r, first byte %d" %
                 (shape_a, shape_b, diff))
    print("pages identical: %d bytes" % len(bytes_a))


if sys.argv[1] == "make":
    make(sys.argv[2])
elif sys.argv[1] == "loop":
    make_loop(sys.argv[2], int(sys.argv[3]))
else:
    check(sys.argv[2], sys.argv[3])
