#include "examples/isel/best_covers.hpp"

#include <regex>
#include <sstream>

#include "examples/isel/isel_kbest_matcher.hpp"
#include "examples/isel/parser.hpp"

namespace isel {

int maxBestCovers() { return IselKBestMatcher::kBest; }

std::string coversDot(const StatementCovers& covers) {
  std::ostringstream out;
  out << "digraph best_covers {\n  label=\"" << covers.text << "\";\n  labelloc=t;\n";
  for (size_t i = 0; i < covers.covers.size(); ++i) {
    const RankedCover& c = covers.covers[i];
    // Each cover's graph becomes a cluster; its node names get the cover's number so that the
    // clusters' nodes stay apart.
    std::string body = c.dot.substr(c.dot.find('{') + 1);
    body = body.substr(0, body.rfind('}'));
    std::string prefix = "c" + std::to_string(i + 1) + "_n";
    body = std::regex_replace(body, std::regex(R"((^|\s)n(\d+)\b)"), "$1" + prefix + "$2");
    out << "  subgraph cluster_" << i + 1 << " {\n    label=\"cover " << i + 1 << ", cost " << c.cost << "\";\n"
        << body << "  }\n";
  }
  out << "}\n";
  return out.str();
}

bool selectBestCovers(const common::SourceFile& file, common::Diagnostics& diags, int count,
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
      std::ostringstream dot;
      matcher.printDot(dot, s.tree, IselKBestMatcher::kStart, cover->rank);
      covers.covers.push_back({cover->cost, matcher.coverText(s.tree, cover->rank), std::move(lines), dot.str()});
    }
    program.comment(s.text);
    matcher.ctx = &program;
    matcher.reduce(s.tree);
    out.push_back(std::move(covers));
  }
  return true;
}

}  // namespace isel
