#include "examples/isel/best_covers.hpp"

#include "examples/isel/isel_kbest_matcher.hpp"
#include "examples/isel/parser.hpp"

namespace isel {

int maxBestCovers() {
  return IselKBestMatcher::kBest;
}

bool selectBestCovers(const burgspec::SourceFile& file, burgspec::Diagnostics& diags, int count,
                      std::vector<StatementCovers>& out) {
  Trees trees;
  std::vector<Statement> statements;
  if (!parseProgram(file, diags, trees, statements)) return false;
  Program program;  // the best covers so far: frame slots and registers continue from it
  IselKBestMatcher matcher;
  for (const Statement& s : statements) {
    matcher.label(s.tree);
    StatementCovers covers{s.text, {}};
    auto enumerator = matcher.covers(s.tree);
    for (auto cover = enumerator.next(); cover && cover->rank < count; cover = enumerator.next()) {
      Program trial = program;
      matcher.ctx = &trial;
      matcher.reduce(s.tree, cover->rank);
      std::vector<std::string> lines(trial.lines().begin() + program.lines().size(), trial.lines().end());
      covers.covers.push_back({cover->cost, matcher.coverText(s.tree, cover->rank), std::move(lines)});
    }
    program.comment(s.text);
    matcher.ctx = &program;
    matcher.reduce(s.tree);
    out.push_back(std::move(covers));
  }
  return true;
}

}  // namespace isel
