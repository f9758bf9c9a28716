// The CUDA of a gather through an offset table (`stage ... table`): the table in constant memory,
// each thread's rows (pixel offset, mask of the taps inside the input) set once before the strip
// loop, and no division (by anything but a power of two: a shift) and no bounds arithmetic of
// the reduction's indices in the strip loop, filled then used, pipelined or asynchronous.
#include <gtest/gtest.h>

#include <regex>

#include "tests/cuda/emitted_example.hpp"
#include "tests/cuda/host_run.hpp"

namespace cudaburg {
namespace {

using testing::loopText;

// The divisions and remainders in `text` by constants that are no power of two: real divisions
// (a power of two is a shift or a mask), or by anything not a constant.
std::vector<std::string> realDivisions(const std::string& source) {
  std::string text = std::regex_replace(source, std::regex("//[^\n]*"), "");  // comments aside
  std::vector<std::string> found;
  std::regex division(R"([/%] ([A-Za-z_(][A-Za-z_0-9]*|[0-9]+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), division); it != std::sregex_iterator(); ++it) {
    std::string by = (*it)[1];
    if (std::isdigit(static_cast<unsigned char>(by[0]))) {
      long long n = std::stoll(by);
      if (n > 0 && (n & (n - 1)) == 0) continue;
    }
    found.push_back(it->str());
  }
  return found;
}

const std::map<std::string, int64_t> kConv3dSizes = {{"N", 2}, {"C", 5}, {"D", 6}, {"H", 9}, {"W", 7}, {"K", 64}};

std::string conv3dGemm(const std::string& tail) {
  return "collapse c,a,b,e; interchange n k; collapse n,od,oh,ow; tile k,n_od_oh_ow 64,64; map k_o grid.y; "
         "map n_od_oh_ow_o grid.x; map k block.y; map n_od_oh_ow block.x; regtile k,n_od_oh_ow 8,4; "
         "strip c_a_b_e 16; stage In at c_a_b_e_o table; stage Wt at c_a_b_e_o; unroll c_a_b_e 16" +
         tail;
}

TEST(EmitGatherTable, TheStripLoopLooksOffsetsUpAndDividesNothing) {
  for (const char* buffering : {"", "; map c_a_b_e_o pipelined", "; map c_a_b_e_o async 4"}) {
    SCOPED_TRACE(buffering);
    std::string src = testing::emittedExample("conv3d_ncdhw.loop", kConv3dSizes, conv3dGemm(buffering));
    // 5 channels of 27 taps, and 15 more for a partial last strip's values of c*a*b*e.
    EXPECT_NE(src.find("__constant__ int In_s_table[150] = {"), std::string::npos) << src;
    EXPECT_NE(src.find("27 taps"), std::string::npos) << src;
    // A thread's items of the input share their pixel (128 threads, 64 pixels): one row, one mask.
    EXPECT_NE(src.find("int In_s_row;"), std::string::npos) << src;
    EXPECT_NE(src.find("unsigned In_s_mask;"), std::string::npos) << src;
    std::string strips = loopText(src, "for (int c_a_b_e_o = 0;");
    ASSERT_FALSE(strips.empty()) << src;
    EXPECT_EQ(realDivisions(strips), std::vector<std::string>{}) << strips;
    EXPECT_NE(strips.find("const int In_s_entry = In_s_table[c_a_b_e];"), std::string::npos) << strips;
    EXPECT_NE(strips.find("(In_s_mask >> (In_s_entry & 31)) & 1u"), std::string::npos) << strips;
    EXPECT_NE(strips.find("In[In_s_row + (In_s_entry >> 5)]"), std::string::npos) << strips;
    // No index of the pixel or the tap is derived in it.
    for (const char* derived : {"const int n =", "const int od =", "const int ow ="})
      EXPECT_EQ(strips.find(derived), std::string::npos) << strips;
  }
}

TEST(EmitGatherTable, TheRowsAreSetOnceBeforeTheStrips) {
  std::string src = testing::emittedExample("conv3d_ncdhw.loop", kConv3dSizes, conv3dGemm("; map c_a_b_e_o pipelined"));
  size_t rows = src.find("In_s_row = ");
  size_t strips = src.find("for (int c_a_b_e_o = 0;");
  ASSERT_NE(rows, std::string::npos) << src;
  EXPECT_LT(rows, strips);
  EXPECT_EQ(src.find("In_s_row = ", rows + 1), std::string::npos) << src;
  // The mask: a bit a tap whose three subscripts stay inside, for a pixel inside the batch.
  EXPECT_NE(src.find("if (static_cast<unsigned>(n) < 2u) {"), std::string::npos) << src;
  EXPECT_NE(src.find("if (static_cast<unsigned>(row_2 + 2) < 6u && static_cast<unsigned>(row_3 + 2) < 9u && "
                     "static_cast<unsigned>(row_4 + 2) < 7u) mask |= 1u << 26;"),
            std::string::npos)
      << src;
}

TEST(EmitGatherTable, ItemsOfDifferentPixelsEachKeepTheirRow) {
  // 128 threads over 256 pixels: a thread's items lie at two pixels, each item keeps its row.
  std::string src = testing::emittedExample(
      "conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 8}},
      "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 8,256; map k_o grid.y; "
      "map m_o grid.x; map k block.y; map m block.x; regtile k,m 2,8; strip q 4; stage In at q_o table; "
      "stage Wt at q_o; unroll q 4; map q_o pipelined");
  EXPECT_NE(src.find("int In_s_row[8];"), std::string::npos) << src;
  EXPECT_NE(src.find("In_s[stage_slot ^ 1]"), std::string::npos) << src;
  std::string strips = loopText(src, "for (int q_o = 0;");
  EXPECT_NE(strips.find("In[In_s_row[stage_r] + (In_s_entry >> 4)]"), std::string::npos) << strips;
  EXPECT_EQ(realDivisions(strips), std::vector<std::string>{}) << strips;
}

TEST(EmitGatherTable, ChannelsLastGoSixteenBytesAtATimeAsynchronously) {
  // NHWC: runs of 4 channels, each at one pixel, inside or in the padding: one entry a run, into
  // rows of the reduction (transposed).
  std::string src = testing::emittedExample(
      "conv2d_nhwc.loop", {{"N", 2}, {"H", 7}, {"W", 6}, {"C", 8}, {"K", 32}},
      "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 64,32; map n_oh_ow_o grid.y; map k_o grid.x; "
      "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k 4,4; strip r_s_c 8; stage In at r_s_c_o transposed table; "
      "stage Wt at r_s_c_o; unroll r_s_c 8; map r_s_c_o async 4");
  std::string strips = loopText(src, "for (int r_s_c_o = 0;");
  ASSERT_FALSE(strips.empty()) << src;
  EXPECT_NE(strips.find("async_copy<16>(&In_s["), std::string::npos) << strips;
  EXPECT_NE(strips.find("const bool stage_in = (In_s_mask"), std::string::npos) << strips;
  EXPECT_EQ(realDivisions(strips), std::vector<std::string>{}) << strips;
}

// The kernels run on the host (tests/cuda/host_run.hpp) compute what the nest computes: tables of
// 1-D, 2-D (strided, 1x1, channels last) and 3-D reductions, rows shared by a thread's items or
// one an item, filled then used or pipelined, tiles past the last pixel and strips past the last
// tap, edges run apart.
TEST(EmitGatherTable, TheKernelsComputeTheNestOnTheHost) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    std::string recipe;
  };
  std::vector<Case> cases = {
      {"conv3d_ncdhw.loop", kConv3dSizes, conv3dGemm("; map c_a_b_e_o pipelined")},
      {"conv3d_ncdhw.loop", kConv3dSizes, conv3dGemm("")},
      {"conv2d.loop",
       {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 8}, {"ST", 2}},
       "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 8,256; map k_o grid.y; "
       "map m_o grid.x; map k block.y; map m block.x; regtile k,m 2,8; strip q 4; stage In at q_o table; "
       "stage Wt at q_o; unroll q 4; map q_o pipelined"},
      {"conv2d.loop",
       {{"N", 3}, {"C", 5}, {"H", 19}, {"W", 17}, {"K", 40}},  // edges apart: rows twice
       "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; map k_o grid.y; "
       "map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o table; "
       "stage Wt at q_o; unroll q 8; map q_o pipelined; roundup; peel k_o,m_o,q_o"},
      {"conv2d.loop",
       {{"N", 2}, {"C", 12}, {"H", 8}, {"W", 8}, {"K", 20}, {"R", 1}, {"S", 1}, {"P", 0}},
       "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; map k_o grid.y; "
       "map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o table; "
       "stage Wt at q_o; unroll q 8; map q_o pipelined"},
      {"conv1d.loop",
       {{"N", 2}, {"C", 5}, {"L", 40}, {"K", 3}, {"R", 5}, {"ST", 3}, {"P", 2}},
       "interchange n k; collapse n,o into m; collapse c,r into q; tile k,m 4,32; map k_o grid.y; map m_o grid.x; "
       "map k block.y; map m block.x; regtile k,m 2,2; strip q 8; stage In at q_o table; stage Wt at q_o; unroll q 8"},
      {"conv2d_nhwc.loop",
       {{"N", 2}, {"H", 7}, {"W", 6}, {"C", 8}, {"K", 32}},
       "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 64,32; map n_oh_ow_o grid.y; map k_o grid.x; "
       "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k 4,4; strip r_s_c 8; "
       "stage In at r_s_c_o transposed table; stage Wt at r_s_c_o; unroll r_s_c 8; map r_s_c_o pipelined"},
  };
  for (const Case& c : cases) testing::expectComputesTheNestOnHost(c.example, c.sizes, c.recipe, "_table[");
}

}  // namespace
}  // namespace cudaburg
