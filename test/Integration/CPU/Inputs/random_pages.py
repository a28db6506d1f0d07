"""Random page bytes for the paged tests: per page, E x D f8E4M3FN codes
that are numbers (never NaN) and E little-endian f32 scales in
[1e-3, 1e-2], as signed bytes (numpy-free)."""
import struct


def random_pages(rng, count, entries, dim):
    out = []
    for _ in range(count):
        page = [rng.choice([c for c in range(-128, 128) if c & 0x7F != 0x7F])
                for _ in range(entries * dim)]
        for _ in range(entries):
            page += struct.unpack("<4b", struct.pack("<f", rng.uniform(1e-3, 1e-2)))
        out += page
    return out
