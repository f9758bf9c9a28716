// best.cu of a kernel that takes tensor maps (`producer tma`): it encodes each map with the
// driver for its array after allocating it, passes it after the arrays, links the driver, and
// builds with nvcc (compiled here, where nvcc is found; it runs only on an sm_90 GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/diagnostics.hpp"
#include "src/loop/parser.hpp"
#include "src/search/best_program.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {
namespace {

TEST(BestProgram, EncodesTheTensorMapsOfTmaCopies) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/hgemm.loop");
  ASSERT_TRUE(file);
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, {{"M", 1000}, {"N", 512}, {"K", 256}});
  ASSERT_TRUE(kernel) << diags.str();
  common::SourceFile recipeFile(
      "recipe",
      "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 64,256; strip k 64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; "
      "map k_o async 4; unroll k 64; wgmma i,j,k 64,256,16 producer tma; raster 8");
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  ASSERT_TRUE(recipe) << recipeDiags.str();
  TransformResult t = applyRecipe(*kernel, *recipe);
  ASSERT_TRUE(t.ok()) << t.reason;
  EmitResult best = emitKernel(*t.kernel), reference = emitReference(*kernel);
  ASSERT_TRUE(best.ok()) << best.reason;
  ASSERT_TRUE(reference.ok()) << reference.reason;
  const std::string program = bestProgram(*kernel, *best.kernel, *reference.kernel);
  for (const char* text : {"best.cu -o best -lcuda && ./best", "#include <cuda.h>", "tensor_map A_map;",
                           "const cuuint64_t dims[] = {256, 1000}, strides[] = {512};",
                           "const cuuint32_t box[] = {64, 128}, steps[] = {1, 1};",
                           "cuTensorMapEncodeTiled(reinterpret_cast<CUtensorMap*>(&B_map), "
                           "CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, B, dims, strides, box, steps,",
                           "CU_TENSOR_MAP_SWIZZLE_128B", "(C, A, B, A_map, B_map);", "(ref_C, ref_A, ref_B);"})
    EXPECT_NE(program.find(text), std::string::npos) << text;
  // The maps are encoded after the arrays are allocated, before the first launch.
  EXPECT_LT(program.find("cudaMalloc(&B,"), program.find("tensor_map A_map;"));
  EXPECT_LT(program.find("reinterpret_cast<CUtensorMap*>(&B_map)"), program.find("hgemm<<<"));

  const std::string nvcc = CUDABURG_NVCC;
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc to build best.cu with";
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("best_tma_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "best.cu") << program;
  std::string command = nvcc + " -O1 -w -gencode=arch=compute_90a,code=sm_90a -c " + (dir / "best.cu").string() +
                        " -o " + (dir / "best.o").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::filesystem::remove_all(dir);
}

// Without a GPU nothing is verified or timed: best.cu says the kernel is the model's choice,
// unverified, and claims no bound the search verified with.
TEST(BestProgram, AnUnverifiedKernelIsNotCalledVerified) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/matmul.loop");
  ASSERT_TRUE(file);
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, {{"M", 64}, {"N", 64}, {"K", 64}});
  ASSERT_TRUE(kernel) << diags.str();
  EmitResult best = emitKernel(*kernel), reference = emitReference(*kernel);
  ASSERT_TRUE(best.ok() && reference.ok());
  const std::string unverified = bestProgram(*kernel, *best.kernel, *reference.kernel, {0, "", false});
  EXPECT_EQ(unverified.find("verified kernel"), std::string::npos) << unverified.substr(0, 400);
  EXPECT_EQ(unverified.find("the search verified with"), std::string::npos);
  EXPECT_NE(unverified.find("The model's choice for `matmul` among the kernels\n// that compiled, unverified"),
            std::string::npos)
      << unverified.substr(0, 400);
  const std::string verified = bestProgram(*kernel, *best.kernel, *reference.kernel);
  EXPECT_NE(verified.find("The fastest verified kernel found for `matmul`"), std::string::npos);
  EXPECT_NE(verified.find("the bound the search verified with"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
