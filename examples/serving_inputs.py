"""Inputs and checks of examples/glm5_serving.mlir: one sequence of TOKENS
prefill tokens and STEPS decode tokens (default 65536 and 256), D = 128,
H = 64, k = 512, pool P = 4, E = 64 entries a page.

  serving_inputs.py make DIR [TOKENS STEPS EVERY]
  serving_inputs.py check DIR EVERY REPORT
  serving_inputs.py flip DIR STEP

make: DIR gets keys, scores, pages, slots, table, tail_keys, tail_scores,
lengths, new_keys, new_scores, queries, head_weights (.npy, @serve's
arguments in order), and the arguments of @steps for every EVERY-th step
(default 1): check_queries, check_weights, check_table, check_lengths.
check: DIR/serve_pages.npy and DIR/build_pages.npy byte-identical, every
EVERY-th row of DIR/serve_tokens.npy equal to DIR/steps_tokens.npy, and
REPORT (what `indexpool-run --function=steps --verify` printed) saying that
@steps' result, one row per checked step, is within tolerance of the float64
reference; then how many decode steps matched it.
flip: changes one token of step STEP of DIR/serve_tokens.npy (a test's
corrupted step, which check must refuse).

The block table maps the sequence's pages to a shuffled set of page
ids, the prefill's slots follow it, the tail holds the prefill's last
TOKENS mod P tokens, and the pages start as random bytes (the ops must write
every byte they own). Plain Python without NumPy, so that the python3 of a
fresh machine runs it; values are drawn from random bytes with C-speed
slicing (8M keys take a few seconds)."""
import os
import random
import re
import struct
import sys

# The plain-Python .npy reader and writer of scripts/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "scripts"))
from npyio import read_npy_bytes, write_npy_bytes  # noqa: E402

D, H, P, E, K = 128, 64, 4, 64, 512
PAGE_BYTES = E * (D + 4)


# The high byte of a bf16 value: sign and the top 7 exponent bits, so that
# magnitudes lie in [2^-5, 8) (biased exponents 122 to 129).
HIGH = bytes([0x3D, 0x3E, 0x3F, 0x40, 0xBD, 0xBE, 0xBF, 0xC0] * 32)


def bf16_values(rng, count):
    """`count` random bf16-exact values as little-endian f32 bytes (the low
    16 bits zero): a random low byte (mantissa, exponent bit 0) and a high
    byte from HIGH."""
    low = rng.randbytes(count)
    high = rng.randbytes(count).translate(HIGH)
    out = bytearray(4 * count)
    out[2::4] = low
    out[3::4] = high
    return bytes(out)


def read_npy(path):
    header, payload = read_npy_bytes(path)
    return header["shape"], payload


