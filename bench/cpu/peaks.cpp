//===- peaks.cpp - the host's own compute and copy peaks ------------------===//
//
// The peaks that bench/cpu/peaks.py measures each op against, on the same
// machine in the same run: f32 FMA, bf16 dot (vdpbf16ps / bfdot), int8 dot
// (vpdpbusd / sdot) and memcpy bandwidth, all hardware threads together (the
// JIT's code runs on every core through OpenMP), each the best of REPS.
//
// The compute loops are chains of register-only multiply-adds on the widest
// vectors the host has, 16 independent accumulators per thread (12 on AVX2)
// so that the pipes never wait on an instruction's latency, their sum
// stored to a volatile so that the compiler keeps them. Each ISA's loop is
// compiled for it with a target attribute and chosen at run time, so that
// the default flags (no -march=native) build one binary for any x86-64 or
// aarch64 host.
//
// Usage: indexpool-bench-cpu-peaks [REPS]   (default 5)
// Prints one `name value` line per measurement (`n/a` where the host lacks
// the instruction): threads, f32_fma_isa, f32_fma_gmacs, bf16_dot_gmacs,
// int8_dot_gmacs, memcpy_gbps. A MAC is one multiply-add of one element
// pair: an f32 FMA lane is 1, a vdpbf16ps f32 lane 2, a vpdpbusd i32 lane 4.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

// The chains of a kernel are an array so that one loop writes them all;
// `#pragma GCC unroll` (which clang honors too) unrolls that loop, so that
// each chain lives in a register (GCC 12 at -O2 otherwise keeps the array
// in memory and runs at a fifth of the peak).
constexpr int kChains = 16;

/// Where the main thread stores the kernels' results: a volatile store the
/// compiler must keep, so it cannot drop the chains that feed it.
volatile double sink;

/// Every kernel's operands derive from this, read at run time: the compiler
/// knows none of them, so it can neither fold a chain nor spot a fixed point
/// of one (it had turned a chain that started at its fixed point into a
/// constant).
volatile float seed = 1e-3f;

/// One compute kernel: runs `iters` iterations of kChains independent
/// multiply-adds on one thread and returns their sum.
/// `macsPerIter` counts the MACs of one iteration.
struct Kernel {
  const char *isa;
  double (*run)(int64_t iters);
  double macsPerIter;
};

#if defined(__x86_64__)

// acc -> acc * (1 - s) + s decays towards 1 from its start 2 + c: no lane
// turns into an infinity or a denormal, which would slow some chips down.
__attribute__((target("avx512f"))) double fmaAvx512(int64_t iters) {
  float s = seed;
  __m512 a = _mm512_set1_ps(1 - s), b = _mm512_set1_ps(s);
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(2.0f + float(c));
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  return _mm512_reduce_add_ps(sum);
}

// 16 ymm registers hold 12 chains and the two operands (16 chains would
// spill); 12 are still more than the 4-cycle latency times 2 pipes needs.
constexpr int kChains256 = 12;

__attribute__((target("avx2,fma"))) double fmaAvx2(int64_t iters) {
  float s = seed;
  __m256 a = _mm256_set1_ps(1 - s), b = _mm256_set1_ps(s);
  __m256 acc[kChains256];
  for (int c = 0; c < kChains256; ++c)
    acc[c] = _mm256_set1_ps(2.0f + float(c));
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains256; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  alignas(32) float lanes[8];
  __m256 sum = acc[0];
  for (int c = 1; c < kChains256; ++c)
    sum = _mm256_add_ps(sum, acc[c]);
  _mm256_store_ps(lanes, sum);
  double total = 0;
  for (float lane : lanes)
    total += lane;
  return total;
}

// Pairs of small bf16 values: each chain grows by about s per iteration, far
// from overflow at any count this program runs.
__attribute__((target("avx512f,avx512bf16"))) double bf16Avx512(int64_t iters) {
  __m512 s = _mm512_set1_ps(seed), half = _mm512_set1_ps(0.5f);
  __m512bh a = _mm512_cvtne2ps_pbh(s, s), b = _mm512_cvtne2ps_pbh(half, half);
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  return _mm512_reduce_add_ps(sum);
}

// i32 accumulators wrap on overflow (defined for the instruction), so any
// operands do.
__attribute__((target("avx512f,avx512vnni"))) double int8Avx512(int64_t iters) {
  char byte = char(seed * 3000); // 3
  __m512i a = _mm512_set1_epi8(byte), b = _mm512_set1_epi8(char(-byte));
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_epi32(c);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  __m512i sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_epi32(sum, acc[c]);
  return double(_mm512_reduce_add_epi32(sum));
}

bool hasFma512() { return __builtin_cpu_supports("avx512f"); }
bool hasFma256() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

Kernel f32Kernel() {
  if (hasFma512())
    return {"avx512f", fmaAvx512, kChains * 16.0};
  if (hasFma256())
    return {"avx2", fmaAvx2, kChains256 * 8.0};
  return {nullptr, nullptr, 0};
}

Kernel bf16Kernel() {
  if (hasFma512() && __builtin_cpu_supports("avx512bf16"))
    return {"avx512bf16", bf16Avx512, kChains * 16.0 * 2};
  return {nullptr, nullptr, 0};
}

Kernel int8Kernel() {
  if (hasFma512() && __builtin_cpu_supports("avx512vnni"))
    return {"avx512vnni", int8Avx512, kChains * 16.0 * 4};
  return {nullptr, nullptr, 0};
}

#elif defined(__aarch64__)

