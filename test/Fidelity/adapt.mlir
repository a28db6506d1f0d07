// indexpool-adapt: the chosen pool sizes are the optimum of an independent
// brute force over the tool's own per-unit, per-P measurements
// (Inputs/adapt_check.py), within the budget; the uniform anchor; the
// emitted module parses and carries the chosen pool sizes; errors.
// RUN: rm -rf %t && mkdir -p %t
// A make-dump.sh layout, 3 layers x 2 heads: plain keys (D = 16), keys with
// a planted slot pattern (D = 16; P = 2 keeps the salient slot apart), and
// D = 8.
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=16 --seed=1 %t/a/layer0/head0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=16 --seed=2 %t/a/layer0/head1
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=16 --seed=3 --plant-slot=2 --plant-strength=8 %t/a/layer1/head0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=16 --seed=4 --plant-slot=2 --plant-strength=8 %t/a/layer1/head1
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=8 --seed=5 %t/a/layer2/head0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=8 --seed=6 %t/a/layer2/head1
// One key set per layer (an LLM indexer's layout), D = 15.
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=7 %t/b/layer0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=8 --plant-slot=4 --plant-strength=8 %t/b/layer1
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=9 --plant-slot=2 %t/b/layer2
// Every query sees no more than k tokens: every P is exact, a tie.
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=64 --dim=8 --seed=10 %t/t/layer0
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=64 --dim=8 --seed=11 %t/t/layer1

// Layers share P (FP8, budget: every layer at P = 4 = 26 bytes per token),
// with the emitted module and pool sizes.
// RUN: indexpool-adapt %t/a --budget-ratio=4 --k=64 --last=64 --json --emit=%t/layer.mlir --emit-json=%t/layer-pools.json > %t/layer.json
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/layer.json --emit-json=%t/layer-pools.json | FileCheck %s --check-prefix=LAYER
// LAYER: units 3
// LAYER-NEXT: optimum True
// LAYER-NEXT: bytes True
// LAYER-NEXT: within budget True
// LAYER-NEXT: uniform True
// LAYER-NEXT: totals True
// LAYER-NEXT: gain True
// LAYER-NEXT: emit-json True
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/layer.json --checks > %t/layer-checks.txt
// RUN: indexpool-opt %t/layer.mlir | FileCheck %t/layer-checks.txt
// RUN: indexpool-opt %t/layer.mlir | FileCheck %s --check-prefix=LAYERMLIR
// LAYERMLIR: module {
// LAYERMLIR-NEXT: func.func @compress_layer0(%arg0: tensor<?x16xf32>, %arg1: tensor<?xf32>) -> (tensor<?x16xf8E4M3FN>, tensor<?xf32>)
// LAYERMLIR: func.func @compress_layer1(%arg0: tensor<?x16xf32>
// LAYERMLIR: func.func @compress_layer2(%arg0: tensor<?x8xf32>
// LAYERMLIR-NOT: func.func

// Each head alone: 6 units, adapting gains here (measured: +0.130 points of
// mean mass recall over every head at P = 4).
// RUN: indexpool-adapt %t/a --budget-ratio=4 --k=64 --last=64 --group=head --json --emit=%t/head.mlir --emit-json=%t/head-pools.json > %t/head.json
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/head.json --emit-json=%t/head-pools.json | FileCheck %s --check-prefix=HEAD
// HEAD: units 6
// HEAD-NEXT: optimum True
// HEAD-NEXT: bytes True
// HEAD-NEXT: within budget True
// HEAD-NEXT: uniform True
// HEAD-NEXT: totals True
// HEAD-NEXT: gain True
// HEAD-NEXT: emit-json True
// RUN: /usr/bin/python3 -c "import json; r = json.load(open('%t/head.json')); \
// RUN:   print('gained', r['adaptive']['objective'] > r['uniform']['objective'], sorted({u['pool_size'] for u in r['units']}) != [4])" \
// RUN:   | FileCheck %s --check-prefix=GAINED
// GAINED: gained True True
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/head.json --checks > %t/head-checks.txt
// RUN: indexpool-opt %t/head.mlir | FileCheck %t/head-checks.txt
// RUN: FileCheck %s --input-file=%t/head-pools.json --check-prefix=POOLS
// POOLS: {"layer0/head0": {{[248]}}, "layer0/head1": {{[248]}}, "layer1/head0": {{[248]}}, "layer1/head1": {{[248]}}, "layer2/head0": {{[248]}}, "layer2/head1": {{[248]}}}

