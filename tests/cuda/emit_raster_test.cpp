// Rastered blocks in the emitted kernel: the block coordinates derived from the hardware's linear
// block number, run on the host over every block of the grid (compiled by the C++ compiler that
// builds cudaburg): each tile is taken by one block, groups of rows at a time, column by column.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "tests/cuda/emitted_example.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg {
namespace {

const std::string kTiles =
    "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 4,4; strip k 16; "
    "stage A at k_o transposed; stage B at k_o; map k_o pipelined; unroll k 16; ";

// The lines of `src` from the one holding `from` through the one holding `to`.
std::string linesBetween(const std::string& src, const std::string& from, const std::string& to) {
  size_t a = src.find(from), b = src.find(to, a == std::string::npos ? 0 : a);
  if (a == std::string::npos || b == std::string::npos) return "";
  a = src.rfind('\n', a) + 1;
  return src.substr(a, src.find('\n', b) - a + 1);
}

// The (row, column) of tiles that each linear block number takes, in that order, as the emitted
// coordinates compute them on a grid of gridY x gridX blocks.
std::vector<std::pair<int, int>> blockOrder(const std::string& coordinates, int gridY, int gridX) {
  // A folder of its own for each test and grid: ctest runs the tests side by side.
  ScratchDir scratch("emit_raster_" + std::to_string(gridY) + "x" + std::to_string(gridX));
  const std::filesystem::path& dir = scratch.path();
  std::ofstream(dir / "order.cpp") << "#include <algorithm>\n#include <cstdio>\nusing std::min;\n"
                                   << "struct Index { unsigned x, y, z; };\nint main() {\n"
                                   << "  for (unsigned y = 0; y < " << gridY << "; ++y)\n"
                                   << "    for (unsigned x = 0; x < " << gridX << "; ++x) {\n"
                                   << "      const Index blockIdx{x, y, 0};\n"
                                   << coordinates
                                   << "      std::printf(\"%d %d\\n\", int(block_y), int(block_x));\n    }\n}\n";
  std::string command = std::string(CUDABURG_HOST_CXX) + " -std=c++17 -o " + (dir / "order").string() + " " +
                        (dir / "order.cpp").string() + " && " + (dir / "order").string() + " > " +
                        (dir / "order.txt").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command << "\n" << coordinates;
  std::ifstream in(dir / "order.txt");
  std::vector<std::pair<int, int>> order;
  for (int y, x; in >> y >> x;) order.push_back({y, x});
  return order;
}

void expectRastered(int rows, int gridY, int gridX, const std::vector<std::pair<int, int>>& order) {
  ASSERT_EQ(order.size(), size_t(gridY * gridX));
  std::vector<int> taken(gridY * gridX, 0);
  for (size_t linear = 0; linear < order.size(); ++linear) {
    auto [y, x] = order[linear];
    ASSERT_TRUE(y >= 0 && y < gridY && x >= 0 && x < gridX) << linear;
    ++taken[y * gridX + x];
    // Group g holds rows g*rows.. (fewer in the last), its blocks column by column.
    int group = int(linear) / (rows * gridX), first = group * rows, groupRows = std::min(rows, gridY - first);
    int within = int(linear) - group * rows * gridX;
    EXPECT_EQ(y, first + within % groupRows) << linear;
    EXPECT_EQ(x, within / groupRows) << linear;
  }
  for (int t : taken) EXPECT_EQ(t, 1);
}

TEST(EmitRaster, EveryTileIsTakenOnceGroupsOfRowsColumnByColumn) {
  // 1000 / 64: a grid of 16 x 16 blocks; groups of 4 rows divide it, groups of 3 leave one row.
  for (int rows : {4, 3, 16}) {
    SCOPED_TRACE(rows);
    std::string src = testing::emittedExample("matmul.loop", {{"M", 1000}, {"N", 1000}, {"K", 100}},
                                              kTiles + "raster " + std::to_string(rows));
    ASSERT_FALSE(src.empty());
    std::string coordinates = linesBetween(src, "block_linear =", "const int block_x =");
    ASSERT_FALSE(coordinates.empty()) << src;
    EXPECT_EQ(src.find("blockIdx.x;"), std::string::npos) << "block_x is rastered, not the hardware's";
    expectRastered(rows, 16, 16, blockOrder(coordinates, 16, 16));
  }
}

TEST(EmitRaster, ComposesWithPeeledEdgesAndGridZ) {
  // Peeled: the whole-tile test reads the rastered coordinates; a split's parts keep grid.z.
  std::string peeled = testing::emittedExample("matmul.loop", {{"M", 1000}, {"N", 1000}, {"K", 100}},
                                               kTiles + "roundup; peel i_o,j_o,k_o; raster 8");
  ASSERT_FALSE(peeled.empty());
  EXPECT_LT(peeled.find("const int block_y = block_group"), peeled.find("if (i_o < 960 && j_o < 960)")) << peeled;
  std::string split = testing::emittedExample("matmul.loop", {{"M", 640}, {"N", 512}, {"K", 100}},
                                              "split k 2; map k_s grid.z; " + kTiles + "raster 2");
  ASSERT_FALSE(split.empty());
  EXPECT_NE(split.find("const int block_z = blockIdx.z;"), std::string::npos) << split;
  expectRastered(2, 10, 8, blockOrder(linesBetween(split, "block_linear =", "const int block_x ="), 10, 8));
}

TEST(EmitRaster, AGridOfOneRowIsNotRastered) {
  std::string src = testing::emittedExample("matmul.loop", {{"M", 64}, {"N", 1000}, {"K", 100}}, kTiles + "raster 8");
  ASSERT_FALSE(src.empty());
  EXPECT_EQ(src.find("block_linear"), std::string::npos) << src;
}

}  // namespace
}  // namespace cudaburg
