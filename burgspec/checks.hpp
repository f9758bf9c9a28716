#pragma once
// The semantic checks of a parsed grammar, which also complete it for the emitter.
#include "burgspec/grammar.hpp"
#include "common/diagnostics.hpp"

namespace burgspec {

// Checks `grammar` and completes it:
//  - marks the operator nodes of every pattern (Pattern::isTerminal);
//  - fills Grammar::nonterminals: the start nonterminal first, then in order of first
//    appearance, each with its %type;
//  - infers each operator's arity from its uses (-1 when unused);
//  - numbers unnumbered rules and operators after the largest number written;
//  - makes the first rule's left side the start nonterminal when there is no %start.
// Reports errors (undefined or misused symbols, conflicting arities, duplicate numbers and
// bindings, chain-rule cycles, nonterminals that derive no finite tree) and warnings
// (unreachable nonterminals, unused operators, typed rules without an action, cycles of
// positive-cost chain rules); docs/burg-language.md lists them all. Returns false when it
// reported an error.
bool checkGrammar(Grammar& grammar, common::Diagnostics& diags);

}  // namespace burgspec
