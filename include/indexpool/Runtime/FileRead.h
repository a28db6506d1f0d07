//===- FileRead.h - whole input files, read with a byte limit ---*- C++ -*-===//
//
// Every file the tools read goes through here, with a limit per kind of
// file, so that no input can make a tool read forever or exhaust memory: a
// character device (/dev/zero), a FIFO fed without end, or a huge file ends
// in one line "PATH: larger than the limit of N bytes (KIND)". A regular
// file is judged by its size before anything is read; a FIFO, a character
// device or standard input ("-") is read until its end or one byte past the
// limit. Directories, block devices and sockets are refused ("PATH: not a
// regular file"). A FIFO waits for its writer, as with any reader (reading
// it as empty before the writer came would be a silent wrong answer).
//
// Header-only and MLIR-free: the MLIR-free runtime and the compiler's
// libraries (the tuning database of lib/Transforms, indexpool-opt) both use
// it, and the latter do not link the runtime. POSIX only, like the runtime's
// dlopen of the CUDA driver.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_FILEREAD_H
#define INDEXPOOL_RUNTIME_FILEREAD_H

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace indexpool::runtime {

/// .mlir text given to indexpool-opt, indexpool-run and indexpool-compile:
/// the IndexPool programs are a few kilobytes; 256 MiB leaves room for
/// modules with large dense constants.
constexpr int64_t kMaxMlirTextBytes = int64_t(256) << 20;
/// JSON: manifests (a few kilobytes per function) and tuning databases.
constexpr int64_t kMaxJsonBytes = int64_t(64) << 20;
/// A manifest's kernel binary (cubin or PTX): one function's kernels are
/// at most a few megabytes.
constexpr int64_t kMaxKernelBinaryBytes = int64_t(256) << 20;
/// The most elements of one host tensor: an input .npy of indexpool-run and
/// indexpool-launch, a result of indexpool-run, an input or output buffer of
/// indexpool-launch (8 GiB of float64 values in the reference).
constexpr int64_t kMaxHostElements = int64_t(1) << 30;
/// A .npy header (NumPy itself refuses headers over 10000 bytes by default).
constexpr int64_t kMaxNpyHeaderBytes = int64_t(1) << 20;
/// A whole .npy file: magic, version, header length, header, and at most
/// kMaxHostElements elements of the widest supported dtype (8 bytes).
constexpr int64_t kMaxNpyBytes =
    12 + kMaxNpyHeaderBytes + kMaxHostElements * 8;

/// "256 MiB" for a multiple of 1 MiB, else the byte count.
inline std::string byteSizeText(int64_t bytes) {
  if (bytes >= (int64_t(1) << 20) && bytes % (int64_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// A file opened for reading, closed with the object.
class InputFile {
public:
  InputFile() = default;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile() {
    if (fd > STDIN_FILENO)
      ::close(fd);
  }

  /// Opens `path` ("-": standard input, "<stdin>" in messages). On failure
  /// returns false and sets `reason` to why, without the path (e.g. "No
  /// such file or directory", "not a regular file"), so that callers word
  /// the line.
  bool open(const std::string &path, std::string &reason) {
    name = path == "-" ? "<stdin>" : path;
    if (path == "-") {
      fd = STDIN_FILENO;
    } else {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        reason = std::strerror(errno);
        return false;
      }
    }
    struct stat info;
    if (::fstat(fd, &info) != 0) {
      reason = std::strerror(errno);
      return false;
    }
    regular = S_ISREG(info.st_mode);
    if (!regular && !S_ISFIFO(info.st_mode) && !S_ISCHR(info.st_mode) &&
        path != "-") {
      notAFile = true;
      reason = S_ISDIR(info.st_mode) ? "not a regular file (a directory)"
                                     : "not a regular file";
      return false;
    }
    size = regular ? int64_t(info.st_size) : -1;
    return true;
  }

  /// open(), with the failure as one line naming the path: "PATH: cannot
  /// open: why" or "PATH: not a regular file".
  bool openOrExplain(const std::string &path, std::string &error) {
    std::string reason;
    if (open(path, reason))
      return true;
    error = name + ": " + (notAFile ? "" : "cannot open: ") + reason;
    return false;
  }

  /// Regular files: the size when opened; -1 for streams.
  int64_t sizeInBytes() const { return size; }
  bool isRegular() const { return regular; }
  /// Whether open() failed because the path is a directory, a block device
  /// or a socket.
  bool isNotAFile() const { return notAFile; }
  const std::string &path() const { return name; }

  /// Appends up to `bytes` bytes to `out` (a std::string or
  /// std::vector<char>), fewer only at the end of the file; `*got` is the
  /// count appended. Fails with "PATH: cannot read: why".
  template <typename Container>
  bool read(int64_t bytes, Container &out, std::string &error,
            int64_t *got = nullptr) {
    int64_t total = 0;
    while (total < bytes) {
      // Chunks, so that a short stream never allocates the whole request.
      size_t chunk = size_t(std::min<int64_t>(bytes - total, int64_t(1) << 20));
      size_t old = out.size();
      out.resize(old + chunk);
      ssize_t n = ::read(fd, &out[old], chunk);
      if (n < 0 && errno == EINTR) {
        out.resize(old);
        continue;
      }
      if (n < 0) {
        out.resize(old);
        error = name + ": cannot read: " + std::strerror(errno);
        return false;
      }
      out.resize(old + size_t(n));
      if (n == 0)
        break;
      total += n;
    }
    if (got)
      *got = total;
    return true;
  }

  /// Reads everything that is left into `out` when it is at most `limit`
  /// bytes; else fails with "PATH: larger than the limit of N bytes (M MiB)
  /// for KIND", `kind` naming what the file is (e.g. "a manifest").
  template <typename Container>
  bool readAll(int64_t limit, const char *kind, Container &out,
               std::string &error) {
    out.clear();
    if (regular && size > limit)
      return tooLarge(limit, kind, error);
    // A regular file may still grow while being read: read one byte past
    // the limit whatever the file is.
    int64_t got = 0;
    if (!read(limit + 1, out, error, &got))
      return false;
    if (got > limit) {
      out.clear();
      return tooLarge(limit, kind, error);
    }
    return true;
  }

  /// The message for a file over `limit` bytes.
  bool tooLarge(int64_t limit, const char *kind, std::string &error) const {
    std::string mib = byteSizeText(limit);
    error = name + ": larger than the limit of " + std::to_string(limit) +
            " bytes" + (mib.back() == 'B' ? " (" + mib + ")" : "") + " for " +
            kind;
    return false;
  }

private:
  int fd = -1;
  bool regular = false;
  bool notAFile = false;
  int64_t size = -1;
  std::string name;
};

/// Opens `path` and reads it whole when it holds at most `limit` bytes.
/// Errors are one line naming the path: "PATH: cannot open: why",
/// "PATH: not a regular file", "PATH: larger than the limit of N bytes
/// (...)", "PATH: cannot read: why".
template <typename Container>
bool readFileWithLimit(const std::string &path, int64_t limit,
                       const char *kind, Container &contents,
                       std::string &error) {
  InputFile file;
  return file.openOrExplain(path, error) &&
         file.readAll(limit, kind, contents, error);
}

/// The name MLIR gives a buffer read from `path` (its diagnostics' file).
inline std::string inputBufferName(const std::string &path) {
  return path == "-" ? "<stdin>" : path;
}

/// The deepest nesting of brackets ((), [], {}, <>) MLIR text may have:
/// MLIR's parser recurses once per level and ~20000 levels overflow an
/// 8 MiB stack; IndexPool programs nest about ten.
constexpr int kMaxMlirNesting = 1000;

/// "" when `text` nests at most kMaxMlirNesting brackets deep (strings and
/// // comments aside), else "NAME:LINE: more than 1000 levels of nested
/// brackets (...)", checked before MLIR's parser sees the text.
inline std::string mlirNestingError(const std::string &text,
                                    const std::string &name) {
  std::string open; // the unclosed brackets, innermost last
  int64_t line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') { // a string: to its closing quote
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      open.push_back(c);
      if (open.size() > size_t(kMaxMlirNesting))
        return name + ":" + std::to_string(line) + ": more than " +
               std::to_string(kMaxMlirNesting) +
               " levels of nested brackets (refused before parsing: the "
               "parser recurses once per level)";
    } else if (c == '>') { // '->' closes nothing
      if (!open.empty() && open.back() == '<')
        open.pop_back();
    } else if (c == ')' || c == ']' || c == '}') {
      const char match = c == ')' ? '(' : c == ']' ? '[' : '{';
      while (!open.empty() && open.back() == '<') // an unpaired '<'
        open.pop_back();
      if (!open.empty() && open.back() == match)
        open.pop_back();
    }
  }
  return "";
}

/// The .mlir input of indexpool-opt, indexpool-run and indexpool-compile
/// ("-": standard input), at most kMaxMlirTextBytes. A file that cannot be
/// opened gets the wording of MLIR's openInputFile, which the tools used
/// before: "cannot open input file 'PATH': why".
inline bool readMlirInput(const std::string &path, std::string &text,
                          std::string &error) {
  InputFile file;
  std::string reason;
  if (!file.open(path, reason)) {
    error = file.isNotAFile() ? path + ": " + reason
                              : "cannot open input file '" + path +
                                    "': " + reason;
    return false;
  }
  if (!file.readAll(kMaxMlirTextBytes, "an .mlir input", text, error))
    return false;
  error = mlirNestingError(text, inputBufferName(path));
  return error.empty();
}

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_FILEREAD_H
