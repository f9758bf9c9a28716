// burggen: reads a BURG spec and writes the C++ tree matcher it describes.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <string>

#include "burggen/emitter.hpp"
#include "burggen/output_file.hpp"
#include "burgspec/checks.hpp"
#include "burgspec/parser.hpp"

namespace {

const char* kVersion = "0.1.0";

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Takes the part of `text` CLI11 shows for a whole usage message, keeping the first line only.
std::string firstLine(const std::string& text) {
  size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"burggen: writes the C++ tree matcher (labeler, reducer, explanations) of a BURG spec"};
  std::string specPath, outputPath = "-", headerPath, nameSpace, prefix = "burm";
  int kbest = 0;
  app.add_option("spec", specPath, "the spec (.burg); - reads standard input")->required();
  app.add_option("-o,--output", outputPath, "the matcher's source; - (the default) writes standard output");
  app.add_option("--header", headerPath, "write the declarations to this header, which the source includes");
  app.add_option("--namespace", nameSpace, "declare the matcher inside this C++ namespace");
  app.add_option("--prefix", prefix, "prefix of the public names (default burm: burmMatcher, burmCost, ...)");
  auto* kbestOption = app.add_option("--kbest", kbest,
                 "keep the K cheapest derivations of every node and nonterminal, and enumerate covers in cost order")
      ->option_text("K");
  app.set_version_flag("--version", std::string("burggen ") + kVersion);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "burggen: " << firstLine(e.what()) << "\nRun 'burggen --help' for the options.\n";
    return 2;
  }

  if (!burggen::isIdentifier(prefix)) {
    std::cerr << "burggen: the prefix '" << prefix << "' is not a C++ identifier.\n";
    return 2;
  }
  if (!nameSpace.empty() && !burggen::isNamespaceName(nameSpace)) {
    std::cerr << "burggen: the namespace '" << nameSpace << "' is not a C++ namespace name.\n";
    return 2;
  }
  if (kbestOption->count() > 0 && kbest < 1) {
    std::cerr << "burggen: --kbest takes a positive number of derivations to keep, not " << kbest << ".\n";
    return 2;
  }
  if (headerPath == "-") {
    std::cerr << "burggen: the header must be written to a file; only the source may go to standard output.\n";
    return 2;
  }
  std::error_code ec;
  if (!headerPath.empty() && outputPath != "-" &&
      std::filesystem::weakly_canonical(headerPath, ec) == std::filesystem::weakly_canonical(outputPath, ec)) {
    std::cerr << "burggen: --header and -o name the same file '" << headerPath
              << "'; the header would overwrite the matcher.\n";
    return 2;
  }

  burgspec::SourceFile source("", "");
  std::string error;
  if (!burgspec::SourceFile::read(specPath, source, error)) {
    std::cerr << "burggen: " << error << ".\n";
    return 1;
  }
  burgspec::Diagnostics diagnostics(source);
  burgspec::Grammar grammar;
  bool ok = burgspec::parseGrammar(source, diagnostics, grammar) && burgspec::checkGrammar(grammar, diagnostics);

  burggen::EmittedMatcher matcher;
  if (ok) {
    burggen::EmitOptions options;
    options.prefix = prefix;
    options.nameSpace = nameSpace;
    options.specName = baseName(source.name());
    options.kbest = kbest;
    if (!headerPath.empty()) options.headerIncludeName = baseName(headerPath);
    ok = burggen::emitMatcher(grammar, options, diagnostics, matcher);
  }
  diagnostics.printAll(std::cerr);
  if (!ok || diagnostics.hasErrors()) return 1;

  std::vector<burggen::OutputFile> files{{outputPath, matcher.source}};
  if (!headerPath.empty()) files.push_back({headerPath, matcher.header});
  if (!burggen::writeOutputFiles(files, error)) {
    std::cerr << "burggen: " << error << ".\n";
    return 1;
  }
  return 0;
}
