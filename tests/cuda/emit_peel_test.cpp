// Peeled edges in the emitted kernel: a whole tile's copy of the block's work and the whole strips
// carry no guard that only an edge needs, the edge copy and the last strip keep theirs, and the
// shared buffers are declared once for both copies.
#include <gtest/gtest.h>

#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

std::string emitted(const std::map<std::string, int64_t>& sizes, const std::string& recipeText) {
  return testing::emittedExample("matmul.loop", sizes, recipeText);
}

// The text between `from` and the next `to` after it ("" when either is missing).
std::string between(const std::string& s, const std::string& from, const std::string& to) {
  size_t a = s.find(from);
  if (a == std::string::npos) return "";
  size_t b = s.find(to, a + from.size());
  return b == std::string::npos ? "" : s.substr(a, b - a);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

const std::string kTiles =
    "tile i,j 64,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 8,4; strip k 16; "
    "stage A at k_o transposed; stage B at k_o; ";

TEST(EmitPeel, WholeTilesAndStripsRunWithoutTheEdgesGuards) {
  std::string src = emitted({{"M", 127}, {"N", 4099}, {"K", 513}},
                            kTiles + "map k_o pipelined; unroll k 16; roundup; peel i_o,j_o,k_o");
  ASSERT_FALSE(src.empty());
  std::string whole = between(src, "if (i_o < 64 && j_o < 4096) {", "} else {  // a tile at an edge");
  ASSERT_FALSE(whole.empty()) << src;
  for (const char* guard : {"< 127", "< 4099"})
    EXPECT_EQ(whole.find(guard), std::string::npos) << guard << "\n" << whole;
  // The whole strips: no test of k; the next strip's loads check K only in the last whole strip,
  // whose next is partial.
  std::string strips = between(whole, "for (int k_o = 0; k_o < 512; k_o += 16) {  // whole iterations",
                               "// the last iteration, partial");
  ASSERT_FALSE(strips.empty()) << whole;
  EXPECT_EQ(strips.find("if (k < 513)"), std::string::npos) << strips;
  std::string wholeNext = between(strips, "if (k_o < 496) {  // the next strip is whole", "} else {");
  ASSERT_FALSE(wholeNext.empty()) << strips;
  EXPECT_EQ(wholeNext.find("< 513"), std::string::npos) << wholeNext;
  EXPECT_NE(between(strips, "// the next strip is the partial last one", "for (int k_u").find("16 < 513)"),
            std::string::npos)
      << strips;
  EXPECT_NE(whole.find("const int k_o = 512;"), std::string::npos);
  // The edge tile keeps the stores' and the copies' guards, not the multiply-adds' (rounded up).
  std::string edge = src.substr(src.find("} else {  // a tile at an edge"));
  EXPECT_NE(edge.find("if (i < 127)"), std::string::npos);
  EXPECT_NE(edge.find("(i_o + stage_0 < 127)"), std::string::npos);
  EXPECT_EQ(count(edge, "if (i < 127)"), 1u) << edge;  // the store alone
  // One declaration of each shared buffer, before the branch.
  EXPECT_EQ(count(src, "__shared__ __align__(16) float A_s[2][16][68];"), 1u);
  EXPECT_LT(src.find("__shared__ __align__(16) float A_s"), src.find("if (i_o < 64 && j_o < 4096)"));
}

TEST(EmitPeel, ASplitReductionsPartsRunTheirWholeStripsThenTheirLast) {
  std::string src = emitted({{"M", 100}, {"N", 72}, {"K", 50}},
                            "split k 2; map k_s grid.z; " + kTiles + "map k_o async; unroll k 16; roundup; peel k_o");
  ASSERT_FALSE(src.empty());
  std::string strips =
      between(src, "for (; k_o + 16 <= k_s + 25; k_o += 16) {  // whole iterations", "// the last iteration, partial");
  ASSERT_FALSE(strips.empty()) << src;
  EXPECT_EQ(strips.find("if (k < "), std::string::npos) << strips;
  EXPECT_NE(src.find("if (k_o < k_s + 25) {  // the last iteration, partial"), std::string::npos) << src;
}

TEST(EmitPeel, UnpeeledKernelsAreWrittenAsBefore) {
  // Without peel the block's work is written once, with its guards.
  std::string src = emitted({{"M", 127}, {"N", 4099}, {"K", 513}}, kTiles + "map k_o pipelined; unroll k 16");
  ASSERT_FALSE(src.empty());
  EXPECT_EQ(src.find("a whole tile"), std::string::npos);
  EXPECT_NE(src.find("if (k < 513)"), std::string::npos);
  EXPECT_NE(src.find("if (i < 127)"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
