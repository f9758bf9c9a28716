#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/report/search_plot.hpp"
#include "src/report/search_report.hpp"

using namespace cudaburg;

namespace {

VariantResult variant(const std::string& recipe, RunStatus status, double ms, double model) {
  VariantResult v;
  v.recipe = recipe;
  v.modelCost = model;
  v.measured = status != RunStatus::NotMeasured;
  v.result.status = status;
  v.result.ms = ms;
  v.result.tflops = ms > 0 ? 1.0 / ms : 0;
  if (status == RunStatus::Failed) v.result.reason = "illegal address";
  return v;
}

SearchOutcome measuredOutcome() {
  SearchOutcome o;
  o.kernelName = "matmul";
  o.sizes = "M=64,N=64,K=64";
  o.device = "NVIDIA H200 (sm_90)";
  o.gpuAvailable = true;
  o.variants = {
      variant("tile i,j 64,64\n", RunStatus::Ok, 2.0, 1.0), variant("tile i,j 8,8\n", RunStatus::Failed, 0, 2.0),
      variant("tile i,j 32,32\n", RunStatus::Ok, 1.0, 3.0), variant("tile i,j 16,16\n", RunStatus::Ok, 4.0, 0.5)};
  o.reference = {"cuBLAS", 1.25, 0.8, true};
  return o;
}

}  // namespace

TEST(SearchOutcome, BestIsFastestVerified) {
  auto o = measuredOutcome();
  ASSERT_TRUE(o.best());
  EXPECT_EQ(*o.best(), 2u);
}

TEST(SearchOutcome, BestWithoutGpuIsModelsChoice) {
  SearchOutcome o;
  o.variants = {variant("a", RunStatus::NotMeasured, 0, 2.0), variant("b", RunStatus::NotMeasured, 0, 0.5),
                variant("c", RunStatus::Refused, 0, 0.1)};
  o.variants[2].measured = false;
  ASSERT_TRUE(o.best());
  EXPECT_EQ(*o.best(), 1u);
}

TEST(SearchReport, MarkdownRanksAndListsFailures) {
  std::string md = searchReportMarkdown(measuredOutcome());
  size_t first = md.find("tile i,j 32,32"), second = md.find("tile i,j 64,64"), third = md.find("tile i,j 16,16");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_NE(md.find("| 1.250 |"), std::string::npos);  // ratio cuBLAS/ours for the 1.0 ms variant
  EXPECT_NE(md.find("| failed | illegal address |"), std::string::npos);
  EXPECT_EQ(md.find("Not measured"), std::string::npos);
}

