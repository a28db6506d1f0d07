// The first-stage variants and token-tier refine keys of indexpool-fidelity
// (--first-stage=max-aware, --gate, --refine-keys=token-fp8|token-i8)
// against an independent float64 NumPy computation (Inputs/fidelity_ref.py)
// on the committed real dump (PP-OCRv4 recognizer, layer 1 head 0, [512, 15])
// and on fresh random synthetic keys, with the bytes each reads per query.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=1024 --dim=32 --seed=7 %t/a
// RUN: /usr/bin/python3 -c "import numpy as np; g = np.random.default_rng(3).normal(size=15).astype(np.float32); np.save('%t/g15.npy', g); np.save('%t/g32.npy', np.random.default_rng(4).normal(size=32).astype(np.float32)); print('gate nonzero', int((g != 0).sum()))" | FileCheck %s --check-prefix=GATE
// GATE: gate nonzero 15

// Max-aware: pools ranked by q.p + A ||q|| r_g (r_g = max_s ||k_s - p_g||,
// one f32 more per pool), alone and refined, on real and synthetic keys.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --first-stage=max-aware --json > %t/ma1.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/ma1.json --k=64 --last=128 --first-stage=max-aware --bound-weight=1 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --first-stage=max-aware --bound-weight=0.25 --refine=2 --json > %t/ma2.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/ma2.json --k=64 --last=128 --first-stage=max-aware --bound-weight=0.25 --refine=2 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --pool-size=8 --k=64 --last=64 --first-stage=max-aware --bound-weight=0.5 --refine=3 --json > %t/ma3.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/ma3.json --pool-size=8 --k=64 --last=64 --first-stage=max-aware --bound-weight=0.5 --refine=3 | FileCheck %s

// With weight 0 the host-ranked first stage is the compiled select: the same
// selection to the last digit (FP8, rotated), only the radius bytes differ.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=2 --json > %t/mean.json
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=2 --first-stage=max-aware --bound-weight=0 --json > %t/ma0.json
// RUN: /usr/bin/python3 -c "import json; a, b = (json.load(open('%t/' + n + '.json')) for n in ('mean', 'ma0')); same = all(a[m] == b[m] for m in ('recall', 'recall_p10', 'mass_recall')); extra = (b['bytes_pooled'] - a['bytes_pooled']) / (a['bytes_pooled'] / 20); print('same selection' if same else 'FAILED', b['first_stage'], 'radius bytes per pool', round(extra, 6))" | FileCheck %s --check-prefix=SAME
// SAME: same selection max-aware radius bytes per pool 4.0
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=2 --first-stage=max-aware --bound-weight=0 --radius-format=e5m2 --json > %t/ma0e.json
// RUN: /usr/bin/python3 -c "import json; a, b = (json.load(open('%t/' + n + '.json')) for n in ('mean', 'ma0e')); same = all(a[m] == b[m] for m in ('recall', 'recall_p10', 'mass_recall')); extra = (b['bytes_pooled'] - a['bytes_pooled']) / (a['bytes_pooled'] / 20); print('same selection' if same else 'FAILED', b['first_stage'], b['radius_format'], 'radius bytes per pool', round(extra, 6))" | FileCheck %s --check-prefix=SAME-E5M2
// SAME-E5M2: same selection max-aware e5m2 radius bytes per pool 1.0

// A one-byte radius (the f8E5M2 value at or above r_g; the reference picks
// it from the table of every E5M2 value), alone and under a gate.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --first-stage=max-aware --radius-format=e5m2 --refine=2 --json > %t/mae.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/mae.json --k=64 --last=128 --first-stage=max-aware --bound-weight=1 --radius-format=e5m2 --refine=2 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=64 --gate=@%t/g32.npy --first-stage=max-aware --bound-weight=0.25 --radius-format=e5m2 --refine=3 --json > %t/gmae.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/gmae.json --k=64 --last=64 --gate=%t/g32.npy --first-stage=max-aware --bound-weight=0.25 --radius-format=e5m2 --refine=3 | FileCheck %s
// RUN: not indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --radius-format=e5m2 2>&1 | FileCheck %s --check-prefix=NO-MAX
// NO-MAX: --radius-format needs --first-stage=max-aware

