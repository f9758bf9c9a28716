#pragma once
// A local accumulator: a nest that keeps its sum in a local scalar,
//   float acc = v; reduce for (...) acc += e; float x = f(acc); Y[i][j] = g(x);
// read as the form the tiled rules cover, `Y[i][j] = v; reduce ... Y[i][j] += e; Y[i][j] = g(f(Y[i][j]));`,
// with the local's type kept as the type the tile accumulates in (fp32 for a half output). The
// tile holds the sum in registers of that type and converts to the output's type on its one store.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct LocalAccumulator {
  NodePtr body;                         // initialisation, reduction into the output element, then its epilogue
  ScalarType type = ScalarType::Float;  // the local's type: what the tile accumulates in
};

// Reads `body`, the body of a nest's tiled loops that opens with a local's declaration, as a
// local accumulator. Returns "" and fills `accumulator`, or a sentence saying why the locals
// cannot become the tile's accumulator.
std::string readLocalAccumulator(const NodePtr& body, LocalAccumulator& accumulator);

}  // namespace cudaburg

namespace cudaburg {

// `kernel` with the body of its outermost parallel loops, where it is a local accumulator, read as
// the form the tiled rules match (see above); `kernel` itself where it is not. The grammar labels
// this form; the recipes it yields apply to `kernel` as written, whose register tiles accumulate
// in the local's type.
Kernel withLocalAccumulators(const Kernel& kernel);

}  // namespace cudaburg
