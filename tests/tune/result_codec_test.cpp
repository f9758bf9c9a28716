#include "src/tune/result_codec.hpp"

#include <gtest/gtest.h>

using namespace cudaburg;
using namespace cudaburg::tune;

TEST(ResultCodec, ARowComesBackAsItWent) {
  Row r{"conv1", 3, {7, 9}, true, 0.125, "cuDNN", 0.25, 41.5, "1", "tile i,j 64,64"};
  auto back = decodeRow(encodeRow(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->name, "conv1");
  EXPECT_EQ(back->line, 3u);
  EXPECT_EQ(back->repeats, (std::vector<size_t>{7, 9}));
  EXPECT_TRUE(back->ok);
  EXPECT_DOUBLE_EQ(back->ms, 0.125);
  EXPECT_EQ(back->library, "cuDNN");
  EXPECT_DOUBLE_EQ(back->libraryMs, 0.25);
  EXPECT_DOUBLE_EQ(back->wallSeconds, 41.5);
  EXPECT_EQ(back->gpu, "1");
  EXPECT_EQ(back->detail, "tile i,j 64,64");
  EXPECT_FALSE(decodeRow("{\"name\": \"conv1\"}"));
  EXPECT_FALSE(decodeRow("not json"));
}

TEST(ResultCodec, DatabaseRowsComeBackWithEveryField) {
  Measurement ok;
  ok.status = RunStatus::Ok;
  ok.ms = 1.5;
  ok.tflops = 2;
  ok.gbps = 3;
  ok.error = 1e-6;
  ok.libraryError = 2e-6;
  ok.precision = "tf32";
  ok.registers = 96;
  ok.sharedBytes = 32768;
  ok.measuredAt = "2026-01-02T03:04:05Z";
  Measurement failed;
  failed.status = RunStatus::Wrong;
  failed.reason = "bytes \xff that are not UTF-8";
  DbRows rows{{{"n", "M=64", "tile i,j 64,64", "NVIDIA H200", "9.0", "580", "sm_90", "CUDA 13.0"}, ok},
              {{"n", "M=64", "tile i,j 32,32", "NVIDIA H200", "9.0", "580", "sm_90", "CUDA 13.0"}, failed}};
  auto back = decodeDbRows(encodeDbRows(rows));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 2u);
  const auto& [key, m] = (*back)[0];
  EXPECT_EQ(key.recipe, "tile i,j 64,64");
  EXPECT_EQ(key.toolkit, "CUDA 13.0");
  EXPECT_EQ(m.status, RunStatus::Ok);
  EXPECT_DOUBLE_EQ(m.ms, 1.5);
  EXPECT_DOUBLE_EQ(m.libraryError, 2e-6);
  EXPECT_EQ(m.precision, "tf32");
  EXPECT_EQ(m.registers, 96);
  EXPECT_EQ(m.sharedBytes, 32768);
  EXPECT_EQ(m.measuredAt, "2026-01-02T03:04:05Z");
  EXPECT_EQ((*back)[1].second.status, RunStatus::Wrong);
  EXPECT_EQ((*back)[1].second.reason.substr(0, 6), "bytes ");
  EXPECT_FALSE(decodeDbRows("[[\"n\"]]"));
  EXPECT_FALSE(decodeDbRows(
      "[[\"n\",\"s\",\"r\",\"g\",\"c\",\"d\",\"a\",\"t\",\"no such status\",\"\",1,1,1,0,-1,\"\",1,1,\"\"]]"));
}