// INT4 pooled keys (two codes a byte, one f32 scale: compress_paged and
// select_paged with codes = i4, D = 15 padded with a zero channel; ranked on
// the host under max-aware): alone, refined, under max-aware and under a
// gate; every metric sees the dequantized keys, and a pool reads
// (D + 1) / 2 + 4 bytes.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=i4 --json > %t/i4.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/i4.json --k=64 --last=128 --format=i4 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=i4 --refine=3 --refine-keys=token-fp8 --first-stage=max-aware --bound-weight=0.25 --radius-format=e5m2 --json > %t/i4ma.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/i4ma.json --k=64 --last=128 --format=i4 --refine=3 --refine-keys=token-fp8 --first-stage=max-aware --bound-weight=0.25 --radius-format=e5m2 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=64 --format=i4 --gate=@%t/g32.npy --refine=2 --json > %t/i4g.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/i4g.json --k=64 --last=64 --format=i4 --gate=%t/g32.npy --refine=2 | FileCheck %s
// The INT4 keys are the FP8 ones' budget at half the codes: rotated, the
// same selection machinery, 12 bytes a pool at D' = 16 against 20.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=2 --json > %t/f8r.json
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=i4 --rotate --refine=2 --json > %t/i4r.json
// RUN: /usr/bin/python3 -c "import json; a, b = (json.load(open('%t/' + n + '.json')) for n in ('f8r', 'i4r')); print(b['format'], 'bytes per pool', round(b['bytes_pooled'] / (a['bytes_pooled'] / 20), 6), 'recall in range' if 0 < b['recall'] <= 1 and 0 < b['mass_recall'] <= 1 + 1e-9 else 'FAILED')" | FileCheck %s --check-prefix=I4R
// I4R: i4 bytes per pool 12.0 recall in range

// Query-aware pooling scores: scores[t] = g . k_t.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --gate=@%t/g15.npy --json > %t/gate.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/gate.json --k=64 --last=128 --gate=%t/g15.npy | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=64 --gate=@%t/g32.npy --refine=2 --json > %t/gate-a.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/gate-a.json --k=64 --last=64 --gate=%t/g32.npy --refine=2 | FileCheck %s

// The token tier: each key FP8 / INT8 per vector (one f32 scale), refined.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --refine=4 --refine-keys=token-fp8 --json > %t/tfp8.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %S/Inputs/real/keys.npy %S/Inputs/real/queries.npy %t/tfp8.json --k=64 --last=128 --refine=4 --refine-keys=token-fp8 | FileCheck %s
// RUN: indexpool-fidelity --keys=@%t/a/keys.npy --queries=@%t/a/queries.npy --k=64 --last=64 --refine=2 --refine-keys=token-i8 --json > %t/ti8.json
// RUN: /usr/bin/python3 %S/Inputs/fidelity_ref.py compare %t/a/keys.npy %t/a/queries.npy %t/ti8.json --k=64 --last=64 --refine=2 --refine-keys=token-i8 | FileCheck %s
// Rotated: the FP8 token keys are quantized in the rotated space and rotated
// back; same D + 4 bytes per refined row as a residual tier.
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=4 --refine-keys=token-fp8 --json > %t/tfp8r.json
// RUN: indexpool-fidelity --keys=@%S/Inputs/real/keys.npy --queries=@%S/Inputs/real/queries.npy --k=64 --last=128 --format=fp8 --rotate --refine=4 --refine-keys=fp8 --json > %t/rfp8r.json
// RUN: /usr/bin/python3 -c "import json; a, b = (json.load(open('%t/' + n + '.json')) for n in ('tfp8r', 'rfp8r')); print(a['refine_keys'], b['refine_keys'], 'same bytes' if a['bytes_refine'] == b['bytes_refine'] > 0 else 'FAILED', 'recall in range' if 0 < a['recall'] <= 1 and 0 < a['mass_recall'] <= 1 + 1e-9 else 'FAILED')" | FileCheck %s --check-prefix=TOKR
// TOKR: token-fp8 fp8 same bytes recall in range

// CHECK-NOT: FAIL
// CHECK: all metrics agree
