#pragma once
// A value, or the sentence that says why there is none: what a function that can fail returns
// in place of a bool and an `std::string& error` out-parameter.
//
//   common::Result<SourceFile> read(const std::string& path);
//   if (auto file = read(path)) use(*file); else std::cerr << file.reason() << "\n";
//
// Every result that can fail says why in one place of one name: reason() here, and a field
// `common::Reason reason` in the result structs that hold more than a value (a run's status and
// times, a compilation's log and resources).
#include <optional>
#include <string>
#include <utility>

namespace common {

// Why something failed or was refused: one sentence, without "error: " and without a final
// period; empty when it did not fail. Reports and tests show it as it is.
using Reason = std::string;

// What a function returns in place of a value that it cannot make.
struct Error {
  Reason reason;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Error error) : reason_(std::move(error.reason)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }

  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  // Why there is no value ("" when there is one).
  const Reason& reason() const { return reason_; }

 private:
  std::optional<T> value_;
  Reason reason_;
};

}  // namespace common
