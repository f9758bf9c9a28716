// The CUDA a collapsed convolution becomes: indices derived once where the collapsed index is
// set, none of that arithmetic in the loop over a strip, gathers bounded where they may leave the
// source, 4 elements at a time where the layout allows it, and the reduction side of a gather
// counted from strip to strip rather than divided out of its index each strip.
#include <gtest/gtest.h>

#include <regex>

#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

using testing::loopText;

std::string conv2dUnder(const std::map<std::string, int64_t>& sizes, const std::string& recipeText) {
  return testing::emittedExample("conv2d.loop", sizes, recipeText);
}

const char* const kGemm =
    "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; map k_o grid.y; "
    "map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o; stage Wt at q_o; ";

TEST(EmitCollapse, DerivedIndicesAreSetOnceAndNotInTheStripLoop) {
  std::string src = conv2dUnder({{"N", 3}, {"C", 5}, {"H", 9}, {"W", 7}, {"K", 40}}, std::string(kGemm) + "unroll q 8");
  std::string strip = loopText(src, "for (int q_u = 0;");
  ASSERT_FALSE(strip.empty()) << src;
  EXPECT_EQ(strip.find(" / "), std::string::npos) << strip;
  EXPECT_EQ(strip.find(" % "), std::string::npos) << strip;
  // The write-back derives n, oh, ow from m once an element of a thread's tile.
  EXPECT_NE(src.find("const int n = m / 63;"), std::string::npos) << src;
  EXPECT_NE(src.find("const int oh = m / 7 % 9;"), std::string::npos) << src;
  // Tiles of n*oh*ow pass the last image, strips of c*r*s the last channel: both bounded.
  EXPECT_NE(src.find("n < 3 && "), std::string::npos) << src;
  EXPECT_NE(src.find("c < 5"), std::string::npos) << src;
}

TEST(EmitCollapse, GatheredReductionIndicesAreCountedNotDividedEachStrip) {
  // c, r, s of each item a thread gathers: set before the strip loop, then moved on by the strip
  // (8 = 0*9 + 2*3 + 2) with carries after each copy, filled then used, pipelined or asynchronous.
  for (const char* buffering : {"", "map q_o pipelined; ", "map q_o async; "}) {
    SCOPED_TRACE(buffering);
    std::string src =
        conv2dUnder({{"N", 3}, {"C", 5}, {"H", 9}, {"W", 7}, {"K", 40}}, std::string(kGemm) + buffering + "unroll q 8");
    std::string strips = loopText(src, "for (int q_o = 0;");
    ASSERT_FALSE(strips.empty()) << src;
    for (const char* division : {"q / 9", "q / 3", "q % 3"})
      EXPECT_EQ(strips.find(division), std::string::npos) << strips;
    // The input's 4 items a thread each count; the filters' items of a thread share a place in q.
    EXPECT_NE(src.find("int In_s_at_c[4], In_s_at_r[4], In_s_at_s[4];"), std::string::npos) << src;
    EXPECT_NE(src.find("int Wt_s_at_c, Wt_s_at_r, Wt_s_at_s;"), std::string::npos) << src;
    EXPECT_NE(strips.find("const int c = In_s_at_c[stage_r];"), std::string::npos) << strips;
    EXPECT_NE(strips.find("const int s = Wt_s_at_s;"), std::string::npos) << strips;
    EXPECT_NE(strips.find("In_s_at_s[stage_r] += 2;"), std::string::npos) << strips;
    EXPECT_NE(strips.find("if (In_s_at_r[stage_r] >= 3) { In_s_at_r[stage_r] -= 3; In_s_at_c[stage_r] += 1; }"),
              std::string::npos)
        << strips;
    EXPECT_NE(strips.find("if (Wt_s_at_s >= 3) { Wt_s_at_s -= 3; Wt_s_at_r += 1; }"), std::string::npos) << strips;
  }
  // More items a thread than a few registers count (16 of the input under strips of 16): those
  // derive their indices as before, with no counters.
  std::string deep = conv2dUnder({{"N", 3}, {"C", 5}, {"H", 9}, {"W", 7}, {"K", 40}},
                                 "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; "
                                 "map k_o grid.y; map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; "
                                 "strip q 32; stage In at q_o; stage Wt at q_o; unroll q 32");
  EXPECT_EQ(deep.find("In_s_at_c"), std::string::npos) << deep;
  EXPECT_NE(loopText(deep, "for (int q_o = 0;").find("const int c = q / 9;"), std::string::npos) << deep;
}

// The counters start from the items as the strip loop's copies number them: a first-strip plan
// of another width (a loop index known to be 0 there looks aligned) would give each thread
// another item's taps (grouped filters Wt[4*g + k] read 2 at a time, found wrong on a GPU).
TEST(EmitCollapse, CountersStartFromTheItemsTheCopiesTake) {
  std::string src = testing::emittedExample(
      "conv2d_grouped.loop", {{"N", 2}, {"G", 3}, {"CG", 2}, {"KG", 4}, {"H", 6}, {"W", 7}},
      "collapse c,r,s; interchange n g; interchange n k; collapse n,oh,ow; tile k,n_oh_ow 32,64; map g grid.z; "
      "map k_o grid.y; map n_oh_ow_o grid.x; map k block.y; map n_oh_ow block.x; regtile k,n_oh_ow 8,4; "
      "strip c_r_s 8; stage In at c_r_s_o; stage Wt at c_r_s_o; unroll c_r_s 8");
  size_t counters = src.find("int Wt_s_at_c, Wt_s_at_r, Wt_s_at_s;");
  ASSERT_NE(counters, std::string::npos) << src;
  // The item numbering of the counters' first strip, and of the copy in the loop (its first item
  // of a thread: thread_rank + 128 * stage_r at stage_r = 0).
  auto numbering = [&](size_t from) {
    size_t at = src.find("const int stage_1 = ", from);
    std::string text = at == std::string::npos ? std::string() : src.substr(at, src.find(';', at) - at);
    text = std::regex_replace(text, std::regex(R"( \+ [0-9]+ \* stage_r)"), "");
    return std::regex_replace(text, std::regex("thread_rank"), "stage_e");
  };
  std::string first = numbering(counters);
  std::string copy = numbering(src.find("// Gather Wt"));
  EXPECT_FALSE(first.empty()) << src;
  EXPECT_EQ(first, copy) << src;
}

