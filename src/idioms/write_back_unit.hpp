#pragma once
// A write-back idiom as a unit: what a tiled kernel does to each output's sum as it stores it,
// read off the statements that follow the reduction in the nest (the grammar's `epilogue`). The
// tile idioms' write-backs (a register tile's store, the mma and wgmma fragments', Winograd's
// output transform), the CPU executor, the emitters and the report reach it through
// write_back.hpp, which asks the units registry.cpp lists: a second write-back idiom is one more
// folder under src/idioms/ (docs/adding-an-idiom.md).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

class WriteBackUnit;

// The statements after a reduction into an output element, and the idiom that applies them.
struct Epilogue {
  std::vector<NodePtr> statements;      // in order; empty: a bare reduction, its sum stored as it is
  const WriteBackUnit* unit = nullptr;  // the idiom that read them; null where there are none
};

// The output traffic of a reduction and its epilogue, fused into the write-back and not (the
// operands and the epilogue's own inputs are read the same either way).
struct EpilogueTraffic {
  double fusedBytes = 0, unfusedBytes = 0;
  double savedBytes() const { return unfusedBytes - fusedBytes; }
};

class WriteBackUnit {
 public:
  virtual ~WriteBackUnit() = default;
  virtual const char* name() const = 0;  // "epilogue"
  // Whether it applies `statements`, those after the reduction into `target`: "", or a sentence
  // naming the statement it cannot apply and why.
  virtual std::string read(const std::vector<NodePtr>& statements, const Access& target) const = 0;
  // The value stored in `target` when its sum is `sum`, as an expression.
  virtual ExprPtr value(const Epilogue& epilogue, const Access& target, ExprPtr sum) const = 0;
  // The same as CUDA in float, for an emitter that writes the store itself: each read of `target`
  // is `sum`, each loop index of its subscripts the variable `indices` maps it to, each other
  // array a parameter of `kernel`. Sets `refusal` where the value has no such text.
  virtual std::string cuda(const Epilogue& epilogue, const Access& target, const Kernel& kernel,
                           const std::map<std::string, std::string>& indices, const std::string& sum,
                           std::string& refusal) const = 0;
  // The output traffic over `outputs` elements of `elementBytes`, for the model and the report.
  virtual EpilogueTraffic traffic(const Epilogue& epilogue, int64_t outputs, int elementBytes) const = 0;
};

}  // namespace cudaburg
