#pragma once
// An epilogue: the element-wise statements that follow a reduction into an output element T in
// the same nest, each `T = f(T, inputs)` (a bias, a scale and shift, a shortcut read, an
// activation). A tiled kernel holds T's sum in a register; it applies the epilogue to that value
// as it writes T back, so the output is written once instead of read back by a second pass.
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct Epilogue {
  std::vector<NodePtr> statements;  // in order; empty: a bare reduction
};

// Reads `statements` (those after the reduction into `target`) as an epilogue of `target`.
// Returns "" and fills `epilogue`, or a sentence naming the statement that is not element-wise
// on `target`: one that reduces again, writes another element or array, or reads another
// element of `target`'s array.
std::string readEpilogue(const std::vector<NodePtr>& statements, const Access& target, Epilogue& epilogue);

// Why the body of a nest's tiled loops, `T = v; reduce ... T += ...; epilogue`, carries no
// epilogue a tile can apply at its write-back; "" when it does.
std::string whyNoTiledEpilogue(const Node& body);

// The value the epilogue leaves in `target` when its sum is `sum`: the statements composed into
// one expression, each read of `target` replaced by the value the statements before it left.
ExprPtr epilogueValue(const Epilogue& epilogue, const Access& target, ExprPtr sum);

}  // namespace cudaburg
