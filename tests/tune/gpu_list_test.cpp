// `--gpus all|0,1,...` against a host of two GPUs, of none, and under --replay (any index).
#include <gtest/gtest.h>

#include "src/tune/gpu_list.hpp"

namespace cudaburg::tune {
namespace {

const HostGpus kTwo{2, ""};
const HostGpus kNone{0, "no CUDA driver: libcuda.so.1 is not there"};

std::string mistake(const std::string& text, const HostGpus& host, bool anyIndex = false) {
  std::string error;
  EXPECT_FALSE(parseGpuList(text, host, anyIndex, error)) << text;
  return error;
}

TEST(GpuList, ListsAndAll) {
  std::string error;
  EXPECT_EQ(parseGpuList("all", kTwo, false, error), (std::vector<int>{0, 1}));
  EXPECT_EQ(parseGpuList("1,0", kTwo, false, error), (std::vector<int>{1, 0}));
  EXPECT_EQ(parseGpuList("1", kTwo, false, error), (std::vector<int>{1}));
  // Under --replay nothing runs on a GPU: lanes need none.
  EXPECT_EQ(parseGpuList("0,1,7", kNone, true, error), (std::vector<int>{0, 1, 7}));
}

TEST(GpuList, Mistakes) {
  EXPECT_EQ(mistake("7", kTwo), "--gpus 7: this host has 2 GPUs (0, 1)");
  EXPECT_EQ(mistake("0,1", kNone), "--gpus 0,1: this host has no GPU (no CUDA driver: libcuda.so.1 is not there)");
  EXPECT_EQ(mistake("all", kNone), "--gpus all: this host has no GPU (no CUDA driver: libcuda.so.1 is not there)");
  EXPECT_EQ(mistake("all", kNone, true),
            "--gpus all: this host has no GPU (no CUDA driver: libcuda.so.1 is not there); under --replay, name the "
            "lanes (--gpus 0,1)");
  EXPECT_EQ(mistake("0,,1", kTwo), "--gpus 0,,1: an empty entry; give all, or GPU indices separated by commas (0,1)");
  EXPECT_EQ(mistake("0,", kTwo), "--gpus 0,: an empty entry; give all, or GPU indices separated by commas (0,1)");
  EXPECT_EQ(mistake("x", kTwo), "--gpus x: 'x' is not a GPU index; give all, or GPU indices separated by commas (0,1)");
  EXPECT_EQ(mistake("-1", kTwo, true),
            "--gpus -1: '-1' is not a GPU index; give all, or GPU indices separated by commas (0,1)");
  EXPECT_EQ(mistake("1,1", kTwo), "--gpus 1,1: GPU 1 is named twice");
}

}  // namespace
}  // namespace cudaburg::tune
