#pragma once
// The C emitter: writes a labeler in C, without C++, with the interface of iburg (burm_label,
// burm_rule, burm_kids, burm_nts, burm_string, ...) or of lburg (_label, _rule, _kids, _nts,
// _templates, _isinstruction, ...), so that clients written for those tools build unchanged.
// docs/burg-language.md ("Coming from iburg or lburg") describes both.
#include <string>

#include "burggen/tie_order.hpp"
#include "burgspec/grammar.hpp"
#include "common/diagnostics.hpp"

namespace burggen {

enum class CDialect { Iburg, Lburg };

struct CEmitOptions {
  CDialect dialect = CDialect::Iburg;
  std::string prefix;  // names are prefix + "_" + name: iburg's default "burm", lburg's ""
  TieOrder ties = TieOrder::Iburg;
  bool traceCalls = false;  // call the client's <prefix>_trace at every match (the tools' -T)
  std::string specName;     // named in the first comment and in lburg's #line
};

// Writes the C matcher of `grammar`, which checkGrammar has completed, to `out`. Reports what
// the dialect cannot express (actions, bindings, more than two operands, costs out of range) to
// `diagnostics` and returns false then.
bool emitCMatcher(const burgspec::Grammar& grammar, const CEmitOptions& options, common::Diagnostics& diagnostics,
                  std::string& out);

}  // namespace burggen
