"""Checks indexpool-adapt --json against a brute force over its measurements.

  adapt_check.py REPORT.json [--emit-json=POOLS.json] [--checks]

Enumerates every assignment of a candidate pool size to each unit, from the
per-unit, per-P objectives and bytes the report holds (17 significant
digits: the doubles the tool compared), and prints one line per fact:
  units N; bytes True (every unit's bytes per token at every P from its
  key sets and stored dim); optimum True (the chosen assignment's summed objective is the
  largest within the budget, its bytes the fewest among the assignments that
  reach it); within budget True; uniform True (the anchor: every unit at the
  smallest P that fits, its means); totals True; gain True (adaptive >=
  uniform); emit-json True (the file names each unit's chosen P).
With --checks it prints FileCheck lines instead: each unit's compress
function and its chosen pool size, in the report's order.
"""
import itertools
import json
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "")
                 for a in sys.argv[1:] if a.startswith("--"))
    report = json.load(open(args[0]))
    units = report["units"]
    if "checks" in flags:
        codes = {"fp8": "f8E4M3FN", "i8": "i8"}[report["format"]]
        for unit in units:
            d = unit["stored_dim"]
            print("// CHECK-LABEL: func.func @%s(%%arg0: tensor<?x%dxf32>, "
                  "%%arg1: tensor<?xf32>) -> (tensor<?x%dx%s>, tensor<?xf32>)"
                  % (unit["function"], d, d, codes))
            print("// CHECK-NEXT: indexpool.compress %%arg0, %%arg1 "
                  "{pool_size = %d : i64%s}"
                  % (unit["pool_size"], ", rotate" if report["rotate"] else ""))
        return
    budget = report["budget"]
    sizes = report["pool_sizes"]
    # Bytes are exact multiples of 1 / max(P); the budget as the tool rounds
    # it.
    scale = max(sizes)
    limit = int(budget * scale + 1e-9)

    def cost(choice):
        return sum(int(round(units[u]["measurements"][j]["bytes_per_token"]
                             * scale)) for u, j in enumerate(choice))

    def total(choice):
        s = 0.0
        for u, j in enumerate(choice):
            s += units[u]["measurements"][j]["objective"]
        return s

    best = None
    for choice in itertools.product(range(len(sizes)), repeat=len(units)):
        c = cost(choice)
        if c > limit:
            continue
        key = (total(choice), -c)
        if best is None or key > best:
            best = key
    chosen = tuple(sizes.index(unit["pool_size"]) for unit in units)
    print("units", len(units))
    print("optimum", (total(chosen), -cost(chosen)) == best)
    # Bytes per token from the layout: codes and a scale, or f32.
    per_pool = lambda unit: unit["key_sets"] * (
        4 * unit["stored_dim"] if report["format"] == "none"
        else unit["stored_dim"] + 4)
    print("bytes", all(m["bytes_per_token"] == per_pool(unit) / m["pool_size"]
                       for unit in units for m in unit["measurements"])
          and [m["pool_size"] for unit in units
               for m in unit["measurements"]] == sizes * len(units))
    print("within budget", cost(chosen) <= limit
          and report["adaptive"]["bytes_per_token"] <= budget)

    fits = [j for j in range(len(sizes))
            if cost((j,) * len(units)) <= limit]
    j = fits[0]
    n = len(units)
    mean = lambda key, pick: sum(units[u]["measurements"][pick[u]][key]
                                 for u in range(n)) / n
    near = lambda a, b: abs(a - b) <= 1e-8
    uniform = report["uniform"]
    print("uniform", uniform["pool_size"] == sizes[j]
          and near(uniform["objective"], mean("objective", (j,) * n))
          and near(uniform["mass_recall"], mean("mass_recall", (j,) * n))
          and near(uniform["recall"], mean("recall", (j,) * n)))
    adaptive = report["adaptive"]
    print("totals", near(adaptive["objective"], mean("objective", chosen))
          and near(adaptive["recall"], mean("recall", chosen))
          and near(adaptive["mass_recall"], mean("mass_recall", chosen))
          and all(unit[k] == unit["measurements"][chosen[u]][k]
                  for u, unit in enumerate(units)
                  for k in ("recall", "mass_recall", "objective",
                            "bytes_per_token")))
    print("gain", adaptive["objective"] >= uniform["objective"])
    if "emit-json" in flags:
        pools = json.load(open(flags["emit-json"]))
        print("emit-json", pools == {u["unit"]: u["pool_size"] for u in units}
              and list(pools) == [u["unit"] for u in units])


if __name__ == "__main__":
    main()
