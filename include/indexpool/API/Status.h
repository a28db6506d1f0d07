//===- Status.h - the outcome of an IndexPool API call ----------*- C++ -*-===//
//
// Every call of the embedding API that can fail returns a Status: ok, or one
// message saying what was wrong (the compiler's diagnostics, with their
// file:line:col, included). No exceptions cross the API, so that engines
// built without them and the C API can use it as is.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_STATUS_H
#define INDEXPOOL_API_STATUS_H

#include <string>
#include <utility>

namespace indexpool {

class Status {
public:
  /// Success.
  Status() = default;
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  /// Empty on success.
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

} // namespace indexpool

#endif // INDEXPOOL_API_STATUS_H
