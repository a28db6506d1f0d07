//===- NpyTest.cpp - .npy reading, writing and tensor conversions ---------===//
//
// The byte layouts below are those of numpy.save: magic, version, header
// length, a dict padded with spaces to a 64-byte boundary, then the data.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <unistd.h>

using namespace indexpool;
using namespace indexpool::runtime;
using ref::ElementType;
using ref::HostTensor;

namespace {

/// A file name unique to this test and process, removed at the end.
class NpyTest : public ::testing::Test {
protected:
  void TearDown() override { std::remove(path().c_str()); }

  std::string path() const {
    return ::testing::TempDir() + "indexpool_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
           "_" + std::to_string(getpid()) + ".npy";
  }

  void writeBytes(const std::string &bytes) const {
    std::ofstream(path(), std::ios::binary) << bytes;
  }

  std::string readBytes() const {
    std::ifstream file(path(), std::ios::binary);
    return {std::istreambuf_iterator<char>(file), {}};
  }

  /// A .npy file of `version` with `dict` padded like numpy.save pads it.
  static std::string npyFile(const std::string &dict, const std::string &data,
                             int version = 1) {
    size_t prefix = version == 1 ? 10 : 12;
    std::string header = dict;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY") + char(version) + '\0';
    for (size_t i = 0; i < prefix - 8; ++i)
      file += char((header.size() >> (8 * i)) & 0xFF);
    return file + header + data;
  }

  template <typename T>
  static std::string bytesOf(std::initializer_list<T> values) {
    std::string bytes;
    for (T value : values)
      bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
    return bytes;
  }

  NpyArray read() const {
    NpyArray array;
    std::string error;
    EXPECT_TRUE(readNpy(path(), array, error)) << error;
    return array;
  }

  std::string readError() const {
    NpyArray array;
    std::string error;
    EXPECT_FALSE(readNpy(path(), array, error));
    return error;
  }
};

std::vector<char> toVector(const std::string &bytes) {
  return {bytes.begin(), bytes.end()};
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

TEST_F(NpyTest, WritesWhatNumpySaves) {
  // np.save of a 2x3 float32 array: the dict is 59 characters; 10 + 59 + 1
  // ('\n') = 70 pads to 128, so the header length is 118 and 58 spaces
  // precede the newline.
  std::string data = bytesOf<float>({1, 2, 3, 4, 5, 6});
  std::string error;
  ASSERT_TRUE(writeNpy(path(), {"<f4", {2, 3}, toVector(data)}, error))
      << error;
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(dict.size(), 59u);
  std::string expected = std::string("\x93NUMPY\x01\x00", 8) + char(118) +
                         '\0' + dict + std::string(58, ' ') + "\n" + data;
  EXPECT_EQ(readBytes(), expected);
}

TEST_F(NpyTest, RoundTripsEveryDtype) {
  struct Case {
    const char *dtype;
    std::vector<int64_t> shape;
    std::string data;
  };
  std::vector<Case> cases = {
      {"<f4", {3}, bytesOf<float>({1.5f, -2, 1e-3f})},
      {"<f8", {2, 1}, bytesOf<double>({0.1, -1e300})},
      {"<f2", {2}, bytesOf<uint16_t>({0x3C00, 0x3555})},
      {"<i4", {2, 2}, bytesOf<int32_t>({-1, 2147483647, 0, 5})},
      {"|i1", {3}, bytesOf<int8_t>({-128, 0, 127})},
      {"<i8", {1}, bytesOf<int64_t>({-5000000000})},
      {"|u1", {2}, bytesOf<uint8_t>({0, 255})},
      {"<f4", {}, bytesOf<float>({7})}, // a scalar: shape ()
      {"<f4", {0, 4}, ""},              // no elements
      {"<i4", {1, 1, 1, 2}, bytesOf<int32_t>({1, 2})},
  };
  for (const Case &c : cases) {
    std::string error;
    ASSERT_TRUE(writeNpy(path(), {c.dtype, c.shape, toVector(c.data)}, error))
        << error;
    NpyArray back = read();
    EXPECT_EQ(back.dtype, c.dtype);
    EXPECT_EQ(back.shape, c.shape);
    EXPECT_EQ(back.bytes, toVector(c.data)) << c.dtype;
  }
}

TEST_F(NpyTest, ReadsHandWrittenHeaders) {
  // Version 2.0 (4-byte length), a "(3,)" shape, no trailing comma, double
  // quotes, and '<i1' for int8 (read as '|i1').
  writeBytes(npyFile("{\"descr\": \"<i1\", \"shape\": (3,), "
                     "\"fortran_order\": False}",
                     bytesOf<int8_t>({1, -2, 3}), 2));
  NpyArray array = read();
  EXPECT_EQ(array.dtype, "|i1");
  EXPECT_EQ(array.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(array.bytes, toVector(bytesOf<int8_t>({1, -2, 3})));
}

TEST_F(NpyTest, MissingFile) {
  std::string error = readError();
  EXPECT_NE(error.find(path()), std::string::npos) << error;
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST_F(NpyTest, BadMagic) {
  writeBytes("PK\x03\x04 this is a zip file, not an npy file");
  EXPECT_EQ(readError(), path() + ": not a .npy file (bad magic)");
  writeBytes("\x93NUM");
  EXPECT_EQ(readError(), path() + ": not a .npy file (bad magic)");
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string file =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1}));
  file[6] = 4;
  writeBytes(file);
  EXPECT_EQ(readError(),
            path() +
                ": unsupported .npy version 4.0 (supported: 1.0, 2.0, 3.0)");
}

TEST_F(NpyTest, TruncatedData) {
  // A 2x3 float32 array needs 24 bytes; give it 20.
  writeBytes(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              bytesOf<float>({1, 2, 3, 4, 5})));
  EXPECT_EQ(readError(), path() + ": truncated data: shape [2, 3] of <f4 "
                                  "needs 24 bytes, the file has 20");
}

