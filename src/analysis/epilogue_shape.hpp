#pragma once
// The element-wise statements after a nest's one product (its epilogue), recognized as the forms
// the libraries fuse: out = act(product * scale[c] + shift[c] + shortcut[...]), where scale and
// shift are 1-D arrays along one output index c (a bias per column of a matrix product, a folded
// batch norm per channel of a convolution), shortcut an array read at the output's own element,
// act ReLU, GELU (tanh or erf form) or none, stored in the output's type. The product may be
// accumulated in the output itself or in a local scalar.
#include <optional>
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct EpilogueShape {
  enum class Activation { None, Relu, GeluTanh, GeluErf };
  std::string output;  // the array stored
  ScalarType outputType = ScalarType::Float;
  ScalarType accumulator = ScalarType::Float;  // the type the product is summed in
  std::string scale;                           // multiplies the product; "" when none
  std::string shift;                           // added to it (a bias); "" when none
  std::string channel;                         // the output's loop index scale and shift follow
  std::string shortcut;                        // added, read at the output's element; "" when none
  Activation activation = Activation::None;

  bool empty() const {
    return scale.empty() && shift.empty() && shortcut.empty() && activation == Activation::None &&
           outputType == accumulator;
  }
  // "scale and shift per k, shortcut add, ReLU, stored as half"; "" when empty().
  std::string describe() const;
};

const char* activationName(EpilogueShape::Activation a);  // "none", "ReLU", "GELU (tanh)", "GELU (erf)"

// The epilogue of a nest with one product (a plain product has an empty one); nullopt with a
// sentence in `whyNot` when the statements after the product are not of the forms above.
std::optional<EpilogueShape> recognizeEpilogue(const Kernel& kernel, std::string* whyNot = nullptr);

}  // namespace cudaburg
