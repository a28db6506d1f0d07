// indexpool-fidelity on real attention keys and queries, against independent
// float64 NumPy computations of every metric. Inputs/real/keys.npy and
// queries.npy are layer 1, head 0 of the PP-OCRv4 text recognizer reading a
// rendered line of prose ([512, 15] float32), made by
//   bash scripts/fidelity/real/make-dump.sh DIR --tokens=512
// (DIR/layer1/head0/*.npy; the script needs the network, this test does not).
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 -c "import numpy as np; k, q = (np.load('%S/Inputs/real/' + n + '.npy') for n in ('keys', 'queries')); print(k.dtype, k.shape, q.dtype, q.shape)" | FileCheck %s --check-prefix=SHAPE
// SHAPE: float32 (512, 15) float32 (512, 15)

// --format=none, no rotation: fidelity_ref.py.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=128 --last=64 --json > %t/none.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/none.json --k=128 --last=64 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --pool-size=2 --k=64 --last=256 --json > %t/none-p2.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/none-p2.json --pool-size=2 --k=64 --last=256 | FileCheck %s

// --format=fp8 --rotate (D = 15 padded to 16): the same checks in the rotated
// space, FP8 pooled keys (Inputs/real/rotated_ref.py, fidelity_ref.py's
// tolerances).
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=128 --last=64 --format=fp8 --rotate --json > %t/fp8.json
// RUN: /usr/bin/python3 %S/Inputs/real/rotated_ref.py %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/fp8.json --format=fp8 --k=128 --last=64 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=256 --last=256 --format=fp8 --rotate --json > %t/fp8-k256.json
// RUN: /usr/bin/python3 %S/Inputs/real/rotated_ref.py %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/fp8-k256.json --format=fp8 --k=256 --last=256 | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: all metrics agree
