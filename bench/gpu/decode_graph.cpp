//===- decode_graph.cpp - A decode step: direct launches vs a CUDA graph --===//
//
// indexpool-decode-graph-bench APPEND.json SELECT.json [--batches=1,8,64]
//     [--tokens=65536] [--steps=200]
//
// The decode step of a serving engine on IndexPool's paged cache
// (docs/serving-layout.md): append_paged of one new token per sequence, then
// select_paged of one query per sequence, for B sequences of T tokens each
// (the artifacts of bench/gpu/cache.mlir; their configuration is read back
// from the manifests). Per batch size it
//  1. runs the step with direct launches (GpuFunction::launch), then the
//     same step captured into a CUDA graph (GpuGraph) and replayed on the
//     same initial state, and checks that both leave identical bytes
//     (tokens, pages, tails): exit 1 otherwise;
//  2. times STEPS steps each way, back to back on one stream (CUDA events:
//     device time per step; the host clock: the time to issue a step), and
//     prints the graph's ratio against the direct launches, same run.
// The replays append at the same position each time (same lengths), which
// keeps the state valid for any number of steps. MLIR-free: it runs where
// only the runtime builds (bench/gpu/run-on-device.sh).
// INDEXPOOL_LIBCUDA_PATH picks the driver (the fake one in tests, whose
// times are host emulation, not a GPU's).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/GpuFunction.h"
#include "indexpool/Runtime/GpuGraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace indexpool;
using runtime::CudaDevice;
using DevicePointer = CudaDevice::DevicePointer;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "indexpool-decode-graph-bench: %s\n", message.c_str());
  return 1;
}

/// a * b, false on overflow (or a negative operand).
bool multiply(int64_t a, int64_t b, int64_t &out) {
  return a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &out);
}

void *asData(DevicePointer pointer) {
  return reinterpret_cast<void *>(uintptr_t(pointer));
}

/// The artifacts' configuration, from their operand types.
struct Config {
  int64_t dim = 0, poolSize = 0, pageBytes = 0, entries = 0, heads = 0,
          row = 0;
  bool perChannelScores = false;
  std::vector<int64_t> biasShape; // empty: no bias operand
};

bool readConfig(const GpuFunction &append, const GpuFunction &select,
                Config &c, std::string &error) {
  const size_t n = append.numInputs();
  bool shaped = (n == 7 || n == 8) && append.numOutputs() == 3 &&
                select.numInputs() == 5 && select.numOutputs() == 1 &&
                append.inputType(0).shape.size() == 3 &&
                append.inputType(n - 5).shape.size() == 3 &&
                append.inputType(n - 2).shape.size() == 2 &&
                select.inputType(0).shape.size() == 4 &&
                select.outputType(0).shape.size() == 3;
  if (!shaped) {
    error = "the artifacts are not append_paged and select_paged (expected "
            "bench/gpu/cache.mlir's operands)";
    return false;
  }
  c.dim = append.inputType(0).shape[2];
  c.perChannelScores = append.inputType(1).shape.size() == 3;
  if (n == 8)
    c.biasShape = append.inputType(2).shape;
  c.poolSize = append.inputType(n - 5).shape[1] + 1;
  c.pageBytes = append.inputType(n - 2).shape[1];
  c.heads = select.inputType(0).shape[2];
  c.row = select.outputType(0).shape[2];
  if (c.dim <= 0 || c.poolSize <= 1 || c.pageBytes <= 0 || c.heads <= 0 ||
      c.row <= 0 || c.pageBytes % (c.dim + 4) != 0 ||
      append.inputType(0).dtype != DType::F32 ||
      select.inputType(0).dtype != DType::F32) {
    error = "the artifacts need static f32 keys [?, ?, D], tails [?, P-1, D], "
            "pages [?, E*(D+4)] and queries [?, 1, H, D]";
    return false;
  }
  c.entries = c.pageBytes / (c.dim + 4);
  return true;
}

