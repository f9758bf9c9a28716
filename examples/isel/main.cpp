// isel: instruction selection for the tiny language, to show what a burggen matcher does.
//   isel program.tiny [--cover] [--trace] [--dot tree.dot] [--kbest N]
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "examples/isel/best_covers.hpp"
#include "examples/isel/selector.hpp"

namespace {

// Prints each statement's `count` cheapest covers, with their costs and instructions.
int printBestCovers(const burgspec::SourceFile& file, int count) {
  burgspec::Diagnostics diags(file);
  std::vector<isel::StatementCovers> statements;
  if (!isel::selectBestCovers(file, diags, count, statements)) {
    diags.printAll(std::cerr);
    return 1;
  }
  for (const auto& s : statements) {
    std::cout << "# " << s.text << '\n';
    for (size_t i = 0; i < s.covers.size(); ++i) {
      std::cout << "cover " << i + 1 << ", cost " << s.covers[i].cost << ":\n";
      std::istringstream rules(s.covers[i].cover);
      for (std::string line; std::getline(rules, line);) std::cout << "  " << line << '\n';
      for (const std::string& instruction : s.covers[i].instructions) std::cout << "  " << instruction << '\n';
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"isel: selects instructions of a small register machine for a tiny language"};
  std::string path, dotPath;
  bool showCover = false, showTrace = false;
  app.add_option("program", path, "a program of the tiny language; - reads standard input")->required();
  app.add_flag("--cover", showCover, "print each statement's cover: the rules chosen and their costs");
  app.add_flag("--trace", showTrace, "print every match the labeler finds, before the instructions");
  app.add_option("--dot", dotPath, "write the labeled tree of the last statement as Graphviz DOT");
  int bestCovers = 0;
  app.add_option("--kbest", bestCovers, "print each statement's N cheapest covers, with their instructions")
      ->check(CLI::Range(1, isel::maxBestCovers()));
  CLI11_PARSE(app, argc, argv);

  burgspec::SourceFile file("", "");
  std::string error;
  if (!burgspec::SourceFile::read(path, file, error)) {
    std::cerr << "isel: " << error << ".\n";
    return 1;
  }
  if (bestCovers > 0) return printBestCovers(file, bestCovers);
  burgspec::Diagnostics diags(file);
  isel::Selection selection;
  if (!isel::selectInstructions(file, diags, selection, showTrace ? &std::cout : nullptr)) {
    diags.printAll(std::cerr);
    return 1;
  }
  for (const std::string& line : selection.listing) std::cout << line << '\n';
  if (showCover)
    for (const auto& s : selection.statements) std::cout << "\n# cover of: " << s.text << '\n' << s.cover;
  if (!dotPath.empty() && !selection.statements.empty()) {
    std::ofstream dot(dotPath);
    dot << selection.statements.back().dot;
    if (!dot) {
      std::cerr << "isel: cannot write '" << dotPath << "'.\n";
      return 1;
    }
  }
  return 0;
}
