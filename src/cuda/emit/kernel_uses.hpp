#pragma once
// What a kernel's body uses that its header or its launch must provide, recorded as the body is
// written: the 16-bit types' includes, tf32 rounding, the mma.sync and cp.async helpers, the
// wgmma instructions by shape (and with them Hopper's architecture), and the tensor maps the
// kernel takes as parameters.
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "src/cuda/emit/emitter.hpp"

namespace cudaburg::emit_internal {

class KernelUses {
 public:
  // `t`'s name in CUDA, its include then used.
  std::string cudaType(ScalarType t);
  void useTf32Round() { tf32_ = true; }
  void useMma() { mma_ = true; }
  void useAsyncCopies() { asyncCopies_ = true; }
  // A wgmma of N `n` and operand type `t`, B K-major or not (16-bit B N-major unless it is).
  void useWgmma(int64_t n, ScalarType t, bool kMajorB) { wgmmaShapes_.insert({n, t, kMajorB}); }
  // The same with A from registers.
  void useWgmmaRegisterA(int64_t n, ScalarType t) { wgmmaRegisterShapes_.insert({n, t}); }
  // A tensor-map parameter, once however many stages read through it.
  void useTensorMap(const TensorMapParam& map);

  bool mma() const { return mma_; }
  const std::set<std::tuple<int64_t, ScalarType, bool>>& wgmmaShapes() const { return wgmmaShapes_; }
  const std::set<std::pair<int64_t, ScalarType>>& wgmmaRegisterShapes() const { return wgmmaRegisterShapes_; }
  const std::vector<TensorMapParam>& tensorMaps() const { return tensorMaps_; }
  // The architecture the kernel needs beyond the default ("" when none): sm_90a for wgmma.
  std::string requiredArch() const;

  // The header's includes and tf32 rounding; its cp.async helpers.
  std::string typeHelpers() const;
  std::string asyncCopyHelpers() const;

 private:
  bool half_ = false;
  bool bfloat16_ = false;
  bool tf32_ = false;  // reads of tf32 arrays, rounded by tf32_round()
  bool mma_ = false;   // mma.sync and ldmatrix helpers
  bool asyncCopies_ = false;
  std::set<std::tuple<int64_t, ScalarType, bool>> wgmmaShapes_;
  std::set<std::pair<int64_t, ScalarType>> wgmmaRegisterShapes_;
  std::vector<TensorMapParam> tensorMaps_;  // after the kernel's arrays, in order
};

}  // namespace cudaburg::emit_internal