def make(out, tokens, steps, every):
    rng = random.Random(9)
    os.makedirs(out, exist_ok=True)
    groups = (tokens + steps) // P
    # Enough pages for every group, and at least k entries in the table
    # (select_paged's k <= max_pages * E).
    pages = max(-(-groups // E), -(-K // E))
    table = list(range(pages))
    rng.shuffle(table)
    slots = [table[g // E] * E + g % E for g in range(tokens // P)]

    # All keys and scores of the sequence: the prefill's, then the steps'.
    keys = bf16_values(rng, (tokens + steps) * D)
    scores = bf16_values(rng, tokens + steps)
    cut = tokens * D * 4
    write_npy_bytes(out + "/keys.npy", "<f4", (tokens, D), keys[:cut])
    write_npy_bytes(out + "/scores.npy", "<f4", (tokens,), scores[:tokens * 4])
    write_npy_bytes(out + "/pages.npy", "|i1", (pages, PAGE_BYTES),
              rng.randbytes(pages * PAGE_BYTES))
    write_npy_bytes(out + "/slots.npy", "<i8", (len(slots),),
              struct.pack("<%dq" % len(slots), *slots))
    write_npy_bytes(out + "/table.npy", "<i4", (1, pages),
              struct.pack("<%di" % pages, *table))
    # The tail: the prefill's last TOKENS mod P tokens, then rows that no
    # op reads (random).
    rest = tokens % P
    first = tokens - rest
    tail_keys = keys[first * D * 4:cut] + bf16_values(rng, (P - 1 - rest) * D)
    tail_scores = scores[first * 4:tokens * 4] + bf16_values(rng, P - 1 - rest)
    write_npy_bytes(out + "/tail_keys.npy", "<f4", (1, P - 1, D), tail_keys)
    write_npy_bytes(out + "/tail_scores.npy", "<f4", (1, P - 1), tail_scores)
    write_npy_bytes(out + "/lengths.npy", "<i4", (1,), struct.pack("<i", tokens))
    write_npy_bytes(out + "/new_keys.npy", "<f4", (steps, 1, 1, D), keys[cut:])
    write_npy_bytes(out + "/new_scores.npy", "<f4", (steps, 1, 1),
              scores[tokens * 4:])
    queries = bf16_values(rng, steps * H * D)
    weights = bf16_values(rng, steps * H)
    write_npy_bytes(out + "/queries.npy", "<f4", (steps, 1, 1, H, D), queries)
    write_npy_bytes(out + "/head_weights.npy", "<f4", (steps, 1, 1, H), weights)

    # @steps: step i's query row at the length it selected at (the prefill
    # and i + 1 appended tokens), one table row per checked step.
    checked = range(0, steps, every)
    q, w = H * D * 4, H * 4
    write_npy_bytes(out + "/check_queries.npy", "<f4", (len(checked), 1, H, D),
              b"".join(queries[i * q:(i + 1) * q] for i in checked))
    write_npy_bytes(out + "/check_weights.npy", "<f4", (len(checked), 1, H),
              b"".join(weights[i * w:(i + 1) * w] for i in checked))
    write_npy_bytes(out + "/check_table.npy", "<i4", (len(checked), pages),
              struct.pack("<%di" % pages, *table) * len(checked))
    write_npy_bytes(out + "/check_lengths.npy", "<i4", (len(checked), 1),
              struct.pack("<%di" % len(checked),
                          *[tokens + i + 1 for i in checked]))


def verified_rows(report):
    """The rows of @steps' result that --verify found within tolerance, and
    its near-tie swaps, from the line it printed; exits when it is absent or
    not ok."""
    with open(report) as f:
        lines = [line for line in f if line.startswith("result #0 ")]
    match = len(lines) == 1 and re.match(
        r"result #0 \(tensor<(\d+)x1x\d+xi32>\): .* "
        r"near_tie_swaps=(\d+) -> ok$", lines[0].rstrip("\n"))
    if not match:
        sys.exit("%s: no @steps result within tolerance of the float64 "
                 "reference: %r" % (report, lines))
    return int(match.group(1)), int(match.group(2))


def check(out, every, report):
    shape_a, pages_a = read_npy(out + "/serve_pages.npy")
    shape_b, pages_b = read_npy(out + "/build_pages.npy")
    if shape_a != shape_b or pages_a != pages_b:
        sys.exit("the pages of @serve and @build differ (shapes %r %r)" %
                 (shape_a, shape_b))
    print("pages of @serve identical to @build's: %d bytes" % len(pages_a))
    # The cache's footprint, from the pages' shape: a page holds E pooled
    # entries of P tokens each.
    page_bytes = shape_a[1]
    print("cache: %d pages of %d bytes, %d bytes per pooled entry of %d "
          "tokens: %.2f bytes per token (bf16 keys: %d, %.1fx smaller)" %
          (shape_a[0], page_bytes, page_bytes // E, P, page_bytes / E / P,
           2 * D, 2 * D / (page_bytes / E / P)))
    shape, serve = read_npy(out + "/serve_tokens.npy")
    steps_shape, selected = read_npy(out + "/steps_tokens.npy")
    row = shape[-1] * 4
    checked = list(range(0, shape[0], every))
    if steps_shape[0] != len(checked):
        sys.exit("@steps selected %d rows, expected %d" %
                 (steps_shape[0], len(checked)))
    for n, i in enumerate(checked):
        if serve[i * row:(i + 1) * row] != selected[n * row:(n + 1) * row]:
            sys.exit("step %d: the tokens of @serve differ from @steps'" % i)
    print("tokens of %d of %d steps identical to @steps' selection" %
          (len(checked), shape[0]))
    rows, swaps = verified_rows(report)
    if rows != len(checked):
        sys.exit("%s: @steps verified %d rows, expected %d" %
                 (report, rows, len(checked)))
    print("%d of %d decode steps matched the float64 reference "
          "(near_tie_swaps=%d)" % (rows, shape[0], swaps))


def flip(out, step):
    header, payload = read_npy_bytes(out + "/serve_tokens.npy")
    row = header["shape"][-1] * 4
    tokens = bytearray(payload)
    # The first token of the step's row, plus one: still a token, no longer
    # an expansion of the pool selected there.
    first = struct.unpack_from("<i", tokens, step * row)[0]
    struct.pack_into("<i", tokens, step * row, first + 1)
    write_npy_bytes(out + "/serve_tokens.npy", "<i4", header["shape"],
                    bytes(tokens))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        args = [int(a) for a in sys.argv[3:]]
        args += [65536, 256, 1][len(args):]
        make(sys.argv[2], *args)
    elif sys.argv[1] == "check":
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        flip(sys.argv[2], int(sys.argv[3]))
