// The specs of the fuzzer's seed corpus, read from disk: the clean ones pass every check, the
// others report what they were written to show.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "burgspec/checks.hpp"
#include "burgspec/parser.hpp"

namespace burgspec {
namespace {

struct Loaded {
  common::SourceFile file{"", ""};
  std::unique_ptr<common::Diagnostics> diags;
  Grammar grammar;
  bool ok = false;
};

std::unique_ptr<Loaded> load(const std::string& name) {
  auto loaded = std::make_unique<Loaded>();
  auto read = common::SourceFile::read(std::string(BURGSPEC_CORPUS_DIR) + "/" + name);
  EXPECT_TRUE(read) << read.reason();
  if (read) loaded->file = *read;
  loaded->diags = std::make_unique<common::Diagnostics>(loaded->file);
  loaded->ok =
      parseGrammar(loaded->file, *loaded->diags, loaded->grammar) && checkGrammar(loaded->grammar, *loaded->diags);
  return loaded;
}

TEST(Corpus, ExtensionsSpecIsClean) {
  auto spec = load("extensions.burg");
  EXPECT_TRUE(spec->ok);
  EXPECT_TRUE(spec->diags->all().empty()) << spec->diags->str();
  const Grammar& g = spec->grammar;
  EXPECT_EQ(g.nodeType, "ir::Node*");
  EXPECT_EQ(g.start, "stmt");
  EXPECT_EQ(g.findNonterminal("imm")->resultType, "long");
  EXPECT_EQ(g.findTerminal("SUB")->number, 2);
  EXPECT_EQ(g.findTerminal("ADD")->number, 3);
  EXPECT_NE(g.epilogue.find("int unused;"), std::string::npos);
}

TEST(Corpus, IburgSampleIsClean) {
  auto spec = load("iburg_sample.burg");
  EXPECT_TRUE(spec->ok);
  EXPECT_TRUE(spec->diags->all().empty()) << spec->diags->str();
}

TEST(Corpus, DiagnosticsSpecReportsSeveralSyntaxErrors) {
  auto spec = load("diagnostics.burg");
  EXPECT_FALSE(spec->ok);
  EXPECT_GE(spec->diags->errorCount(), 4) << spec->diags->str();
}

TEST(Corpus, CyclesSpecIsAccepted) {
  auto spec = load("cycles.burg");
  EXPECT_TRUE(spec->ok) << spec->diags->str();
}

}  // namespace
}  // namespace burgspec
