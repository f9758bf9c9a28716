// isel: instruction selection for the tiny language, to show what a burggen matcher does.
//   isel program.tiny [--cover] [--trace] [--dot tree.dot]
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "examples/isel/selector.hpp"

int main(int argc, char** argv) {
  CLI::App app{"isel: selects instructions of a small register machine for a tiny language"};
  std::string path, dotPath;
  bool showCover = false, showTrace = false;
  app.add_option("program", path, "a program of the tiny language; - reads standard input")->required();
  app.add_flag("--cover", showCover, "print each statement's cover: the rules chosen and their costs");
  app.add_flag("--trace", showTrace, "print every match the labeler finds, before the instructions");
  app.add_option("--dot", dotPath, "write the labeled tree of the last statement as Graphviz DOT");
  CLI11_PARSE(app, argc, argv);

  burgspec::SourceFile file("", "");
  std::string error;
  if (!burgspec::SourceFile::read(path, file, error)) {
    std::cerr << "isel: " << error << ".\n";
    return 1;
  }
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
