// The worker's messages survive the trip through JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "src/cuda/run/worker_protocol.hpp"

namespace cudaburg {
namespace {

TEST(RunProtocol, MeasureRequestRoundTrips) {
  MeasureRequest r;
  r.variant = LaunchSpec{"/tmp/k.cubin", "matmul", {4, 5, 6}, {32, 8, 1}, 65536, true, {}};
  r.arrays = {ArraySpec{"C", ScalarType::Float, {8, 8}, ArrayInit::Poison, true},
              ArraySpec{"A", ScalarType::Half, {8, 4}, ArrayInit::Random, false}};
  r.reference.kind = ReferencePlan::Kind::Gemm;
  r.reference.gemm.a = "A";
  r.reference.gemm.m = 8;
  r.reference.gemm.bTransposed = true;
  r.reference.gemm.strideC = 64;
  r.seed = 123456789012345ull;
  r.tolerance = 3e-5;
  r.time = false;
  r.runs.minRuns = 7;
  r.runs.maxTotalMs = 50;
  r.runs.raceAgainstMs = 1.5;
  r.runs.raceFactor = 1.3;

  nlohmann::json j = toJson(r);
  EXPECT_EQ(j.at("op"), "measure");
  MeasureRequest back = measureRequestFromJson(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.variant.cubinPath, "/tmp/k.cubin");
  EXPECT_EQ(back.variant.entry, "matmul");
  EXPECT_EQ(back.variant.grid, (std::array<unsigned, 3>{4, 5, 6}));
  EXPECT_EQ(back.variant.block, (std::array<unsigned, 3>{32, 8, 1}));
  EXPECT_EQ(back.variant.dynamicSharedBytes, 65536u);
  EXPECT_TRUE(back.variant.raiseSharedLimit);
  ASSERT_EQ(back.arrays.size(), 2u);
  EXPECT_EQ(back.arrays[1].name, "A");
  EXPECT_EQ(back.arrays[1].type, ScalarType::Half);
  EXPECT_EQ(back.arrays[1].extents, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(back.arrays[1].init, ArrayInit::Random);
  EXPECT_TRUE(back.arrays[0].output);
  EXPECT_FALSE(back.arrays[1].output);
  EXPECT_EQ(back.arrays[0].bytes(), 8u * 8 * 4);
  EXPECT_EQ(back.reference.kind, ReferencePlan::Kind::Gemm);
  EXPECT_EQ(back.reference.gemm.a, "A");
  EXPECT_EQ(back.reference.gemm.m, 8);
  EXPECT_TRUE(back.reference.gemm.bTransposed);
  EXPECT_EQ(back.reference.gemm.strideC, 64);
  EXPECT_EQ(back.seed, 123456789012345ull);
  EXPECT_DOUBLE_EQ(back.tolerance, 3e-5);
  EXPECT_FALSE(back.time);
  EXPECT_EQ(back.runs.minRuns, 7);
  EXPECT_DOUBLE_EQ(back.runs.maxTotalMs, 50);
  EXPECT_DOUBLE_EQ(back.runs.raceAgainstMs, 1.5);
  EXPECT_DOUBLE_EQ(back.runs.raceFactor, 1.3);
}

// A kernel's tensor maps travel with its launch, in order, every field intact; a map whose
// fields disagree is a malformed message.
TEST(RunProtocol, TensorMapsRoundTrip) {
  LaunchSpec s{"/tmp/k.cubin", "hgemm", {16, 32, 1}, {128, 3, 1}, 197696, true, {}};
  s.tensorMaps.push_back(TensorMapParam{"A_map", "A", 1, ScalarType::Half, {4096, 2048}, {8192}, {64, 128}, 128});
  s.tensorMaps.push_back(TensorMapParam{"B_map", "B", 2, ScalarType::BFloat16, {1000, 88}, {2000}, {64, 64}, 64});
  LaunchSpec back = launchSpecFromJson(nlohmann::json::parse(toJson(s).dump()));
  ASSERT_EQ(back.tensorMaps.size(), 2u);
  EXPECT_EQ(back.tensorMaps[0], s.tensorMaps[0]);
  EXPECT_EQ(back.tensorMaps[1], s.tensorMaps[1]);
  EXPECT_EQ(back.tensorMaps[1].type, ScalarType::BFloat16);
  EXPECT_EQ(back.tensorMaps[1].swizzleBytes, 64);
  // Without any, none come back (and a message from before them reads as none).
  nlohmann::json plain = toJson(LaunchSpec{});
  EXPECT_TRUE(launchSpecFromJson(plain).tensorMaps.empty());
  plain.erase("tensor_maps");
  EXPECT_TRUE(launchSpecFromJson(plain).tensorMaps.empty());
  nlohmann::json bad = toJson(s);
  bad["tensor_maps"][0]["box"] = {64};
  EXPECT_THROW(launchSpecFromJson(bad), std::invalid_argument);
  bad = toJson(s);
  bad["tensor_maps"][1]["type"] = "quad";
  EXPECT_THROW(launchSpecFromJson(bad), std::invalid_argument);
}

TEST(RunProtocol, ExactAndConvolutionReferencesRoundTrip) {
  ReferenceSpec exact;
  exact.kind = ReferencePlan::Kind::Exact;
  exact.exact.entry = "k_reference";
  exact.exactTypes = {ScalarType::Double, ScalarType::Int};
  ReferenceSpec back = referenceSpecFromJson(toJson(exact));
  EXPECT_EQ(back.kind, ReferencePlan::Kind::Exact);
  EXPECT_EQ(back.exact.entry, "k_reference");
  EXPECT_EQ(back.exactTypes, exact.exactTypes);

  ReferenceSpec conv;
  conv.kind = ReferencePlan::Kind::Conv;
  conv.conv.output = "Out";
  conv.conv.layout = ConvShape::Layout::ChannelsLast;
  conv.conv.groups = 8;
  conv.conv.in = {16, 12, 10};
  conv.conv.pad = {0, 2, 1};
  conv.conv.dilation = {1, 3, 1};
  conv.conv.operands = ScalarType::BFloat16;
  back = referenceSpecFromJson(toJson(conv));
  EXPECT_EQ(back.kind, ReferencePlan::Kind::Conv);
  EXPECT_EQ(back.conv.output, "Out");
  EXPECT_EQ(back.conv.layout, ConvShape::Layout::ChannelsLast);
  EXPECT_EQ(back.conv.groups, 8);
  EXPECT_EQ(back.conv.in, conv.conv.in);
  EXPECT_EQ(back.conv.pad, conv.conv.pad);
  EXPECT_EQ(back.conv.dilation, conv.conv.dilation);
  EXPECT_EQ(back.conv.operands, ScalarType::BFloat16);
}

TEST(RunProtocol, EpiloguesRoundTrip) {
  ReferenceSpec gemm;
  gemm.kind = ReferencePlan::Kind::Gemm;
  EpilogueShape& e = gemm.gemm.epilogue;
  e.output = "Y", e.outputType = ScalarType::Half, e.shift = "b", e.channel = "j";
  e.activation = EpilogueShape::Activation::GeluErf;
  gemm.gemm.epilogueAlongColumns = false;
  ReferenceSpec back = referenceSpecFromJson(nlohmann::json::parse(toJson(gemm).dump()));
  const EpilogueShape& g = back.gemm.epilogue;
  EXPECT_EQ(g.output, "Y");
  EXPECT_EQ(g.outputType, ScalarType::Half);
  EXPECT_EQ(g.accumulator, ScalarType::Float);
  EXPECT_EQ(g.shift, "b");
  EXPECT_EQ(g.channel, "j");
  EXPECT_EQ(g.scale, "");
  EXPECT_EQ(g.activation, EpilogueShape::Activation::GeluErf);
  EXPECT_FALSE(back.gemm.epilogueAlongColumns);

  ReferenceSpec conv;
  conv.kind = ReferencePlan::Kind::Conv;
  conv.conv.epilogue.scale = "gamma", conv.conv.epilogue.shift = "beta", conv.conv.epilogue.shortcut = "X";
  conv.conv.epilogue.activation = EpilogueShape::Activation::Relu;
  back = referenceSpecFromJson(toJson(conv));
  EXPECT_EQ(back.conv.epilogue.scale, "gamma");
  EXPECT_EQ(back.conv.epilogue.shift, "beta");
  EXPECT_EQ(back.conv.epilogue.shortcut, "X");
  EXPECT_EQ(back.conv.epilogue.activation, EpilogueShape::Activation::Relu);

  // A plain product sends no epilogue at all.
  gemm.gemm.epilogue = EpilogueShape{};
  EXPECT_FALSE(toJson(gemm).at("gemm").contains("epilogue"));

  nlohmann::json bad = toJson(conv);
  bad["conv"]["epilogue"]["activation"] = "swish";
  EXPECT_THROW(referenceSpecFromJson(bad), std::invalid_argument);
}

TEST(RunProtocol, ReplyWithUnboundedErrorRoundTrips) {
  MeasureReply r{RunStatus::Wrong, "C: 3 elements are NaN", INFINITY, -1, 0, false, ""};
  MeasureReply back = measureReplyFromJson(nlohmann::json::parse(toJson(r).dump()));
  EXPECT_EQ(back.status, RunStatus::Wrong);
  EXPECT_EQ(back.reason, r.reason);
  EXPECT_TRUE(std::isinf(back.error));
  MeasureReply timed{RunStatus::Ok, "", 1e-6, 0.25, 40, false, "WINOGRAD"};
  back = measureReplyFromJson(toJson(timed));
  EXPECT_EQ(back.algorithm, "WINOGRAD");
  EXPECT_DOUBLE_EQ(back.ms, 0.25);
  EXPECT_EQ(back.runs, 40);
  EXPECT_EQ(back.libraryError, -1);
  MeasureReply checked{RunStatus::Ok, "", 1.2e-6, 0.25, 40, false, "", 8.1e-7};
  EXPECT_DOUBLE_EQ(measureReplyFromJson(toJson(checked)).libraryError, 8.1e-7);
}

TEST(RunProtocol, MalformedMessagesThrow) {
  EXPECT_ANY_THROW(
      arraySpecFromJson({{"name", "A"}, {"type", "quad"}, {"extents", {1}}, {"init", "random"}, {"output", false}}));
  EXPECT_ANY_THROW(
      arraySpecFromJson({{"name", "A"}, {"type", "float"}, {"extents", {1}}, {"init", "maybe"}, {"output", false}}));
  EXPECT_ANY_THROW(referenceSpecFromJson({{"kind", "fft"}}));
  EXPECT_ANY_THROW(measureRequestFromJson({{"op", "measure"}}));
  EXPECT_THROW(measureReplyFromJson({{"status", "great"}}), std::invalid_argument);
}

}  // namespace
}  // namespace cudaburg