/// Device memory of the bench, freed at the end.
class Memory {
public:
  explicit Memory(CudaDevice &device) : device(device) {}
  ~Memory() {
    for (DevicePointer pointer : pointers)
      device.release(pointer);
  }
  bool upload(const void *host, size_t bytes, DevicePointer &out,
              std::string &error) {
    if (!device.allocate(bytes, out, error))
      return false;
    pointers.push_back(out);
    return device.copyToDevice(out, host, bytes, error);
  }

private:
  CudaDevice &device;
  std::vector<DevicePointer> pointers;
};

/// One batch size's operands: host copies of the initial state, device
/// memory at fixed addresses, and the two calls' TensorRefs.
struct Step {
  std::vector<float> tailKeys, tailScores;
  std::vector<int8_t> pages;
  DevicePointer pagesAt = 0, tailKeysAt = 0, tailScoresAt = 0, tokensAt = 0;
  std::vector<TensorRef> appendIn, appendOut, selectIn, selectOut;
};

std::vector<float> normals(std::mt19937 &rng, size_t n) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

/// Valid pages: finite FP8 codes (no NaN pattern) and scales in [0.5, 2).
void fillPages(std::vector<int8_t> &pages, const Config &c, uint64_t seed) {
  uint64_t state = seed | 1;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const size_t codes = size_t(c.entries * c.dim);
  for (size_t page = 0; page < pages.size() / size_t(c.pageBytes); ++page) {
    int8_t *p = pages.data() + page * size_t(c.pageBytes);
    for (size_t i = 0; i < codes; ++i)
      p[i] = int8_t(uint8_t(next() % 0x7F) | (next() & 0x80));
    for (int64_t e = 0; e < c.entries; ++e) {
      float scale = 0.5f + float(next() % 1024) / 682.0f;
      std::memcpy(p + codes + size_t(e) * 4, &scale, 4);
    }
  }
}