TEST(EmitCollapse, GathersGo4ElementsAtATimeWhereTheLayoutAllows) {
  // 1x1, no padding: n*oh*ow runs along the input's rows, 16 bytes a copy.
  std::string pointwise =
      conv2dUnder({{"N", 2}, {"C", 64}, {"H", 12}, {"W", 12}, {"K", 40}, {"R", 1}, {"S", 1}, {"P", 0}},
                  std::string(kGemm) + "map q_o async");
  EXPECT_NE(pointwise.find("// Gather In[n][c][oh + r][ow + s] over q from q_o, m from m_o -> In_s, zero outside In, 4 "
                           "elements at a time"),
            std::string::npos)
      << pointwise;
  EXPECT_NE(pointwise.find("async_copy<16>(&In_s"), std::string::npos) << pointwise;
  // 3x3 with padding: the window's shift leaves rows unaligned; the filters still go 4 at a time
  // along c*r*s, stored down the buffer's columns.
  std::string padded =
      conv2dUnder({{"N", 2}, {"C", 64}, {"H", 12}, {"W", 12}, {"K", 40}}, std::string(kGemm) + "map q_o pipelined");
  EXPECT_NE(
      padded.find("// Gather In[n][c][oh + r - 1][ow + s - 1] over q from q_o, m from m_o -> In_s, zero outside In\n"),
      std::string::npos)
      << padded;
  EXPECT_NE(padded.find("zero outside Wt, 4 elements at a time"), std::string::npos) << padded;
  EXPECT_NE(padded.find("= Wt_s_next[stage_r].w;"), std::string::npos) << padded;
  // Filters whose c*r*s does not hold whole vectors (5 channels of 3x3: 45) go an element at a time.
  std::string odd =
      conv2dUnder({{"N", 2}, {"C", 5}, {"H", 12}, {"W", 12}, {"K", 40}}, std::string(kGemm) + "map q_o async");
  EXPECT_EQ(odd.find("4 elements at a time"), std::string::npos) << odd;
}

// Tensor cores on an implicit GEMM of half NHWC operands: both gathers stored as padded rows of
// the reduction, filled 16 bytes (8 channels) at a time by cp.async, zero in the input's padding,
// read by ldmatrix; the write-back derives each pixel's n, oh, ow.
std::string tensorCoreGemm(int strip) {
  std::string d = std::to_string(strip);
  return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 64,32; map n_oh_ow_o grid.y; map k_o grid.x; "
         "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k 32,16; strip r_s_c " +
         d +
         "; "
         "stage In at r_s_c_o transposed pad 8; stage Wt at r_s_c_o transposed pad 8; map r_s_c_o async; "
         "unroll r_s_c " +
         d + "; mma n_oh_ow,k,r_s_c 16,8,16";
}

TEST(EmitCollapse, TensorCoreGathersGo16BytesAtATimeIntoRowsLdmatrixReads) {
  std::string src = testing::emittedExample("conv2d_nhwc_half.loop",
                                            {{"N", 2}, {"C", 64}, {"H", 8}, {"W", 8}, {"K", 64}}, tensorCoreGemm(32));
  EXPECT_NE(src.find("__shared__ __align__(16) __half In_s[3][64][40];"), std::string::npos) << src;
  EXPECT_NE(src.find("__shared__ __align__(16) __half Wt_s[3][32][40];"), std::string::npos) << src;
  EXPECT_NE(src.find("over n_oh_ow from n_oh_ow_o, r_s_c from r_s_c_o -> In_s, zero outside In, 8 elements at a time"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("async_copy<16>(&In_s[0][stage_0][stage_1], stage_in ? &In["), std::string::npos) << src;
  EXPECT_NE(src.find("async_copy<16>(&Wt_s["), std::string::npos) << src;
  EXPECT_NE(src.find("ldmatrix<4, false>(mma_a[n_oh_ow_o3_u], &In_s[stage_slot]"), std::string::npos) << src;
  EXPECT_NE(src.find("ldmatrix<4, false>((mma_b + 2 * k_o3_u), &Wt_s[stage_slot]"), std::string::npos)
      << src;  // two tiles
  EXPECT_NE(src.find("mma_m16n8k16_f16(Out_r["), std::string::npos) << src;
  EXPECT_NE(src.find("const int oh = n_oh_ow / 8 % 8;"), std::string::npos) << src;
  // Three channels of 4 x 4 taps make no run of 8 (nor of 2) that stays at one pixel: the input
  // goes an element at a time, stored by the threads; the filters (runs of 48) still 16 bytes.
  std::string narrow = testing::emittedExample(
      "conv2d_nhwc_half.loop", {{"N", 2}, {"C", 3}, {"H", 8}, {"W", 8}, {"K", 64}, {"R", 4}, {"S", 4}, {"P", 2}},
      tensorCoreGemm(16));
  EXPECT_EQ(narrow.find("async_copy<16>(&In_s"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("async_copy<2>"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("// In's elements one at a time: too narrow for cp.async"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("async_copy<16>(&Wt_s"), std::string::npos) << narrow;
}

}  // namespace
}  // namespace cudaburg
