// FP8 / INT8 pooled keys and the Hadamard rotation (D = 15 zero-padded to
// 16): every variant runs and orders its numbers plausibly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=1024 --dim=15 --seed=4 %t/d
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --json > %t/none.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --format=fp8 --json > %t/fp8.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --format=i8 --json > %t/i8.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --rotate --json > %t/none-rot.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --format=fp8 --rotate --json > %t/fp8-rot.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --format=i8 --rotate --score=norm --json > %t/i8-rot.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py plausible %t/none.json %t/fp8.json %t/i8.json %t/none-rot.json %t/fp8-rot.json %t/i8-rot.json | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: all plausible

// The rotation is orthonormal: unquantized angles are those without it.
// RUN: /usr/bin/python3 -c "import json; a, b = (json.load(open(f)) for f in ('%t/none.json', '%t/none-rot.json')); print('same angles' if abs(a['angle_mean_deg'] - b['angle_mean_deg']) <= 1e-4 * a['angle_mean_deg'] else 'different angles')" | FileCheck %s --check-prefix=ROT
// ROT: same angles

// The text report.
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --k=64 --format=fp8 --rotate | FileCheck %s --check-prefix=TEXT
// TEXT: keys: 1024 x 15, pool size 4, format fp8, rotated, scores uniform
// TEXT: selection (k = 64, last 16 queries):
// TEXT:   recall          mean {{[0-9.]+}}%  p10 {{[0-9.]+}}%
// TEXT:   mass recall     mean
// TEXT: pooled key vs its originals (256 groups), degrees:
// TEXT:   angle           mean {{[0-9.]+}}  median {{[0-9.]+}}  p95
// TEXT: reconstruction ||k_hat - k|| / ||k||, by residual kept:
// TEXT:   exact           mean 0.000%
// TEXT:   int8
// TEXT:   fp8
// TEXT:   none
