// scripts/fidelity/frontier.py (the bytes-vs-recall sweep of docs/fidelity.md)
// on the committed real dump (layer 1 head 0 of the PP-OCRv4 recognizer,
// [512, 15]), --quick: every configuration's row is the mean of its runs,
// one configuration alone (--only) reproduces the sweep's numbers, and they
// are indexpool-fidelity's own; a per-head choice measures the candidate
// its validation positions chose.
// RUN: rm -rf %t && mkdir -p %t/dump/layer1
// RUN: ln -s %S/Inputs/real %t/dump/layer1/head0
// RUN: env MPLCONFIGDIR=%t/mpl /usr/bin/python3 %indexpool_src/scripts/fidelity/frontier.py %t/dump --quick --k=64 --last=64 --out=%t/out --plot=%t/out/frontier.png --tool=indexpool-fidelity --calibrate=indexpool-calibrate > %t/sweep.txt
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/frontier.py %t/dump --quick --k=64 --last=64 --out=%t/out --only=mean-p4-c2-token-fp8 --tool=indexpool-fidelity --calibrate=indexpool-calibrate > %t/one.txt
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=64 --pool-size=4 --format=fp8 --rotate --refine=2 --refine-keys=token-fp8 --json > %t/direct.json
// RUN: /usr/bin/python3 -c "import csv, json, os; \
// RUN:   rows = list(csv.DictReader(open('%t/out/frontier.csv'))); j = json.load(open('%t/out/frontier.json')); \
// RUN:   one = json.load(open('%t/out/frontier-mean-p4-c2-token-fp8.json'))['configurations'][0]; d = json.load(open('%t/direct.json')); \
// RUN:   s = {r['name']: r for r in j['configurations']}; r = s['mean-p4-c2-token-fp8']; \
// RUN:   print('rows', len(rows), 'runs', len(j['runs']), 'plot', os.path.getsize('%t/out/frontier.png') > 10000); \
// RUN:   print('one command', all(one[m] == r[m] for m in ('recall', 'mass_recall', 'bytes_ratio'))); \
// RUN:   print('direct', d['recall'] == r['recall'] and d['mass_recall'] == r['mass_recall'] and d['bytes_ratio'] == r['bytes_ratio']); \
// RUN:   print('bytes', s['mean-p4']['bytes_ratio'], s['mean-p2']['bytes_ratio'], s['max-aware-p4']['bytes_ratio']); \
// RUN:   print('i4 saves', round(s['mean-p4-c2-token-fp8']['bytes_ratio'] - s['mean-i4-p4-c2']['bytes_ratio'], 9), s['mean-i4-p4-c2']['pooled_format']); \
// RUN:   print('in range', all(0 < c['recall'] <= 1 and 0 < c['mass_recall'] <= 1 + 1e-9 for c in j['configurations'])); \
// RUN:   p = [x for x in j['runs'] if x['configuration'] == 'per-head-p4-c2-e5m2'][0]; c = s[p['chosen']]; \
// RUN:   print('per head', p['chosen'] in ('max-aware-p4-c2-e5m2', 'gate-max-aware-p4-c2-e5m2'), all(p[m] == c[m] for m in ('recall', 'mass_recall', 'bytes_ratio')), p['radius_format'])" \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=CHOICE < %t/sweep.txt
// CHOICE: per-head-p4-c2-e5m2: choosing per head on the positions before the measured ones:
// CHOICE-NEXT: layer1/head0: max-aware-p4-c2-e5m2 {{[0-9.]+}}%, gate-max-aware-p4-c2-e5m2 {{[0-9.]+}}% -> {{(gate-)?}}max-aware-p4-c2-e5m2
// CHECK: rows 10 runs 10 plot True
// CHECK-NEXT: one command True
// CHECK-NEXT: direct True
// CHECK-NEXT: bytes 0.25 0.5 0.3
// CHECK-NEXT: i4 saves 0.1 i4
// CHECK-NEXT: in range True
// CHECK-NEXT: per head True True e5m2
// --merge: a configuration measured again (the --only file) replaces its
// rows; the plot is rewritten from the files alone.
// RUN: env MPLCONFIGDIR=%t/mpl /usr/bin/python3 %indexpool_src/scripts/fidelity/frontier.py %t/dump --out=%t/merged --merge=%t/out/frontier.json,%t/out/frontier-mean-p4-c2-token-fp8.json --plot=%t/merged/frontier.png
// RUN: /usr/bin/python3 -c "import json; j = json.load(open('%t/merged/frontier.json')); print('merged', len(j['configurations']), len(j['runs']), j['bound_weight'])" | FileCheck %s --check-prefix=MERGE
// MERGE: merged 10 10 0.125
// RUN: not /usr/bin/python3 %indexpool_src/scripts/fidelity/frontier.py %t/dump --only=mean-p3 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: frontier.py: error: unknown configuration mean-p3 (see --list)
// RUN: not /usr/bin/python3 %indexpool_src/scripts/fidelity/frontier.py %t/dump --weight=-1 2>&1 | FileCheck %s --check-prefix=WEIGHT
// WEIGHT: frontier.py: error: --weight=-1.0 must be non-negative
