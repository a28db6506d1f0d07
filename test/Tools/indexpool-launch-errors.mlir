// Every bad input of indexpool-launch ends with exactly one line
// "indexpool-launch: error: ..." and exit code 1, before any GPU is touched
// (so these run, and pass, on machines with and without a driver). The .npy
// inputs are written by indexpool-run from the @make_* functions below.
//
// RUN: indexpool-launch --help | FileCheck %s --check-prefix=HELP
// HELP: usage: indexpool-launch MANIFEST.json [options]
// HELP: --random-inputs=SEED
// HELP: --verify
// HELP: --benchmark=N
// HELP: $INDEXPOOL_LIBCUDA_PATH

// The command line.
// RUN: sh -c "indexpool-launch 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NOMANIFEST --implicit-check-not=error:
// NOMANIFEST: indexpool-launch: error: no manifest (indexpool-launch MANIFEST.json [options]; see --help)
// NOMANIFEST-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --frobnicate 2>&1 | FileCheck %s --check-prefix=BADOPTION --implicit-check-not=error:
// BADOPTION: indexpool-launch: error: unknown option '--frobnicate' (see --help)
// RUN: not indexpool-launch %S/Inputs/launch/expand.json %S/Inputs/launch/fake.json 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not=error:
// TWO: indexpool-launch: error: unexpected argument '{{.*}}fake.json' (one MANIFEST.json only; see --help)
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --benchmark=many 2>&1 | FileCheck %s --check-prefix=BADNUMBER --implicit-check-not=error:
// BADNUMBER: indexpool-launch: error: --benchmark=many: expected a number of runs
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --random-inputs=-1 2>&1 | FileCheck %s --check-prefix=BADSEED --implicit-check-not=error:
// BADSEED: indexpool-launch: error: --random-inputs=-1: expected an unsigned integer seed
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --input 2>&1 | FileCheck %s --check-prefix=NOVALUE --implicit-check-not=error:
// NOVALUE: indexpool-launch: error: --input needs a value (--input=@FILE.npy)
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --verify=yes 2>&1 | FileCheck %s --check-prefix=FLAGVALUE --implicit-check-not=error:
// FLAGVALUE: indexpool-launch: error: --verify takes no value
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --device=-1 2>&1 | FileCheck %s --check-prefix=BADDEVICE --implicit-check-not=error:
// BADDEVICE: indexpool-launch: error: --device=-1: expected a device ordinal (0, 1, ...)
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --input=@x.npy 2>&1 | FileCheck %s --check-prefix=BOTH --implicit-check-not=error:
// BOTH: indexpool-launch: error: --input and --random-inputs cannot be combined
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --copy-anchor 2>&1 | FileCheck %s --check-prefix=ANCHOR --implicit-check-not=error:
// ANCHOR: indexpool-launch: error: --copy-anchor needs --benchmark=N

// Missing and malformed manifests: the JSON error has line:column.
// RUN: sh -c "indexpool-launch %t.does-not-exist.json 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MISSING --implicit-check-not=error:
// MISSING: indexpool-launch: error: {{.*}}does-not-exist.json: cannot open: No such file or directory
// MISSING-NEXT: rc=1
// RUN: sh -c "indexpool-launch %S/Inputs/launch/malformed.json 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MALFORMED --implicit-check-not=error:
// MALFORMED: indexpool-launch: error: {{.*}}malformed.json:4:20: expected a value after ',', got ']'
// MALFORMED-NEXT: rc=1
// RUN: printf '{"format_version": 2,\n  "chip": "sm_90" "function": "f"}' > %t.nocomma.json
// RUN: not indexpool-launch %t.nocomma.json 2>&1 | FileCheck %s --check-prefix=NOCOMMA --implicit-check-not=error:
// NOCOMMA: indexpool-launch: error: {{.*}}nocomma.json:2:19: expected ',' or '}' after an object member, got character '"'

