//===- call_overhead.cpp - what the C++ and C APIs add to a call ----------===//
//
// The same small compress (bf16 keys [T, D], per-token scores, Hadamard, FP8
// codes) timed per call, median over many calls:
//   kernel       the compiled code alone (CpuFunction::timeKernel): the anchor
//   cpp_out      CpuFunction::call into the caller's output buffers
//   cpp_borrow   CpuFunction::call, results handed back (no copy)
//   c_out        indexpool_cpu_function_call (the C API)
// One line per path: NAME_us=... kernel_us=... overhead_us=... ratio=...
//
// Usage: indexpool-bench-api [TOKENS=1024] [DIM=128] [THREADS=1] [CALLS=2000]
//
//===----------------------------------------------------------------------===//

#include "indexpool-c/IndexPool.h"
#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

using namespace indexpool;

static double medianMicroseconds(const std::function<bool()> &call, int calls) {
  for (int i = 0; i < std::min(calls, 100); ++i)
    if (!call())
      std::exit(1);
  std::vector<double> times;
  for (int i = 0; i < calls; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!call())
      std::exit(1);
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  int64_t tokens = argc > 1 ? std::atoll(argv[1]) : 1024;
  int64_t dim = argc > 2 ? std::atoll(argv[2]) : 128;
  int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  int calls = argc > 4 ? std::atoi(argv[4]) : 2000;
  if (tokens < 4 || dim < 1 || calls < 1) {
    std::fprintf(stderr, "usage: indexpool-bench-api [TOKENS] [DIM] [THREADS] [CALLS]\n");
    return 1;
  }

  CompressSpec spec;
  spec.dim = dim;
  CompileOptions options;
  options.threads = threads;
  Status status;
  std::unique_ptr<Module> module = buildCompress(spec, status);
  std::unique_ptr<CpuFunction> compress =
      module ? compileForCpu(*module, "compress", options, status) : nullptr;
  if (!compress) {
    std::fprintf(stderr, "indexpool-bench-api: %s\n", status.message().c_str());
    return 1;
  }

  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> keys(static_cast<size_t>(tokens * dim));
  std::vector<float> scores(static_cast<size_t>(tokens));
  for (uint16_t &k : keys)
    k = encodeBF16(normal(rng));
  for (float &s : scores)
    s = normal(rng);
  std::vector<uint8_t> codes(static_cast<size_t>(tokens / 4 * dim));
  std::vector<float> scales(static_cast<size_t>(tokens / 4));
  TensorRef in[] = {TensorRef(keys.data(), DType::BF16, {tokens, dim}),
                    TensorRef(scores.data(), DType::F32, {tokens})};
  TensorRef out[] = {TensorRef(codes.data(), DType::F8E4M3FN, {tokens / 4, dim}),
                     TensorRef(scales.data(), DType::F32, {tokens / 4})};
  auto ok = [](const Status &s) {
    if (!s)
      std::fprintf(stderr, "indexpool-bench-api: %s\n", s.message().c_str());
    return s.ok();
  };

  // The kernel: the median of the compiled code's own times.
  std::vector<double> kernel;
  if (!ok(compress->timeKernel(in, 2, 100, kernel)) ||
      !ok(compress->timeKernel(in, 2, calls, kernel)))
    return 1;
  std::nth_element(kernel.begin(), kernel.begin() + kernel.size() / 2, kernel.end());
  double kernelUs = kernel[kernel.size() / 2];

  std::vector<TensorRef> borrowed;
  indexpool_module_t cModule = nullptr;
  indexpool_cpu_function_t cFunction = nullptr;
  indexpool_compress_spec_t cSpec;
  indexpool_compress_spec_init(&cSpec);
  cSpec.dim = dim;
  indexpool_compile_options_t cOptions;
  indexpool_compile_options_init(&cOptions);
  cOptions.threads = threads;
  if (indexpool_status_t s = indexpool_build_compress(&cSpec, &cModule)) {
    std::fprintf(stderr, "indexpool-bench-api: %s\n", indexpool_status_message(s));
    return 1;
  }
  if (indexpool_status_t s =
          indexpool_compile_cpu(cModule, "compress", &cOptions, &cFunction)) {
    std::fprintf(stderr, "indexpool-bench-api: %s\n", indexpool_status_message(s));
    return 1;
  }
  indexpool_tensor_t cIn[2] = {
      {keys.data(), INDEXPOOL_BF16, 2, {tokens, dim}},
      {scores.data(), INDEXPOOL_F32, 1, {tokens}}};
  indexpool_tensor_t cOut[2] = {
      {codes.data(), INDEXPOOL_F8E4M3FN, 2, {tokens / 4, dim}},
      {scales.data(), INDEXPOOL_F32, 1, {tokens / 4}}};

  struct Path {
    const char *name;
    std::function<bool()> call;
  } paths[] = {
      {"cpp_out", [&] { return ok(compress->call(in, 2, out, 2)); }},
      {"cpp_borrow", [&] { return ok(compress->call(in, 2, borrowed)); }},
      {"c_out", [&] {
         indexpool_status_t s = indexpool_cpu_function_call(cFunction, cIn, 2, cOut, 2);
         if (s)
           std::fprintf(stderr, "indexpool-bench-api: %s\n", indexpool_status_message(s));
         indexpool_status_free(s);
         return s == nullptr;
       }},
  };
  std::printf("# compress T=%lld D=%lld bf16 -> f8E4M3FN, threads=%d, %d calls per path\n",
              (long long)tokens, (long long)dim, threads, calls);
  for (const Path &path : paths) {
    double us = medianMicroseconds(path.call, calls);
    std::printf("%s_us=%.2f kernel_us=%.2f overhead_us=%.2f ratio=%.3f\n",
                path.name, us, kernelUs, us - kernelUs, us / kernelUs);
  }
  indexpool_cpu_function_destroy(cFunction);
  indexpool_module_destroy(cModule);
  return 0;
}
