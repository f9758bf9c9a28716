#pragma once
// The k-best matcher emitter: a labeler that keeps, for every node and nonterminal, the K
// cheapest distinct derivations (rule, parameter binding, kids' ranks), combined lazily as in
// Huang and Chiang's k-best parsing (2005, algorithm 2), and a reducer and explanations for any
// of the covers kept. Chosen by burggen --kbest K, and for every grammar with %param or %label.
// docs/burg-language.md describes the generated interface and the order of ties.
#include "burggen/emitter.hpp"

namespace burggen {

bool emitKBestMatcher(const burgspec::Grammar& grammar, const EmitOptions& options, common::Diagnostics& diagnostics,
                      EmittedMatcher& out);

}  // namespace burggen
