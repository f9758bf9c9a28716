#pragma once
// The fused epilogue: element-wise statements after a reduction into an output element T, each
// `T = f(T, inputs)` (a bias, a scale and shift, a shortcut read, an activation). A tile holds T's
// sum in a register or a fragment and applies the statements to it as it writes T back, so the
// output is written once instead of read back by a second pass. A sum kept in a local and stored
// in another type (half from float) reads as the same form (local_accumulator.hpp).
#include "src/idioms/write_back_unit.hpp"

namespace cudaburg {

class EpilogueIdiom final : public WriteBackUnit {
 public:
  const char* name() const override { return "epilogue"; }
  // A sentence naming the statement that is not element-wise on `target`: one that reduces
  // again, writes another element or array, or reads another element of `target`'s array.
  std::string read(const std::vector<NodePtr>& statements, const Access& target) const override;
  // The statements composed into one expression, each read of `target` replaced by the value the
  // statements before it left.
  ExprPtr value(const Epilogue& epilogue, const Access& target, ExprPtr sum) const override;
  std::string cuda(const Epilogue& epilogue, const Access& target, const Kernel& kernel,
                   const std::map<std::string, std::string>& indices, const std::string& sum,
                   std::string& refusal) const override;
  // Fused, each output is stored once; unfused, the product is stored, then each statement is a
  // pass that reads it back and stores it.
  EpilogueTraffic traffic(const Epilogue& epilogue, int64_t outputs, int elementBytes) const override;
};

}  // namespace cudaburg
