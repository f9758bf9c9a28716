// The burggen command: options, missing files and bad specs give a clear message, a non-zero
// exit status and no output file; good runs write whole files.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct CommandResult {
  int status;
  std::string output;  // standard output and standard error together
};

CommandResult burggen(const std::string& args, const std::string& input = "") {
  std::string command = std::string(BURGGEN_PATH) + " " + args + " 2>&1";
  if (!input.empty()) command = "printf '%s' '" + input + "' | " + command;
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

std::string scratch(const std::string& name) { return testing::TempDir() + "burggen_command_test_" + name; }

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

const char* kGoodSpec = "%{\n#define OP_LABEL(p) ((p)->op)\n%}\n%term A=1 B=2\n%%\ns: A(s) = 1 (1);\ns: B = 2;\n";

TEST(BurggenCommand, HelpAndVersion) {
  CommandResult help = burggen("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--namespace"), std::string::npos);
  CommandResult version = burggen("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.output.find("burggen"), std::string::npos);
}

TEST(BurggenCommand, UnknownFlag) {
  CommandResult run = burggen("--frobnicate x.burg");
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.output.find("burggen: "), std::string::npos);
  EXPECT_NE(run.output.find("--frobnicate"), std::string::npos) << run.output;
}

TEST(BurggenCommand, MissingSpecArgument) {
  CommandResult run = burggen("-o " + scratch("none.cpp"));
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.output.find("spec"), std::string::npos) << run.output;
  EXPECT_FALSE(exists(scratch("none.cpp")));
}

TEST(BurggenCommand, BadPrefixAndNamespace) {
  std::string spec = scratch("good.burg");
  write(spec, kGoodSpec);
  CommandResult prefix = burggen(spec + " --prefix 9x -o " + scratch("p.cpp"));
  EXPECT_NE(prefix.status, 0);
  EXPECT_NE(prefix.output.find("prefix '9x' is not a C++ identifier"), std::string::npos) << prefix.output;
  CommandResult space = burggen(spec + " --namespace a::-b -o " + scratch("p.cpp"));
  EXPECT_NE(space.status, 0);
  EXPECT_NE(space.output.find("not a C++ namespace name"), std::string::npos) << space.output;
  EXPECT_FALSE(exists(scratch("p.cpp")));
}

TEST(BurggenCommand, MissingFile) {
  std::string out = scratch("missing.cpp");
  CommandResult run = burggen(scratch("no_such_spec.burg") + " -o " + out);
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("cannot open"), std::string::npos) << run.output;
  EXPECT_FALSE(exists(out));
}

TEST(BurggenCommand, BadSpecGivesDiagnosticsAndLeavesTheOutputAlone) {
  std::string spec = scratch("bad.burg");
  write(spec, "%term A=1\n%%\ns: A(t);\n");
  std::string out = scratch("bad.cpp"), header = scratch("bad.hpp");
  write(out, "previous contents\n");
  CommandResult run = burggen(spec + " -o " + out + " --header " + header);
  EXPECT_EQ(run.status, 1);
  // file:line:col: error: ..., then the line and a caret under the spot.
  EXPECT_NE(run.output.find(spec + ":3:6: error: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("s: A(t);\n     ^\n"), std::string::npos) << run.output;
  EXPECT_EQ(read(out), "previous contents\n");
  EXPECT_FALSE(exists(header));
}

TEST(BurggenCommand, WritesSourceAndHeader) {
  std::string spec = scratch("ok.burg");
  write(spec, kGoodSpec);
  std::string out = scratch("ok.cpp"), header = scratch("ok.hpp");
  CommandResult run = burggen(spec + " -o " + out + " --header " + header + " --namespace a::b --prefix Q");
  ASSERT_EQ(run.status, 0) << run.output;
  std::string source = read(out), declarations = read(header);
  EXPECT_NE(source.find("#include \"burggen_command_test_ok.hpp\""), std::string::npos);
  EXPECT_NE(declarations.find("namespace a::b {"), std::string::npos);
  EXPECT_NE(declarations.find("class QMatcher {"), std::string::npos);
  EXPECT_EQ(source.find("class QMatcher {"), std::string::npos);
  EXPECT_NE(source.find("bool QMatcher::label(NodePtr root)"), std::string::npos);
}

TEST(BurggenCommand, KBest) {
  CommandResult run = burggen("- -o - --kbest 12", "%term A=1\n%%\ns: A;\n");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("static constexpr int kBest = 12;"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("class CoverEnumerator {"), std::string::npos);
  // Parameters or label values need the k-best labeler: it is written with K 1.
  CommandResult params = burggen("- -o -", "%term A=1\n%param <int> p\n%%\ns: A [p in f()];\n");
  ASSERT_EQ(params.status, 0) << params.output;
  EXPECT_NE(params.output.find("static constexpr int kBest = 1;"), std::string::npos);
  for (const char* bad : {"0", "-3"}) {
    CommandResult zero = burggen(std::string("- -o - --kbest ") + bad, "%term A=1\n%%\ns: A;\n");
    EXPECT_EQ(zero.status, 2);
    EXPECT_EQ(zero.output,
              std::string("burggen: --kbest takes a positive number of derivations to keep, not ") + bad + ".\n");
  }
}

TEST(BurggenCommand, StandardInputToStandardOutput) {
  CommandResult run = burggen("- -o -", "%term A=1\n%%\ns: A;\n");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("from <stdin>"), std::string::npos);
  EXPECT_NE(run.output.find("class burmMatcher {"), std::string::npos);
}

}  // namespace