// One key set per layer, rotated (D = 15 stored as 16), INT8, recall as the
// objective, a budget in bytes between the uniform choices (P = 4: 15,
// P = 8: 7.5).
// RUN: indexpool-adapt %t/b --budget=12.5 --k=64 --last=64 --rotate --format=i8 --objective=recall --json --emit=%t/rot.mlir > %t/rot.json
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/rot.json | FileCheck %s --check-prefix=ROT
// ROT: units 3
// ROT-NEXT: optimum True
// ROT-NEXT: bytes True
// ROT-NEXT: within budget True
// ROT-NEXT: uniform True
// ROT-NEXT: totals True
// ROT-NEXT: gain True
// RUN: /usr/bin/python3 %S/Inputs/adapt_check.py %t/rot.json --checks > %t/rot-checks.txt
// RUN: indexpool-opt %t/rot.mlir | FileCheck %t/rot-checks.txt
// RUN: FileCheck %s --input-file=%t/rot.json --check-prefix=ROTJSON
// ROTJSON: "budget": 12.5, "budget_ratio": null, "pool_sizes": [2, 4, 8], "k": 64, "last": 64, "format": "i8", "rotate": true, "group": "layer", "objective": "recall"
// ROTJSON-SAME: "uniform": {"pool_size": 8, {{.*}}"bytes_per_token": 7.5}

// Ties go to the fewer bytes: every P recalls everything here, so every
// layer gets P = 8; the text report.
// RUN: indexpool-adapt %t/t --budget-ratio=2 --k=64 --last=8 | FileCheck %s --check-prefix=TIE
// TIE: dump: {{.*}}t (2 key sets in 2 units, one per layer), k = 64, last 8 positions, format fp8
// TIE-NEXT: budget: 12 bytes per token (every unit at P = 2); maximising the mean mass recall
// TIE-NEXT: unit        P    recall  mass recall  bytes/token  mass recall at P = 2 / 4 / 8
// TIE-NEXT: layer0      8  100.000%     100.000%          1.5  100.000% / 100.000% / 100.000%
// TIE-NEXT: layer1      8  100.000%     100.000%          1.5  100.000% / 100.000% / 100.000%
// TIE-NEXT: adaptive       100.000%     100.000%            3
// TIE-NEXT: uniform     2  100.000%     100.000%           12
// TIE-NEXT: gain over uniform P = 2: +0.000 points of mean recall, +0.000 of mean mass recall

// Errors: one line each, exit code 1.
// RUN: not indexpool-adapt %t/a --budget=12.5 --k=64 --last=64 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: indexpool-adapt: error: the budget of 12.5 bytes per token is below the least any choice needs: 13 (every unit at P = 8)
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --pool-sizes=3,4 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: indexpool-adapt: error: --pool-sizes=3,4: '3' is not a power of two in [2, 64]
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --pool-sizes=2,,8 2>&1 | FileCheck %s --check-prefix=SIZES2
// SIZES2: indexpool-adapt: error: --pool-sizes=2,,8: '' is not a power of two in [2, 64]
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --pool-sizes=4,2,4 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: indexpool-adapt: error: --pool-sizes=4,2,4: 4 appears twice
// RUN: not indexpool-adapt %t/missing --budget-ratio=4 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: indexpool-adapt: error: {{.*}}missing: no such folder
// RUN: not indexpool-adapt %t --budget-ratio=4 2>&1 | FileCheck %s --check-prefix=NOLAYERS
// NOLAYERS: indexpool-adapt: error: {{.*}}: no layerL folders (expected DIR/layerL/{keys,queries}.npy or DIR/layerL/headH/{keys,queries}.npy)
// RUN: not indexpool-adapt %t/a 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// RUN: not indexpool-adapt %t/a --budget=30 --budget-ratio=4 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// NOBUDGET: indexpool-adapt: error: give one budget: --budget=BYTES_PER_TOKEN (> 0) or --budget-ratio=R (> 0)
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --k=20 2>&1 | FileCheck %s --check-prefix=KP
// KP: indexpool-adapt: error: --k=20 must be a positive multiple of every candidate pool size (the largest: 8)
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --format=none --emit=%t/none.mlir 2>&1 | FileCheck %s --check-prefix=EMITNONE
// EMITNONE: indexpool-adapt: error: --emit needs --format=fp8 or i8: compress stores codes and scales, --format=none has none
// RUN: not indexpool-adapt %t/a --budget-ratio=4 --k=64 --last=600 2>&1 | FileCheck %s --check-prefix=LAST
// LAST: indexpool-adapt: error: layer0/head0: --last=600 exceeds the 512 tokens