TEST_F(NpyTest, TrailingData) {
  writeBytes(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1, 2})));
  EXPECT_EQ(readError(), path() + ": trailing data: shape [1] of <f4 needs 4 "
                                  "bytes, the file has 8");
}

TEST_F(NpyTest, TruncatedHeader) {
  std::string file =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  writeBytes(file.substr(0, 40));
  EXPECT_EQ(readError(), path() + ": truncated header: it declares 118 bytes, "
                                  "the file has 30");
}

TEST_F(NpyTest, FortranOrder) {
  writeBytes(
      npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
              bytesOf<float>({1, 2, 3, 4})));
  EXPECT_EQ(readError(), path() + ": Fortran-order arrays are not supported "
                                  "(save a C-order array)");
}

TEST_F(NpyTest, UnsupportedDtypes) {
  const char *supported = " (supported: <f2 <f4 <f8 |i1 |u1 <i4 <i8)";
  writeBytes(
      npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1})));
  EXPECT_EQ(readError(), path() + ": unsupported dtype '>f4'" + supported);
  writeBytes(
      npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
              bytesOf<float>({1, 2})));
  EXPECT_EQ(readError(), path() + ": unsupported dtype '<c8'" + supported);
  std::string error;
  EXPECT_FALSE(writeNpy(path(), {"<u4", {1}, {0, 0, 0, 0}}, error));
  EXPECT_EQ(error, path() + ": unsupported dtype '<u4'" + supported);
}

TEST_F(NpyTest, EchoedHeaderTextStaysOnOneLine) {
  // A newline inside an echoed dtype or key must not break the one-line
  // error (found by fuzz/npy_reader.cpp).
  writeBytes(npyFile("{'descr': '<f\n4', 'fortran_order': False, "
                     "'shape': (1,), }",
                     bytesOf<float>({1})));
  std::string error = readError();
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("unsupported dtype '<f\\n4'"), std::string::npos)
      << error;
  writeBytes(npyFile("{'d\nr': '<f4', 'fortran_order': False, "
                     "'shape': (1,), }",
                     bytesOf<float>({1})));
  error = readError();
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("bad or unknown entry 'd\\nr'"), std::string::npos)
      << error;
}

