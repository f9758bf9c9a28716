#include "src/cuda/emit/kernel_uses.hpp"

#include <algorithm>

namespace cudaburg::emit_internal {

std::string KernelUses::cudaType(ScalarType t) {
  if (t == ScalarType::Half) half_ = true;
  if (t == ScalarType::BFloat16) bfloat16_ = true;
  return cudaTypeName(t);
}

void KernelUses::useTensorMap(const TensorMapParam& map) {
  if (std::find(tensorMaps_.begin(), tensorMaps_.end(), map) == tensorMaps_.end()) tensorMaps_.push_back(map);
}

// wgmma: Hopper's architecture-specific features.
std::string KernelUses::requiredArch() const {
  return wgmmaShapes_.empty() && wgmmaRegisterShapes_.empty() ? "" : "sm_90a";
}

std::string KernelUses::typeHelpers() const {
  std::string h;
  if (half_) h += "#include <cuda_fp16.h>\n";
  if (bfloat16_) h += "#include <cuda_bf16.h>\n";
  if (tf32_)
    h += "\n// A tf32 element as tensor cores read it: rounded to TF32 (10 bits of mantissa), ties away.\n"
         "__device__ __forceinline__ float tf32_round(float x) {\n"
         "  unsigned r;\n"
         "  asm(\"cvt.rna.tf32.f32 %0, %1;\\n\" : \"=r\"(r) : \"f\"(x));\n"
         "  return __uint_as_float(r);\n"
         "}\n";
  return h;
}

std::string KernelUses::asyncCopyHelpers() const {
  if (!asyncCopies_) return "";
  return "\n// Asynchronous copies into shared memory (sm_80 and later); outside the source, zeros.\n"
         "template <int Bytes>\n"
         "__device__ __forceinline__ void async_copy(void* shared, const void* global, bool inside) {\n"
         "  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));\n"
         "  if (Bytes == 16)\n"
         "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" :: \"r\"(to), \"l\"(global), "
         "\"r\"(inside ? 16 : 0));\n"
         "  else\n"
         "    asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2, %3;\\n\" :: \"r\"(to), \"l\"(global), "
         "\"n\"(Bytes),\n"
         "                 \"r\"(inside ? Bytes : 0));\n"
         "}\n"
         "__device__ __forceinline__ void async_commit() { asm volatile(\"cp.async.commit_group;\\n\" ::); }\n"
         "template <int Pending>\n"
         "__device__ __forceinline__ void async_wait() { asm volatile(\"cp.async.wait_group %0;\\n\" :: "
         "\"n\"(Pending)); }\n";
}

}  // namespace cudaburg::emit_internal
