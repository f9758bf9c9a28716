// The Tensor Memory Accelerator (sm_90): the part of the CUDA emitter's writer (kernel_writer.hpp)
// that fills the stages of a pipelined loop around wgmma from a producer warpgroup's one thread
// (Kernel::wgmmaTma). Each stage is a box of a 2-D global array, read through a tensor map the
// kernel takes as a parameter (CudaKernel::tensorMaps), and lands in the layout the wgmma
// descriptors read (wgmma_descriptor.hpp): the tensor map's 128-byte swizzle stores 16-byte chunk
// c of a 128-byte row r at chunk c ^ (r % 8), as Swizzle (src/loop/swizzle.hpp) does for rows of
// 128 bytes, since each copy starts on a 1024-byte boundary. A's box is its rows of 64 elements
// of k (tf32: 32); B, in slabs of 64 columns (tf32: 32), takes one box a slab. Elements outside
// the array land as zero. In a cluster (Kernel::clusterBlocks), a stage whose box is the same for
// all its blocks is multicast: block r copies part r of each box's rows into every block's buffer,
// and each block's barrier counts all the parts landing in it.
#include <cstdint>
#include <limits>

#include "src/cuda/emit/emit_launch.hpp"
#include "src/cuda/emit/kernel_writer.hpp"
#include "src/cuda/emit/wgmma_descriptor.hpp"

namespace cudaburg::emit_internal {

namespace {

const char* kTmaHelpers = R"(
// The Tensor Memory Accelerator (sm_90): the barriers' setup made visible to its copies; an
// arrival on a barrier that also expects `bytes` more to land through it; a box of a 2-D tensor
// map at element {x, y} (x innermost) copied into shared memory, its bytes counted on `barrier`.
__device__ __forceinline__ void mbarrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void mbarrier_expect_bytes(unsigned long long* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(shared_address(barrier)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* to, const tensor_map& map, int x, int y, unsigned long long* barrier) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
               :: "r"(shared_address(to)), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y),
                  "r"(shared_address(barrier)) : "memory");
}
)";

const char* kClusterHelpers = R"(
// Clusters of blocks (sm_90): a barrier of all the cluster's threads (each block's barriers set up
// and its shared memory live for the others); a warpgroup's arrival on `barrier` in each of the
// cluster's `blocks` blocks, by the first lane of its warp w for block w: a wgmma is the whole
// warpgroup's, so that any of its threads that saw it done may say so for all (as CUTLASS's
// pipelines do); a box of a 2-D tensor map copied to the same place in the shared memory of each
// block of `mask`, its bytes counted on each one's barrier there.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned long long* barrier, unsigned blocks) {
  const unsigned warp = (threadIdx.x >> 5) & 3;
  if ((threadIdx.x & 31) == 0 && warp < blocks) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(shared_address(barrier)), "r"(warp));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" :: "r"(remote) : "memory");
  }
}
__device__ __forceinline__ void tma_load_2d_multicast(void* to, const tensor_map& map, int x, int y, unsigned long long* barrier,
                                                      unsigned short mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1, {%2, %3}], [%4], %5;\n"
               :: "r"(shared_address(to)), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y),
                  "r"(shared_address(barrier)), "h"(mask) : "memory");
}
)";

// The most elements a tensor map's box has along a dimension.
constexpr int64_t kMaxBoxExtent = 256;

}  // namespace

std::string KernelWriter::tmaHelpers() const {
  if (!kernel_.wgmmaTma()) return "";
  return std::string("\n") + kTensorMapDeclaration + kTmaHelpers + (plan_.clusterBlocks > 0 ? kClusterHelpers : "");
}

bool KernelWriter::sharedByCluster(const Node& stage) const {
  if (plan_.clusterBlocks == 0) return false;
  for (const LaunchPlan::GridLoop& g : plan_.gridLoops)
    if (g.axis == plan_.clusterAxis)
      for (const Affine& o : stage.origin)
        if (o.uses(g.loop->index)) return false;
  return true;
}