namespace {

const char* kIburgSpec = "%{\n#define OP_LABEL(p) ((p)->op)\n%}\n%term A=1 B=2\n%%\ns: A(s) = 1 (1);\ns: B = 2;\n";

TEST(BurggenCommand, IburgRefusesWhatCCannotExpress) {
  std::string spec = scratch("bound.brg");
  write(spec, "%term A=1 B=2\n%%\ns: A(x:s) = 1 (1);\ns: B = 2 (f(node));\n");
  CommandResult run = burggen("--iburg " + spec + " -o " + scratch("bound.c"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("bound.brg:3:6: error: bindings ('x:') need burggen's C++ matcher"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("bound.brg:4:11: error: iburg's costs are constants"), std::string::npos) << run.output;
  EXPECT_FALSE(exists(scratch("bound.c")));
}

TEST(BurggenCommand, IburgRefusesAGuard) {
  std::string spec = scratch("guarded.brg");
  write(spec, "%term A=1 B=2\n%%\ns: A(s) = 1 if (ready()) (1);\ns: B = 2;\n");
  CommandResult run = burggen("--iburg " + spec + " -o " + scratch("guarded.c"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.output.find("guarded.brg:3:17: error: guards ('if (...)') need burggen's C++ matcher"),
            std::string::npos)
      << run.output;
  EXPECT_FALSE(exists(scratch("guarded.c")));
}

TEST(BurggenCommand, IburgTakesItsOwnCommandLine) {
  std::string spec = scratch("iburg.brg");
  write(spec, kIburgSpec);
  std::remove(scratch("iburg.c").c_str());
  CommandResult run = burggen("--iburg -I " + spec + " " + scratch("iburg.c"));
  EXPECT_EQ(run.status, 0) << run.output;
  std::string c = read(scratch("iburg.c"));
  EXPECT_NE(c.find("int burm_rule(STATE_TYPE state, int goalnt)"), std::string::npos);
  EXPECT_EQ(c.find("#include <vector>"), std::string::npos);  // C, no C++ headers
}

TEST(BurggenCommand, LburgReportsWhereADescriptionIsWrong) {
  std::string spec = scratch("bad.md");
  write(spec, "%term A=1\n%%\ns: A \"ld %0\n");
  CommandResult run = burggen("--lburg " + spec + " -o " + scratch("bad.c"));
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(
      run.output.find("bad.md:3:6: error: unterminated template: missing '\"' on this line\ns: A \"ld %0\n     ^"),
      std::string::npos)
      << run.output;
  EXPECT_FALSE(exists(scratch("bad.c")));
}

TEST(BurggenCommand, CommandLineMistakesOfTheCDialects) {
  std::string spec = scratch("iburg2.brg");
  write(spec, kIburgSpec);
  struct Case {
    std::string args, message;
  } cases[] = {
      {"--ties sideways", "burggen: --ties takes iburg, lburg or first, not 'sideways'.\n"},
      {"--iburg --lburg", "burggen: --iburg and --lburg exclude each other.\n"},
      {"--iburg --kbest 2", "burggen: --kbest applies to the C++ matcher, not to --iburg or --lburg.\n"},
      {"--iburg --namespace n",
       "burggen: --header and --namespace apply to the C++ matcher, not to --iburg or --lburg.\n"},
      {"-T", "burggen: --trace-calls applies to --iburg and --lburg; the C++ matcher has its trace member.\n"},
      {"-I", "burggen: -I applies to --iburg only.\n"},
      {"--kbest 2 --ties first",
       "burggen: --ties applies to the classic matcher; the k-best matcher ranks equal costs by rule, the one "
       "written first first.\n"},
  };
  for (const Case& c : cases) {
    CommandResult run = burggen(c.args + " " + spec + " -o " + scratch("mistake.c"));
    EXPECT_EQ(run.status, 2) << c.args;
    EXPECT_EQ(run.output, c.message) << c.args;
  }
  EXPECT_FALSE(exists(scratch("mistake.c")));
}

}  // namespace

namespace {

// A spec over nodes of its own, with a C++ mistake in an action (line 8) and one in the epilogue.
const char* kSpecWithMistakes =
    "%{\n"
    "struct N { int op; N* kid; void* state; };\n"
    "inline int burg_op(N* n) { return n->op; }\n"
    "inline N* burg_kid(N* n, int) { return n->kid; }\n"
    "%}\n"
    "%node <N*>\n"
    "%term A=1\n%%\n"
    "s: A { int x = \"}\"; (void)x; }\n"
    "%%\n"
    "int epilogue_mistake = undeclared_in_the_epilogue;\n";

TEST(BurggenCommand, ACompilerErrorInAnActionNamesTheSpecsLine) {
  std::string spec = scratch("mistakes.burg"), out = scratch("mistakes.cpp");
  write(spec, kSpecWithMistakes);
  CommandResult run = burggen(spec + " -o " + out);
  ASSERT_EQ(run.status, 0) << run.output;
  std::string source = read(out);
  std::string compile = std::string(BURGGEN_TEST_CXX) + " -std=c++17 -fsyntax-only " + out + " 2>&1";
  FILE* pipe = popen(compile.c_str(), "r");
  std::string messages;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) messages.append(buffer, n);
  pclose(pipe);
  // The action's mistake at its line and column in the spec (the string after "int x = ").
  EXPECT_NE(messages.find(spec + ":9:16: error:"), std::string::npos) << messages;
  // The epilogue's, after the action, at its own line of the generated file.
  size_t at = source.find("int epilogue_mistake");
  ASSERT_NE(at, std::string::npos);
  size_t line = 1 + std::count(source.begin(), source.begin() + at, '\n');
  EXPECT_NE(messages.find(out + ":" + std::to_string(line) + ":"), std::string::npos) << messages;
  // Written to standard output, the matcher has no #line directives: there is no file to return to.
  CommandResult plain = burggen(spec + " -o -");
  EXPECT_EQ(plain.output.find("#line"), std::string::npos);
}

TEST(BurggenCommand, AnUnknownOptionIsNamedWithTheClosestKnownOne) {
  std::string spec = scratch("unknown.burg");
  write(spec, kGoodSpec);
  CommandResult run = burggen("--kbset 3 " + spec + " -o " + scratch("unknown.cpp"));
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.output,
            "burggen: unknown option '--kbset'; did you mean --kbest?\nRun 'burggen --help' for the options.\n");
  CommandResult far = burggen(spec + " --frobnicate");
  EXPECT_EQ(far.output, "burggen: unknown option '--frobnicate'\nRun 'burggen --help' for the options.\n");
  EXPECT_FALSE(exists(scratch("unknown.cpp")));
  // A value that begins with '-', after an option that takes one, is a value, not an option.
  CommandResult value = burggen(spec + " --namespace -x -o " + scratch("unknown.cpp"));
  EXPECT_EQ(value.output, "burggen: the namespace '-x' is not a C++ namespace name; choose another name.\n");
}

TEST(BurggenCommand, TheSpecIsNeverOverwritten) {
  std::string spec = scratch("kept.burg");
  write(spec, kGoodSpec);
  CommandResult output = burggen(spec + " -o " + spec);
  EXPECT_EQ(output.status, 2);
  EXPECT_EQ(output.output,
            "burggen: -o names the spec '" + spec + "' itself; the matcher would overwrite it. Name another file.\n");
  CommandResult header = burggen(spec + " -o " + scratch("kept.cpp") + " --header " + spec);
  EXPECT_EQ(header.status, 2);
  EXPECT_NE(header.output.find("--header names the spec"), std::string::npos) << header.output;
  CommandResult destination = burggen("--iburg " + spec + " " + spec);
  EXPECT_EQ(destination.status, 2);
  EXPECT_EQ(read(spec), kGoodSpec);
  EXPECT_FALSE(exists(scratch("kept.cpp")));
}

TEST(BurggenCommand, ANamespaceThatIsAKeywordIsRefused) {
  std::string spec = scratch("keyword.burg");
  write(spec, kGoodSpec);
  CommandResult run = burggen(spec + " --namespace int -o " + scratch("keyword.cpp"));
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.output, "burggen: the namespace 'int' is a keyword of C or C++; choose another name.\n");
  CommandResult nested = burggen(spec + " --namespace a::class -o " + scratch("keyword.cpp"));
  EXPECT_EQ(nested.output,
            "burggen: the namespace 'a::class' holds 'class', which is a keyword of C or C++; choose another name.\n");
  EXPECT_FALSE(exists(scratch("keyword.cpp")));
}

}  // namespace
