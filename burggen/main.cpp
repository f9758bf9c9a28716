// burggen: reads a BURG spec and writes the C++ tree matcher it describes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>

#include "burggen/c_emitter.hpp"
#include "burggen/emitter.hpp"
#include "burggen/man_page.hpp"
#include "burggen/output_file.hpp"
#include "burgspec/checks.hpp"
#include "burgspec/lburg_parser.hpp"
#include "burgspec/parser.hpp"
#include "common/closest_name.hpp"

namespace {

const char* kVersion = "0.1.0";

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The first option on the command line that the app does not know ("" when all are known).
// CLI11 takes an unknown option for a positional argument when one is free, and then reports a
// consequence ("--output excludes destination") instead of the mistake.
std::string unknownOption(const CLI::App& app, int argc, char** argv, std::vector<std::string>& known) {
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) known.push_back("--" + name);
    for (const auto& name : option->get_snames()) known.push_back("-" + name);
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") return "";
    if (arg.size() < 2 || arg[0] != '-') continue;
    // A long option may carry its value after '='; short ones may be run together (-IT).
    std::string name = arg[1] == '-' ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    auto option = std::find(known.begin(), known.end(), name);
    if (option == known.end()) return name;
    // Skip the value of an option that takes one, given as the next argument.
    const CLI::Option* taken = app.get_option_no_throw(name);
    bool valueFollows = arg[1] == '-' ? arg.find('=') == std::string::npos : arg.size() == 2;
    if (taken && taken->get_type_size() != 0 && valueFollows) ++i;
  }
  return "";
}

// Whether two paths name one file (through links too); a path to no file yet names none that exists.
bool sameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  std::filesystem::path canonicalA = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  std::filesystem::path canonicalB = std::filesystem::weakly_canonical(b, ec);
  return !ec && canonicalA == canonicalB;
}

