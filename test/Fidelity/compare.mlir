// indexpool-fidelity --format=none (no rotation) against an independent
// float64 NumPy computation of every metric on the same synthetic dumps.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=1024 --dim=64 --seed=1 %t/a
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=2 %t/b
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t/slot.npy', np.array([0.5, -0.25, 0.0, 1.0], np.float32)); np.save('%t/chan.npy', np.random.default_rng(3).standard_normal((2, 15)).astype(np.float32))"

// Uniform scores, default k = 256, last 16.
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --json > %t/a.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/a.json | FileCheck %s

// Norm scores with a bias per slot, k = 128, the last 64 queries.
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --score=norm --bias=@%t/slot.npy --k=128 --last=64 --json > %t/a-norm.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/a-norm.json --score=norm --bias=%t/slot.npy --k=128 --last=64 | FileCheck %s

// D = 15, P = 2, a bias per slot and channel; queries early in the sequence
// have fewer than k tokens before them (compared on min(k, n)).
// RUN: indexpool-fidelity --keys=@%t/b/keys.npy --queries=@%t/b/queries.npy --pool-size=2 --k=64 --last=500 --score=norm --bias=@%t/chan.npy --json > %t/b.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/b/keys.npy %t/b/queries.npy %t/b.json --pool-size=2 --k=64 --last=500 --score=norm --bias=%t/chan.npy | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: all metrics agree
