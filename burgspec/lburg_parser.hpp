#pragma once
// The parser of lburg's dialect, the machine descriptions of lcc (.md files): a line-oriented
// language whose rules carry an assembler template and a cost that may be C code:
//
//   %{ C prologue %}          (each delimiter alone at the start of a line)
//   %term NAME=number ...     %start nonterminal
//   %%
//   nonterminal: pattern "template" cost      (one rule a line; the cost may be omitted)
//   %%
//   C epilogue
//
// Rules are numbered in order from 1. burggen --lburg reads it; docs/burg-language.md
// ("Coming from iburg or lburg") describes it.
#include "burgspec/grammar.hpp"
#include "common/diagnostics.hpp"
#include "common/source.hpp"

namespace burgspec {

// Parses `file` into `grammar` (Rule::asmTemplate holds each template), reporting every syntax
// error to `diags`. Returns false when it reported an error; checkGrammar completes the grammar.
bool parseLburgGrammar(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar);

}  // namespace burgspec
