#pragma once
// What a transformation returns: the new kernel, or a refusal that says why.
#include <optional>
#include <string>

#include "common/result.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct TransformResult {
  std::optional<Kernel> kernel;  // set when the transformation applied
  common::Reason reason;         // why it refused (empty when it applied)

  bool ok() const { return kernel.has_value(); }
  explicit operator bool() const { return ok(); }

  static TransformResult success(Kernel k) { return {std::move(k), {}}; }
  static TransformResult refuse(std::string why) { return {std::nullopt, std::move(why)}; }
};

}  // namespace cudaburg
