// The idiom units (src/idioms/): one a kind of tile, each step read and printed back through its
// unit, each carrying its payload typed, and decisions of one length whatever the idiom.
#include <gtest/gtest.h>

#include "src/idioms/registry.hpp"
#include "src/transform/recipe.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::recipeFromText;

TEST(IdiomRegistry, EachKindOfTileHasOneUnit) {
  const std::vector<TileIdiom> kinds{SimtTile{}, MmaTile{}, WgmmaTile{}, WinogradTile{}, BackToBackTile{}};
  ASSERT_EQ(idiomUnits().size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    size_t holding = 0;
    for (const IdiomUnit* u : idiomUnits()) holding += u->holds(kinds[i]);
    EXPECT_EQ(holding, 1u) << i;
    EXPECT_EQ(&idiomUnit(kinds[i]), idiomUnits()[i]);
    // Neighbours of different idioms differ in these decisions, never in their count.
    EXPECT_EQ(idiomDecisions(kinds[i]).size(), idiomDecisions(kinds[0]).size());
  }
  EXPECT_NE(idiomDecisions(MmaTile{}), idiomDecisions(WgmmaTile{}));
  EXPECT_EQ(idiomUnitOfStep("wgmma"), &idiomUnit(WgmmaTile{}));
  EXPECT_EQ(idiomUnitOfStep("b2b"), &idiomUnit(BackToBackTile{}));
  EXPECT_EQ(idiomUnitOfStep("tile"), nullptr);
}

TEST(IdiomRegistry, StepsCarryTheirIdiomTypedAndPrintBackAsWritten) {
  const std::string text =
      "mma i,j,k 16,8,8 prefetch\n"
      "wgmma j,i,k 64,128,8 wait 0 producer tma tf32x3 promote 2\n"
      "winograd oh,ow 4 block 16,32,8 thread 4,8,2 prefetch\n";
  std::string errors;
  auto recipe = recipeFromText(text, &errors);
  ASSERT_TRUE(recipe) << errors;
  EXPECT_EQ(printRecipe(*recipe), text);
  EXPECT_EQ(recipe->steps[0].idiom, TileIdiom(MmaTile{16, 8, 8, true}));
  const WgmmaTile* wgmma = wgmmaOf(recipe->steps[1].idiom);
  ASSERT_TRUE(wgmma);
  EXPECT_EQ(wgmma->n, 128);
  EXPECT_EQ(wgmma->pending, 0);
  EXPECT_EQ(wgmma->producer, WgmmaProducer::Tma);
  EXPECT_TRUE(wgmma->tf32x3);
  EXPECT_EQ(wgmma->promote, 2);
  const WinogradTile* winograd = winogradOf(recipe->steps[2].idiom);
  ASSERT_TRUE(winograd);
  EXPECT_EQ(winograd->tiling.m, 4);
  EXPECT_EQ(winograd->tiling.points, 2);
  EXPECT_TRUE(winograd->tiling.prefetch);
  for (const RecipeStep& s : recipe->steps) EXPECT_TRUE(s.factors.empty()) << s.str();
}

TEST(IdiomRegistry, AnIdiomStepOfOtherThanThreeLoopsIsRefusedWhereItStands) {
  std::string errors;
  EXPECT_FALSE(recipeFromText("mma i,j 16,8", &errors));
  EXPECT_NE(errors.find("1:13: error: an mma tile takes three loops, I,J,K, not 2"), std::string::npos) << errors;
}

}  // namespace
}  // namespace cudaburg