TEST_F(NpyTest, MalformedHeaders) {
  const char *dicts[] = {
      "{'descr': '<f4', 'shape': (1,), }",                          // missing
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", // negative
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} extra",
      "{'shape': (99999999999999999999,)}", // overflows int64
      "['descr', '<f4']",
  };
  for (const char *dict : dicts) {
    writeBytes(npyFile(dict, bytesOf<float>({1})));
    std::string error = readError();
    EXPECT_EQ(error.rfind(path() + ": malformed header: ", 0), 0u)
        << dict << " -> " << error;
  }
}

TEST_F(NpyTest, ShapeTooLargeForTheAddressSpace) {
  writeBytes(npyFile("{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296), }",
                     ""));
  EXPECT_EQ(readError(),
            path() + ": shape [4294967296, 4294967296] has more than 2^30 "
                     "elements (the limit of host tensors)");
  // One element past indexpool-run's and indexpool-launch's limit, before
  // any data is read.
  writeBytes(npyFile("{'descr': '|i1', 'fortran_order': False, "
                     "'shape': (1073741825,), }",
                     ""));
  EXPECT_EQ(readError(), path() + ": shape [1073741825] has more than 2^30 "
                                  "elements (the limit of host tensors)");
}

TEST_F(NpyTest, AZeroSizeMakesAnEmptyArrayWhateverTheOtherSizes) {
  // The other sizes' product fits int64 for 1-byte items but not for 4-byte
  // ones: the element count is 0 either way, and what is read is written
  // back unchanged (a fuzz finding).
  writeBytes(npyFile("{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (8000000000, 355369148, 0, 4), }",
                     ""));
  NpyArray array;
  std::string error;
  ASSERT_TRUE(readNpy(path(), array, error)) << error;
  EXPECT_EQ(array.shape,
            (std::vector<int64_t>{8000000000, 355369148, 0, 4}));
  EXPECT_TRUE(array.bytes.empty());
  ASSERT_TRUE(writeNpy(path(), array, error)) << error;
  NpyArray again;
  ASSERT_TRUE(readNpy(path(), again, error)) << error;
  EXPECT_EQ(again.shape, array.shape);
  EXPECT_EQ(ref::numElements({1 << 30, 1 << 30, 1 << 30, 0}), 0);
  EXPECT_EQ(ref::numElements({int64_t(1) << 32, int64_t(1) << 32}), -1);
  EXPECT_EQ(ref::numElements({}), 1);
}

TEST_F(NpyTest, HeaderLongerThanTheLimit) {
  // Version 2.0 declares its header length in 4 bytes: 2^20 + 1 here.
  std::string file = std::string("\x93NUMPY") + char(2) + '\0';
  file += std::string("\x01\x00\x10\x00", 4);
  writeBytes(file);
  EXPECT_EQ(readError(), path() + ": the header declares 1048577 bytes, more "
                                  "than the limit of 1048576");
}

TEST(NpyStreamTest, DevicesAndDirectories) {
  NpyArray array;
  std::string error;
  EXPECT_FALSE(readNpy("/dev/zero", array, error));
  EXPECT_EQ(error, "/dev/zero: not a .npy file (bad magic)");
  EXPECT_FALSE(readNpy("/", array, error));
  EXPECT_EQ(error, "/: not a regular file (a directory)");
}

