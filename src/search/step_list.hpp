#pragma once
// A run of recipe steps that fragments share. Labeling copies a fragment for every derivation
// built on it, and each adds a step or two to what its kid built: the steps are immutable and
// shared, and a copy of a list shares the list itself until one of them changes; the one that
// changes then copies the pointers to the steps, never the steps.
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

#include "src/transform/recipe.hpp"

namespace cudaburg {

class StepList {
  using Shared = std::shared_ptr<const RecipeStep>;
  using Items = std::vector<Shared>;

 public:
  // Reads the steps in order, as `const RecipeStep&`.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = RecipeStep;
    using difference_type = std::ptrdiff_t;
    using pointer = const RecipeStep*;
    using reference = const RecipeStep&;
    const_iterator() = default;
    explicit const_iterator(Items::const_iterator at) : at_(at) {}
    reference operator*() const { return **at_; }
    pointer operator->() const { return at_->get(); }
    const_iterator& operator++() {
      ++at_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(at_++); }
    difference_type operator-(const const_iterator& other) const { return at_ - other.at_; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.at_ == b.at_; }

   private:
    Items::const_iterator at_;
  };

  const_iterator begin() const { return const_iterator(items().begin()); }
  const_iterator end() const { return const_iterator(items().end()); }
  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const RecipeStep& operator[](size_t i) const { return *items()[i]; }

  void push_back(RecipeStep step) { own().push_back(std::make_shared<const RecipeStep>(std::move(step))); }
  void push_front(RecipeStep step) { own().insert(own().begin(), std::make_shared<const RecipeStep>(std::move(step))); }
  // `steps` in order before the first step.
  void prepend(std::vector<RecipeStep> steps) {
    Items added;
    added.reserve(steps.size());
    for (RecipeStep& s : steps) added.push_back(std::make_shared<const RecipeStep>(std::move(s)));
    own().insert(own().begin(), added.begin(), added.end());
  }
  // Step `i` replaced by `edit` applied to a copy of it.
  template <class Edit>
  void edit(size_t i, Edit edit) {
    RecipeStep step = (*this)[i];
    edit(step);
    own()[i] = std::make_shared<const RecipeStep>(std::move(step));
  }
  // Whether both lists hold the same steps by sharing them (equal lists made apart do not).
  bool shares(const StepList& other) const { return items_ == other.items_; }
  // The steps appended to `out`.
  void appendTo(std::vector<RecipeStep>& out) const {
    for (const Shared& s : items()) out.push_back(*s);
  }

 private:
  const Items& items() const {
    static const Items kNone;
    return items_ ? *items_ : kNone;
  }
  // The pointers, this list's alone: copied first where another list shares them.
  Items& own() {
    if (!items_)
      items_ = std::make_shared<Items>();
    else if (items_.use_count() > 1)
      items_ = std::make_shared<Items>(*items_);
    return *items_;
  }

  std::shared_ptr<Items> items_;  // null while empty
};

}  // namespace cudaburg
