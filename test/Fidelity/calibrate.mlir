// indexpool-calibrate: the bias it writes, its round trip through
// indexpool-fidelity, its gain on data with a planted slot pattern, and its
// errors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=1024 --dim=64 --seed=1 --plant-slot=4 %t/p
// RUN: /usr/bin/python3 %indexpool_src/scripts/fidelity/synthetic.py --tokens=512 --dim=15 --seed=2 --plant-slot=2 %t/d

// A slot bias: [4] float32; indexpool-fidelity --last=64 reproduces the
// held-out numbers before (no bias) and after (--bias) exactly, and the
// planted pattern gains (measured: 96.32% -> 99.40% held out; seeds 1-5 of
// this setup gain 3.1 to 15.7 points).
// RUN: indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 -o %t/slot.npy --json > %t/slot.json
// RUN: indexpool-fidelity --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 --last=64 --json > %t/before.json
// RUN: indexpool-fidelity --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 --last=64 --bias=@%t/slot.npy --json > %t/after.json
// RUN: /usr/bin/python3 -c "import json, numpy as np; \
// RUN:   c, b, a = (json.load(open('%t/' + n + '.json')) for n in ('slot', 'before', 'after')); w = np.load('%t/slot.npy'); \
// RUN:   print('bias', w.dtype, w.shape, c['bias_shape'], 'temperature', c['temperature']); \
// RUN:   print('before', c['mass_recall_before'] == b['mass_recall'] and c['recall_before'] == b['recall']); \
// RUN:   print('after', c['mass_recall_after'] == a['mass_recall'] and c['recall_after'] == a['recall']); \
// RUN:   print('gain', c['mass_recall_after'] >= c['mass_recall_before'] + 0.02, c['train_mass_recall_after'] >= c['train_mass_recall_before'] + 0.02)" \
// RUN:   | FileCheck %s --check-prefix=SLOT
// SLOT: bias float32 (4,) [4] temperature 1
// SLOT-NEXT: before True
// SLOT-NEXT: after True
// SLOT-NEXT: gain True True

// A channel bias, D = 15, P = 2, FP8 pooled keys, rotated (D padded to 16):
// [2, 15] float32, one value per slot and channel group, and the same round
// trip.
// RUN: indexpool-calibrate --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --pool-size=2 --k=64 --train=200 --held-out=100 --bias=channel --channel-groups=3 --format=fp8 --rotate -o %t/chan.npy --json > %t/chan.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --pool-size=2 --k=64 --last=100 --format=fp8 --rotate --bias=@%t/chan.npy --json > %t/chan-after.json
// RUN: /usr/bin/python3 -c "import json, numpy as np; \
// RUN:   c, a = (json.load(open('%t/' + n + '.json')) for n in ('chan', 'chan-after')); w = np.load('%t/chan.npy'); \
// RUN:   print('bias', w.dtype, w.shape, c['bias_shape'], 'groups', len(np.unique(w[0])) <= 3, 'centred', bool(np.abs(w.sum(0)).max() < 1e-5)); \
// RUN:   print('after', c['mass_recall_after'] == a['mass_recall'] and c['recall_after'] == a['recall']); \
// RUN:   print('no loss', c['train_mass_recall_after'] >= c['train_mass_recall_before'])" \
// RUN:   | FileCheck %s --check-prefix=CHAN
// CHAN: bias float32 (2, 15) [2, 15] groups True centred True
// CHAN-NEXT: after True
// CHAN-NEXT: no loss True

// The temperature, with norm scores: the held-out mass recall after agrees
// with an independent float64 NumPy pooling at that temperature
// (softmax((||k|| + bias) / T)), within what f32 near ties allow.
// RUN: indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 --score=norm --fit-temperature -o %t/norm.npy --json > %t/norm.json
// RUN: /usr/bin/python3 -c "import sys, json, numpy as np; sys.path.insert(0, '%S/Inputs'); import fidelity_ref as f; \
// RUN:   k, q = (np.load('%t/p/' + n + '.npy').astype(np.float64) for n in ('keys', 'queries')); b = np.load('%t/norm.npy').astype(np.float64); \
// RUN:   c = json.load(open('%t/norm.json')); t = c['temperature']; g = k.reshape(256, 4, 64); \
// RUN:   x = (np.linalg.norm(g, axis=2) + b) / t; w = np.exp(x - x.max(axis=1, keepdims=True)); w /= w.sum(axis=1, keepdims=True); \
// RUN:   rows = f.selection(k, q, (w[:, :, None] * g).sum(axis=1), 4, 128, 64); \
// RUN:   print('temperature', t != 1, abs(rows[:, 1].mean() - c['mass_recall_after']) <= rows[:, 3].sum() / 64 + 1e-7, c['mass_recall_after'] >= c['mass_recall_before'])" \
// RUN:   | FileCheck %s --check-prefix=TEMP
// TEMP: temperature True True True

// The text report.
// RUN: indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 -o %t/text.npy | FileCheck %s --check-prefix=TEXT
// TEXT: keys: 1024 x 64, pool size 4, k = 128, format none, scores uniform
// TEXT-NEXT: positions: train 704..959 (256), held out 960..1023 (64)
// TEXT-NEXT: fit (float64 model, training positions; {{[0-9]+}} rounds, {{[0-9]+}} evaluations):
// TEXT-NEXT:   mass recall     before {{[0-9.]+}}%  after {{[0-9.]+}}%
// TEXT-NEXT:   recall          before {{[0-9.]+}}%  after {{[0-9.]+}}%
// TEXT-NEXT: bias (per slot): {{[-0-9. ]+$}}
// TEXT-NEXT: temperature: 1
// TEXT-NEXT: held out (compiled kernels; before: no bias, temperature 1):
// TEXT-NEXT:   mass recall     before {{[0-9.]+}}%  after {{[0-9.]+}}%
// TEXT-NEXT:   recall          before {{[0-9.]+}}%  after {{[0-9.]+}}%