TEST_F(NpyTest, StreamsStopAfterTheDeclaredData) {
  // A pipe: the array, then zeros for as long as anyone reads.
  std::string file =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
              bytesOf<float>({1.5f, -2.0f}));
  for (bool endless : {false, true}) {
    std::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::thread writer([&] {
      bool ok = write(fds[1], file.data(), file.size()) == ssize_t(file.size());
      char zeros[4096] = {};
      while (ok && endless)
        ok = write(fds[1], zeros, sizeof(zeros)) > 0;
      close(fds[1]);
    });
    std::string path = "/dev/fd/" + std::to_string(fds[0]);
    NpyArray array;
    std::string error;
    bool read = readNpy(path, array, error);
    close(fds[0]);
    writer.join();
    if (endless) {
      EXPECT_FALSE(read);
      EXPECT_EQ(error, path + ": trailing data: shape [2] of <f4 needs 8 "
                              "bytes, the file has more");
    } else {
      ASSERT_TRUE(read) << error;
      EXPECT_EQ(array.shape, std::vector<int64_t>{2});
      ASSERT_EQ(array.bytes.size(), 8u);
      float got[2];
      std::memcpy(got, array.bytes.data(), sizeof(got));
      EXPECT_EQ(got[0], 1.5f);
      EXPECT_EQ(got[1], -2.0f);
    }
  }
}

TEST_F(NpyTest, WriteChecksTheByteCount) {
  std::string error;
  EXPECT_FALSE(writeNpy(path(), {"<f4", {2}, {0, 0, 0, 0}}, error));
  EXPECT_EQ(error, path() + ": 4 bytes do not make shape [2] of <f4");
  EXPECT_FALSE(
      writeNpy("/nonexistent-dir/x.npy", {"<f4", {}, {0, 0, 0, 0}}, error));
  EXPECT_EQ(error.rfind("/nonexistent-dir/x.npy: cannot create: ", 0), 0u)
      << error;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

HostTensor convert(const NpyArray &array, ElementType type) {
  HostTensor tensor;
  std::string error;
  EXPECT_TRUE(npyToHostTensor(array, type, tensor, error)) << error;
  return tensor;
}

std::string conversionError(const NpyArray &array, ElementType type) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(npyToHostTensor(array, type, tensor, error));
  return error;
}

template <typename T>
NpyArray arrayOf(const char *dtype, std::vector<int64_t> shape,
                 std::initializer_list<T> values) {
  NpyArray array{dtype, std::move(shape), {}};
  for (T value : values) {
    const char *raw = reinterpret_cast<const char *>(&value);
    array.bytes.insert(array.bytes.end(), raw, raw + sizeof(T));
  }
  return array;
}

