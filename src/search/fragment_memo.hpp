#pragma once
// The fragments a builder made from a kid's fragment and a tile, kept for the next call alike: the
// grammar asks for the same tile over the same kid again for every binding of the parameters that
// only refine it (lanes, peel, raster, resident) and once more for a rule that builds on it
// (interleaved). A kid's fragment is found by its address and checked against the copy kept with
// the entry, which keeps the kid's steps alive: steps shared with the copy are the same steps.
#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "src/loop/loop_tree.hpp"
#include "src/search/fragment.hpp"

namespace cudaburg {

class FragmentMemo {
 public:
  enum class Builder { BlockTile, ImplicitGemm };
  struct Key {
    Builder builder;
    const Node* node;
    const Fragment* kid;
    std::array<int64_t, 5> tile;  // bm, bn, tm, tn, spread
    bool operator==(const Key&) const = default;
  };

  // What `build()` makes for `kid` under `key`: made once, then copied.
  template <class Build>
  Fragment get(const Key& key, const Fragment& kid, Build build) {
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.kid.sameAs(kid)) return it->second.built;
    Fragment built = build();
    entries_.insert_or_assign(key, Entry{kid, built});
    return built;
  }

 private:
  struct Entry {
    Fragment kid;  // as it was when built from (its steps kept alive)
    Fragment built;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = static_cast<size_t>(k.builder);
      for (const void* p : {static_cast<const void*>(k.node), static_cast<const void*>(k.kid)})
        h = h * 1000003 + std::hash<const void*>()(p);
      for (int64_t v : k.tile) h = h * 1000003 + static_cast<size_t>(v);
      return h;
    }
  };
  std::unordered_map<Key, Entry, KeyHash> entries_;
};

}  // namespace cudaburg
