// Exported launchers of the kernels tests/data's databases do not hold: a wgmma kernel whose
// producer fills its stages by TMA (tensor maps encoded through the driver's entry point) and a
// split reduction whose parts meet in a workspace (allocated on the stream). Each is planned from a
// row, written, and its src/<function>.cu compiles with nvcc (label export: no GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/diagnostics.hpp"
#include "src/export/export_plan.hpp"
#include "src/export/library_files.hpp"
#include "src/loop/parser.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg {
namespace {

// A tuned kernel of examples/<example> at `sizes`, as a verified row with `recipe` would give it.
TunedKernel tunedRow(const std::string& example, const std::map<std::string, int64_t>& sizes,
                     const std::string& recipe) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example);
  EXPECT_TRUE(file);
  common::Diagnostics diags(*file);
  auto nest = parseLoopFile(*file, diags, sizes);
  EXPECT_TRUE(nest) << diags.str();
  TunedKernel t;
  t.problem = {"examples/" + example, {}};
  t.nest = *nest;
  t.key = {"hash", "sizes", recipe, "NVIDIA H200", "9.0", "570", "sm_90", "CUDA 13.0"};
  t.key.sizes.clear();
  for (const auto& [name, value] : nest->sizes)
    t.key.sizes += (t.key.sizes.empty() ? "" : ",") + name + "=" + std::to_string(value);
  t.measurement.status = RunStatus::Ok;
  t.measurement.ms = 1;
  t.measurement.precision = "strict";
  t.bound = 1e-5;
  return t;
}

// Writes the plan's files under `dir` and compiles `function`'s source with nvcc for the plan's arch.
int compileExport(const ExportPlan& plan, const ScratchDir& dir, const std::string& function) {
  for (const auto& [name, text] : libraryFiles(plan, true)) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
  }
  std::string arch = plan.arch.substr(3);
  std::string command = std::string(CUDABURG_NVCC) + " -std=c++17 -gencode=arch=compute_" + arch + ",code=sm_" + arch +
                        " -diag-suppress=177 -I" + (dir / "include").string() + " -c " +
                        (dir / ("src/" + function + ".cu")).string() + " -o " + (dir / "out.o").string();
  return std::system(command.c_str());
}

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ExportKernels, TmaTensorMapsAreEncodedThroughTheDriverEntryPoint) {
  std::string recipe =
      "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,256; "
      "strip k 64; stage A at k_o swizzle; stage B at k_o swizzle slabs 64; map k_o async 4; unroll k 64; "
      "wgmma i,j,k 64,256,16 producer tma; raster 8";
  std::vector<TunedKernel> rows = {tunedRow("hgemm.loop", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, recipe)};
  std::string error;
  auto plan = planExport(rows, "", error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->arch, "sm_90a");
  EXPECT_TRUE(plan->usesTensorMaps);
  ScratchDir dir("export_tma");
  ASSERT_EQ(compileExport(*plan, dir, "hgemm"), 0);
  std::string source = fileText(dir / "src/hgemm.cu");
  EXPECT_NE(source.find("cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\""), std::string::npos);
  EXPECT_NE(source.find("CU_TENSOR_MAP_SWIZZLE_128B"), std::string::npos);
  EXPECT_NE(source.find("cudaFuncSetAttribute(hgemm_tuned_0::hgemm_kernel_0"), std::string::npos);
  std::string header = fileText(dir / "include/hgemm.h");
  EXPECT_NE(
      header.find("cudaError_t hgemm(float* C, const CUDABURG_HALF* A, const CUDABURG_HALF* B, cudaStream_t stream);"),
      std::string::npos);
}

TEST(ExportKernels, ASplitsWorkspaceIsAllocatedZeroedOnTheStream) {
  std::string recipe =
      "split k 3 workspace; map k_s grid.z; tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; "
      "map j block.x; regtile i,j 8,4; strip k 16; stage A at k_o transposed; stage B at k_o; map k_o pipelined; "
      "unroll k 16; roundup; peel i_o,j_o,k_o; raster 8";
  std::vector<TunedKernel> rows = {tunedRow("matmul.loop", {{"M", 127}, {"N", 4099}, {"K", 513}}, recipe)};
  std::string error;
  auto plan = planExport(rows, "split", error);
  ASSERT_TRUE(plan) << error;
  ScratchDir dir("export_workspace");
  ASSERT_EQ(compileExport(*plan, dir, "matmul"), 0);
  std::string source = fileText(dir / "src/matmul.cu");
  EXPECT_NE(source.find("cudaMallocAsync(reinterpret_cast<void**>(&split_arrivals)"), std::string::npos);
  EXPECT_NE(source.find("cudaFreeAsync(split_arrivals, stream)"), std::string::npos);
}

TEST(ExportKernels, KernelsOfOneNameNeedTheSameNest) {
  std::string error;
  std::vector<TunedKernel> rows = {tunedRow("matmul.loop", {{"M", 64}}, ""), tunedRow("matmul_nt.loop", {}, "")};
  rows[1].nest.name = "matmul";
  EXPECT_FALSE(planExport(rows, "", error));
  EXPECT_NE(error.find("two problems define a kernel 'matmul' differently"), std::string::npos) << error;
}

}  // namespace
}  // namespace cudaburg