// Takes the part of `text` CLI11 shows for a whole usage message, keeping the first line only.
std::string firstLine(const std::string& text) {
  size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "burggen: writes the C++ tree matcher (labeler, reducer, explanations) of a BURG spec,\n"
      "or with --iburg or --lburg a C labeler with the interface of iburg or lburg"};
  std::string specPath, outputPath = "-", outputArgument, headerPath, nameSpace, prefix = "burm", ties;
  bool iburgC = false, lburgC = false, traceCalls = false, iburgTables = false;
  int kbest = 0;
  app.add_option("spec", specPath, "the spec (.burg, or lburg's .md with --lburg); - reads standard input")
      ->option_text("SPEC")
      ->required();
  auto* outputOption =
      app.add_option("-o,--output", outputPath, "the matcher's source; - (the default) writes standard output")
          ->option_text("FILE");
  app.add_option("destination", outputArgument, "the matcher's source, as iburg and lburg take it after the spec")
      ->option_text("OUTPUT")
      ->excludes(outputOption);
  app.add_option("--header", headerPath, "write the declarations to this header, which the source includes")
      ->option_text("FILE");
  app.add_option("--namespace", nameSpace, "declare the matcher inside this C++ namespace")->option_text("NAME");
  auto* prefixOption =
      app.add_option("-p,--prefix", prefix,
                     "prefix of the public names (burm: burmMatcher; with --iburg burm_label, with --lburg _label)")
          ->option_text("PREFIX");
  app.add_flag("--iburg", iburgC, "write C with iburg's interface (burm_label, burm_rule, ...)");
  app.add_flag("--lburg", lburgC, "read lburg's dialect (lcc's .md) and write C with lburg's interface (_label, ...)");
  app.add_option("--ties", ties,
                 "which of equal-cost rules wins: iburg (the default; lburg with --lburg), lburg or first")
      ->option_text("ORDER");
  app.add_flag("-I,--iburg-tables", iburgTables,
               "accepted for iburg's command line: the C matcher always has iburg's -I tables");
  app.add_flag("-T,--trace-calls", traceCalls,
               "with --iburg or --lburg: call the client's <prefix>_trace at every match, as the tools' -T");
  auto* kbestOption =
      app.add_option(
             "--kbest", kbest,
             "keep the K cheapest derivations of every node and nonterminal, and enumerate covers in cost order")
          ->option_text("K");
  app.set_version_flag("--version", std::string("burggen ") + kVersion);
  burggen::addManFlag(app, "burggen", std::string("burggen ") + kVersion, "BURG code-generator generator",
                      {{"FILES AND FORMATS",
                        "SPEC is a tree grammar in iburg's language with burggen's extensions (bindings, costs in\n"
                        "C++, actions, %type, %node), or with --lburg in lburg's dialect. docs/burg-language.md\n"
                        "describes both, the order of ties, and what differs from iburg and lburg; docs/tutorial.md\n"
                        "follows one tree through a generated matcher.\n"
                        "\n"
                        "Errors in the spec are reported as file:line:col: error: message, with the line and a caret."},
                       {"EXAMPLES",
                        "A C++ matcher and its header:\n"
                        "  burggen isel.burg -o isel_matcher.cpp --header isel_matcher.hpp --namespace isel\n"
                        "An iburg grammar and its client, as iburg would build them:\n"
                        "  burggen --iburg -I sample.brg sample.c && cc sample.c -o sample\n"
                        "An lcc machine description:\n"
                        "  burggen --lburg x86linux.md x86linux.c"},
                       {"EXIT STATUS",
                        "0 when the matcher was written, 1 when the spec has errors or a file cannot be\n"
                        "read or written, 2 for a mistake on the command line."}});
  std::vector<std::string> knownOptions;
  std::string unknown = unknownOption(app, argc, argv, knownOptions);
  if (!unknown.empty()) {
    std::string suggestion = common::closestName(unknown, knownOptions);
    std::cerr << "burggen: unknown option '" << unknown << "'"
              << (suggestion.empty() ? "" : "; did you mean " + suggestion + "?")
              << "\nRun 'burggen --help' for the options.\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "burggen: " << firstLine(e.what()) << "\nRun 'burggen --help' for the options.\n";
    return 2;
  }

  if (iburgC && lburgC) {
    std::cerr << "burggen: --iburg and --lburg exclude each other.\n";
    return 2;
  }
  bool writesC = iburgC || lburgC;
  if (!outputArgument.empty()) outputPath = outputArgument;
  if (iburgTables && !iburgC) {
    std::cerr << "burggen: -I applies to --iburg only.\n";
    return 2;
  }
  if (lburgC && prefixOption->count() == 0) prefix = "";
  burggen::TieOrder tieOrder = lburgC ? burggen::TieOrder::Lburg : burggen::TieOrder::Iburg;
  if (!ties.empty() && !burggen::parseTieOrder(ties, tieOrder)) {
    std::cerr << "burggen: --ties takes iburg, lburg or first, not '" << ties << "'.\n";
    return 2;
  }
  if (!(writesC && prefix.empty()) && !burggen::isIdentifier(prefix)) {
    std::cerr << "burggen: the prefix '" << prefix << "' is not a " << (writesC ? "C" : "C++") << " identifier.\n";
    return 2;
  }
  if (writesC && (!headerPath.empty() || !nameSpace.empty())) {
    std::cerr << "burggen: --header and --namespace apply to the C++ matcher, not to --iburg or --lburg.\n";
    return 2;
  }
  if (writesC && kbestOption->count() > 0) {
    std::cerr << "burggen: --kbest applies to the C++ matcher, not to --iburg or --lburg.\n";
    return 2;
  }
  if (traceCalls && !writesC) {
    std::cerr << "burggen: --trace-calls applies to --iburg and --lburg; the C++ matcher has its trace member.\n";
    return 2;
  }
  if (!nameSpace.empty() && !burggen::namespaceNameProblem(nameSpace).empty()) {
    std::cerr << "burggen: the namespace '" << nameSpace << "' " << burggen::namespaceNameProblem(nameSpace)
              << "; choose another name.\n";
    return 2;
  }
  if (kbestOption->count() > 0 && !ties.empty()) {
    std::cerr << "burggen: --ties applies to the classic matcher; the k-best matcher ranks equal costs by rule, "
                 "the one written first first.\n";
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
  if (specPath != "-") {
    for (const auto& [path, what] :
         {std::pair{outputPath, outputArgument.empty() ? "-o" : "the destination"}, std::pair{headerPath, "--header"}})
      if (!path.empty() && path != "-" && sameFile(path, specPath)) {
        std::cerr << "burggen: " << what << " names the spec '" << specPath
                  << "' itself; the matcher would overwrite it. Name another file.\n";
        return 2;
      }
  }
  if (!headerPath.empty() && outputPath != "-" && sameFile(headerPath, outputPath)) {
    std::cerr << "burggen: --header and -o name the same file '" << headerPath
              << "'; the header would overwrite the matcher.\n";
    return 2;
  }

  common::Result<common::SourceFile> read = common::SourceFile::read(specPath);
  if (!read) {
    std::cerr << "burggen: " << read.reason() << ".\n";
    return 1;
  }
  const common::SourceFile& source = *read;
  common::Diagnostics diagnostics(source);
  burgspec::Grammar grammar;
  bool ok = (lburgC ? burgspec::parseLburgGrammar(source, diagnostics, grammar)
                    : burgspec::parseGrammar(source, diagnostics, grammar)) &&
            burgspec::checkGrammar(grammar, diagnostics);

  burggen::EmittedMatcher matcher;
  if (ok && writesC) {
    burggen::CEmitOptions options;
    options.dialect = lburgC ? burggen::CDialect::Lburg : burggen::CDialect::Iburg;
    options.prefix = prefix;
    options.ties = tieOrder;
    options.traceCalls = traceCalls;
    options.specName = baseName(source.name());
    ok = burggen::emitCMatcher(grammar, options, diagnostics, matcher.source);
  } else if (ok) {
    burggen::EmitOptions options;
    options.prefix = prefix;
    options.nameSpace = nameSpace;
    options.specName = baseName(source.name());
    options.ties = tieOrder;
    options.kbest = kbest;
    if (specPath != "-" && outputPath != "-") {
      options.specPath = specPath;
      options.sourcePath = outputPath;
    }
    if (!headerPath.empty()) options.headerIncludeName = baseName(headerPath);
    ok = burggen::emitMatcher(grammar, options, diagnostics, matcher);
  }
  diagnostics.printAll(std::cerr);
  if (!ok || diagnostics.hasErrors()) return 1;

  std::vector<burggen::OutputFile> files{{outputPath, matcher.source}};
  if (!headerPath.empty()) files.push_back({headerPath, matcher.header});
  std::string error;
  if (!burggen::writeOutputFiles(files, error)) {
    std::cerr << "burggen: " << error << ".\n";
    return 1;
  }
  return 0;
}
