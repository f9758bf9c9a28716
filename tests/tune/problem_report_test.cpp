// What `cudaburg tune --gpus` reads back from a problem's child: the winner, its time and the
// library's from report.json; a missing, broken or winnerless report says so; the log's last error.
#include <gtest/gtest.h>

#include <fstream>

#include "src/tune/problem_report.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg::tune {
namespace {

std::string write(const ScratchDir& dir, const std::string& name, const std::string& text) {
  std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(ProblemReport, ReadsTheWinnerAndTheLibrary) {
  ScratchDir dir("problem-report");
  std::string path = write(dir, "report.json", R"({
    "reference": {"library": "cuBLAS", "measured": true, "ms": 0.5},
    "best": 1,
    "variants": [{"recipe": "tile i,j 32,32\n", "ms": 2.0},
                 {"recipe": "tile i,j 64,64\nmap i_o grid.y\n", "ms": 0.25}]})");
  LaneOutcome o = readProblemReport(path);
  EXPECT_TRUE(o.ok);
  EXPECT_EQ(o.detail, "tile i,j 64,64; map i_o grid.y");
  EXPECT_DOUBLE_EQ(o.ms, 0.25);
  EXPECT_EQ(o.library, "cuBLAS");
  EXPECT_DOUBLE_EQ(o.libraryMs, 0.5);
  EXPECT_FALSE(o.lost);
}

TEST(ProblemReport, ANestAsWrittenUnmeasured) {
  ScratchDir dir("problem-report");
  std::string path = write(dir, "report.json", R"({"reference": {"library": "", "measured": false, "ms": null},
    "best": 0, "variants": [{"recipe": ""}]})");
  LaneOutcome o = readProblemReport(path);
  EXPECT_TRUE(o.ok);
  EXPECT_EQ(o.detail, "");
  EXPECT_EQ(o.ms, -1);
  EXPECT_EQ(o.libraryMs, -1);
}

TEST(ProblemReport, MissingBrokenOrWithoutWinner) {
  ScratchDir dir("problem-report");
  std::string missing = (dir / "none.json").string();
  EXPECT_EQ(readProblemReport(missing).detail, "it wrote no " + missing);
  std::string broken = write(dir, "broken.json", "{\"best\": 0, \"varia");
  EXPECT_FALSE(readProblemReport(broken).ok);
  EXPECT_EQ(readProblemReport(broken).detail, broken + " is not a search's report");
  std::string none = write(dir, "none-best.json", R"({"best": null, "variants": []})");
  EXPECT_FALSE(readProblemReport(none).ok);
  EXPECT_EQ(readProblemReport(none).detail, "no kernel (" + none + " names no winner)");
  std::string outside = write(dir, "outside.json", R"({"best": 4, "variants": [{"recipe": ""}]})");
  EXPECT_FALSE(readProblemReport(outside).ok);
}

TEST(ProblemReport, TheLogsLastError) {
  ScratchDir dir("problem-report");
  std::string log = write(dir, "log.txt",
                          "measuring on NVIDIA H200\n"
                          "cudaburg: error: --tile: '7..3' is empty\n"
                          "cudaburg: no kernel: every candidate failed\n"
                          "done\n");
  EXPECT_EQ(lastErrorLine(log), "no kernel: every candidate failed");
  std::string located = write(dir, "log2.txt", "conv.loop:3:7: error: unknown array 'X'\n  X[i] = 0\n      ^\n");
  EXPECT_EQ(lastErrorLine(located), "conv.loop:3:7: error: unknown array 'X'");
  EXPECT_EQ(lastErrorLine((dir / "absent.txt").string()), "");
}

}  // namespace
}  // namespace cudaburg::tune
