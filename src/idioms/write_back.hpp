#pragma once
// A nest's epilogue (the statements after its reduction into an output element T) through the
// registered write-back idioms (write_back_unit.hpp): how the grammar, the transformations, the
// CPU executor, the emitters and the report read it and apply it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/idioms/write_back_unit.hpp"

namespace cudaburg {

// Reads `statements` (those after the reduction into `target`) as an epilogue of `target`.
// Returns "" and fills `epilogue` with the first registered idiom that applies them, or the
// sentence of the first idiom that does not.
std::string readEpilogue(const std::vector<NodePtr>& statements, const Access& target, Epilogue& epilogue);

// Why the body of a nest's tiled loops, `T = v; reduce ... T += ...; epilogue`, carries no
// epilogue a tile can apply at its write-back; "" when it does.
std::string whyNoTiledEpilogue(const Node& body);

// The value the epilogue leaves in `target` when its sum is `sum` (`sum` itself when it is empty).
ExprPtr epilogueValue(const Epilogue& epilogue, const Access& target, ExprPtr sum);

// A whole nest with an epilogue split in two, for the idioms that compute a reduction as written
// (Winograd's convolution) rather than by tiling the tree: the bare nest they recognize, and the
// epilogue they apply to each output they write.
struct NestEpilogue {
  Kernel bare;          // the nest without the statements after its reduction
  Kernel epilogueNest;  // the same parallel loops around those statements alone
  Epilogue epilogue;    // empty where the nest has none (bare and epilogueNest are then the kernel)
  Access target;        // the element the epilogue rewrites
};

// Reads the body of `kernel`'s outermost parallel loops as `T = v; reduce ...; epilogue`. Returns
// nullopt, with a sentence in `why`, where statements follow the reduction that are no epilogue
// of T (see whyNoTiledEpilogue).
std::optional<NestEpilogue> splitNestEpilogue(const Kernel& kernel, std::string* why = nullptr);

// The split nest's epilogue at an output as CUDA in float (WriteBackUnit::cuda); `sum` where it
// has none.
std::string epilogueCuda(const NestEpilogue& nest, const Kernel& kernel,
                         const std::map<std::string, std::string>& indices, const std::string& sum,
                         std::string& refusal);

// "fusion: applied at the write-back, the epilogue (1 statement) leaves Y stored once, 1.00 MiB;
// unfused, ..., 3.00 MiB: 2.00 MiB (67%) of traffic saved", from the idiom's count of both
// (WriteBackUnit::traffic); "" where the nest has no epilogue.
std::string fusionSavings(const Kernel& kernel);

}  // namespace cudaburg
