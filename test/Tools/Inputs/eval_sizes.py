"""Evaluates a manifest's `sizes` (docs/manifest.md) for given input shapes
and SM count, independently of the runtime, and prints every buffer's
shape, every launch's grid and its integer parameters, one line each.

usage: eval_sizes.py MANIFEST SM_COUNT SHAPE... (SHAPE: 1000x64, one per
input in index order)
"""
import json
import sys

LIMIT = 1 << 62
OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "divu": lambda a, b: a // b,
    "ceildivu": lambda a, b: -(-a // b),
    "remu": lambda a, b: a % b,
    "minu": min,
    "maxu": max,
}


def main():
    manifest = json.load(open(sys.argv[1]))
    sm_count = int(sys.argv[2])
    shapes = [[int(d) for d in s.split("x")] if s else [] for s in sys.argv[3:]]
    inputs = {b["id"]: b["index"] for b in manifest["buffers"]
              if b["role"] == "input"}
    sizes = []

    def value(operand):
        return sizes[operand["size"]] if isinstance(operand, dict) else operand

    for i, entry in enumerate(manifest.get("sizes", [])):
        op = entry["op"]
        if op == "dim":
            v = shapes[inputs[entry["buffer"]]][entry["dim"]]
        elif op == "sm_count":
            v = sm_count
        else:
            a, b = (value(x) for x in entry["args"])
            if op in ("divu", "ceildivu", "remu") and b == 0:
                sys.exit("sizes[%d]: division by zero" % i)
            v = OPS[op](a, b)
        if not 0 <= v <= LIMIT:
            sys.exit("sizes[%d]: %d out of range" % (i, v))
        sizes.append(v)
    for b in manifest["buffers"]:
        print("buffer %d %s %s" % (b["id"], b["role"],
                                   "x".join(str(value(d)) for d in b["shape"])))
    for launch in manifest["launches"]:
        grid = [value(g) for g in launch["grid"]]
        ints = [str(value(p[k])) for p in launch["params"] for k in p
                if k in ("i32", "i64")]
        print("launch %s grid %s params %s" % (
            launch["kernel"], "x".join(map(str, grid)), " ".join(ints)))


main()
