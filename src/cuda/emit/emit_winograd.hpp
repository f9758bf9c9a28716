#pragma once
// The emitter's Winograd convolution: a kernel the winograd step made (Kernel::winograd) becomes
// one fused kernel (see emit_winograd.cpp). Not part of the emitter's interface.
#include "src/cuda/emit/emitter.hpp"

namespace cudaburg::emit_internal {

EmitResult emitWinograd(const Kernel& kernel, const EmitOptions& options);

}  // namespace cudaburg::emit_internal
