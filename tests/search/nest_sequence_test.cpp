// A body of several nests in a row: split into a kernel a nest (src/analysis/nest_sequence.hpp),
// the kernels run in order compute what the body does, best.cu launches and checks them all
// (built by nvcc where there is one), and report.md puts the nests' winners side by side.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "src/analysis/nest_sequence.hpp"
#include "src/exec/buffers.hpp"
#include "src/exec/executor.hpp"
#include "src/report/nest_sequence_report.hpp"
#include "src/search/best_program.hpp"
#include "src/transform/recipe.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

const Array* param(const Kernel& k, const std::string& name) {
  for (const Array& a : k.params)
    if (a.name == name) return &a;
  return nullptr;
}

TEST(NestSequence, SplitsTheProducerFromItsConsumer) {
  auto p = test::parseExample("mlp2.loop", {{"M", 8}, {"D", 6}, {"F", 4}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string why;
  std::vector<Kernel> nests = splitNests(*p.kernel, why);
  ASSERT_EQ(nests.size(), 2u) << why;
  EXPECT_EQ(nests[0].name, "mlp2_nest1");
  EXPECT_EQ(nests[1].name, "mlp2_nest2");
  // Each takes the arrays its nest touches, in the kernel's order; what it only reads is an input.
  ASSERT_EQ(nests[0].params.size(), 3u);
  EXPECT_EQ(nests[0].params[0].name, "H");
  EXPECT_FALSE(nests[0].params[0].input);
  EXPECT_TRUE(param(nests[0], "X")->input && param(nests[0], "W1")->input);
  EXPECT_EQ(param(nests[0], "Y"), nullptr);
  ASSERT_EQ(nests[1].params.size(), 3u);
  EXPECT_FALSE(param(nests[1], "Y")->input);
  EXPECT_TRUE(param(nests[1], "H")->input) << "the consumer only reads what the producer wrote";
  EXPECT_EQ(param(nests[1], "X"), nullptr);
}

TEST(NestSequence, TheNestsInOrderComputeTheBody) {
  auto p = test::parseExample("mlp2.loop", {{"M", 8}, {"D", 6}, {"F", 5}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string why;
  std::vector<Kernel> nests = splitNests(*p.kernel, why);
  ASSERT_EQ(nests.size(), 2u) << why;
  Buffers whole = fillRandom(*p.kernel, 11), split = whole;
  execute(*p.kernel, whole);
  for (const Kernel& nest : nests) execute(nest, split);
  for (const char* out : {"H", "Y"}) EXPECT_EQ(split.data.at(out), whole.data.at(out)) << out;
  // In the other order the consumer reads what the producer has not written yet.
  Buffers reversed = fillRandom(*p.kernel, 11);
  execute(nests[1], reversed);
  execute(nests[0], reversed);
  EXPECT_NE(reversed.data.at("Y"), whole.data.at("Y"));
}

TEST(NestSequence, OnlyParallelNestsInARowSplit) {
  auto one = test::parseExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_TRUE(one.kernel) << one.errors();
  std::string why;
  EXPECT_TRUE(splitNests(*one.kernel, why).empty());
  EXPECT_EQ(why, "the kernel's body is a single nest");
  auto serial = test::parseText(
      "size N = 8;\n"
      "kernel k(float A[N], float B[N]) {\n"
      "  parallel for (i = 0; i < N; i++)\n"
      "    A[i] = 1;\n"
      "  for (j = 1; j < N; j++)\n"
      "    B[j] = B[j - 1] + A[j];\n"
      "}\n");
  ASSERT_TRUE(serial.kernel) << serial.errors();
  EXPECT_TRUE(splitNests(*serial.kernel, why).empty());
  EXPECT_EQ(why, "the statement of the kernel's body at line 5 is not a parallel nest");
}

// Both nests on wgmma with TMA copies: each kernel's helpers and tensor-map type in a namespace
// of its own, launched in order, checked against both references.
TEST(NestSequence, BestProgramLaunchesEveryNestInOrder) {
  auto p = test::parseExample("mlp2.loop", {{"M", 256}, {"D", 256}, {"F", 256}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::string why;
  std::vector<Kernel> nests = splitNests(*p.kernel, why);
  ASSERT_EQ(nests.size(), 2u) << why;
  const char* recipes[] = {
      "tile i,f 128,128; map i_o grid.y; map f_o grid.x; map i block.x; map f block.y; regtile i,f 128,64; "
      "strip d 32; stage X at d_o swizzle; stage W1 at d_o swizzle slabs 32; map d_o async 4; unroll d 32; "
      "wgmma f,i,d 64,128,8 producer tma tf32x3 promote 1; raster 8",
      "tile r,c 128,128; map r_o grid.y; map c_o grid.x; map r block.x; map c block.y; regtile r,c 128,64; "
      "strip e 32; stage H at e_o swizzle; stage W2 at e_o swizzle slabs 32; map e_o async 4; unroll e 32; "
      "wgmma c,r,e 64,128,8 producer tma tf32x3 promote 1; raster 8"};
  std::vector<EmitResult> bests, references;
  for (size_t i = 0; i < 2; ++i) {
    common::SourceFile recipeFile("recipe", recipes[i]);
    common::Diagnostics recipeDiags(recipeFile);
    auto recipe = parseRecipe(recipeFile, recipeDiags);
    ASSERT_TRUE(recipe) << recipeDiags.str();
    TransformResult t = applyRecipe(nests[i], *recipe);
    ASSERT_TRUE(t.ok()) << t.reason;
    bests.push_back(emitKernel(*t.kernel));
    references.push_back(emitReference(nests[i]));
    ASSERT_TRUE(bests.back().ok()) << bests.back().reason;
    ASSERT_TRUE(references.back().ok()) << references.back().reason;
  }
  const std::string program = bestProgram(
      *p.kernel,
      {{&nests[0], &*bests[0].kernel, &*references[0].kernel}, {&nests[1], &*bests[1].kernel, &*references[1].kernel}},
      {0, "", false});
  for (const char* text :
       {"namespace nest1 {", "namespace nest2 {", "nest1::tensor_map nest1_X_map;", "nest2::tensor_map nest2_H_map;",
        "(Y, H, W2, nest2_H_map, nest2_W2_map);", "nest1::mlp2_nest1_reference<<<", "H: relative error",
        "Y: relative error", "the FP64 checks' bounds for these nests, summed"})
    EXPECT_NE(program.find(text), std::string::npos) << text;
  // The producer runs before its consumer, in the check and in the timed runs alike.
  size_t first = program.find("nest1::mlp2_nest1<<<"), second = program.find("nest2::mlp2_nest2<<<");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(program.find("nest1::mlp2_nest1_reference<<<"), program.find("nest2::mlp2_nest2_reference<<<"));
  size_t timed = program.find("// Time:");
  EXPECT_LT(program.find("nest1::mlp2_nest1<<<", timed), program.find("nest2::mlp2_nest2<<<", timed));

  const std::string nvcc = CUDABURG_NVCC;
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc to build best.cu with";
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("best_nests_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "best.cu") << program;
  std::string command = nvcc + " -O1 -w -gencode=arch=compute_90a,code=sm_90a -c " + (dir / "best.cu").string() +
                        " -o " + (dir / "best.o").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::filesystem::remove_all(dir);
}

// Two nests' outcomes, as two searches left them: their winners' times and their libraries' summed.
TEST(NestSequence, ReportSumsTheNestsTimes) {
  SearchOutcome producer, consumer;
  for (SearchOutcome* o : {&producer, &consumer}) {
    o->sizes = "M=64,D=32,F=16";
    o->gpuAvailable = true;
    o->variants.push_back({});
    o->variants.back().measured = true;
    o->variants.back().result.status = RunStatus::Ok;
    o->reference = {"cuBLASLt matmul", 0, 1, true};
  }
  producer.kernelName = "mlp2_nest1", consumer.kernelName = "mlp2_nest2";
  producer.variants.back().result.ms = 0.25, consumer.variants.back().result.ms = 0.5;
  producer.reference.ms = 0.5, consumer.reference.ms = 1.0;
  std::vector<NestReport> nests = {{"mlp2_nest1", {"H"}, &producer, true, "tile i,f 32,32"},
                                   {"mlp2_nest2", {"Y"}, &consumer, true, "tile r,c 32,32"}};
  ASSERT_TRUE(summedMs(nests));
  EXPECT_DOUBLE_EQ(*summedMs(nests), 0.75);
  EXPECT_DOUBLE_EQ(*summedMs(nests, true), 1.5);
  std::string md = nestSequenceReportMarkdown("mlp2", nests);
  for (const char* text :
       {"# cudaburg search: mlp2 (M=64,D=32,F=16)", "- time: 0.7500 ms, the nests' winners' times summed",
        "- reference: 1.5000 ms, the nests' library calls' times summed: ratio 2.000",
        "| 1 | mlp2_nest1 | H | `tile i,f 32,32` | 0.2500 | cuBLASLt matmul | 0.5000 |",
        "| 2 | mlp2_nest2 | Y | `tile r,c 32,32` | 0.5000 | cuBLASLt matmul | 1.0000 |",
        "\n## cudaburg search: mlp2_nest2", "\n### Top variants"})
    EXPECT_NE(md.find(text), std::string::npos) << text << "\n" << md;
  // A nest without a measured winner leaves the sum unknown rather than short.
  consumer.variants.back().measured = false;
  EXPECT_FALSE(summedMs(nests));
  std::string json = nestSequenceReportJson("mlp2", nests);
  EXPECT_NE(json.find("\"ms\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"writes\": [\n        \"H\"\n      ]"), std::string::npos) << json;
}

// Two products back to back searched as one kernel too: the fused winner chosen where it is the
// faster measured, else the nests' winners in order; by the model's estimates where a time is
// missing; and the report says which and why.
TEST(NestSequence, FusedKernelIsChosenWhereItIsTheFaster) {
  SearchOutcome producer, consumer, fusedSearch;
  for (SearchOutcome* o : {&producer, &consumer, &fusedSearch}) {
    o->sizes = "M=4096,D=1024,F=256";
    o->variants.push_back({});
    o->variants.back().measured = true;
    o->variants.back().result.status = RunStatus::Ok;
  }
  producer.kernelName = "mlp2_nest1", consumer.kernelName = "mlp2_nest2", fusedSearch.kernelName = "mlp2";
  producer.variants.back().result.ms = 0.25, consumer.variants.back().result.ms = 0.5;
  producer.variants.back().modelCost = 1, consumer.variants.back().modelCost = 1;
  fusedSearch.variants.back().result.ms = 0.6, fusedSearch.variants.back().modelCost = 3;
  std::vector<NestReport> nests = {{"mlp2_nest1", {"H"}, &producer, true, "tile i,f 32,32"},
                                   {"mlp2_nest2", {"Y"}, &consumer, true, "tile r,c 32,32"}};
  FusedReport fused{"", &fusedSearch, true, "b2b i,r 32,128 4,4 strip 16"};
  FusionChoice choice = chooseFusion(nests, fused);
  EXPECT_TRUE(choice.fused);
  EXPECT_EQ(choice.why, "fused: one kernel is 1.250x as fast as the nests' winners in order, measured");
  std::string md = nestSequenceReportMarkdown("mlp2", nests, &fused);
  EXPECT_NE(md.find("- two products back to back: fused: one kernel is 1.250x as fast as the nests' winners in "
                    "order, measured; best.cu launches it (`b2b i,r 32,128 4,4 strip 16`)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\n## cudaburg search: mlp2 ("), std::string::npos) << md;
  EXPECT_NE(nestSequenceReportJson("mlp2", nests, &fused).find("\"fused\": true"), std::string::npos);
  // Not measured: the model's estimates, summed over the nests (2 against 3).
  fusedSearch.variants.back().measured = false;
  choice = chooseFusion(nests, fused);
  EXPECT_FALSE(choice.fused);
  EXPECT_EQ(choice.why,
            "not fused: the nests' winners in order are 1.500x as fast as the back-to-back kernel, by the model's "
            "estimates");
  // No pair: the sentence why.
  EXPECT_EQ(chooseFusion(nests, {"the hidden width 512 is more than the 256 a block keeps on chip"}).why,
            "not fused: the hidden width 512 is more than the 256 a block keeps on chip");
}

}  // namespace
}  // namespace cudaburg
