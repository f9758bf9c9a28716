// The kernel body's lines: a declaration stays only when a later line that stays uses its name.
#include <gtest/gtest.h>

#include "src/cuda/emit/body_text.hpp"

namespace cudaburg::emit_internal {
namespace {

TEST(BodyText, KeepsADeclarationALaterLineUses) {
  BodyText body;
  size_t mark = body.size();
  body.add("  const int i = thread_x;");
  body.add("  out[i] = 0;");
  body.dropIfUnused(mark, "i");
  EXPECT_EQ(body.str(), "  const int i = thread_x;\n  out[i] = 0;\n");
  EXPECT_TRUE(body.uses("thread_x"));
}

TEST(BodyText, DropsADeclarationNothingLaterUses) {
  BodyText body;
  body.add("int i = 1;  // before: not a use");
  size_t mark = body.size();
  body.add("const int i = thread_x;");
  body.add("out[ii] = i_u + 2*xi;");  // names that only contain `i`
  body.dropIfUnused(mark, "i");
  EXPECT_EQ(body.str(), "int i = 1;  // before: not a use\nout[ii] = i_u + 2*xi;\n");
  EXPECT_FALSE(body.uses("thread_x"));
}

TEST(BodyText, ADroppedDeclarationUsesNothing) {
  // `j` is used only by the declaration of `j0`, which nothing uses: both go, and so does the
  // coordinate `j` was made of.
  BodyText body;
  size_t jMark = body.size();
  body.add("const int j = block_y * 4;");
  size_t j0Mark = body.size();
  body.add("const int j0 = j / 2;");
  body.add("acc += 1;");
  body.dropIfUnused(j0Mark, "j0");
  body.dropIfUnused(jMark, "j");
  EXPECT_EQ(body.str(), "acc += 1;\n");
  EXPECT_FALSE(body.uses("block_y"));
  EXPECT_TRUE(body.uses("acc"));
}

TEST(BodyText, InsertedLinesCountAsUses) {
  BodyText body;
  size_t mark = body.size();
  body.add("const int k = 0;");
  size_t at = body.size();
  body.add("}");
  body.insert(at, "  float a_reg[2][4];  // as loop k reads it\n  float b_reg[2][4];\n");
  body.dropIfUnused(mark, "k");
  EXPECT_EQ(body.str(), "const int k = 0;\n  float a_reg[2][4];  // as loop k reads it\n  float b_reg[2][4];\n}\n");
  EXPECT_EQ(body.size(), 4u);
}

TEST(BodyText, EmptyLinesStay) {
  BodyText body;
  body.add("");
  body.add("x;");
  EXPECT_EQ(body.str(), "\nx;\n");
}

}  // namespace
}  // namespace cudaburg::emit_internal
