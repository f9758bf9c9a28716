#pragma once
// A value, or the sentence that says why there is none: what a function that can fail returns
// in place of a bool and an `std::string& error` out-parameter.
//
//   common::Result<SourceFile> read(const std::string& path);
//   if (auto file = read(path)) use(*file); else std::cerr << file.error() << "\n";
#include <optional>
#include <string>
#include <utility>

namespace common {

// Why a Result holds no value: one sentence, without "error: " and without a final period.
struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Error error) : error_(std::move(error.message)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }

  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  // Why there is no value ("" when there is one).
  const std::string& error() const { return error_; }

 private:
  std::optional<T> value_;
  std::string error_;
};

}  // namespace common