// A winner that computes float products as three tf32 products says so; one on the CUDA cores,
// or a tf32x3 variant that did not win, says nothing of it.
TEST(SearchReport, SaysWhenTheWinnerComputesFloatProductsAsTf32x3) {
  SearchOutcome o = measuredOutcome();
  EXPECT_EQ(searchReportMarkdown(o).find("arithmetic:"), std::string::npos);
  o.variants[0].recipe = "wgmma j,i,k 64,64,8 producer tma tf32x3 promote 1\n";  // 2.0 ms: not the winner
  EXPECT_EQ(searchReportMarkdown(o).find("arithmetic:"), std::string::npos);
  o.variants[2].recipe = "wgmma j,i,k 64,128,8 producer tma tf32x3 promote 1\n";  // 1.0 ms: the winner
  std::string md = searchReportMarkdown(o);
  EXPECT_NE(md.find("- arithmetic: the winner computes float products on tensor cores as three tf32 products"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`--no-tf32x3`"), std::string::npos);
}

// The precision contract in the reports: the mode, and each kernel's error beside the library's
// own on the same inputs.
TEST(SearchReport, ShowsEachErrorBesideTheLibrarysAndTheMode) {
  SearchOutcome o = measuredOutcome();
  o.precision = "strict";
  o.variants[2].result.error = 3.1e-7;
  o.variants[2].result.libraryError = 1.1e-6;
  std::string md = searchReportMarkdown(o);
  EXPECT_NE(md.find("- precision: `strict`: each kernel's error against the exact FP64 nest"), std::string::npos) << md;
  EXPECT_NE(md.find("| rel. error | library's error |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3.1e-07 | 1.1e-06 |"), std::string::npos) << md;
  nlohmann::json j = nlohmann::json::parse(searchReportJson(o));
  EXPECT_EQ(j["precision"], "strict");
  EXPECT_DOUBLE_EQ(j["variants"][2]["library_error"].get<double>(), 1.1e-6);
  EXPECT_TRUE(j["variants"][0]["library_error"].is_null());  // no library measured beside it
}

TEST(SearchReport, ShowsTheRefitsEstimateOfWhatWasMeasured) {
  SearchOutcome o = measuredOutcome();
  o.modelSamples = 3;
  o.calibratedRho = 0.9;
  o.refitOnCompiledCode = true;
  o.variants[2].refittedMs = 1.1250004;
  std::string md = searchReportMarkdown(o);
  EXPECT_NE(md.find("and to the compiled kernels' registers and instructions"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3.00000 | 1.125 | `tile i,j 32,32`"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.00000 | - | `tile i,j 64,64`"), std::string::npos) << md;
  nlohmann::json j = nlohmann::json::parse(searchReportJson(o));
  EXPECT_EQ(j["model"]["refit_on_compiled_code"], true);
}

TEST(SearchReport, SaysClearlyWhenNothingWasTimed) {
  SearchOutcome o;
  o.kernelName = "matmul";
  o.notMeasuredReason = "no CUDA device";
  o.variants = {variant("tile i,j 64,64", RunStatus::NotMeasured, 0, 1.0)};
  std::string md = searchReportMarkdown(o);
  EXPECT_NE(md.find("**Not measured**: no CUDA device"), std::string::npos);
  // Nothing was measured: the middle phase compiled, and the report does not call it measuring.
  EXPECT_NE(md.find("compiling 0.0 s"), std::string::npos) << md;
  EXPECT_EQ(md.find("measuring"), std::string::npos) << md;
  auto j = nlohmann::json::parse(searchReportJson(o));
  EXPECT_FALSE(j["measured"].get<bool>());
  EXPECT_EQ(j["variants"][0]["status"], "not measured");
  EXPECT_FALSE(j["variants"][0].contains("ms"));
  EXPECT_NE(searchPlotSvg(o).find("not measured (no CUDA device)"), std::string::npos);
}

// Refused variants (failed to compile) are crosses apart from the candidates, counted; the
// chosen one is the cheapest that was not refused; a long title is squeezed, not cut off; the
// axis says its unit.
TEST(SearchPlot, WithoutMeasurementsRefusedVariantsAreDrawnApart) {
  SearchOutcome o;
  o.kernelName = "a_kernel_with_a_rather_long_name_that_a_plot_title_must_still_show_whole";
  o.sizes = "M=2048,N=2048,K=2048,P=2048,Q=2048";
  o.device = "no CUDA driver on this machine (libcuda.so.1 not found)";
  o.notMeasuredReason = o.device;
  o.variants = {variant("a", RunStatus::Refused, 0, 5.0), variant("b", RunStatus::NotMeasured, 0, 10.0),
                variant("c", RunStatus::NotMeasured, 0, 20.0)};
  std::string svg = searchPlotSvg(o);
  size_t dots = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++dots;
  EXPECT_EQ(dots, 2u) << svg;
  EXPECT_NE(svg.find("x: refused (1)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("chosen: 10 ms"), std::string::npos) << svg;
  EXPECT_NE(svg.find("lengthAdjust=\"spacingAndGlyphs\">" + o.kernelName), std::string::npos) << svg;
  EXPECT_NE(svg.find("kernel time, ms (log scale)"), std::string::npos) << svg;
}

TEST(SearchPlot, WithoutMeasurementsPlotsTheModelsEstimates) {
  SearchOutcome o;
  o.kernelName = "matmul";
  o.notMeasuredReason = "no CUDA device";
  o.variants = {variant("a", RunStatus::NotMeasured, 0, 40.0), variant("b", RunStatus::NotMeasured, 0, 10.0),
                variant("c", RunStatus::NotMeasured, 0, 20.0)};
  std::string svg = searchPlotSvg(o);
  size_t dots = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++dots;
  EXPECT_EQ(dots, 3u);
  EXPECT_NE(svg.find("not measured (no CUDA device): the model's estimates"), std::string::npos) << svg;
  EXPECT_NE(svg.find("chosen: 10"), std::string::npos) << svg;
  // Every point lies inside the canvas.
  for (size_t p = svg.find("cy=\""); p != std::string::npos; p = svg.find("cy=\"", p + 1)) {
    double cy = std::stod(svg.substr(p + 4));
    EXPECT_GT(cy, 0);
    EXPECT_LT(cy, 420);
  }
}

TEST(SearchReport, JsonCarriesEveryVariant) {
  auto j = nlohmann::json::parse(searchReportJson(measuredOutcome()));
  ASSERT_EQ(j["variants"].size(), 4u);
  EXPECT_EQ(j["best"], 2);
  EXPECT_DOUBLE_EQ(j["variants"][2]["ratio_to_reference"].get<double>(), 1.25);
  EXPECT_EQ(j["variants"][1]["reason"], "illegal address");
}

TEST(SearchPlot, DrawsEveryMeasuredVariantAndTheReference) {
  std::string svg = searchPlotSvg(measuredOutcome());
  size_t dots = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++dots;
  EXPECT_EQ(dots, 3u);
  EXPECT_NE(svg.find("cuBLAS 1.25 ms"), std::string::npos);
  EXPECT_NE(svg.find("best so far: 1 ms"), std::string::npos);
  EXPECT_NE(svg.find("failed or wrong (1)"), std::string::npos);
}
