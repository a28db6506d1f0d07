"""Checks the cost model's ranking of indexpool-tune's GPU candidates.

usage: check_ranking.py SMALL_DIR LARGE_DIR --resolution=R [--checks=FILE]

SMALL_DIR and LARGE_DIR are plans of the same function and chip written
with --max-candidates=n and a larger N. Checks, from the files alone: every
candidate has an "estimate_us" > 0; per op, the small plan's launches are
the first n of the large plan's (pruning keeps the best by the model, in
its order); after candidate 0 (the model's choice, kept first), the launches
within R of the best estimate come first and the others follow in
ascending order of estimate. With --checks, writes a FileCheck file
expecting, per op in order, candidate 0's launch as the #indexpool.launch
that --indexpool-configure attaches without a database.
"""
import json
import os
import sys


def fail(message):
    print("check_ranking.py: " + message, file=sys.stderr)
    sys.exit(1)


def by_op(directory):
    with open(os.path.join(directory, "plan.json")) as f:
        plan = json.load(f)
    ops = {}
    for c in plan["candidates"]:
        if not c.get("estimate_us", 0) > 0:
            fail(f"{directory}: candidate {c['id']} has no estimate: {c}")
        ops.setdefault(c["op_index"], []).append(c)
    return plan, ops


def main(argv):
    options = dict(a[2:].split("=", 1) for a in argv[3:])
    resolution = float(options["resolution"])
    _, small = by_op(argv[1])
    plan, large = by_op(argv[2])
    if sorted(small) != sorted(large):
        fail("the plans have different ops")
    for op, candidates in large.items():
        launches = [c["launch"] for c in candidates]
        kept = [c["launch"] for c in small[op]]
        if kept != launches[:len(kept)]:
            fail(f"op {op}: the smaller plan is not a prefix of the larger one")
        if [c["candidate"] for c in candidates] != list(range(len(candidates))):
            fail(f"op {op}: candidate numbers are not 0, 1, ... in plan order")
        rest = [c["estimate_us"] for c in candidates[1:]]
        if not rest:
            continue
        # The plan's estimates are rounded to 4 digits: compare with slack.
        best = min(rest)
        near = [e <= best * (1 + resolution) * 1.001 for e in rest]
        if near != sorted(near, reverse=True):
            fail(f"op {op}: a launch far from the best estimate comes before a near one: {rest}")
        far = [e for e, n in zip(rest, near) if not n]
        if far != sorted(far):
            fail(f"op {op}: estimates after the near-best ones are not ascending: {far}")
    if options.get("checks"):
        with open(options["checks"], "w") as f:
            for op in sorted(large):
                c = large[op][0]
                l = c["launch"]
                f.write(f"CHECK: indexpool.{c['op']} {{{{.*}}}}#indexpool.launch<"
                        f"chip = \"{plan['chip']}\", threads_per_block = "
                        f"{l['threads_per_block']}, items_per_block = "
                        f"{l['items_per_block']}, elements_per_thread = "
                        f"{l['elements_per_thread']}, vector_bytes = "
                        f"{l['vector_bytes']}, grid = {l['grid']}>\n")
    print(f"check_ranking.py: ok: {len(large)} ops, "
          f"{sum(len(c) for c in small.values())} of "
          f"{sum(len(c) for c in large.values())} candidates kept in the model's order")


if __name__ == "__main__":
    main(sys.argv)
