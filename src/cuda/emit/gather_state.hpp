#pragma once
// What the gathers of the strip loops being written keep (emit_gather.cpp,
// emit_gather_table.cpp): each buffer's counters or table rows, by buffer, and the declarations
// of the tables the kernel's header holds.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/loop/gather_table.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg::emit_internal {

// The indices a gather derives from its collapsed dimension that the strip loop around it moves
// (a convolution's c, r, s under c*r*s), kept by each thread for each of its items across the
// strips and advanced by the strip's length with carries, instead of divided out of the
// collapsed index each strip.
constexpr int64_t kMaxCounterRegisters = 12;  // a thread's, for one gather whose items each count
struct GatherCounters {
  size_t dim = 0;                     // the gather dimension
  std::vector<CollapsedLoop> digits;  // what it collapses
  int64_t advance = 0;                // how far its index moves a strip
  int64_t items = 0;                  // a thread's items: 1 where they share the place along `dim`
  int width = 1;                      // elements an item: every copy of the buffer takes this many
};

// A gather whose offsets along one dimension come from a table (Node::tableDim,
// src/loop/gather_table.hpp): the table, in constant memory, and each thread's rows (the offset
// of the rest of the subscripts and the mask of the taps inside the source), set before the strip
// loop for each of its items, or once where they share their row.
struct GatherRows {
  GatherTable table;
  int64_t items = 1;  // a thread's rows: 1 where its items share theirs
  int width = 1;      // elements an item: every copy of the buffer takes this many
};

class GatherState {
 public:
  // The counters, or the rows, of `buffer`'s gather; null where it keeps none.
  const GatherCounters* counters(const std::string& buffer) const;
  const GatherRows* rows(const std::string& buffer) const;
  void keepCounters(const std::string& buffer, const GatherCounters& counters) { counters_[buffer] = counters; }
  void keepRows(const std::string& buffer, const GatherRows& rows) { rows_[buffer] = rows; }
  // After the strip loop: `buffer`'s counters and rows forgotten.
  void forget(const std::string& buffer) {
    counters_.erase(buffer);
    rows_.erase(buffer);
  }

  static std::string counterName(const std::string& buffer, const CollapsedLoop& digit) {
    return buffer + "_at_" + digit.index;
  }
  // The counter of the item `stage_r` (one for all a thread's items, where they share it).
  std::string counterOf(const std::string& buffer, const CollapsedLoop& digit) const {
    return counterName(buffer, digit) + (counters_.at(buffer).items == 1 ? "" : "[stage_r]");
  }
  // The row's `what` (offset, mask) of the item `stage_r` (one for all, where they share it).
  std::string rowOf(const std::string& buffer, const char* what) const {
    return buffer + "_" + what + (rows_.at(buffer).items == 1 ? "" : "[stage_r]");
  }

  // A table's declaration, once however many strip loops read it; the declarations.
  void declareTable(const std::string& name, const std::string& declaration) {
    if (declaredTables_.insert(name).second) tables_ += declaration;
  }
  const std::string& tables() const { return tables_; }

 private:
  std::map<std::string, GatherCounters> counters_;  // by buffer
  std::map<std::string, GatherRows> rows_;          // by buffer, inside their strip loops
  std::string tables_;                              // declarations of the tables, for the header
  std::set<std::string> declaredTables_;
};

inline const GatherCounters* GatherState::counters(const std::string& buffer) const {
  auto it = counters_.find(buffer);
  return it == counters_.end() ? nullptr : &it->second;
}

inline const GatherRows* GatherState::rows(const std::string& buffer) const {
  auto it = rows_.find(buffer);
  return it == rows_.end() ? nullptr : &it->second;
}

}  // namespace cudaburg::emit_internal
