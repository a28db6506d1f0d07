"""Checks an indexpool-tune result independently of the tool's own code.

usage: check_tune.py DIR DB --candidates=N --source=SOURCE [--checks=FILE]
                     [--skipped=S [--prune=P]]

Reads DIR/plan.json, DIR/measurements.json and the database DB and checks:
the plan has N candidates, each with a median > 0 measured from the given
source, except exactly S (default 0) listed as "skipped" with a reason and
no time (with --prune=P: exactly those after each op's first P); candidate
0 of every op is measured; the database holds one entry per (op, shape
class), whose launch is that of the measured candidate with the smallest
median (ties: the first). With --checks, writes a FileCheck file
expecting, per op in order, the #indexpool.launch that
--indexpool-configure attaches for that entry.
"""
import json
import os
import sys


def fail(message):
    print("check_tune.py: " + message, file=sys.stderr)
    sys.exit(1)


def main(argv):
    directory, db_path = argv[1], argv[2]
    options = dict(a[2:].split("=", 1) for a in argv[3:])
    with open(os.path.join(directory, "plan.json")) as f:
        plan = json.load(f)
    with open(os.path.join(directory, "measurements.json")) as f:
        measured = json.load(f)
    with open(db_path) as f:
        db = json.load(f)

    candidates = plan["candidates"]
    if len(candidates) != int(options["candidates"]):
        fail(f"{len(candidates)} candidates, expected {options['candidates']}")
    if measured["source"] != options["source"]:
        fail(f"source {measured['source']}, expected {options['source']}")
    medians, skipped = {}, set()
    for m in measured["candidates"]:
        if m["status"] == "skipped":
            if m["median_ms"] is not None or m["samples_ms"] or not m["reason"]:
                fail(f"candidate {m['id']}: skipped, yet timed or without a reason: {m}")
            skipped.add(m["id"])
            continue
        if m["status"] != "ok" or not m["median_ms"] > 0 or not m["samples_ms"]:
            fail(f"candidate {m['id']}: no positive median: {m}")
        medians[m["id"]] = m["median_ms"]
    if sorted(list(medians) + list(skipped)) != [c["id"] for c in candidates]:
        fail("measurements do not cover the plan's candidates")
    if len(skipped) != int(options.get("skipped", 0)):
        fail(f"{len(skipped)} candidates skipped, expected {options.get('skipped', 0)}")
    if skipped and not measured.get("note"):
        fail("candidates were skipped but measurements.json has no note")
    for c in candidates:
        if c["candidate"] == 0 and c["id"] in skipped:
            fail(f"candidate 0 of op {c['op_index']} was skipped")
    if "prune" in options:
        rank, beyond = {}, set()
        for c in candidates:  # plan order is the cost model's order
            rank[c["op_index"]] = rank.get(c["op_index"], -1) + 1
            if rank[c["op_index"]] >= int(options["prune"]):
                beyond.add(c["id"])
        if beyond != skipped:
            fail(f"skipped {sorted(skipped)}, expected those after each op's first "
                 f"{options['prune']}: {sorted(beyond)}")

    best = {}
    for c in candidates:
        if c["id"] in skipped:
            continue
        key = (c["op"], c["shape_class"])
        if key not in best or medians[c["id"]] < medians[best[key]["id"]]:
            best[key] = c
    if len(db) != len(best):
        fail(f"{len(db)} database entries, expected {len(best)}")
    for entry in db:
        key = (entry["op"], entry.get("shape_class", ""))
        if entry["chip"] != plan["chip"] or key not in best:
            fail(f"unexpected entry {entry}")
        if entry["launch"] != best[key]["launch"]:
            fail(f"entry {entry} is not the fastest candidate {best[key]}")
    if options.get("checks"):
        with open(options["checks"], "w") as f:
            for c in sorted(best.values(), key=lambda c: c["op_index"]):
                l = c["launch"]
                f.write(f"CHECK: indexpool.{c['op']} {{{{.*}}}}#indexpool.launch<"
                        f"chip = \"{plan['chip']}\", threads_per_block = "
                        f"{l['threads_per_block']}, items_per_block = "
                        f"{l['items_per_block']}, elements_per_thread = "
                        f"{l['elements_per_thread']}, vector_bytes = "
                        f"{l['vector_bytes']}, grid = {l['grid']}>\n")
    print(f"check_tune.py: ok: {len(candidates)} candidates, {len(skipped)} "
          f"skipped, {len(db)} entries, each the measured minimum")


if __name__ == "__main__":
    main(sys.argv)