std::optional<TmaStage> KernelWriter::planTmaStage(const Node& stage, const Scope& scope) {
  const Array& buffer = stage.buffer;
  const std::string what = "a stage of " + stage.source + " by TMA";
  const Array* source = findArray(stage.source, scope);
  if (!source) return std::nullopt;
  if (!stage.gather.empty()) return refuse(what + ": a gather reads no box of a tensor map"), std::nullopt;
  if (source->space != MemorySpace::Global || source->extents.size() != 2 || buffer.extents.size() != 2)
    return refuse(what + ": TMA copies boxes of 2-D global arrays here"), std::nullopt;
  if (isPermuted(stage.layout))
    return refuse(what + ": a box lands in the array's order, not transposed"), std::nullopt;
  const ScalarType type = typeOf(*source);
  if (type != typeOf(buffer) || (type != ScalarType::Half && type != ScalarType::BFloat16 && type != ScalarType::TF32 &&
                                 type != ScalarType::Float))
    return refuse(what + ": TMA copies half, bfloat16, tf32 or float elements as they are"), std::nullopt;
  const int64_t bytes = scalarTypeBytes(type);
  const int64_t rowElements = buffer.slab > 0 ? buffer.slab : buffer.extents[1], rows = buffer.extents[0];
  // The tensor map's 128-byte swizzle is the buffer's where its rows (a slab's) are 128 bytes.
  if (!buffer.swizzled || rowElements * bytes != kWgmmaSwizzleBytes)
    return refuse(what + ": the buffer's rows must be 128 bytes, swizzled (`swizzle`, or `swizzle slabs " +
                  std::to_string(kWgmmaSwizzleBytes / bytes) + "`)"),
           std::nullopt;
  if (rows > kMaxBoxExtent)
    return refuse(what + ": a box holds at most " + std::to_string(kMaxBoxExtent) + " rows, not " +
                  std::to_string(rows)),
           std::nullopt;
  if (rows * kWgmmaSwizzleBytes % kWgmmaAtomBytes != 0)
    return refuse(what + ": its " + std::to_string(rows) + " rows leave the next box off the swizzle's 1024-byte " +
                  "boundary"),
           std::nullopt;
  for (int64_t extent : source->extents)
    if (extent > std::numeric_limits<int32_t>::max())
      return refuse(what + ": its coordinates are 32-bit, and " + stage.source + " has " + std::to_string(extent) +
                    " elements along a dimension"),
             std::nullopt;
  // The array starts where its allocation does, aligned beyond the 16 bytes a map needs; its rows
  // must keep that alignment.
  const int64_t pitch = source->extents[1] * bytes;
  if (pitch % 16 != 0)
    return refuse(what + ": " + stage.source + "'s rows of " + std::to_string(pitch) +
                  " bytes are no multiple of 16, as a tensor map's strides must be"),
           std::nullopt;
  // Shared by a cluster, each block copies its part of each box's rows, each part on the
  // swizzle's 1024-byte boundary.
  const bool multicast = sharedByCluster(stage);
  const int64_t parts = multicast ? plan_.clusterBlocks : 1;
  if (multicast && rows % (parts * kWgmmaAtomBytes / kWgmmaSwizzleBytes) != 0)
    return refuse(what + ": its " + std::to_string(rows) + " rows make no " + std::to_string(parts) +
                  " parts on the swizzle's 1024-byte boundaries, one a block of the cluster"),
           std::nullopt;
  TmaStage t{&stage, {}, buffer.extents[1] / rowElements, rows * kWgmmaSwizzleBytes, multicast};
  t.map.name = stage.source + "_map";
  t.map.array = stage.source;
  for (size_t p = 0; p < kernel_.params.size(); ++p)
    if (kernel_.params[p].name == stage.source) t.map.arrayParam = p;
  t.map.type = type == ScalarType::TF32 ? ScalarType::Float : type;  // tf32 is stored as floats: their bits, copied
  t.map.dims = {source->extents[1], source->extents[0]};
  t.map.strides = {pitch};
  t.map.box = {rowElements, rows / parts};
  t.map.swizzleBytes = static_cast<int>(kWgmmaSwizzleBytes);
  for (const TensorMapParam& m : uses_.tensorMaps())
    if (m.name == t.map.name && m != t.map)
      return refuse(what + ": another stage reads " + stage.source + " in other boxes (one tensor map an array)"),
             std::nullopt;
  return t;
}

void KernelWriter::emitTmaCopies(const std::vector<TmaStage>& stages, const std::string& barrier, const Scope& at) {
  int64_t bytes = 0;
  for (const TmaStage& t : stages) bytes += t.boxes * t.boxBytes;
  line("mbarrier_expect_bytes(&" + barrier + ", " + std::to_string(bytes) + ");  // completes as they land" +
       (plan_.clusterBlocks > 0 ? ", the cluster's parts of shared stages too" : ""));
  for (const TmaStage& t : stages) {
    const Node& s = *t.stage;
    const std::string start =
        "reinterpret_cast<char*>(&" + accessText({s.buffer.name, {Affine(0), Affine(0)}}, at) + ")";
    const int64_t partRows = t.map.box[1], partBytes = partRows * kWgmmaSwizzleBytes;
    line("// Stage " + s.source + " -> " + s.buffer.name + ": " + std::to_string(t.boxes) + " box" +
         (t.boxes > 1 ? "es" : "") + " of " + std::to_string(t.boxBytes / kWgmmaSwizzleBytes) + " x " +
         std::to_string(t.map.box[0]) + ", zero outside " + s.source +
         (t.multicast ? "; the same for the cluster's blocks: this block copies rows " + std::to_string(partRows) +
                            " x cluster_rank on of each into all of them"
                      : ""));
    for (int64_t b = 0; b < t.boxes; ++b) {
      Affine x = s.origin[1] + Affine(b * t.map.box[0]);
      const std::string to = start + (b ? " + " + std::to_string(b * t.boxBytes) : "");
      if (t.multicast)
        line("tma_load_2d_multicast(" + to + " + cluster_rank * " + std::to_string(partBytes) + ", " + t.map.name +
             ", static_cast<int>(" + affineText(x) + "), static_cast<int>(" + affineText(s.origin[0]) + ") + " +
             std::to_string(partRows) + " * static_cast<int>(cluster_rank), &" + barrier + ", " +
             std::to_string((1 << plan_.clusterBlocks) - 1) + ");");
      else
        line("tma_load_2d(" + to + ", " + t.map.name + ", static_cast<int>(" + affineText(x) + "), static_cast<int>(" +
             affineText(s.origin[0]) + "), &" + barrier + ");");
    }
  }
}

}  // namespace cudaburg::emit_internal