TEST(NpyConversionTest, FloatArraysRoundToNearestEven) {
  // float32 1 + 2^-8 ties to bf16 1.0; 1 + 3*2^-8 ties to 1 + 2^-6.
  NpyArray array = arrayOf<float>("<f4", {2}, {1.00390625f, 1.01171875f});
  HostTensor bf16 = convert(array, ElementType::BF16);
  EXPECT_EQ(bf16.type, ElementType::BF16);
  EXPECT_EQ(bf16.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(bf16.data, (std::vector<double>{1.0, 1.015625}));
  // f8: 449 saturates to 448, 0.3 -> 0.3125, -1000 -> -448.
  HostTensor f8 = convert(arrayOf<float>("<f4", {3}, {449, 0.3f, -1000}),
                          ElementType::F8E4M3FN);
  EXPECT_EQ(f8.data, (std::vector<double>{448, 0.3125, -448}));
  // float16 bits 0x3C00 = 1, 0x3555 = 1365/4096 (see NumericsTest).
  HostTensor fromHalf = convert(arrayOf<uint16_t>("<f2", {2}, {0x3C00, 0x3555}),
                                ElementType::F32);
  EXPECT_EQ(fromHalf.data, (std::vector<double>{1.0, 1365.0 / 4096}));
  // float64 0.1 rounds once to f16 0x2E66 = 1638/16384.
  EXPECT_EQ(convert(arrayOf<double>("<f8", {1}, {0.1}), ElementType::F16).data,
            (std::vector<double>{1638.0 / 16384}));
}

TEST(NpyConversionTest, IntegerArraysMustFit) {
  EXPECT_EQ(
      convert(arrayOf<int8_t>("|i1", {2}, {-128, 5}), ElementType::I8).data,
      (std::vector<double>{-128, 5}));
  EXPECT_EQ(
      convert(arrayOf<int64_t>("<i8", {1}, {2147483647}), ElementType::I32)
          .data,
      (std::vector<double>{2147483647}));
  EXPECT_EQ(convert(arrayOf<uint8_t>("|u1", {1}, {255}), ElementType::I32).data,
            (std::vector<double>{255}));
  EXPECT_EQ(
      conversionError(arrayOf<int32_t>("<i4", {2}, {1, 300}), ElementType::I8),
      "element 1 = 300 is out of range for i8");
  EXPECT_EQ(conversionError(arrayOf<int64_t>("<i8", {1}, {2147483648}),
                            ElementType::I32),
            "element 0 = 2147483648 is out of range for i32");
  EXPECT_EQ(
      conversionError(arrayOf<uint8_t>("|u1", {1}, {255}), ElementType::I8),
      "element 0 = 255 is out of range for i8");
}

TEST(NpyConversionTest, FloatAndIntegerDoNotMix) {
  EXPECT_EQ(conversionError(arrayOf<float>("<f4", {1}, {1}), ElementType::I8),
            "a <f4 array cannot be a i8 tensor: expected an integer array");
  EXPECT_EQ(
      conversionError(arrayOf<int32_t>("<i4", {1}, {1}), ElementType::F32),
      "a <i4 array cannot be a f32 tensor: expected a float array");
  EXPECT_EQ(conversionError({"<f4", {2}, {0, 0, 0}}, ElementType::F32),
            "3 bytes do not make shape [2] of <f4");
}

TEST(NpyConversionTest, TensorsToArrays) {
  // bf16, f16 and f8 results go out as float32 holding the decoded values.
  NpyArray bf16 = hostTensorToNpy({ElementType::BF16, {2}, {1.015625, -2}});
  EXPECT_EQ(bf16.dtype, "<f4");
  EXPECT_EQ(bf16.bytes, arrayOf<float>("<f4", {2}, {1.015625f, -2}).bytes);
  NpyArray f8 = hostTensorToNpy({ElementType::F8E4M3FN, {1, 1}, {448}});
  EXPECT_EQ(f8.dtype, "<f4");
  EXPECT_EQ(f8.shape, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(f8.bytes, arrayOf<float>("<f4", {1}, {448}).bytes);
  NpyArray i8 = hostTensorToNpy({ElementType::I8, {2}, {-5, 127}});
  EXPECT_EQ(i8.dtype, "|i1");
  EXPECT_EQ(i8.bytes, arrayOf<int8_t>("|i1", {2}, {-5, 127}).bytes);
  NpyArray i32 = hostTensorToNpy({ElementType::I32, {2}, {-1, 123456}});
  EXPECT_EQ(i32.dtype, "<i4");
  EXPECT_EQ(i32.bytes, arrayOf<int32_t>("<i4", {2}, {-1, 123456}).bytes);
}

TEST_F(NpyTest, TensorThroughAFileAndBack) {
  for (ElementType type :
       {ElementType::F32, ElementType::F16, ElementType::BF16,
        ElementType::F8E4M3FN, ElementType::I8, ElementType::I32}) {
    HostTensor tensor{type, {2, 3}, {1, -2, 0.5, 3, 0, -0.25}};
    if (!ref::isFloatType(type))
      tensor.data = {1, -2, 5, 3, 0, -7};
    std::string error;
    ASSERT_TRUE(writeNpy(path(), hostTensorToNpy(tensor), error)) << error;
    HostTensor back = convert(read(), type);
    EXPECT_EQ(back.type, type);
    EXPECT_EQ(back.shape, tensor.shape);
    EXPECT_EQ(back.data, tensor.data) << ref::elementTypeName(type);
  }
}

} // namespace
