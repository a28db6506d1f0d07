/*===- IndexPool.h - the C API of IndexPool ----------------------*- C -*-===*\
|*                                                                            *|
|* For engines written in other languages: the C++ embedding API              *|
|* (include/indexpool/API) behind opaque handles. Every call that can fail    *|
|* returns an indexpool_status_t: NULL on success, otherwise a status the     *|
|* caller reads with indexpool_status_message() and frees with                *|
|* indexpool_status_free(). Handles are freed with their _destroy function;   *|
|* NULL handles and NULL out-pointers are reported as errors, never crashes.  *|
|* Nothing here throws or aborts.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef INDEXPOOL_C_INDEXPOOL_H
#define INDEXPOOL_C_INDEXPOOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Status ------------------------------------------------------------===*/

typedef struct indexpool_status *indexpool_status_t;

/* The message of a failed call ("" for NULL, i.e. success). Valid until the
 * status is freed. */
const char *indexpool_status_message(indexpool_status_t status);
void indexpool_status_free(indexpool_status_t status);

/*===-- Tensors -----------------------------------------------------------===*/

/* Element types: one INDEXPOOL_<Enum> per row of
 * indexpool/Vocabulary/ElementTypes.def, valued by its position
 * (INDEXPOOL_F32 = 0, INDEXPOOL_F16, INDEXPOOL_BF16, INDEXPOOL_F8E4M3FN,
 * INDEXPOOL_I8, INDEXPOOL_I32, INDEXPOOL_I64, INDEXPOOL_I4, ...); storage
 * formats as in indexpool/API/Tensor.h (bf16 and f16 as 16-bit patterns,
 * f8E4M3FN as one byte code). Rows without the Tensor use (i4) are code
 * types of the page layouts only (code_type of the paged specs: codes two
 * a byte in i8 pages); no tensor has them. */
typedef enum indexpool_dtype {
#define INDEXPOOL_ELEMENT_TYPE(Enum, ...) INDEXPOOL_##Enum,
#include "indexpool/Vocabulary/ElementTypes.def"
  INDEXPOOL_NUM_DTYPES
} indexpool_dtype_t;

#define INDEXPOOL_MAX_RANK 8

/* A caller's dense, row-major buffer. */
typedef struct indexpool_tensor {
  void *data;
  indexpool_dtype_t dtype;
  int32_t rank;
  int64_t shape[INDEXPOOL_MAX_RANK];
} indexpool_tensor_t;

/* "f32", "bf16", ...; NULL for a value outside the enum. */
const char *indexpool_dtype_name(indexpool_dtype_t dtype);
size_t indexpool_dtype_bytes(indexpool_dtype_t dtype);
float indexpool_decode_f8e4m3fn(uint8_t code);
float indexpool_decode_bf16(uint16_t bits);

/*===-- Modules -----------------------------------------------------------===*/

typedef struct indexpool_module *indexpool_module_t;

/* Parses and verifies MLIR assembly (`length` bytes of `text`; `name` is
 * the buffer name diagnostics use, may be NULL). */
indexpool_status_t indexpool_module_parse(const char *text, size_t length,
                                          const char *name,
                                          indexpool_module_t *out);
void indexpool_module_destroy(indexpool_module_t module);

/* @name(%keys [T, D], %scores [T] or [T, D], [%bias]) -> (codes, scales):
 * see indexpool/API/Builders.h, CompressSpec. */
typedef struct indexpool_compress_spec {
  int64_t tokens; /* -1: dynamic */
  int64_t dim;
  indexpool_dtype_t key_type;
  int64_t pool_size;
  int per_channel_scores;
  const char *bias; /* "none", "slot" or "channel"; NULL: "none" */
  float temperature;
  int rotate;
  indexpool_dtype_t code_type;
  int pow2_scale;
  const char *name; /* NULL: "compress" */
} indexpool_compress_spec_t;
void indexpool_compress_spec_init(indexpool_compress_spec_t *spec);
indexpool_status_t indexpool_build_compress(
    const indexpool_compress_spec_t *spec, indexpool_module_t *out);

/*===-- Compilation and calls ---------------------------------------------===*/

typedef struct indexpool_compile_options {
  int fuse;
  int threads;
  int vector_width; /* 0: the CPU target's */
  int check_bounds;
  const char *tuning_db; /* NULL: none */
  const char *binary_format; /* "ptx" or "cubin"; NULL: "ptx" */
  /* The CPU target (docs/design.md, "CPU targets"): NULL or "host", this
   * host's row; a row this host cannot run is an error naming why. Set
   * the options with indexpool_compile_options_init first. */
  const char *cpu;
} indexpool_compile_options_t;
void indexpool_compile_options_init(indexpool_compile_options_t *options);

