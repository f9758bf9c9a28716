// Every example, at small and uneven sizes, under a set of recipes: the transformations apply,
// the emitter writes the kernel and NVRTC compiles it for sm_90 with no error and within the
// launch limits.
#include <gtest/gtest.h>

#include "common/diagnostics.hpp"
#include "src/cuda/compile/compiler.hpp"
#include "src/loop/parser.hpp"
#include "src/transform/recipe.hpp"

namespace cudaburg {
namespace {

// A 128 x 128 block tile of 8 warps, each 64 x 32 (4 x 4 tiles of m16n8k16), k by 32.
constexpr const char* kMmaF16 =
    "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
    "strip k 32\nstage A at k_o pad 8\nstage B at k_o pad 8\nmap k_o async\nunroll k 32\nmma i,j,k 16,8,16";

// The same with 64 x 64 warp tiles over strips of 64, swizzled stages and four buffers a stage.
constexpr const char* kMmaSwizzled =
    "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,64\n"
    "strip k 64\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 64\nmma i,j,k 16,8,16";

struct RecipeCase {
  const char* example;
  std::map<std::string, int64_t> sizes;
  const char* recipe;
};

const std::vector<RecipeCase>& recipeCases() {
  static const std::vector<RecipeCase> cases = {
      {"matmul", {{"M", 100}, {"N", 70}, {"K", 33}}, ""},
      {"matmul",
       {{"M", 100}, {"N", 70}, {"K", 33}},
       "tile i,j 16,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o\nstage B at k_o\nvectorize j 4"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nvectorize j 4"},
      {"matmul",
       {{"M", 200}, {"N", 256}, {"K", 64}},  // the transposed copy reads A 4 elements at a time
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nvectorize j 4"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},  // pipelined: two buffers, the next strip via registers
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 16\nvectorize j 4"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},  // B's rows interleaved for a thread's 8 columns
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 8\nstage A at k_o transposed\nstage B at k_o interleaved 8\nmap k_o pipelined\nunroll k 8\n"
       "vectorize j 4"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 50}},  // asynchronous copies, A's scalar, B's 16 bytes
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 8\nstage A at k_o transposed\nstage B at k_o interleaved 8\nmap k_o async\nunroll k 8"},
      {"matmul",
       {{"M", 127}, {"N", 4099}, {"K", 513}},  // edges peeled: whole tiles and strips unguarded
       "tile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 16\nlanes 4,8\n"
       "roundup\npeel i_o,j_o,k_o"},
      {"linear_relu",
       {{"M", 100}, {"N", 72}, {"K", 33}},  // the bias and ReLU applied at the write-back
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 8\nstage X at k_o transposed\nstage W at k_o interleaved 8\nmap k_o pipelined\nunroll k 8\n"
       "vectorize j 4"},
      {"linear_relu",
       {{"M", 127}, {"N", 4099}, {"K", 513}},  // the same, edges peeled
       "tile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 16\nlanes 4,8\n"
       "roundup\npeel i_o,j_o,k_o"},
      {"linear_gelu",
       {{"M", 100}, {"N", 72}, {"K", 33}},  // the local sum as the tile's accumulator
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 8\nstage X at k_o transposed\nstage W at k_o interleaved 8\nmap k_o pipelined\nunroll k 8\n"
       "vectorize j 4"},
      {"linear_half",
       {{"M", 100}, {"N", 72}, {"K", 33}},  // fp32 accumulators, half stores
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 8\nstage X at k_o transposed\nstage W at k_o interleaved 8\nmap k_o pipelined\nunroll k 8\n"
       "vectorize j 4"},
      {"linear_half",
       {{"M", 127}, {"N", 4099}, {"K", 513}},  // the same, edges peeled
       "tile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 16\nlanes 4,8\n"
       "roundup\npeel i_o,j_o,k_o"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 50}},  // peeled, asynchronous, a split reduction's parts
       "split k 2\nmap k_s grid.z\ntile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
       "regtile i,j 4,4\nstrip k 8\nstage A at k_o transposed\nstage B at k_o\nmap k_o async\nunroll k 8\n"
       "roundup\npeel i_o,k_o"},
      {"matmul",
       {{"M", 127}, {"N", 4099}, {"K", 513}},  // peeled, a split's parts combined in a workspace
       "split k 3 workspace\nmap k_s grid.z\ntile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\n"
       "map j block.x\nregtile i,j 8,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\n"
       "unroll k 16\nroundup\npeel i_o,j_o,k_o\nraster 8"},
      {"matmul",
       {{"M", 1000}, {"N", 1000}, {"K", 1000}},  // peeled, single buffers, 128-bit columns
       "tile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nunroll k 16\nvectorize j 4\nroundup\n"
       "peel i_o,j_o,k_o"},
      {"correlate2d",
       {{"H", 60}, {"W", 50}},  // an asynchronously pipelined stage with a window's halo
       "tile y,x 16,64\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x\nregtile y,x 2,4\n"
       "strip u 4\nstage Img at u_o\nstage Tpl at u_o\nmap u_o async"},
      {"correlate2d",
       {{"H", 60}, {"W", 70}},  // a pipelined stage with a window's halo
       "tile y,x 16,64\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x\nregtile y,x 2,4\n"
       "strip u 4\nstage Img at u_o\nstage Tpl at u_o\nmap u_o pipelined"},
      {"matmul",
       {{"M", 40}, {"N", 36}, {"K", 50}},
       "split k 4\nmap k_s grid.z\ntile i,j 16,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x"},
      {"matmul_bt",
       {{"BATCH", 3}, {"M", 40}, {"N", 36}, {"K", 50}},
       "map b grid.z\ntile i,j 16,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nunroll k 4"},
      {"conv2d", {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 4}}, ""},
      {"conv2d",
       {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 4}},
       "map n grid.z\nmap k grid.y\nstrip ow 32\ninterchange oh ow_o\nmap ow_o grid.x\nmap oh block.y\n"
       "map ow block.x\nunroll s 3"},
      {"conv2d",
       {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 4}},
       "map n grid.z\nmap k grid.y\nstrip ow 32\ninterchange oh ow_o\nmap ow_o grid.x\nmap ow block.x\n"
       "stage Wt at ow_o"},
      {"conv3d",
       {{"D", 20}, {"H", 20}, {"W", 43}},
       "map z grid.z\ntile y,x 4,64\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x\nunroll c 8"},
      {"conv3d",
       {{"D", 20}, {"H", 20}, {"W", 40}},
       "tile y,x 8,32\nmap z grid.z\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x\nstage Tpl at x_o"},
      {"correlate2d",
       {{"H", 60}, {"W", 70}},
       "tile y,x 16,32\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x\nstage Img at x_o\nunroll v 8"},
      {"correlate2d",
       {{"H", 30}, {"W", 70}},
       "split u 2\nmap u_s grid.z\ntile y,x 8,32\nmap y_o grid.y\nmap x_o grid.x\nmap y block.y\nmap x block.x"},
      // Collapsed nests: one thread an output of n*k*oh*ow (naive), and implicit GEMMs of the
      // convolution, read directly or through gathered (im2col) stages, pipelined both ways.
      {"conv2d", {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 4}}, "collapse n,k,oh,ow\ncollapse c,r,s"},
      {"conv2d",
       {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 20}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 16,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 8\nunroll q 8"},
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 20}, {"W", 21}, {"K", 40}, {"ST", 2}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nunroll q 16"},
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 20}, {"W", 21}, {"K", 40}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nmap q_o pipelined\nunroll q 16"},
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 20}, {"W", 21}, {"K", 40}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nmap q_o async\nunroll q 16\nlanes 4,8"},
      // Gathered 4 elements at a time: a 1x1 convolution's input (16-byte asynchronous copies
      // along n*oh*ow) and filters read along c*r*s, stored down the buffer's columns.
      {"conv2d",
       {{"N", 2}, {"C", 64}, {"H", 12}, {"W", 12}, {"K", 40}, {"R", 1}, {"S", 1}, {"P", 0}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 8\nstage In at q_o\n"
       "stage Wt at q_o\nmap q_o async\nunroll q 8"},
      {"conv2d",
       {{"N", 2}, {"C", 64}, {"H", 12}, {"W", 12}, {"K", 40}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nmap q_o pipelined\nunroll q 16"},
      // Split-K implicit GEMMs: each part of q gathers its own strips (the last one partial).
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 9}, {"W", 10}, {"K", 40}},
       "collapse c,r,s into q\nsplit q 3\ninterchange n k\ncollapse n,oh,ow into m\ntile k,m 32,64\nmap q_s grid.z\n"
       "map k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 8\nstage In at q_o\n"
       "stage Wt at q_o\nunroll q 8\nmap q_o pipelined"},
      {"conv2d",
       {{"N", 2}, {"C", 64}, {"H", 7}, {"W", 7}, {"K", 64}},
       "collapse c,r,s into q\nsplit q 4\ninterchange n k\ncollapse n,oh,ow into m\ntile k,m 64,32\nmap q_s grid.z\n"
       "map k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 8,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nunroll q 16\nmap q_o async\nlanes 4,8"},
      // Gathers through offset tables: a 3-D layer's pipelined, a split's parts, peeled edges,
      // items of two pixels a thread each with its row, channels last 16 bytes at a time.
      {"conv3d_ncdhw",
       {{"N", 2}, {"C", 5}, {"D", 6}, {"H", 9}, {"W", 7}, {"K", 64}},
       "collapse c,a,b,e\ninterchange n k\ncollapse n,od,oh,ow\ntile k,n_od_oh_ow 64,128\nmap k_o grid.y\n"
       "map n_od_oh_ow_o grid.x\nmap k block.y\nmap n_od_oh_ow block.x\nregtile k,n_od_oh_ow 8,8\n"
       "strip c_a_b_e 16\nstage In at c_a_b_e_o table\nstage Wt at c_a_b_e_o\nunroll c_a_b_e 16\n"
       "map c_a_b_e_o pipelined"},
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 9}, {"W", 10}, {"K", 40}},
       "collapse c,r,s into q\nsplit q 3\ninterchange n k\ncollapse n,oh,ow into m\ntile k,m 32,64\nmap q_s grid.z\n"
       "map k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 8\n"
       "stage In at q_o table\nstage Wt at q_o\nunroll q 8\nmap q_o async\nroundup\npeel k_o,m_o,q_o"},
      {"conv2d",
       {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 8}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 8,256\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,8\nstrip q 4\nstage In at q_o table\n"
       "stage Wt at q_o\nunroll q 4\nmap q_o pipelined"},
      {"conv2d_nhwc",
       {{"N", 2}, {"H", 7}, {"W", 6}, {"C", 8}, {"K", 32}},
       "collapse r,s,c\ncollapse n,oh,ow\ntile n_oh_ow,k 64,32\nmap n_oh_ow_o grid.y\nmap k_o grid.x\n"
       "map n_oh_ow block.y\nmap k block.x\nregtile n_oh_ow,k 4,4\nstrip r_s_c 8\n"
       "stage In at r_s_c_o transposed table\nstage Wt at r_s_c_o\nunroll r_s_c 8\nmap r_s_c_o async 4"},
      // Rastered blocks: alone, peeled, beside a split's parts and a batch on grid.z.
      {"matmul",
       {{"M", 1000}, {"N", 1000}, {"K", 100}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 16\nraster 4"},
      {"matmul",
       {{"M", 1000}, {"N", 1000}, {"K", 100}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 16\nroundup\n"
       "peel i_o,j_o,k_o\nraster 8"},
      {"matmul",
       {{"M", 512}, {"N", 512}, {"K", 100}},
       "split k 2\nmap k_s grid.z\ntile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
       "regtile i,j 4,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\nunroll k 16\nraster 4"},
      {"matmul_bt",
       {{"BATCH", 3}, {"M", 200}, {"N", 136}, {"K", 50}},
       "map b grid.z\ntile i,j 32,32\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 8\nstage A at k_o transposed\nstage B at k_o transposed\nunroll k 8\nraster 2"},
      {"matmul_bt",
       {{"BATCH", 3}, {"M", 200}, {"N", 136}, {"K", 52}},  // both transposed, asynchronous, peeled
       "map b grid.z\ntile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 8\nstage A at k_o transposed\nstage B at k_o transposed\nunroll k 8\nmap k_o async\nroundup\n"
       "peel i_o,j_o,k_o"},
      {"conv3d",
       {{"D", 12}, {"H", 13}, {"W", 14}, {"T", 3}},
       "collapse y,x into p\ncollapse a,b,c into q\ntile z,p 4,64\nmap z_o grid.y\nmap p_o grid.x\nmap z block.y\n"
       "map p block.x\nregtile z,p 2,2\nstrip q 9\nstage In at q_o\nstage Tpl at q_o\nmap q_o pipelined"},
      // Operands read a strip element ahead (prefetch): pipelined, the barrier under the last
      // element's work, peeled beside a split's parts; 8 x 8 tiles of interleaved rows; 8 x 4
      // tiles under launch bounds for two blocks a multiprocessor; transposed and batched
      // operands; half operands on the CUDA cores; strips of an odd length, asynchronous copies
      // and single buffers (the next element's operands alone).
      {"matmul",
       {{"M", 127}, {"N", 4099}, {"K", 513}},
       "split k 2\nmap k_s grid.z\ntile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
       "regtile i,j 8,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 16\n"
       "lanes 4,8\nroundup\npeel i_o,j_o,k_o\nprefetch k"},
      {"matmul",
       {{"M", 4096}, {"N", 4096}, {"K", 4096}},
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,8\n"
       "strip k 8\nstage A at k_o transposed\nstage B at k_o interleaved 8\nunroll k 8\nmap k_o pipelined\n"
       "vectorize j 4\nlanes 4,8\nprefetch k"},
      {"matmul",
       {{"M", 200}, {"N", 256}, {"K", 70}},
       "tile i,j 64,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nunroll k 16\nmap k_o pipelined\nvectorize j 4\n"
       "prefetch k\nresident 2"},
      {"matmul_nt",
       {{"M", 200}, {"N", 136}, {"K", 70}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o transposed\nunroll k 16\nmap k_o pipelined\n"
       "prefetch k"},
      {"matmul_tn",
       {{"M", 200}, {"N", 136}, {"K", 70}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 8,4\n"
       "strip k 16\nstage A at k_o\nstage B at k_o\nunroll k 16\nmap k_o pipelined\nvectorize j 4\nprefetch k"},
      {"matmul_bt",
       {{"BATCH", 3}, {"M", 100}, {"N", 72}, {"K", 50}},
       "map b grid.z\ntile i,j 32,32\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
       "regtile i,j 4,4\nstrip k 8\nstage A at k_o transposed\nstage B at k_o transposed\nunroll k 8\n"
       "map k_o pipelined\nprefetch k"},
      {"hgemm",
       {{"M", 100}, {"N", 72}, {"K", 48}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nunroll k 16\nmap k_o pipelined\nprefetch k"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 15\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 15\nprefetch k"},
      {"conv2d",
       {{"N", 2}, {"C", 7}, {"H", 20}, {"W", 21}, {"K", 40}},
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 32,64\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 4,4\nstrip q 16\nstage In at q_o\n"
       "stage Wt at q_o\nmap q_o async\nunroll q 16\nlanes 4,8\nprefetch q"},
      {"matmul",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,4\n"
       "strip k 16\nstage A at k_o transposed\nstage B at k_o\nunroll k 16\nvectorize j 4\nprefetch k\nresident 4"},
      // Tensor cores: ldmatrix from padded stages filled by cp.async (even sizes), fragments read
      // element by element where a bound cuts a tile (uneven ones), and from global memory.
      {"hgemm", {{"M", 256}, {"N", 256}, {"K", 128}}, kMmaF16},
      {"hgemm", {{"M", 200}, {"N", 136}, {"K", 88}}, kMmaF16},
      {"bf16gemm", {{"M", 256}, {"N", 256}, {"K", 128}}, kMmaF16},
      {"tf32gemm",
       {{"M", 200}, {"N", 136}, {"K", 88}},
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage A at k_o pad 4\nstage B at k_o pad 8\nmap k_o async\nunroll k 32\nmma i,j,k 16,8,8"},
      {"hgemm",
       {{"M", 256}, {"N", 256}, {"K", 128}},  // ldmatrix.trans of A stored k-major, pipelined
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 32\nmma i,j,k 16,8,16"},
      // Tensor cores on implicit GEMMs: gathers of 8 channels at a time by cp.async or through
      // registers, of 3 channels an element at a time; pixels that fill no whole tile.
      {"conv2d_nhwc_half",
       {{"N", 2}, {"C", 64}, {"H", 10}, {"W", 9}, {"K", 64}},
       "collapse r,s,c\ncollapse n,oh,ow\ntile n_oh_ow,k 128,64\nmap n_oh_ow_o grid.y\nmap k_o grid.x\n"
       "map n_oh_ow block.y\nmap k block.x\nregtile n_oh_ow,k 64,32\nstrip r_s_c 32\n"
       "stage In at r_s_c_o transposed pad 8\nstage Wt at r_s_c_o transposed pad 8\nmap r_s_c_o async\n"
       "unroll r_s_c 32\nmma n_oh_ow,k,r_s_c 16,8,16"},
      {"conv2d_nhwc_half",
       {{"N", 2}, {"C", 32}, {"H", 8}, {"W", 8}, {"K", 64}},
       "collapse r,s,c\ncollapse n,oh,ow\ntile n_oh_ow,k 64,64\nmap n_oh_ow_o grid.y\nmap k_o grid.x\n"
       "map n_oh_ow block.y\nmap k block.x\nregtile n_oh_ow,k 32,32\nstrip r_s_c 16\n"
       "stage In at r_s_c_o transposed pad 8\nstage Wt at r_s_c_o transposed pad 8\nmap r_s_c_o pipelined\n"
       "unroll r_s_c 16\nmma n_oh_ow,k,r_s_c 16,8,16"},
      {"conv2d_nhwc_half",
       {{"N", 2}, {"C", 3}, {"H", 8}, {"W", 8}, {"K", 32}, {"R", 4}, {"S", 4}, {"P", 2}},
       "collapse r,s,c\ncollapse n,oh,ow\ntile n_oh_ow,k 64,32\nmap n_oh_ow_o grid.y\nmap k_o grid.x\n"
       "map n_oh_ow block.y\nmap k block.x\nregtile n_oh_ow,k 32,16\nstrip r_s_c 16\n"
       "stage In at r_s_c_o transposed pad 8\nstage Wt at r_s_c_o transposed pad 8\nmap r_s_c_o async\n"
       "unroll r_s_c 16\nmma n_oh_ow,k,r_s_c 16,8,16"},
      {"hgemm",
       {{"M", 100}, {"N", 72}, {"K", 48}},
       "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 32,32\n"
       "mma i,j,k 16,8,16"},
      // Swizzled stages, deeper pipelines, 8 warps of 64 x 64; even and uneven sizes.
      {"hgemm", {{"M", 256}, {"N", 256}, {"K", 256}}, kMmaSwizzled},
      {"hgemm", {{"M", 200}, {"N", 136}, {"K", 88}}, kMmaSwizzled},
      {"hgemm",
       {{"M", 1000}, {"N", 1000}, {"K", 64}},  // blocks in groups of 3 of the grid's 8 rows
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,64\n"
       "strip k 32\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,16\n"
       "raster 3"},
      {"bf16gemm",
       {{"M", 256}, {"N", 512}, {"K", 128}},
       "tile i,j 128,256\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,64\n"
       "strip k 32\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,16"},
      {"tf32gemm",
       {{"M", 200}, {"N", 136}, {"K", 88}},
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,8"},
      {"tf32gemm",
       {{"M", 256}, {"N", 256}, {"K", 128}},  // A's tf32 fragments by ldmatrix (k-contiguous rows)
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,8"},
      // Winograd: partial tiles, strips and filter blocks; F(4x4) with its outputs in two passes.
      {"conv2d", {{"N", 3}, {"C", 13}, {"H", 9}, {"W", 11}, {"K", 37}}, "winograd oh,ow 2"},
      {"conv2d",
       {{"N", 2}, {"C", 9}, {"H", 8}, {"W", 7}, {"K", 20}, {"P", 0}},
       "winograd oh,ow 4 block 16,32,4 thread 4,8,2"},
      {"conv2d_nhwc",
       {{"N", 3}, {"C", 13}, {"H", 9}, {"W", 11}, {"K", 37}},
       "winograd oh,ow 2 block 32,64,8 thread 8,8,2 prefetch"},
      {"conv2d_nhwc",
       {{"N", 3}, {"C", 13}, {"H", 9}, {"W", 11}, {"K", 37}},
       "winograd oh,ow 4 block 16,32,8 thread 4,8,2"},
  };
  return cases;
}

// The kernel of one case, transformed by its recipe and emitted; a failure says which step.
std::optional<CudaKernel> emitCase(const RecipeCase& c) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + c.example + ".loop");
  if (!file) {
    ADD_FAILURE() << file.reason();
    return std::nullopt;
  }
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, c.sizes);
  if (!kernel) {
    ADD_FAILURE() << diags.str();
    return std::nullopt;
  }
  common::SourceFile recipeFile("recipe", c.recipe);
  common::Diagnostics recipeDiags(recipeFile);
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  if (!recipe) {
    ADD_FAILURE() << recipeDiags.str();
    return std::nullopt;
  }
  TransformResult transformed = applyRecipe(*kernel, *recipe);
  if (!transformed) {
    ADD_FAILURE() << c.example << ": " << transformed.reason;
    return std::nullopt;
  }
  EmitOptions options;
  options.recipe = printRecipe(*recipe);
  EmitResult emitted = emitKernel(*transformed.kernel, options);
  if (!emitted.ok()) {
    ADD_FAILURE() << c.example << " under\n" << c.recipe << "\nrefused: " << emitted.reason;
    return std::nullopt;
  }
  return emitted.kernel;
}

TEST(CompileRecipes, EveryExampleUnderItsRecipesCompilesForSm90) {
  std::vector<CudaKernel> kernels;
  std::vector<const RecipeCase*> cases;
  for (const RecipeCase& c : recipeCases()) {
    if (auto k = emitCase(c)) {
      kernels.push_back(*k);
      cases.push_back(&c);
    }
  }
  ASSERT_EQ(kernels.size(), recipeCases().size());
  CompileOptions options;
  options.useCache = false;
  std::vector<CompileResult> results = compileAll(kernels, options);
  for (size_t i = 0; i < kernels.size(); ++i) {
    SCOPED_TRACE(std::string(cases[i]->example) + " under\n" + cases[i]->recipe);
    EXPECT_TRUE(results[i].compiled) << results[i].errorLog << "\n" << kernels[i].source;
    EXPECT_TRUE(results[i].ok) << results[i].reason;
    EXPECT_EQ(results[i].log.find("error"), std::string::npos) << results[i].log;
    EXPECT_GT(results[i].cubin.size(), 0u);
    if (*cases[i]->recipe) {
      EXPECT_NE(kernels[i].source.find("// Recipe:\n//   "), std::string::npos);
    }
  }
}

// The cases whose recipe holds `marker`, emitted and compiled (with their PTX when asked).
struct CompiledCases {
  std::vector<CudaKernel> kernels;
  std::vector<const RecipeCase*> cases;
  std::vector<CompileResult> results;
};
CompiledCases compiledCasesWith(const std::string& marker, bool keepPtx) {
  CompiledCases out;
  for (const RecipeCase& c : recipeCases())
    if (std::string(c.recipe).find(marker) != std::string::npos)
      if (auto k = emitCase(c)) out.kernels.push_back(*k), out.cases.push_back(&c);
  CompileOptions options;
  options.useCache = false;
  options.keepPtx = keepPtx;
  out.results = compileAll(out.kernels, options);
  return out;
}

// Tensor-core kernels keep their fragments and addresses in registers: no local memory at all
// (no spill, no stack frame), B's tiles loaded two at a time, swizzled stages addressed by XOR,
// whole tiles written back two columns a store.
TEST(CompileRecipes, TensorCoreKernelsUseNoLocalMemory) {
  auto [kernels, cases, results] = compiledCasesWith("mma ", false);
  ASSERT_GE(kernels.size(), 8u);
  int paired = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    SCOPED_TRACE(std::string(cases[i]->example) + " under\n" + cases[i]->recipe);
    ASSERT_TRUE(results[i].compiled) << results[i].errorLog;
    const std::string& source = kernels[i].source;
    paired += source.find("= make_float2(C_r[") != std::string::npos;
    EXPECT_EQ(results[i].resources.stackFrameBytes, 0) << results[i].log;
    EXPECT_FALSE(results[i].resources.spills()) << results[i].log;
    bool swizzled = std::string(cases[i]->recipe).find("swizzle") != std::string::npos;
    EXPECT_EQ(swizzled, source.find(" ^ ((") != std::string::npos) << source;
    bool sixteenBit = std::string(cases[i]->example) != "tf32gemm";
    bool staged = std::string(cases[i]->recipe).find("stage B") != std::string::npos;
    if (sixteenBit && staged && source.find("mma_pack") == std::string::npos) {
      EXPECT_NE(source.find("ldmatrix<4, true>(mma_b + 2 * "), std::string::npos) << source;
    }
    // tf32: A's fragments by ldmatrix where no bound cuts a tile, rounded as element loads are;
    // B stored k-major (as a product's B lies) element by element (.trans moves 16-bit elements).
    if (!sixteenBit && staged && cases[i]->sizes.at("M") % 128 == 0) {
      EXPECT_NE(source.find("ldmatrix<4, false>(mma_a["), std::string::npos) << source;
      EXPECT_NE(source.find("= tf32_bits(__uint_as_float("), std::string::npos) << source;
      EXPECT_EQ(source.find("ldmatrix<4, true>"), std::string::npos) << source;
    }
  }
  EXPECT_GE(paired, 4);  // the sizes the tiles divide
}

// Operands read ahead stay in registers: no local memory; a pipelined strip keeps one barrier,
// taken before its last element's work; the staged operands of tiles whose rows hold whole
// vectors are read from shared memory 128 bits at a time (a thread's 8 rows of A as two, its
// columns of B as one or two).
TEST(CompileRecipes, PrefetchedOperandsStayInRegistersAndReadSharedMemory128BitsAtATime) {
  auto [kernels, cases, results] = compiledCasesWith("prefetch ", true);
  ASSERT_GE(kernels.size(), 8u);
  int wide = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    SCOPED_TRACE(std::string(cases[i]->example) + " under\n" + cases[i]->recipe);
    ASSERT_TRUE(results[i].compiled) << results[i].errorLog;
    const std::string& source = kernels[i].source;
    const std::string& ptx = results[i].ptx;
    EXPECT_EQ(results[i].resources.stackFrameBytes, 0) << results[i].log;
    EXPECT_FALSE(results[i].resources.spills()) << results[i].log;
    EXPECT_NE(source.find("_reg[2]["), std::string::npos) << source;
    std::string recipe = cases[i]->recipe;
    bool pipelined = recipe.find("pipelined") != std::string::npos && recipe.find("strip k 15") == std::string::npos;
    EXPECT_EQ(pipelined, source.find("} else {  // the last iteration: the strip's barrier") != std::string::npos);
    // A register limit the recipe asked for: spills it makes are the recipe's choice.
    EXPECT_EQ(kernels[i].limitsRegisters, recipe.find("resident ") != std::string::npos);
    if (recipe.find("resident 2") != std::string::npos) {
      EXPECT_NE(source.find("__launch_bounds__(256, 2)"), std::string::npos);
    }
    if (std::string(cases[i]->example) == "matmul" && recipe.find("vectorize j 4") != std::string::npos &&
        recipe.find("regtile i,j 8,") != std::string::npos) {
      EXPECT_NE(ptx.find("ld.shared.v4.f32"), std::string::npos) << ptx;
      EXPECT_EQ(ptx.find("ld.shared.f32"), std::string::npos) << ptx;
      ++wide;
    }
  }
  EXPECT_GE(wide, 2);
}

}  // namespace
}  // namespace cudaburg
