// The paged ops in manifests (docs/manifest.md, docs/serving-layout.md):
// hand-written manifests of compress_paged, select_paged and append_paged
// load, bind their sizes, draw valid slots, page ids and lengths
// (--random-inputs, as indexpool-run draws them) and get as far as the fake
// driver goes: it has no paged kernels, so the kernel lookup is the first
// step that fails. Every check before the device passes.
//
// RUN: sh -c "env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/paged-compress.json --random-inputs=1 --verify 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=COMPRESS --implicit-check-not=error:
// COMPRESS: indexpool-launch: error: kernel 'compress_into_pages_kernel' is not in the binary: cuModuleGetFunction: named symbol not found (CUDA_ERROR_NOT_FOUND)
// COMPRESS-NEXT: rc=1
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/paged-select.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=SELECT --implicit-check-not=error:
// SELECT: indexpool-launch: error: kernel 'select_from_pages_kernel' is not in the binary
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %S/Inputs/launch/paged-append.json --random-inputs=1 --input-shape=0:2x5x16 --input-shape=1:2x5 --verify 2>&1 | FileCheck %s --check-prefix=APPEND --implicit-check-not=error:
// APPEND: indexpool-launch: error: kernel 'append_to_pages_kernel' is not in the binary
//
// Mistakes stop before the device with one line: append's new tokens are
// sizes, bound by the inputs' shapes and checked by the reference's rules.
// RUN: not indexpool-launch %S/Inputs/launch/paged-append.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOSHAPE --implicit-check-not=error:
// NOSHAPE: indexpool-launch: error: input 0 has shape [2, ?, 16]: give --input-shape=0:2xNx16 or --input=@file.npy
// RUN: not indexpool-launch %S/Inputs/launch/paged-append.json --random-inputs=1 --input-shape=0:2x5x16 --input-shape=1:2x6 2>&1 | FileCheck %s --check-prefix=RELATION --implicit-check-not=error:
// RELATION: indexpool-launch: error: {{.*}}paged-append.json:40:5: computes[0] (append_paged): scores must be [B, n] or [B, n, D] = [2, 5], got [2, 6]
// The codes are i8 or f8E4M3FN, named as a string.
// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/launch/fake.ptx %t/
// RUN: sed 's/"codes": "i8"/"codes": "f64"/' %S/Inputs/launch/paged-compress.json > %t/codes.json
// RUN: not indexpool-launch %t/codes.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=CODES --implicit-check-not=error:
// CODES: indexpool-launch: error: {{.*}}codes.json:28:49: computes[0].properties.codes: unknown code type "f64" (known: f8E4M3FN, i8, i4 or f4E2M1FN)
// One slot per group of P = 4 keys: 16 for 64 keys.
// RUN: sed -e 's/"shape": \[16\]/"shape": [15]/' -e 's/"bytes": 128/"bytes": 120/' %S/Inputs/launch/paged-compress.json > %t/slots.json
// RUN: not indexpool-launch %t/slots.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SLOTS --implicit-check-not=error:
// SLOTS: indexpool-launch: error: {{.*}}slots.json:25:5: computes[0] (compress_paged): slots must be [G] = [16] (one per group of P keys), got [15]
// k within a block table row: 3 pages of 8 entries.
// RUN: sed 's/"k": 4/"k": 25/' %S/Inputs/launch/paged-select.json > %t/k.json
// RUN: not indexpool-launch %t/k.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=K --implicit-check-not=error:
// K: indexpool-launch: error: {{.*}}k.json:{{[0-9]+}}:5: computes[0] (select_paged): k must be at most max_pages * E = 24 (the entries a block table row holds), got 25