bool makeStep(CudaDevice &device, Memory &memory, const Config &c,
              int64_t batch, int64_t tokens, Step &s, std::string &error) {
  std::mt19937 rng(uint32_t(2026 + batch));
  // Pages per sequence: its groups, plus room for the appended token's; a
  // block table row holds at least k entries (select_paged's rule).
  const int64_t groups = tokens / c.poolSize;
  const int64_t k = (c.row - (c.poolSize - 1)) / c.poolSize;
  const int64_t pagesPerSequence =
      std::max(groups / c.entries + 1, (k + c.entries - 1) / c.entries);
  int64_t numPages, pageTotal, tailRows;
  if (!multiply(batch, pagesPerSequence, numPages) ||
      !multiply(numPages, c.pageBytes, pageTotal) ||
      !multiply(batch, c.poolSize - 1, tailRows) ||
      tokens > int64_t(INT32_MAX) - c.poolSize) {
    error = "B = " + std::to_string(batch) + " x " + std::to_string(tokens) +
            " tokens overflows the sizes";
    return false;
  }
  const size_t d = size_t(c.dim), f = sizeof(float);
  const size_t scoreWidth = c.perChannelScores ? d : 1;
  s.pages.assign(size_t(pageTotal), 0);
  fillPages(s.pages, c, uint64_t(batch) * 7919);
  s.tailKeys = normals(rng, size_t(tailRows) * d);
  s.tailScores = normals(rng, size_t(tailRows) * scoreWidth);
  std::vector<float> keys = normals(rng, size_t(batch) * d),
                     scores = normals(rng, size_t(batch) * scoreWidth),
                     query = normals(rng, size_t(batch * c.heads) * d),
                     weights = normals(rng, size_t(batch * c.heads));
  int64_t biasCount = 1;
  for (int64_t size : c.biasShape)
    biasCount *= size;
  std::vector<float> bias = normals(rng, size_t(biasCount));
  const size_t rows = static_cast<size_t>(batch);
  std::vector<int32_t> lengths(rows, static_cast<int32_t>(tokens));
  std::vector<int32_t> seen(rows, static_cast<int32_t>(tokens + 1));
  std::vector<int32_t> table(static_cast<size_t>(numPages));
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = int32_t(i); // sequence b owns pages b*N .. b*N+N-1
  std::vector<int32_t> noTokens(rows * static_cast<size_t>(c.row), 0);

  DevicePointer keysAt, scoresAt, biasAt = 0, lengthsAt, tableAt, queryAt,
                                  weightsAt, seenAt;
  if (!memory.upload(keys.data(), keys.size() * f, keysAt, error) ||
      !memory.upload(scores.data(), scores.size() * f, scoresAt, error) ||
      (!c.biasShape.empty() &&
       !memory.upload(bias.data(), bias.size() * f, biasAt, error)) ||
      !memory.upload(s.tailKeys.data(), s.tailKeys.size() * f, s.tailKeysAt,
                     error) ||
      !memory.upload(s.tailScores.data(), s.tailScores.size() * f,
                     s.tailScoresAt, error) ||
      !memory.upload(lengths.data(), lengths.size() * 4, lengthsAt, error) ||
      !memory.upload(s.pages.data(), s.pages.size(), s.pagesAt, error) ||
      !memory.upload(table.data(), table.size() * 4, tableAt, error) ||
      !memory.upload(query.data(), query.size() * f, queryAt, error) ||
      !memory.upload(weights.data(), weights.size() * f, weightsAt, error) ||
      !memory.upload(seen.data(), seen.size() * 4, seenAt, error) ||
      !memory.upload(noTokens.data(), noTokens.size() * 4, s.tokensAt, error))
    return false;
  (void)device;
  auto scoreShape = [&](int64_t rows) {
    return c.perChannelScores ? std::vector<int64_t>{batch, rows, c.dim}
                              : std::vector<int64_t>{batch, rows};
  };
  const int64_t tail = c.poolSize - 1;
  s.appendIn = {TensorRef(asData(keysAt), DType::F32, {batch, 1, c.dim}),
                TensorRef(asData(scoresAt), DType::F32, scoreShape(1))};
  if (!c.biasShape.empty())
    s.appendIn.push_back(TensorRef(asData(biasAt), DType::F32, c.biasShape));
  s.appendIn.push_back(
      TensorRef(asData(s.tailKeysAt), DType::F32, {batch, tail, c.dim}));
  s.appendIn.push_back(
      TensorRef(asData(s.tailScoresAt), DType::F32, scoreShape(tail)));
  s.appendIn.push_back(TensorRef(asData(lengthsAt), DType::I32, {batch}));
  TensorRef pages(asData(s.pagesAt), DType::I8, {numPages, c.pageBytes});
  TensorRef blockTable(asData(tableAt), DType::I32,
                       {batch, pagesPerSequence});
  s.appendIn.push_back(pages);
  s.appendIn.push_back(blockTable);
  // Pages and tails are written where they are (in_place_of).
  const size_t tailAt = s.appendIn.size() - 5;
  s.appendOut = {pages, s.appendIn[tailAt], s.appendIn[tailAt + 1]};
  s.selectIn = {TensorRef(asData(queryAt), DType::F32, {batch, 1, c.heads, c.dim}),
                TensorRef(asData(weightsAt), DType::F32, {batch, 1, c.heads}),
                pages, blockTable,
                TensorRef(asData(seenAt), DType::I32, {batch, 1})};
  s.selectOut = {TensorRef(asData(s.tokensAt), DType::I32, {batch, 1, c.row})};
  return true;
}

/// The state a step changes, back to its initial bytes.
bool reset(CudaDevice &device, const Step &s, std::string &error) {
  return device.copyToDevice(s.pagesAt, s.pages.data(), s.pages.size(),
                             error) &&
         device.copyToDevice(s.tailKeysAt, s.tailKeys.data(),
                             s.tailKeys.size() * 4, error) &&
         device.copyToDevice(s.tailScoresAt, s.tailScores.data(),
                             s.tailScores.size() * 4, error);
}