// Invalid fields: one line naming the file, the place and the field.
// RUN: sed 's/"format_version": 2/"format_version": 1/' %S/Inputs/launch/expand.json > %t.version.json
// RUN: sh -c "indexpool-launch %t.version.json 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=VERSION --implicit-check-not=error:
// VERSION: indexpool-launch: error: {{.*}}version.json:2:21: format_version: unsupported format_version 1 (this runtime reads 2 and 3; older manifests have no kernel signatures: recompile with indexpool-compile)
// VERSION-NEXT: rc=1
// RUN: sed 's/"sm_80"/"ampere"/' %S/Inputs/launch/expand.json > %t.chip.json
// RUN: not indexpool-launch %t.chip.json 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=error:
// CHIP: indexpool-launch: error: {{.*}}chip.json:3:11: chip: expected a chip such as sm_80, sm_90 or sm_90a, got "ampere"
// RUN: sed 's/"type": "i32", "shape": \[4, 64\]/"type": "f64", "shape": [4, 64]/' %S/Inputs/launch/expand.json > %t.type.json
// RUN: not indexpool-launch %t.type.json 2>&1 | FileCheck %s --check-prefix=TYPE --implicit-check-not=error:
// TYPE: indexpool-launch: error: {{.*}}type.json:7:52: buffers[0].type: unknown element type "f64" (known: f32, f16, bf16, f8E4M3FN, i8, i32 or i64)
// RUN: sed -e 's/\[4, 256\]/[4, 255]/' -e 's/"bytes": 4096/"bytes": 4080/' %S/Inputs/launch/expand.json > %t.shape.json
// RUN: not indexpool-launch %t.shape.json 2>&1 | FileCheck %s --check-prefix=SHAPE --implicit-check-not=error:
// SHAPE: indexpool-launch: error: {{.*}}shape.json:16:62: computes[0].results[0]: buffer 1 is [4, 255], but result 'tokens' of expand is [4, 256]
// RUN: sed 's/{"buffer": 1}/{"buffer": 7}/' %S/Inputs/launch/expand.json > %t.param.json
// RUN: not indexpool-launch %t.param.json 2>&1 | FileCheck %s --check-prefix=PARAM --implicit-check-not=error:
// PARAM: indexpool-launch: error: {{.*}}param.json:13:43: launches[0].params[1].buffer: no buffer has id 7
// RUN: sed 's/"op": "expand"/"op": "expand_all"/' %S/Inputs/launch/expand.json > %t.op.json
// RUN: not indexpool-launch %t.op.json 2>&1 | FileCheck %s --check-prefix=OP --implicit-check-not=error:
// OP: indexpool-launch: error: {{.*}}op.json:16:12: computes[0].op: unknown op "expand_all" (expected pool, hadamard, quantize, dequantize, residual, reconstruct, score, topk, expand, compress, select, refine, compress_paged, select_paged, append_paged or refine_paged)
// RUN: sed 's/"indices": 0/"idx": 0/' %S/Inputs/launch/expand.json > %t.operand.json
// RUN: not indexpool-launch %t.operand.json 2>&1 | FileCheck %s --check-prefix=OPERAND --implicit-check-not=error:
// OPERAND: indexpool-launch: error: {{.*}}operand.json:16:42: computes[0].operands.idx: unknown field (expected indices)
// RUN: sed 's/"pool_size": 4/"pool_size": 6/' %S/Inputs/launch/expand.json > %t.property.json
// RUN: not indexpool-launch %t.property.json 2>&1 | FileCheck %s --check-prefix=PROPERTY --implicit-check-not=error:
// PROPERTY: indexpool-launch: error: {{.*}}property.json:16:5: computes[0] (expand): pool_size must be a power of two in [2, 64], got 6
// RUN: sed 's/"block": \[256, 1, 1\]/"block": [2048, 1, 1]/' %S/Inputs/launch/expand.json > %t.block.json
// RUN: not indexpool-launch %t.block.json 2>&1 | FileCheck %s --check-prefix=BLOCK --implicit-check-not=error:
// BLOCK: indexpool-launch: error: {{.*}}block.json:11:70: launches[0].block[0]: expected an integer in [1, 1024], got 2048

// Launches must match their kernel's signature ("kernels").
// RUN: sed 's/, {"i32": 4}\]/]/' %S/Inputs/launch/expand.json > %t.fewer.json
// RUN: sh -c "indexpool-launch %t.fewer.json --random-inputs=1 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=FEWER --implicit-check-not=error:
// FEWER: indexpool-launch: error: {{.*}}fewer.json:13:16: launches[0].params: kernel 'indexpool_test_expand' takes 4 parameters, the launch passes 3
// FEWER-NEXT: rc=1
// RUN: sed 's/"name": "indexpool_test_expand"/"name": "other"/' %S/Inputs/launch/expand.json > %t.undeclared.json
// RUN: not indexpool-launch %t.undeclared.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=UNDECLARED --implicit-check-not=error:
// UNDECLARED: indexpool-launch: error: {{.*}}undeclared.json:11:16: launches[0].kernel: kernel 'indexpool_test_expand' is not declared in "kernels" (its parameter signature is needed to check the launch)
// RUN: sed 's/"bytes": 4096/"bytes": 4100/' %S/Inputs/launch/expand.json > %t.bytes.json
// RUN: not indexpool-launch %t.bytes.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=BYTES --implicit-check-not=error:
// BYTES: indexpool-launch: error: {{.*}}bytes.json:13:32: launches[0].params[1]: kernel 'indexpool_test_expand' accesses 4100 bytes through parameter 1, but buffer 1 (tensor<4x256xi32>) has 4096

