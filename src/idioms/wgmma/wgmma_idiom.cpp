#include "src/idioms/wgmma/wgmma_idiom.hpp"

#include "src/idioms/step_text.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

const char* WgmmaIdiom::usage() const {
  return "wgmma I,J,K 64,N,16|8 [wait PENDING] [producer [tma]] [tf32x3 [promote P]]";
}

// `I,J,K 64,N,K [wait 0|1] [producer [tma]] [tf32x3 [promote P]]`
bool WgmmaIdiom::parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const {
  std::vector<int64_t> shape;
  if (!in.names(loops) || !in.numbers(shape, loops.size())) return false;
  if (loops.size() != 3) return in.fail("a wgmma tile takes three loops, I,J,K, not " + std::to_string(loops.size()));
  WgmmaTile t;
  t.m = shape[0], t.n = shape[1], t.k = shape[2];
  if (in.accept("wait")) {
    SourceLoc at = in.here();
    int64_t pending = 0;
    if (in.accept("0")) {  // number() takes positive integers only
      t.pending = 0;
    } else if (!in.number(pending, "the groups of wgmma left in flight (0 or 1)")) {
      return false;
    } else if (pending > 1) {
      return in.failAt(at, "wgmma leaves 0 or 1 groups in flight across iterations, not " + std::to_string(pending));
    } else {
      t.pending = static_cast<int>(pending);
    }
  }
  if (in.accept("producer")) {
    t.producer = in.accept("tma") ? WgmmaProducer::Tma : WgmmaProducer::CpAsync;
  } else if (in.at("tma")) {
    return in.fail("`tma` is how a producer warpgroup fills the stages: write `producer tma`");
  }
  if (in.accept("tf32x3")) {
    t.tf32x3 = true;
    if (in.accept("promote")) {
      int64_t promote = 0;
      if (!in.number(promote, "the strips of partial sums added into fp32 registers at a time")) return false;
      t.promote = static_cast<int>(promote);
    }
  }
  out = t;
  return true;
}

std::string WgmmaIdiom::print(const std::vector<std::string>& loops, const TileIdiom& idiom) const {
  WgmmaTile t = holds(idiom) ? std::get<WgmmaTile>(idiom) : WgmmaTile{};
  return std::string(keyword()) + " " + joinList(loops) + " " + joinList(std::vector<int64_t>{t.m, t.n, t.k}) +
         (t.pending != kWgmmaPending ? " wait " + std::to_string(t.pending) : "") +
         (t.producer != WgmmaProducer::None ? " producer" : "") + (t.producer == WgmmaProducer::Tma ? " tma" : "") +
         (t.tf32x3 ? " tf32x3" : "") + (t.promote ? " promote " + std::to_string(t.promote) : "");
}

TransformResult WgmmaIdiom::apply(const Kernel& kernel, const std::vector<std::string>& loops,
                                  const TileIdiom& idiom) const {
  const WgmmaTile* t = std::get_if<WgmmaTile>(&idiom);
  if (!t || loops.size() != 3) return TransformResult::refuse("the step has the wrong number of loops or factors");
  return wgmmaTile(kernel, loops, {t->m, t->n, t->k}, t->pending, static_cast<int64_t>(t->producer), t->tf32x3,
                   t->promote);
}

// On wgmma or not, A from registers, tf32x3 and its promotion, and who fills the stages.
std::vector<int64_t> WgmmaIdiom::decisions(const TileIdiom& idiom) const {
  const WgmmaTile* t = wgmmaOf(idiom);
  if (!t) return {0, 0, 0, 0, 0};
  return {1, t->registerA, t->tf32x3, t->promote, static_cast<int64_t>(t->producer)};
}

}  // namespace cudaburg