/// Every byte a step writes: tokens, pages, tails.
bool snapshot(CudaDevice &device, const Step &s, size_t tokenBytes,
              std::vector<char> &out, std::string &error) {
  const size_t pages = s.pages.size(), keys = s.tailKeys.size() * 4,
               scores = s.tailScores.size() * 4;
  out.assign(tokenBytes + pages + keys + scores, 0);
  char *at = out.data();
  return device.copyToHost(at, s.tokensAt, tokenBytes, error) &&
         device.copyToHost(at + tokenBytes, s.pagesAt, pages, error) &&
         device.copyToHost(at + tokenBytes + pages, s.tailKeysAt, keys,
                           error) &&
         device.copyToHost(at + tokenBytes + pages + keys, s.tailScoresAt,
                           scores, error);
}

/// Milliseconds per step on the device (events) and microseconds per step
/// on the host (issuing only) of `steps` calls of `issue`.
template <typename Issue>
bool timeSteps(CudaDevice &device, void *stream, int steps, Issue issue,
               double &deviceMs, double &hostUs, std::string &error) {
  CudaDevice::EventHandle start = nullptr, stop = nullptr;
  bool ok = device.createEvent(start, error) &&
            device.createEvent(stop, error);
  for (int i = 0; ok && i < 10; ++i) // warm-up
    ok = issue(error);
  ok = ok && device.synchronizeStream(stream, error) &&
       device.recordEvent(start, error, stream);
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; ok && i < steps; ++i)
    ok = issue(error);
  auto end = std::chrono::steady_clock::now();
  float ms = 0;
  ok = ok && device.recordEvent(stop, error, stream) &&
       device.elapsedMilliseconds(start, stop, ms, error);
  device.destroyEvent(start);
  device.destroyEvent(stop);
  deviceMs = double(ms) / steps;
  hostUs = std::chrono::duration<double, std::micro>(end - begin).count() /
           steps;
  return ok;
}

