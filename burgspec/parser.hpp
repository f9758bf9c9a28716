#pragma once
// The parser of BURG specs: iburg's language and its extensions (docs/burg-language.md).
#include "burgspec/grammar.hpp"
#include "common/diagnostics.hpp"
#include "common/source.hpp"

namespace burgspec {

// Parses `file` into `grammar`, reporting every syntax error to `diags`; after an error it
// resumes at the next rule, so one run reports them all. Returns false when it reported an
// error. The grammar is as the spec wrote it; checkGrammar (checks.hpp) completes it.
bool parseGrammar(const common::SourceFile& file, common::Diagnostics& diags, Grammar& grammar);

}  // namespace burgspec
