#include "src/idioms/mma/mma_idiom.hpp"

#include "src/idioms/step_text.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

const char* MmaIdiom::usage() const { return "mma I,J,K 16,8,16 [prefetch]"; }

// `I,J,K M,N,K [prefetch]`
bool MmaIdiom::parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const {
  std::vector<int64_t> shape;
  if (!in.names(loops) || !in.numbers(shape, loops.size())) return false;
  if (loops.size() != 3) return in.fail("an mma tile takes three loops, I,J,K, not " + std::to_string(loops.size()));
  MmaTile t{shape[0], shape[1], shape[2], false};
  t.prefetch = in.accept("prefetch");
  out = t;
  return true;
}

std::string MmaIdiom::print(const std::vector<std::string>& loops, const TileIdiom& idiom) const {
  MmaTile t = holds(idiom) ? std::get<MmaTile>(idiom) : MmaTile{};
  return std::string(keyword()) + " " + joinList(loops) + " " + joinList(std::vector<int64_t>{t.m, t.n, t.k}) +
         (t.prefetch ? " prefetch" : "");
}

TransformResult MmaIdiom::apply(const Kernel& kernel, const std::vector<std::string>& loops,
                                const TileIdiom& idiom) const {
  const MmaTile* t = std::get_if<MmaTile>(&idiom);
  if (!t || loops.size() != 3) return TransformResult::refuse("the step has the wrong number of loops or factors");
  return mmaTile(kernel, loops, {t->m, t->n, t->k}, t->prefetch);
}

// On mma.sync or not; its shape follows from the operands' type, its prefetch is the candidate's.
std::vector<int64_t> MmaIdiom::decisions(const TileIdiom& idiom) const { return {holds(idiom)}; }

}  // namespace cudaburg
