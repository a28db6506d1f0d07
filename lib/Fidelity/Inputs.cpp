//===- Inputs.cpp - the keys and queries the fidelity tools read ----------===//

#include "indexpool/Fidelity/Inputs.h"

#include "indexpool/Runtime/Npy.h"

#include <cstring>

namespace indexpool::fidelity {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Status readFloat32(const std::string &what, const std::string &path,
                   FloatArray &out) {
  runtime::NpyArray array;
  std::string error;
  if (!runtime::readNpy(path, array, error))
    return Status::error(what + ": " + error);
  if (array.dtype != "<f4")
    return Status::error(what + ": " + path + " holds " + array.dtype +
                         ", expected float32 (<f4)");
  out.shape = array.shape;
  out.values.resize(array.bytes.size() / sizeof(float));
  std::memcpy(out.values.data(), array.bytes.data(), array.bytes.size());
  return Status();
}

std::vector<float> padColumns(const std::vector<float> &values, int64_t rows,
                              int64_t cols, int64_t paddedCols) {
  std::vector<float> padded(size_t(rows * paddedCols), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(padded.data() + r * paddedCols, values.data() + r * cols,
                size_t(cols) * sizeof(float));
  return padded;
}

Matrix toMatrix(const std::vector<float> &values, int64_t rows, int64_t cols) {
  Matrix matrix(rows, cols);
  for (size_t i = 0; i < matrix.data.size(); ++i)
    matrix.data[i] = values[i];
  return matrix;
}

Status readKeysAndQueries(const std::string &keysPath,
                          const std::string &queriesPath, FloatArray &keys,
                          FloatArray &queries) {
  if (Status status = readFloat32("--keys", keysPath, keys); !status)
    return status;
  if (Status status = readFloat32("--queries", queriesPath, queries); !status)
    return status;
  if (keys.shape.size() != 2 || keys.shape[0] == 0 || keys.shape[1] == 0)
    return Status::error("--keys: expected a non-empty [T, D] array, got " +
                         shapeText(keys.shape));
  if (queries.shape != keys.shape)
    return Status::error("--queries: expected the keys' shape " +
                         shapeText(keys.shape) + ", got " +
                         shapeText(queries.shape));
  return Status();
}

Status checkPoolSizeAndK(int64_t poolSize, int64_t k) {
  if (!isPowerOfTwo(poolSize) || poolSize < 2 || poolSize > 64)
    return Status::error("--pool-size=" + std::to_string(poolSize) +
                         " must be a power of two in [2, 64]");
  if (k <= 0 || k % poolSize != 0)
    return Status::error("--k=" + std::to_string(k) +
                         " must be a positive multiple of the pool size " +
                         std::to_string(poolSize));
  return Status();
}

} // namespace indexpool::fidelity
