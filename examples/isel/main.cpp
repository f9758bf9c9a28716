// isel: instruction selection for the tiny language, to show what a burggen matcher does.
//   isel program.tiny [--cover] [--trace] [--dot tree.dot] [--html page.html] [--munch] [--compare] [--kbest N]
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "burggen/explain/labeling_page.hpp"
#include "burggen/output_file.hpp"
#include "examples/isel/best_covers.hpp"
#include "examples/isel/explain.hpp"
#include "examples/isel/munch.hpp"
#include "examples/isel/selector.hpp"

namespace {

// Prints each statement's `count` cheapest covers, with their costs and instructions.
// The covers of each statement; with `dotPath`, the last statement's as one picture ("-": the
// picture alone on standard output).
int printBestCovers(const common::SourceFile& file, int count, const std::string& dotPath) {
  common::Diagnostics diags(file);
  std::vector<isel::StatementCovers> statements;
  if (!isel::selectBestCovers(file, diags, count, statements)) {
    diags.printAll(std::cerr);
    return 1;
  }
  if (dotPath == "-") {
    if (!statements.empty()) std::cout << isel::coversDot(statements.back());
    return 0;
  }
  if (!dotPath.empty() && !statements.empty()) {
    std::ofstream dot(dotPath);
    dot << isel::coversDot(statements.back());
    if (!dot) {
      std::cerr << "isel: cannot write '" << dotPath << "'.\n";
      return 1;
    }
  }
  for (const auto& s : statements) {
    std::cout << "# " << s.text << '\n';
    for (size_t i = 0; i < s.covers.size(); ++i) {
      std::cout << "cover " << i + 1 << " (cost " << s.covers[i].cost << "):\n";
      std::istringstream rules(s.covers[i].cover);
      for (std::string line; std::getline(rules, line);) std::cout << "  " << line << '\n';
      std::cout << "  selects:\n";
      for (const std::string& instruction : s.covers[i].instructions) std::cout << instruction << '\n';
    }
  }
  return 0;
}

// Writes the page that steps through the labeling of the last statement (with `bestCovers`
// above 1, its covers side by side at the end).
bool writePage(const common::SourceFile& file, int bestCovers, const std::string& pagePath) {
  common::Diagnostics diags(file);
  burggen::explain::Labeling labeling;
  std::string error;
  if (!isel::explainLastStatement(file, diags, bestCovers, labeling, error)) {
    diags.printAll(std::cerr);
    return false;
  }
  std::ostringstream page;
  if (error.empty() && !burggen::explain::writeLabelingPage(page, labeling))
    error = burggen::explain::pageSizeError(static_cast<int>(labeling.nodes.size()));
  if (error.empty()) burggen::writeOutputFiles({{pagePath, page.str()}}, error);
  if (!error.empty()) std::cerr << "isel: --html: " << error << ".\n";
  return error.empty();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"isel: selects instructions of a small register machine for a tiny language"};
  std::string path, dotPath;
  bool showCover = false, showTrace = false, munch = false, compare = false;
  app.add_option("program", path, "a program of the tiny language; - reads standard input")->required();
  app.add_flag("--cover", showCover, "print each statement's cover: the rules chosen and their costs");
  app.add_flag("--trace", showTrace, "print every match the labeler finds and the reduction, before the instructions");
  app.add_option("--dot", dotPath, "write the labeled tree of the last statement as Graphviz DOT (- : standard output)")
      ->option_text("FILE");
  std::string pagePath;
  app.add_option(
         "--html", pagePath,
         "write a page that steps through the labeling of the last statement (with --kbest N, its N best covers)")
      ->option_text("FILE");
  app.add_flag("--munch", munch, "select by maximal munch (greedy, top down) instead of BURG");
  app.add_flag("--compare", compare, "print each statement's cost by BURG and by maximal munch");
  int bestCovers = 0;
  auto* kbest =
      app.add_option("--kbest", bestCovers, "print each statement's N cheapest covers, with their instructions")
          ->option_text("N");
  CLI11_PARSE(app, argc, argv);
  if (kbest->count() > 0 && (bestCovers < 1 || bestCovers > isel::maxBestCovers())) {
    std::cerr << "isel: --kbest takes 1 to " << isel::maxBestCovers() << " covers, not " << bestCovers << ".\n";
    return 2;
  }

  common::Result<common::SourceFile> read = common::SourceFile::read(path);
  if (!read) {
    std::cerr << "isel: " << read.reason() << ".\n";
    return 1;
  }
  const common::SourceFile& file = *read;
  if (!pagePath.empty() && !writePage(file, bestCovers, pagePath)) return 1;
  if (bestCovers > 0) return printBestCovers(file, bestCovers, dotPath);
  common::Diagnostics diags(file);
  isel::Selection selection, munched;
  if (!isel::selectInstructions(file, diags, selection, showTrace && !munch ? &std::cout : nullptr) ||
      ((munch || compare) && !isel::selectByMaximalMunch(file, diags, munched))) {
    diags.printAll(std::cerr);
    return 1;
  }
  if (compare) {
    long burg = 0, greedy = 0;
    for (size_t i = 0; i < selection.statements.size(); ++i) {
      const auto& s = selection.statements[i];
      long m = munched.statements[i].cost;
      std::cout << s.text << "\n    BURG " << s.cost << ", maximal munch " << m;
      if (m != s.cost) std::cout << " (" << (m > s.cost ? "+" : "") << m - s.cost << ")";
      std::cout << '\n';
      burg += s.cost;
      greedy += m;
    }
    std::cout << "total: BURG " << burg << ", maximal munch " << greedy << '\n';
    return 0;
  }
  if (munch) {
    for (const std::string& line : munched.listing) std::cout << line << '\n';
    return 0;
  }
  if (dotPath == "-") {  // the picture alone, for a pipe into dot
    if (!selection.statements.empty()) std::cout << selection.statements.back().dot;
    return 0;
  }
  if (!dotPath.empty() && !selection.statements.empty()) {
    std::ofstream dot(dotPath);
    dot << selection.statements.back().dot;
    if (!dot) {
      std::cerr << "isel: cannot write '" << dotPath << "'.\n";
      return 1;
    }
  }
  for (const std::string& line : selection.listing) std::cout << line << '\n';
  if (showCover)
    for (const auto& s : selection.statements) std::cout << "\n# cover of: " << s.text << '\n' << s.cover;
  return 0;
}
