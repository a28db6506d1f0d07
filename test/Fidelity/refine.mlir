// indexpool-fidelity --refine=C (select keeps C x k / P pools, indexpool.refine
// re-scores their tokens against the keys and keeps k) against an
// independent float64 NumPy computation of the same two-stage selection,
// and the traffic it reports against its formula.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=1024 --dim=64 --seed=4 %t/a
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=5 %t/b

// C = 2 and 4 at k = 64 over the last 32 queries.
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=32 --refine=2 --json > %t/a2.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/a2.json --k=64 --last=32 --refine=2 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=32 --refine=4 --json > %t/a4.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/a4.json --k=64 --last=32 --refine=4 | FileCheck %s
// D = 15, P = 2; early queries have fewer candidates than C x k.
// RUN: indexpool-fidelity --keys=@%t/b/keys.npy --queries=@%t/b/queries.npy --pool-size=2 --k=32 --last=500 --refine=3 --json > %t/b.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/b/keys.npy %t/b/queries.npy %t/b.json --pool-size=2 --k=32 --last=500 --refine=3 | FileCheck %s

// Refining on a slower tier's keys: each key's residual against its pooled
// key, quantized per vector (int8, FP8), added back.
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=32 --refine=4 --refine-keys=i8 --json > %t/a4-i8.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/a4-i8.json --k=64 --last=32 --refine=4 --refine-keys=i8 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/b/keys.npy --queries=@%t/b/queries.npy --pool-size=2 --k=32 --last=500 --refine=3 --refine-keys=fp8 --json > %t/b-fp8.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/b/keys.npy %t/b/queries.npy %t/b-fp8.json --pool-size=2 --k=32 --last=500 --refine=3 --refine-keys=fp8 | FileCheck %s

// Refining can only add exact top-k tokens the pooled selection missed: the
// candidates include select's own k, re-scored exactly.
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=32 --json > %t/a0.json
// RUN: /usr/bin/python3 -c "import json; r = [json.load(open('%t/a' + c + '.json'))['recall'] for c in '024']; print('monotone' if r[0] <= r[1] <= r[2] else 'FAILED %%s' %% r)" | FileCheck %s --check-prefix=MONO
// MONO: monotone

// CHECK-NOT: FAIL
// CHECK: all metrics agree
