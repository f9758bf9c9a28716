#pragma once
// The emitter's two products back to back: a kernel the b2b step made (Kernel::backToBack)
// becomes one kernel that keeps a block's hidden rows on chip (see emit_back_to_back.cpp). Not
// part of the emitter's interface.
#include "src/cuda/emit/emitter.hpp"

namespace cudaburg::emit_internal {

EmitResult emitBackToBack(const Kernel& kernel, const EmitOptions& options);

}  // namespace cudaburg::emit_internal
