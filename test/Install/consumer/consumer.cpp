// Compress random keys with the C++ API, on this program's buffers, and
// compare with the float64 reference. Exits 1 on any failure.
#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Reference.h"

#include <cstdio>
#include <random>
#include <vector>

int main() {
  indexpool::CompressSpec spec; // bf16 keys, D = 128, dynamic T, FP8 codes
  spec.keyType = indexpool::DType::F32;
  indexpool::Status status;
  auto module = indexpool::buildCompress(spec, status);
  auto compress = module ? indexpool::compileForCpu(*module, "compress", {}, status)
                         : nullptr;
  if (!compress) {
    std::fprintf(stderr, "consumer_cpp: %s\n", status.message().c_str());
    return 1;
  }
  const int64_t tokens = 2048, dim = 128;
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::vector<float> keys(tokens * dim), scores(tokens);
  for (float &x : keys) x = normal(rng);
  for (float &x : scores) x = normal(rng);
  std::vector<uint8_t> codes(tokens / 4 * dim);
  std::vector<float> scales(tokens / 4);
  indexpool::TensorRef in[] = {{keys.data(), indexpool::DType::F32, {tokens, dim}},
                               {scores.data(), indexpool::DType::F32, {tokens}}};
  indexpool::TensorRef out[] = {
      {codes.data(), indexpool::DType::F8E4M3FN, {tokens / 4, dim}},
      {scales.data(), indexpool::DType::F32, {tokens / 4}}};
  status = compress->call(in, 2, out, 2);
  std::vector<std::string> report;
  if (status)
    status = indexpool::verifyAgainstReference(*module, "compress", in, 2, out,
                                               2, report);
  for (const std::string &line : report)
    std::printf("consumer_cpp: %s\n", line.c_str());
  if (!status) {
    std::fprintf(stderr, "consumer_cpp: %s\n", status.message().c_str());
    return 1;
  }
  std::printf("consumer_cpp: ok\n");
  return 0;
}