typedef struct indexpool_cpu_function *indexpool_cpu_function_t;

/* Compiles function `name` of `module` for this CPU. `options` may be NULL
 * (the defaults). The function stays valid after the module is destroyed. */
indexpool_status_t indexpool_compile_cpu(
    indexpool_module_t module, const char *name,
    const indexpool_compile_options_t *options, indexpool_cpu_function_t *out);
void indexpool_cpu_function_destroy(indexpool_cpu_function_t function);

size_t indexpool_cpu_function_num_inputs(indexpool_cpu_function_t function);
size_t indexpool_cpu_function_num_results(indexpool_cpu_function_t function);

/* Fills dtype, rank and shape of `results[0 .. num_results)` (data NULL) for
 * inputs of these shapes: what to allocate for indexpool_cpu_function_call. */
indexpool_status_t indexpool_cpu_function_result_shapes(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *results, size_t num_results);

/* Runs the function on the caller's inputs and writes result i into
 * outputs[i] (its dtype and shape must be the result's). */
indexpool_status_t indexpool_cpu_function_call(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, const indexpool_tensor_t *outputs, size_t num_outputs);

/* Runs the function; results[i] receives a view of memory the function owns,
 * valid until its next call or destruction. */
indexpool_status_t indexpool_cpu_function_call_borrowed(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *results, size_t num_results);

/* Compares outputs of function `name` on `inputs` with the float64
 * reference; an error status (listing every result) when any is out of
 * tolerance. */
indexpool_status_t indexpool_verify(indexpool_module_t module,
                                    const char *name,
                                    const indexpool_tensor_t *inputs,
                                    size_t num_inputs,
                                    const indexpool_tensor_t *outputs,
                                    size_t num_outputs);

/*===-- GPU artifacts -----------------------------------------------------===*/

typedef struct indexpool_gpu_artifact *indexpool_gpu_artifact_t;

/* Compiles function `name` for `chip` ("sm_80" ... "sm_120"): the binary
 * and manifest that the MLIR-free runtime (indexpool-launch) runs. */
indexpool_status_t indexpool_compile_gpu(
    indexpool_module_t module, const char *name, const char *chip,
    const indexpool_compile_options_t *options, indexpool_gpu_artifact_t *out);
/* Writes DIRECTORY/<binary name> and DIRECTORY/<stem>.json. */
indexpool_status_t indexpool_gpu_artifact_save(indexpool_gpu_artifact_t artifact,
                                               const char *directory);
const char *indexpool_gpu_artifact_manifest(indexpool_gpu_artifact_t artifact);
const char *indexpool_gpu_artifact_binary(indexpool_gpu_artifact_t artifact,
                                          size_t *size);
void indexpool_gpu_artifact_destroy(indexpool_gpu_artifact_t artifact);

/*===-- GPU functions -----------------------------------------------------===*/

typedef struct indexpool_gpu_function *indexpool_gpu_function_t;

/* Opens CUDA device `device_ordinal` (the driver, libcuda.so.1, is loaded at
 * run time), loads the manifest at `manifest_path` and its binary, and loads
 * the binary onto the device. The handle owns the device it opened; use it
 * from the thread that loaded it, one call at a time. */
indexpool_status_t indexpool_gpu_function_load(const char *manifest_path,
                                               int device_ordinal,
                                               indexpool_gpu_function_t *out);
void indexpool_gpu_function_destroy(indexpool_gpu_function_t function);

size_t indexpool_gpu_function_num_inputs(indexpool_gpu_function_t function);
size_t indexpool_gpu_function_num_outputs(indexpool_gpu_function_t function);

/* Fills dtype, rank and shape of `outputs[0 .. num_outputs)` (data NULL) for
 * inputs of these shapes (their data is not read): what to allocate on the
 * device for indexpool_gpu_function_launch. */
indexpool_status_t indexpool_gpu_function_output_shapes(
    indexpool_gpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *outputs, size_t num_outputs);

/* Queues the function on `stream` (a CUstream; NULL: the default stream)
 * over the caller's device memory: each tensor's data is a CUdeviceptr cast
 * to void *, inputs and outputs in the manifest's index order. Returns
 * without waiting for the stream, like any CUDA call: the outputs are
 * ready once the stream reaches this point. An output written in place of
 * an input (the manifest's in_place_of) takes NULL data or the input's
 * pointer. Temporaries are allocated when the input shapes change and
 * reused while they stay the same. */
indexpool_status_t indexpool_gpu_function_launch(
    indexpool_gpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, const indexpool_tensor_t *outputs, size_t num_outputs,
    void *stream);

#ifdef __cplusplus
}
#endif

#endif /* INDEXPOOL_C_INDEXPOOL_H */