// The same loops on 128-bit NEON: fmla (4 MACs), bfdot (4 f32 lanes of 2
// MACs), sdot (4 i32 lanes of 4 MACs).
double fmaNeon(int64_t iters) {
  float s = seed;
  float32x4_t a = vdupq_n_f32(1 - s), b = vdupq_n_f32(s);
  float32x4_t acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = vdupq_n_f32(2.0f + float(c));
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = vfmaq_f32(b, acc[c], a);
  float32x4_t sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = vaddq_f32(sum, acc[c]);
  return vaddvq_f32(sum);
}

__attribute__((target("arch=armv8.6-a+bf16"))) double bf16Neon(int64_t iters) {
  bfloat16x8_t a = vdupq_n_bf16(vcvth_bf16_f32(seed));
  bfloat16x8_t b = vdupq_n_bf16(vcvth_bf16_f32(0.5f));
  float32x4_t acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = vdupq_n_f32(float(c));
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = vbfdotq_f32(acc[c], a, b);
  float32x4_t sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = vaddq_f32(sum, acc[c]);
  return vaddvq_f32(sum);
}

__attribute__((target("arch=armv8.2-a+dotprod"))) double int8Neon(int64_t iters) {
  int8_t byte = int8_t(seed * 3000); // 3
  int8x16_t a = vdupq_n_s8(byte), b = vdupq_n_s8(int8_t(-byte));
  int32x4_t acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = vdupq_n_s32(c);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c)
      acc[c] = vdotq_s32(acc[c], a, b);
  int32x4_t sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = vaddq_s32(sum, acc[c]);
  return double(vaddvq_s32(sum));
}

Kernel f32Kernel() { return {"neon", fmaNeon, kChains * 4.0}; }

Kernel bf16Kernel() {
  if (getauxval(AT_HWCAP2) & HWCAP2_BF16)
    return {"bf16", bf16Neon, kChains * 4.0 * 2};
  return {nullptr, nullptr, 0};
}

Kernel int8Kernel() {
  if (getauxval(AT_HWCAP) & HWCAP_ASIMDDP)
    return {"dotprod", int8Neon, kChains * 4.0 * 4};
  return {nullptr, nullptr, 0};
}

#else

Kernel f32Kernel() { return {nullptr, nullptr, 0}; }
Kernel bf16Kernel() { return {nullptr, nullptr, 0}; }
Kernel int8Kernel() { return {nullptr, nullptr, 0}; }

#endif

/// Pins the calling thread to the index-th CPU the process may run on, as
/// the OpenMP runtime binds its threads when asked, so that two workers
/// never share a core while another idles.
void pinToCpu(unsigned index) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
    return;
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || unsigned(seen++) != index)
      continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    return;
  }
#else
  (void)index;
#endif
}

/// The wall time of `work(thread)` run on `threads` pinned threads at once,
/// from the moment all of them are ready to the moment the last one ends
/// (thread creation and pinning excluded).
template <typename Work>
double parallelSeconds(unsigned threads, Work work) {
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      pinToCpu(t);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire))
        ;
      work(t);
    });
  while (ready.load() != threads)
    ;
  auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread &w : workers)
    w.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The kernel's peak on all threads in GMAC/s, the best of `reps` runs of
/// about 0.2 s each; the iteration count comes from a short first run, so
/// that every host, fast or slow, runs long enough to time.
double computePeak(const Kernel &kernel, unsigned threads, int reps) {
  std::vector<double> results(threads);
  int64_t iters = 1 << 16;
  auto work = [&](unsigned t) { results[t] = kernel.run(iters); };
  double seconds = parallelSeconds(threads, work);
  iters = std::max<int64_t>(iters, int64_t(iters * 0.2 / std::max(seconds, 1e-6)));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    best = std::min(best, parallelSeconds(threads, work));
    for (double result : results)
      sink = result;
  }
  return kernel.macsPerIter * double(iters) * threads / best / 1e9;
}

/// memcpy of a 256 MiB buffer, each thread its own contiguous slice, in
/// GB/s of bytes read plus bytes written.
double memcpyPeak(unsigned threads, int reps) {
  constexpr size_t kBytes = size_t(256) << 20;
  // Written once before timing, so that no timed copy faults pages in.
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  size_t chunk = (kBytes + threads - 1) / threads;
  auto copy = [&](unsigned t) {
    size_t begin = std::min(kBytes, t * chunk);
    size_t end = std::min(kBytes, begin + chunk);
    std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
  };
  // A copy takes ~10-30 ms against a compute kernel's 0.2 s, and the memory
  // bus of a shared machine is the noisiest thing here: 4x the repetitions
  // give the best a window as long as the compute peaks'.
  double best = 1e30;
  for (int r = 0; r < 4 * reps; ++r)
    best = std::min(best, parallelSeconds(threads, copy));
  sink = dst[kBytes / 2];
  return 2.0 * double(kBytes) / best / 1e9;
}

void printPeak(const char *name, const Kernel &kernel, unsigned threads,
               int reps) {
  if (!kernel.run) {
    std::printf("%s n/a\n", name);
    return;
  }
  std::printf("%s %.1f\n", name, computePeak(kernel, threads, reps));
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  if (reps < 1) {
    std::fprintf(stderr, "usage: %s [REPS >= 1]\n", argv[0]);
    return 2;
  }
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("threads %u\n", threads);
  Kernel f32 = f32Kernel();
  std::printf("f32_fma_isa %s\n", f32.isa ? f32.isa : "n/a");
  printPeak("f32_fma_gmacs", f32, threads, reps);
  printPeak("bf16_dot_gmacs", bf16Kernel(), threads, reps);
  printPeak("int8_dot_gmacs", int8Kernel(), threads, reps);
  std::printf("memcpy_gbps %.1f\n", memcpyPeak(threads, reps));
  return 0;
}
