#include "src/exec/buffers.hpp"

#include <cmath>
#include <random>

#include "src/loop/scalar_types.hpp"

namespace cudaburg {

Buffers allocateBuffers(const Kernel& kernel) {
  Buffers b;
  for (const auto& a : kernel.params) b.data[a.name].assign(static_cast<size_t>(a.elements()), 0.0);
  return b;
}

Buffers fillRandom(const Kernel& kernel, uint64_t seed) {
  Buffers b;
  std::mt19937_64 rng(seed);
  for (const auto& a : kernel.params) {
    auto& v = b.data[a.name];
    v.resize(static_cast<size_t>(a.elements()));
    if (a.type == ScalarType::Int) {
      std::uniform_int_distribution<int> dist(-8, 8);
      for (auto& x : v) x = dist(rng);
    } else {
      std::uniform_real_distribution<double> dist(-1.0, 1.0);
      for (auto& x : v)
        x = a.type == ScalarType::Double ? dist(rng) : readValue(a.type, storedValue(a.type, dist(rng)));
    }
  }
  return b;
}

}  // namespace cudaburg
