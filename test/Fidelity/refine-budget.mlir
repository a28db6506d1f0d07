// scripts/fidelity/refine_budget.py (docs/fidelity.md, "First-stage
// selection at the same bytes") against indexpool-fidelity on the committed
// real dump (layer 1 head 0 of the PP-OCRv4 recognizer, [512, 15]): with
// INT4 pooled keys and max-aware ranking, the NumPy coverage at C = 2 and 3
// (exact refinement) is the tool's recall and mass recall with
// --format=i4 --rotate --refine-keys=exact, to the script's printed digits.
// RUN: rm -rf %t && mkdir -p %t/dump/layer1
// RUN: ln -s %S/Inputs/real %t/dump/layer1/head0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/refine_budget.py %t/dump --k=64 --last=128 --first-stage=max-aware --pooled=i4 --allocate=4 --token-scan-i4 > %t/budget.txt
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=i4 --rotate --first-stage=max-aware --bound-weight=0.25 --refine=2 --json > %t/c2.json
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=i4 --rotate --first-stage=max-aware --bound-weight=0.25 --refine=3 --json > %t/c3.json
// RUN: /usr/bin/python3 -c "import json, re; t = open('%t/budget.txt').read(); \
// RUN:   line = [l for l in t.splitlines() if l.startswith('mean over heads, C:')][0]; \
// RUN:   cov = {int(c): (float(r), float(m)) for c, r, m in re.findall(r'(\d+): ([\d.]+)%% / ([\d.]+)%%', line)}; \
// RUN:   tool = {c: json.load(open('%t/c%%d.json' %% c)) for c in (2, 3)}; \
// RUN:   ok = lambda c: abs(100 * tool[c]['recall'] - cov[c][0]) <= 0.05 + 1e-9 and abs(100 * tool[c]['mass_recall'] - cov[c][1]) <= 0.005 + 1e-9; \
// RUN:   [print('C', c, 'agree' if ok(c) else 'FAILED', tool[c]['recall'], tool[c]['mass_recall'], cov[c]) for c in (2, 3)]; \
// RUN:   s = float(re.search(r'INT4 scan: recall ([\d.]+)%%', t).group(1)); print('scan in range', 0 < s <= 100)" \
// RUN:   | FileCheck %s
// CHECK: C 2 agree
// CHECK-NEXT: C 3 agree
// CHECK-NEXT: scan in range True
// RUN: FileCheck %s --check-prefix=ALLOC < %t/budget.txt
// ALLOC: per-head C with mean 4 (chosen on the measured positions: an upper bound): recall {{[0-9.]+}}% against {{[0-9.]+}}% at C = 4 for every head; C per head: 4
// RUN: not /usr/bin/python3 %indexpool_src/scripts/fidelity/refine_budget.py %t/dump --allocate=2 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: refine_budget.py: error: --allocate takes a mean C in [4, 64]
