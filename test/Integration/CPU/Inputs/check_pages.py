"""Checks a compress_paged result byte for byte against the dense compress of
the same keys: group g's codes and f32 scale at its slot's page entry (the
production layout, docs/serving-layout.md), every other byte unchanged.

  check_pages.py E D PAGES_OUT.npy CODES.npy SCALES.npy PAGES_IN.npy SLOTS.npy

CODES.npy holds the dense codes as indexpool-run writes f8E4M3FN results
(float32 values): they are encoded here. Plain Python (no NumPy), so that any
python3 runs it."""
import math
import os
import struct
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
from npyio import read_npy  # noqa: E402


def encode_e4m3(value):
    """f8E4M3FN bits of a value the format holds exactly."""
    if math.isnan(value):
        return 0x7F
    sign = 0x80 if math.copysign(1, value) < 0 else 0
    value = abs(value)
    if value == 0:
        return sign
    exponent = math.floor(math.log2(value))
    if exponent < -6:  # subnormal: m * 2^-9
        return sign | int(round(value / 2 ** -9))
    mantissa = int(round((value / 2 ** exponent - 1) * 8))
    return sign | ((exponent + 7) << 3) | mantissa


def main():
    entries, dim = int(sys.argv[1]), int(sys.argv[2])
    pshape, out = read_npy(sys.argv[3])
    _, codes = read_npy(sys.argv[4])
    _, scales = read_npy(sys.argv[5])
    _, pages_in = read_npy(sys.argv[6])
    _, slots = read_npy(sys.argv[7])
    page_bytes = pshape[1]
    assert page_bytes == entries * (dim + 4), pshape
    written = set()
    for g, slot in enumerate(slots):
        if slot < 0:
            continue
        base = (slot // entries) * page_bytes
        entry = slot % entries
        for d in range(dim):
            want = encode_e4m3(codes[g * dim + d])
            got = out[base + entry * dim + d] & 0xFF
            if got != want:
                sys.exit("group %d code %d: byte 0x%02x, expected 0x%02x"
                         % (g, d, got, want))
            written.add(base + entry * dim + d)
        scale_at = base + entries * dim + entry * 4
        got = struct.pack("<4b", *out[scale_at:scale_at + 4])
        if got != struct.pack("<f", scales[g]):
            sys.exit("group %d: scale bytes %s, expected %r"
                     % (g, got.hex(), scales[g]))
        written.update(range(scale_at, scale_at + 4))
    for i, (a, b) in enumerate(zip(out, pages_in)):
        if i not in written and a != b:
            sys.exit("byte %d changed: %d, was %d" % (i, a, b))
    print("pages ok: %d groups written, %d skipped, %d bytes unchanged"
          % (sum(1 for s in slots if s >= 0), sum(1 for s in slots if s < 0),
             len(out) - len(written)))


main()
