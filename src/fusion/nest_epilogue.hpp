#pragma once
// A whole nest with an epilogue split in two, for the idioms that compute a reduction as written
// (Winograd's convolution) rather than by tiling the tree: the bare nest they recognize, and the
// epilogue they apply to each output they write.
#include <optional>
#include <string>

#include "src/fusion/epilogue.hpp"

namespace cudaburg {

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

}  // namespace cudaburg
