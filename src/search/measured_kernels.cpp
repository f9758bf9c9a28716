#include "src/search/measured_kernels.hpp"

#include <functional>

#include "common/diagnostics.hpp"
#include "common/source.hpp"

namespace cudaburg {

namespace {

// Folds `value` into the hash `h`.
void mix(uint64_t& h, uint64_t value) { h = (h ^ value) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; }

// All of a step that its printed line keeps: everything but the names it gives its loops.
void mixStep(uint64_t& h, const RecipeStep& s) {
  std::hash<std::string> text;
  mix(h, static_cast<uint64_t>(s.kind));
  mix(h, s.loops.size());
  for (const auto& loop : s.loops) mix(h, text(loop));
  mix(h, s.factors.size());
  for (int64_t factor : s.factors) mix(h, static_cast<uint64_t>(factor));
  mix(h, static_cast<uint64_t>(s.mapping));
  mix(h, text(s.array));
  mix(h, s.transposed);
  mix(h, static_cast<uint64_t>(s.interleave));
  mix(h, static_cast<uint64_t>(s.padding));
  mix(h, s.swizzled);
  mix(h, static_cast<uint64_t>(s.slab));
  mix(h, s.table);
  if (isIdiomStep(s.kind)) mix(h, text(s.str()));  // the idiom's payload, as its line writes it
}

}  // namespace

MeasuredKernels::MeasuredKernels(Times times) : times_(std::move(times)) {
  for (const auto& [line, ms] : times_) {
    common::SourceFile source("measured", line);
    common::Diagnostics diags(source);
    std::optional<Recipe> recipe = parseRecipe(source, diags);
    if (!recipe) {
      unsigned_ = true;
      continue;
    }
    uint64_t h = 0;
    for (const RecipeStep& s : recipe->steps) mixStep(h, s);
    signatures_.insert(h);
  }
}

const std::optional<double>* MeasuredKernels::find(const Fragment& f, const Kernel& kernel) const {
  if (!unsigned_) {
    uint64_t h = 0;
    for (const StepList* run : {&f.nest, &f.outer, &f.inTile})
      for (const RecipeStep& s : *run) mixStep(h, s);
    if (!signatures_.count(h)) return nullptr;
  }
  auto it = times_.find(printRecipeLine(f.recipe(kernel)));
  return it == times_.end() ? nullptr : &it->second;
}

}  // namespace cudaburg
