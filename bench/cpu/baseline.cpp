//===- baseline.cpp - anchors for the CPU benchmark -----------------------===//
//
// The anchors the JIT-compiled compress is measured against, on the same
// shapes: (a) memcpy of as many bytes as compress reads and writes, on one
// thread and split across all hardware threads (the compiled code uses them
// all, so the fair anchor is the faster of the two), and (b) a plain C++ loop
// computing compress (bf16 keys, per-channel scores, rotate, FP8 e4m3 with
// pow2 scale), one thread, written the obvious way.
//
// Usage: indexpool-bench-baseline T D REPS
// Prints one line per measurement: `name median_ms bytes`.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

constexpr int kPool = 4;

float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

/// f32 -> e4m3fn, round to nearest even, saturating (|x| <= 448 here).
uint8_t floatToE4M3(float x) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  float a = std::min(std::fabs(x), 448.0f);
  if (a < 0.015625f)
    return sign | uint8_t(std::nearbyint(a * 512.0f));
  uint32_t bits;
  std::memcpy(&bits, &a, 4);
  bits = (bits + 0x7FFFF + ((bits >> 20) & 1)) >> 20;
  return sign | uint8_t(bits - (120 << 3));
}

void hadamard(float *x, int d) {
  for (int h = 1; h < d; h *= 2)
    for (int i = 0; i < d; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        float a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
  float norm = 1.0f / std::sqrt(float(d));
  for (int i = 0; i < d; ++i)
    x[i] *= norm;
}

struct Buffers {
  std::vector<uint16_t> keys;
  std::vector<float> scores, bias, weights, scales;
  std::vector<uint8_t> codes;
};

void compress(Buffers &b, int64_t t, int d) {
  std::vector<float> row(d);
  for (int64_t g = 0; g < t / kPool; ++g) {
    for (int c = 0; c < d; ++c) {
      float x[kPool], m = -INFINITY, z = 0;
      for (int s = 0; s < kPool; ++s) {
        x[s] = b.scores[(g * kPool + s) * d + c] + b.bias[s * d + c];
        m = std::max(m, x[s]);
      }
      for (int s = 0; s < kPool; ++s)
        z += x[s] = std::exp(x[s] - m);
      float acc = 0;
      for (int s = 0; s < kPool; ++s) {
        float w = x[s] / z;
        b.weights[(g * kPool + s) * d + c] = w;
        acc += w * bf16ToFloat(b.keys[(g * kPool + s) * d + c]);
      }
      row[c] = bf16ToFloat(floatToBf16(acc));
    }
    hadamard(row.data(), d);
    float absmax = 1e-4f;
    for (int c = 0; c < d; ++c) {
      row[c] = bf16ToFloat(floatToBf16(row[c]));
      absmax = std::max(absmax, std::fabs(row[c]));
    }
    float scale = std::exp2(std::ceil(std::log2(absmax / 448.0f)));
    b.scales[g] = scale;
    for (int c = 0; c < d; ++c)
      b.codes[g * d + c] = floatToE4M3(row[c] / scale);
  }
}

template <typename F>
double medianMs(int reps, F &&f) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    auto stop = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s T D REPS\n", argv[0]);
    return 1;
  }
  int64_t t = std::atoll(argv[1]);
  int d = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  if (t < kPool || d < 1 || (d & (d - 1)) || reps < 1) {
    std::fprintf(stderr, "error: need T >= 4, D a power of two, REPS >= 1\n");
    return 1;
  }
  int64_t g = t / kPool;
  Buffers b;
  b.keys.resize(t * d);
  b.scores.resize(t * d);
  b.bias.resize(kPool * d);
  b.weights.resize(g * kPool * d);
  b.scales.resize(g);
  b.codes.resize(g * d);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (auto &k : b.keys)
    k = floatToBf16(normal(rng));
  for (auto &s : b.scores)
    s = normal(rng);
  for (auto &s : b.bias)
    s = normal(rng);

  // Bytes compress moves: keys, scores, bias in; codes, scales, weights out.
  int64_t bytes = t * d * 2 + t * d * 4 + kPool * d * 4 + g * d + g * 4 +
                  g * kPool * d * 4;
  std::vector<char> src(bytes, 1), dst(bytes);
  double copy = medianMs(reps, [&] {
    std::memcpy(dst.data(), src.data(), bytes);
    // The copy must happen: dst escapes to the compiler.
    asm volatile("" : : "r"(dst.data()) : "memory");
  });
  std::printf("memcpy %.3f %lld\n", copy, (long long)bytes);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  double parallelCopy = medianMs(reps, [&] {
    std::vector<std::thread> workers;
    int64_t chunk = (bytes + threads - 1) / threads;
    for (unsigned i = 0; i < threads; ++i) {
      int64_t begin = std::min<int64_t>(bytes, i * chunk);
      int64_t end = std::min<int64_t>(bytes, begin + chunk);
      workers.emplace_back([&, begin, end] {
        std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
      });
    }
    for (std::thread &w : workers)
      w.join();
    asm volatile("" : : "r"(dst.data()) : "memory");
  });
  std::printf("memcpy_%u_threads %.3f %lld\n", threads, parallelCopy,
              (long long)bytes);
  double plain = medianMs(reps, [&] { compress(b, t, d); });
  std::printf("cxx_scalar_compress %.3f %lld\n", plain, (long long)bytes);
  // Keep the result observable so the loop is not optimized away.
  unsigned sum = 0;
  for (uint8_t c : b.codes)
    sum += c;
  std::fprintf(stderr, "checksum %u\n", sum);
  return 0;
}