// The binary: missing, or not what binary.format says.
// RUN: rm -rf %t.nobin && mkdir -p %t.nobin && cp %S/Inputs/launch/expand.json %t.nobin/m.json
// RUN: sh -c "indexpool-launch %t.nobin/m.json --random-inputs=1 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NOBINARY --implicit-check-not=error:
// NOBINARY: indexpool-launch: error: the binary of {{.*}}nobin/m.json (binary.path "expand.ptx"): {{.*}}nobin/expand.ptx: cannot open: No such file or directory
// NOBINARY-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/compress.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOCUBIN --implicit-check-not=error:
// NOCUBIN: indexpool-launch: error: the binary of {{.*}}compress.json (binary.path "compress_cache.sm_90.cubin"): {{.*}}compress_cache.sm_90.cubin: cannot open: No such file or directory
// RUN: rm -rf %t.notcubin && mkdir -p %t.notcubin && cp %S/Inputs/launch/expand.ptx %t.notcubin/
// RUN: sed 's/"format": "ptx"/"format": "cubin"/' %S/Inputs/launch/expand.json > %t.notcubin/m.json
// RUN: not indexpool-launch %t.notcubin/m.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NOTCUBIN --implicit-check-not=error:
// NOTCUBIN: indexpool-launch: error: the binary {{.*}}notcubin/expand.ptx is not a cubin (no ELF header), but binary.format says "cubin"

// Inputs: count, file, dtype, shape; outputs: count.
// RUN: indexpool-run %s --function=make_fake_inputs --random-inputs=1 --output=@%t.codes.npy --output=@%t.scales.npy --output=@%t.idx.npy
// RUN: printf 'not an npy file' > %t.garbage.npy
// RUN: sh -c "indexpool-launch %S/Inputs/launch/fake.json --input=@%t.codes.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=COUNT --implicit-check-not=error:
// COUNT: indexpool-launch: error: {{.*}}fake.json takes 3 inputs, got 1 --input (one --input=@FILE.npy per input, or --random-inputs=SEED)
// COUNT-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/fake.json --input=@%t.missing.npy --input=@%t.scales.npy --input=@%t.idx.npy 2>&1 | FileCheck %s --check-prefix=NONPY --implicit-check-not=error:
// NONPY: indexpool-launch: error: input #0: {{.*}}missing.npy: cannot open: No such file or directory
// RUN: sh -c "indexpool-launch %S/Inputs/launch/fake.json --input=@%t.garbage.npy --input=@%t.scales.npy --input=@%t.idx.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=GARBAGE --implicit-check-not=error:
// GARBAGE: indexpool-launch: error: input #0: {{.*}}garbage.npy: not a .npy file (bad magic)
// GARBAGE-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/fake.json --input=@%t.codes.npy --input=@%t.scales.npy --input=@%t.codes.npy 2>&1 | FileCheck %s --check-prefix=DTYPE --implicit-check-not=error:
// DTYPE: indexpool-launch: error: input #2 ({{.*}}codes.npy) is a float32 array, but input #2 of type tensor<2x8xi32> needs an int32 array
// RUN: not indexpool-launch %S/Inputs/launch/fake.json --input=@%t.idx.npy --input=@%t.scales.npy --input=@%t.idx.npy 2>&1 | FileCheck %s --check-prefix=DTYPE-FLOAT --implicit-check-not=error:
// DTYPE-FLOAT: indexpool-launch: error: input #0 ({{.*}}idx.npy) is an int32 array, but input #0 of type tensor<8x16xf8E4M3FN> needs a float32 or float16 array
// RUN: sh -c "indexpool-launch %S/Inputs/launch/fake.json --input=@%t.scales.npy --input=@%t.scales.npy --input=@%t.idx.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=WRONGSHAPE --implicit-check-not=error:
// WRONGSHAPE: indexpool-launch: error: input #0 ({{.*}}scales.npy) is [8], but input #0 has type tensor<8x16xf8E4M3FN>
// WRONGSHAPE-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/fake.json --random-inputs=1 --output=@%t.one.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS --implicit-check-not=error:
// OUTPUTS: indexpool-launch: error: {{.*}}fake.json has 2 outputs, got 1 --output

// --verify needs computes.
// RUN: not indexpool-launch %S/Inputs/launch/expand-no-computes.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=NOCOMPUTES --implicit-check-not=error:
// NOCOMPUTES: indexpool-launch: error: --verify needs the manifest's computes, and {{.*}}expand-no-computes.json has none

func.func @make_fake_inputs(%codes: tensor<8x16xf32>, %scales: tensor<8xf32>,
                            %idx: tensor<2x8xi32>)
    -> (tensor<8x16xf32>, tensor<8xf32>, tensor<2x8xi32>) {
  return %codes, %scales, %idx : tensor<8x16xf32>, tensor<8xf32>, tensor<2x8xi32>
}
