// raster, resident, persistent and cluster: how the grid's blocks are numbered, how many must fit
// on a multiprocessor at once, whether they stay to take tile after tile, and whether neighbours
// share their copies. None changes what the kernel computes.
#include "src/transform/transforms.hpp"

namespace cudaburg {

namespace {
const char* kPingPongUnshared = "ping-pong groups take their strips in turn: not shared by a cluster";
}  // namespace

TransformResult rasterBlocks(const Kernel& kernel, int64_t rows) {
  if (rows < 2)
    return TransformResult::refuse("blocks are rastered 2 or more rows at a time, not " + std::to_string(rows));
  if (rows > 65535)
    return TransformResult::refuse("a raster of " + std::to_string(rows) + " rows is taller than grid.y may be");
  Kernel out = kernel;
  out.rasterRows = rows;
  return TransformResult::success(std::move(out));
}

TransformResult keepResident(const Kernel& kernel, int64_t blocks) {
  if (blocks < 1 || blocks > 32)
    return TransformResult::refuse("a multiprocessor holds 1 to 32 blocks at once, not " + std::to_string(blocks));
  Kernel out = kernel;
  out.residentBlocks = blocks;
  return TransformResult::success(std::move(out));
}

TransformResult runPersistent(const Kernel& kernel, int64_t blocks, bool pingPong) {
  if (blocks < 1 || blocks > 65535)
    return TransformResult::refuse("persistent blocks number 1 to 65535, not " + std::to_string(blocks));
  if (!kernel.wgmmaProducer())
    return TransformResult::refuse(
        "persistent blocks overlap a tile's write-back with the next tile's copies by a producer warpgroup: "
        "only wgmma tiles with a producer run so");
  if (!kernel.wgmmaSplitBuffer().empty())
    return TransformResult::refuse("a tf32x3 producer splits its last strips after its loop: not across tiles");
  if (pingPong && kernel.clusterBlocks > 0) return TransformResult::refuse(kPingPongUnshared);
  Kernel out = kernel;
  out.persistentBlocks = blocks;
  out.pingPong = pingPong;
  return TransformResult::success(std::move(out));
}

TransformResult clusterBlocks(const Kernel& kernel, int64_t blocks, int axis) {
  if (blocks != 2) return TransformResult::refuse("a cluster here is 2 blocks, not " + std::to_string(blocks));
  if (axis != 0 && axis != 1)
    return TransformResult::refuse("a cluster's blocks lie along grid.x or grid.y, not grid.z");
  if (!kernel.wgmmaTma())
    return TransformResult::refuse(
        "a cluster's blocks share their copies through the Tensor Memory Accelerator: only wgmma tiles whose "
        "producer copies by TMA run so");
  if (!kernel.wgmmaSplitBuffer().empty())
    return TransformResult::refuse("a tf32x3 producer splits each strip in its own block: not shared by a cluster");
  if (kernel.pingPong) return TransformResult::refuse(kPingPongUnshared);
  Kernel out = kernel;
  out.clusterBlocks = blocks;
  out.clusterAxis = axis;
  return TransformResult::success(std::move(out));
}

}  // namespace cudaburg