int runBatch(CudaDevice &device, GpuFunction &append, GpuFunction &select,
             const Config &c, int64_t batch, int64_t tokens, int steps,
             void *stream) {
  std::string error;
  Memory memory(device);
  Step s;
  if (!makeStep(device, memory, c, batch, tokens, s, error))
    return fail("B = " + std::to_string(batch) + ": " + error);
  auto direct = [&](void *on) -> Status {
    if (Status status = append.launch(s.appendIn, s.appendOut, on); !status)
      return Status::error("append_paged: " + status.message());
    if (Status status = select.launch(s.selectIn, s.selectOut, on); !status)
      return Status::error("select_paged: " + status.message());
    return Status();
  };
  const size_t tokenBytes = size_t(batch * c.row) * 4;
  std::vector<char> byDirect, byGraph;
  Status status = direct(stream);
  if (!status || !device.synchronizeStream(stream, error) ||
      !snapshot(device, s, tokenBytes, byDirect, error))
    return fail("B = " + std::to_string(batch) + ": direct step: " +
                (status ? error : status.message()));
  if (!reset(device, s, error))
    return fail(error);
  std::unique_ptr<GpuGraph> graph =
      GpuGraph::capture(device, stream, direct, status);
  if (!graph)
    return fail("B = " + std::to_string(batch) + ": " + status.message());
  status = graph->replay(stream);
  if (!status || !device.synchronizeStream(stream, error) ||
      !snapshot(device, s, tokenBytes, byGraph, error))
    return fail("B = " + std::to_string(batch) + ": graph replay: " +
                (status ? error : status.message()));
  if (byGraph != byDirect)
    return fail("B = " + std::to_string(batch) +
                ": the graph's replay left other bytes than the direct "
                "launches (tokens, pages or tails) -> FAILED");

  double directMs, directUs, graphMs, graphUs;
  auto issueDirect = [&](std::string &why) {
    Status st = direct(stream);
    why = st.message();
    return bool(st);
  };
  auto issueGraph = [&](std::string &why) {
    Status st = graph->replay(stream);
    why = st.message();
    return bool(st);
  };
  if (!timeSteps(device, stream, steps, issueDirect, directMs, directUs,
                 error) ||
      !timeSteps(device, stream, steps, issueGraph, graphMs, graphUs, error))
    return fail("B = " + std::to_string(batch) + ": " + error);
  const size_t kernels = append.manifest().launches.size() +
                         select.manifest().launches.size();
  std::printf("decode B=%lld x %lld tokens (%zu kernels/step): replay == "
              "direct; direct %.4f ms/step (issue %.1f us), graph %.4f "
              "ms/step (issue %.1f us): graph_speedup=%.2fx "
              "issue_speedup=%.2fx\n",
              (long long)batch, (long long)tokens, kernels, directMs,
              directUs, graphMs, graphUs, graphMs > 0 ? directMs / graphMs : 0.0,
              graphUs > 0 ? directUs / graphUs : 0.0);
  std::fflush(stdout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> paths;
  std::vector<int64_t> batches = {1, 8, 64};
  int64_t tokens = 65536;
  int steps = 200;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t n = std::strlen(name);
      return arg.compare(0, n, name) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char *v = value("--batches=")) {
      batches.clear();
      for (const char *p = v; *p;) {
        char *end = nullptr;
        long long b = std::strtoll(p, &end, 10);
        if (end == p || b < 1 || b > 4096)
          return fail("--batches: give sizes 1 to 4096, e.g. 1,8,64");
        batches.push_back(b);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
          return fail("--batches: give sizes 1 to 4096, e.g. 1,8,64");
      }
    } else if (const char *v = value("--tokens=")) {
      tokens = std::atoll(v);
      if (tokens < 0 || tokens > (int64_t(1) << 30))
        return fail("--tokens must be 0 to 2^30");
    } else if (const char *v = value("--steps=")) {
      steps = std::atoi(v);
      if (steps < 1 || steps > 100000)
        return fail("--steps must be 1 to 100000");
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option " + arg);
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.size() != 2)
    return fail("usage: indexpool-decode-graph-bench APPEND.json SELECT.json "
                "[--batches=1,8,64] [--tokens=65536] [--steps=200]");
  std::string error;
  const char *driver = std::getenv("INDEXPOOL_LIBCUDA_PATH");
  std::unique_ptr<CudaDevice> device =
      CudaDevice::open(error, 0, driver ? driver : "");
  if (!device)
    return fail(error);
  if (!device->supportsGraphs())
    return fail("the CUDA driver has no CUDA graphs (CUDA 11.4 or newer)");
  Status status;
  std::unique_ptr<GpuFunction> append =
      GpuFunction::load(*device, paths[0], status);
  std::unique_ptr<GpuFunction> select =
      append ? GpuFunction::load(*device, paths[1], status) : nullptr;
  if (!select)
    return fail(status.message());
  Config c;
  if (!readConfig(*append, *select, c, error))
    return fail(error);
  CudaDevice::StreamHandle stream = nullptr;
  if (!device->createStream(stream, error))
    return fail(error);
  std::printf("decode step on %s: append_paged + select_paged, D = %lld, "
              "H = %lld, P = %lld, E = %lld; %d steps each way\n",
              device->info().describe().c_str(), (long long)c.dim,
              (long long)c.heads, (long long)c.poolSize, (long long)c.entries,
              steps);
  std::fflush(stdout);
  int rc = 0;
  for (int64_t batch : batches)
    if ((rc = runBatch(*device, *append, *select, c, batch, tokens, steps,
                       stream)) != 0)
      break;
  // The functions' temporaries go before the stream and the device.
  append.reset();
  select.reset();
  device->destroyStream(stream);
  return rc;
}
