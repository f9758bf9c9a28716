#include "examples/isel/explain.hpp"

#include "burggen/explain/labeling_page.hpp"
#include "examples/isel/isel_kbest_matcher.hpp"
#include "examples/isel/isel_matcher.hpp"
#include "examples/isel/parser.hpp"

namespace isel {

bool explainLastStatement(const common::SourceFile& file, common::Diagnostics& diags, int bestCovers,
                          burggen::explain::Labeling& out, std::string& error) {
  Trees trees;
  std::vector<Statement> statements;
  if (!parseProgram(file, diags, trees, statements)) return false;
  if (statements.empty()) {
    error = "the program has no statement to draw";
    return true;
  }
  const Statement& last = statements.back();
  error = burggen::explain::pageSizeError(burggen::explain::countNodes<IselMatcher>(last.tree));
  if (!error.empty()) return true;
  Program program;
  IselMatcher matcher(&program);
  std::vector<IselMatcher::LabelStep> steps;
  matcher.steps = &steps;
  matcher.label(last.tree);
  out = burggen::explain::describeLabeling(matcher, last.tree, steps, nodeText, last.text);
  if (bestCovers > 1) {
    IselKBestMatcher best(&program);
    best.label(last.tree);
    burggen::explain::addBestCovers(best, last.tree, bestCovers, out);
  }
  return true;
}

}  // namespace isel
