// scripts/fidelity/plot.py --quick on a tiny synthetic dump: both plots and
// the numbers files are written, and every recall is a fraction.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=16 --seed=5 %t/d
// RUN: env MPLCONFIGDIR=%t/mpl /usr/bin/python3 %indexpool_src/scripts/fidelity/plot.py --keys=%t/d/keys.npy --queries=%t/d/queries.npy --tool=indexpool-fidelity --out=%t/out --last=32 --quick --rotate --title=tiny | FileCheck %s
// CHECK: 16 runs; wrote fidelity-recall-vs-k.png, fidelity-recall-vs-p.png, fidelity-sweep.json, fidelity-sweep.csv

// RUN: /usr/bin/python3 -c "import csv, json; png = [open('%t/out/fidelity-recall-vs-' + x + '.png', 'rb').read(8) for x in 'kp']; rows = json.load(open('%t/out/fidelity-sweep.json')); assert len(list(csv.DictReader(open('%t/out/fidelity-sweep.csv')))) == len(rows); print('png' if all(p == b'\x89PNG\r\n\x1a\n' for p in png) else 'not png'); print('runs', len(rows), 'formats', sorted({r['format'] for r in rows}), 'rotated', sorted({r['rotate'] for r in rows})); print('recalls in [0, 1]' if all(0 <= r[m] <= 1 for r in rows for m in ('recall', 'recall_p10', 'mass_recall')) else 'recall out of range')" | FileCheck %s --check-prefix=NUM
// NUM: png
// NUM-NEXT: runs 16 formats ['fp8', 'none'] rotated [False, True]
// NUM-NEXT: recalls in [0, 1]

// A missing tool is one clear error.
// RUN: not /usr/bin/python3 %indexpool_src/scripts/fidelity/plot.py --keys=%t/d/keys.npy --queries=%t/d/queries.npy --tool=%t/no-such-tool --out=%t/bad 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: plot.py: error: no executable indexpool-fidelity at '{{.*}}no-such-tool'