// A query-aware gate (--gate=mean-query): the pooling scores become g . k_t
// with g along the mean of the training queries (positions 704..959),
// checked in float64 NumPy; the held-out numbers are indexpool-fidelity's
// with --gate and --bias; the fit keeps only gains on the training
// positions. --gate=channel fits one value per channel.
// RUN: indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 --gate=mean-query --gate-output=%t/gate.npy -o %t/gate-bias.npy --json > %t/gate.json
// RUN: indexpool-fidelity --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 --last=64 --gate=@%t/gate.npy --bias=@%t/gate-bias.npy --json > %t/gate-after.json
// RUN: /usr/bin/python3 -c "import json, numpy as np; \
// RUN:   c, a = (json.load(open('%t/' + n + '.json')) for n in ('gate', 'gate-after')); g = np.load('%t/gate.npy'); \
// RUN:   m = np.load('%t/p/queries.npy').astype(np.float64)[704:960].mean(0); h = g.astype(np.float64); cos = h @ m / (np.linalg.norm(h) * np.linalg.norm(m)); \
// RUN:   print('gate', g.dtype, g.shape, c['gate_kind'], 'along the mean query', abs(abs(cos) - 1) < 1e-6, 'nonzero', bool(np.linalg.norm(g) > 0)); \
// RUN:   print('after', c['mass_recall_after'] == a['mass_recall'] and c['recall_after'] == a['recall'], a['score']); \
// RUN:   print('no loss', c['train_mass_recall_after'] >= c['train_mass_recall_before'])" \
// RUN:   | FileCheck %s --check-prefix=GATE
// GATE: gate float32 (64,) mean-query along the mean query True nonzero True
// GATE-NEXT: after True gate
// GATE-NEXT: no loss True
// RUN: indexpool-calibrate --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --pool-size=2 --k=64 --train=200 --held-out=100 --gate=channel --gate-output=%t/gate-chan.npy --format=fp8 --rotate -o %t/gate-chan-bias.npy --json > %t/gate-chan.json
// RUN: indexpool-fidelity --keys=@%t/d/keys.npy --queries=@%t/d/queries.npy --pool-size=2 --k=64 --last=100 --format=fp8 --rotate --gate=@%t/gate-chan.npy --bias=@%t/gate-chan-bias.npy --json > %t/gate-chan-after.json
// RUN: /usr/bin/python3 -c "import json, numpy as np; \
// RUN:   c, a = (json.load(open('%t/' + n + '.json')) for n in ('gate-chan', 'gate-chan-after')); g = np.load('%t/gate-chan.npy'); \
// RUN:   print('gate', g.dtype, g.shape, c['gate_kind'], 'same as json', bool(np.allclose(g, c['gate'], rtol=1e-7, atol=0))); \
// RUN:   print('after', c['mass_recall_after'] == a['mass_recall'] and c['recall_after'] == a['recall']); \
// RUN:   print('no loss', c['train_mass_recall_after'] >= c['train_mass_recall_before'])" \
// RUN:   | FileCheck %s --check-prefix=GATECHAN
// GATECHAN: gate float32 (15,) channel same as json True
// GATECHAN-NEXT: after True
// GATECHAN-NEXT: no loss True

// Bad settings: one error line each, exit code 1, no bias written.
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --fit-temperature 2>&1 | FileCheck %s --check-prefix=TEMPERR
// TEMPERR: indexpool-calibrate: error: --fit-temperature needs --score=norm: with uniform scores the temperature only rescales the bias
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --train=900 --held-out=124 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: indexpool-calibrate: error: --train=900 and --held-out=124 need 1028 tokens (a complete group of 4 before the first training position), got 1024
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --train=0 2>&1 | FileCheck %s --check-prefix=TRAIN
// TRAIN: indexpool-calibrate: error: --train=0 must be positive
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --held-out=-1 2>&1 | FileCheck %s --check-prefix=HELD
// HELD: indexpool-calibrate: error: --held-out=-1 must be positive
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --bias=channel --channel-groups=65 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: indexpool-calibrate: error: --channel-groups=65 must be in [1, D = 64]
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy -o %t/e.npy --k=130 2>&1 | FileCheck %s --check-prefix=KP
// KP: indexpool-calibrate: error: --k=130 must be a positive multiple of the pool size 4
// RUN: not indexpool-calibrate --keys=@%t/missing.npy --queries=@%t/p/queries.npy -o %t/e.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: indexpool-calibrate: error: --keys: {{.*}}missing.npy: cannot open
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/d/queries.npy -o %t/e.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: indexpool-calibrate: error: --queries: expected the keys' shape [1024, 64], got [512, 15]
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy --k=128 -o %t/no/such/dir/e.npy 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: indexpool-calibrate: error: -o: {{.*}}e.npy
// RUN: not ls %t/e.npy
// RUN: not indexpool-calibrate --keys=@%t/p/keys.npy --queries=@%t/p/queries.npy 2>&1 | FileCheck %s --check-prefix=NOOUT
// NOOUT: indexpool-calibrate: error: -o FILE.npy is required
