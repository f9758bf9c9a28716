#include "src/target/gpu_target.hpp"

#include <gtest/gtest.h>

namespace cudaburg {
namespace {

TEST(GpuTarget, HopperIsTheDefault) {
  GpuTarget t;
  EXPECT_EQ(t.sm, 90);
  EXPECT_EQ(t.sharedPerBlock, 227 * 1024);
  EXPECT_EQ(t.sharedPerSm, 228 * 1024);
  EXPECT_EQ(t.registersPerSm, 65536);
  EXPECT_EQ(t.maxThreadsPerSm, 2048);
  EXPECT_TRUE(t.hasWgmma());
  EXPECT_TRUE(t.hasTma());
}

TEST(GpuTarget, ReadsTheComputeCapabilityAsANumber) {
  GpuTarget t = GpuTarget::forArchitecture("sm_90");
  EXPECT_EQ(t.sm, 90);
  EXPECT_FALSE(t.archSpecific);
  EXPECT_EQ(t.sharedPerBlock, 227 * 1024);
  GpuTarget a = GpuTarget::forArchitecture("sm_90a");
  EXPECT_EQ(a.sm, 90);
  EXPECT_TRUE(a.archSpecific);
  EXPECT_EQ(GpuTarget::forArchitecture("compute_80").sm, 80);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_120").sm, 120);
}

TEST(GpuTarget, SharedMemoryFollowsTheArchitecture) {
  EXPECT_EQ(GpuTarget::forArchitecture("sm_80").sharedPerBlock, 163 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_80").sharedPerSm, 164 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_86").sharedPerBlock, 99 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_89").sharedPerBlock, 99 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_75").sharedPerBlock, 64 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_70").sharedPerBlock, 96 * 1024);
  EXPECT_EQ(GpuTarget::forArchitecture("sm_61").sharedPerBlock, 48 * 1024);
  EXPECT_LE(GpuTarget::forArchitecture("sm_86").sharedPerBlock, kMaxSharedBytesPerBlock);
}

TEST(GpuTarget, TensorCoreInstructionSetsByArchitecture) {
  EXPECT_TRUE(GpuTarget::forArchitecture("sm_80").hasMmaSync());
  EXPECT_FALSE(GpuTarget::forArchitecture("sm_75").hasMmaSync());
  EXPECT_FALSE(GpuTarget::forArchitecture("sm_80").hasWgmma());
  EXPECT_FALSE(GpuTarget::forArchitecture("sm_100").hasWgmma());
  EXPECT_TRUE(GpuTarget::forArchitecture("sm_90").hasWgmma());
  // An "a" target is compiled as given; wgmma candidates are built from sm_90 and become sm_90a.
  EXPECT_FALSE(GpuTarget::forArchitecture("sm_90a").hasWgmma());
  EXPECT_FALSE(GpuTarget::forArchitecture("sm_90a").hasTma());
}

TEST(GpuTarget, AnUnknownNameKeepsHoppersLimits) {
  GpuTarget t = GpuTarget::forArchitecture("hopper");
  EXPECT_EQ(t.sm, 0);
  EXPECT_EQ(t.sharedPerBlock, 227 * 1024);
  EXPECT_FALSE(t.hasWgmma());
}

}  // namespace
}  // namespace cudaburg
