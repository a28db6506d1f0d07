/* Compiles IR text with the C API, calls it on this program's buffers,
 * compares with the float64 reference, checks that a bad call gets a
 * status with a message, and writes the GPU artifact of the same function
 * into the directory argv[1] names. Exits 1 on any failure. */
#include "indexpool-c/IndexPool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kIR =
    "func.func @pool(%keys: tensor<?x64xf32>, %scores: tensor<?xf32>)\n"
    "    -> (tensor<?x64xi8>, tensor<?xf32>) {\n"
    "  %c, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64}\n"
    "      : (tensor<?x64xf32>, tensor<?xf32>)\n"
    "        -> (tensor<?x64xi8>, tensor<?xf32>, tensor<?x4xf32>)\n"
    "  return %c, %s : tensor<?x64xi8>, tensor<?xf32>\n"
    "}\n";

static int check(indexpool_status_t status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "consumer_c: %s: %s\n", what, indexpool_status_message(status));
  indexpool_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  indexpool_module_t module = NULL;
  indexpool_cpu_function_t pool = NULL;
  if (check(indexpool_module_parse(kIR, strlen(kIR), "pool.mlir", &module),
            "parse") ||
      check(indexpool_compile_cpu(module, "pool", NULL, &pool), "compile"))
    return 1;

  enum { T = 1000, D = 64 };
  float *keys = malloc(sizeof(float) * T * D), *scores = malloc(sizeof(float) * T);
  unsigned state = 12345u;
  for (int i = 0; i < T * D; ++i) {
    state = state * 1664525u + 1013904223u;
    keys[i] = (float)((int)(state >> 8) % 2001 - 1000) / 250.0f;
  }
  for (int i = 0; i < T; ++i)
    scores[i] = (float)(i % 7) - 3.0f;
  indexpool_tensor_t in[2] = {{keys, INDEXPOOL_F32, 2, {T, D}},
                              {scores, INDEXPOOL_F32, 1, {T}}};
  indexpool_tensor_t out[2];
  if (check(indexpool_cpu_function_result_shapes(pool, in, 2, out, 2), "shapes"))
    return 1;
  out[0].data = malloc((size_t)(out[0].shape[0] * out[0].shape[1]));
  out[1].data = malloc(sizeof(float) * (size_t)out[1].shape[0]);
  if (check(indexpool_cpu_function_call(pool, in, 2, out, 2), "call") ||
      check(indexpool_verify(module, "pool", in, 2, out, 2), "verify"))
    return 1;

  /* A bad call: f16 keys where the function takes f32. */
  in[0].dtype = INDEXPOOL_F16;
  indexpool_status_t bad = indexpool_cpu_function_call(pool, in, 2, out, 2);
  const char *expected = "input #0 (keys) is f16, expected tensor<?x64xf32>";
  if (!bad || strcmp(indexpool_status_message(bad), expected) != 0) {
    fprintf(stderr, "consumer_c: expected '%s', got '%s'\n", expected,
            indexpool_status_message(bad));
    return 1;
  }
  indexpool_status_free(bad);
  /* A CPU target the table lacks: one error listing the known ones. */
  indexpool_compile_options_t options;
  indexpool_compile_options_init(&options);
  options.cpu = "znver9";
  indexpool_cpu_function_t none = NULL;
  bad = indexpool_compile_cpu(module, "pool", &options, &none);
  if (!bad || !strstr(indexpool_status_message(bad),
                      "unknown CPU target 'znver9'; known: ") || none) {
    fprintf(stderr, "consumer_c: an unknown CPU target was not reported\n");
    return 1;
  }
  indexpool_status_free(bad);
  /* NULL handles are errors, not crashes. */
  bad = indexpool_cpu_function_call(NULL, in, 2, out, 2);
  if (!bad || strcmp(indexpool_status_message(bad), "function is NULL") != 0) {
    fprintf(stderr, "consumer_c: a NULL function was not reported\n");
    return 1;
  }
  indexpool_status_free(bad);

  /* The same function for a GPU: PTX and manifest into argv[1]. */
  if (argc > 1) {
    indexpool_gpu_artifact_t artifact = NULL;
    if (check(indexpool_compile_gpu(module, "pool", "sm_90", NULL, &artifact),
              "compile for sm_90") ||
        check(indexpool_gpu_artifact_save(artifact, argv[1]), "save"))
      return 1;
    indexpool_gpu_artifact_destroy(artifact);
  }

  printf("consumer_c: %lld pools of %lld codes -> ok\n",
         (long long)out[0].shape[0], (long long)out[0].shape[1]);
  indexpool_cpu_function_destroy(pool);
  indexpool_module_destroy(module);
  free(keys); free(scores); free(out[0].data); free(out[1].data);
  return 0;
}
