// Emitted kernels run on the host (tests/cuda/host_run.hpp) compute what their nests compute:
// copies into shared memory whose items each thread numbers (filled then used, pipelined through
// registers, transposed, interleaved, 4 elements at a time), and implicit GEMMs whose gathers
// count or derive the reduction's indices, at sizes that cut tiles and strips.
#include <gtest/gtest.h>

#include "tests/cuda/host_run.hpp"

namespace cudaburg {
namespace {

TEST(EmitHostRun, StagedCopiesComputeTheNest) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    const char* recipe;
  };
  const Case cases[] = {
      {"matmul.loop",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 4,4; strip k 16; "
       "stage A at k_o transposed; stage B at k_o; map k_o pipelined; unroll k 16; vectorize j 4"},
      {"matmul.loop",
       {{"M", 100}, {"N", 72}, {"K", 33}},
       "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 8,8; strip k 8; "
       "stage A at k_o transposed; stage B at k_o interleaved 8; map k_o pipelined; unroll k 8; vectorize j 4"},
      {"matmul.loop",
       {{"M", 70}, {"N", 130}, {"K", 40}},
       "tile i,j 32,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 4,8; strip k 8; "
       "stage A at k_o; stage B at k_o; unroll k 8"},
      {"conv2d.loop",
       {{"N", 3}, {"C", 5}, {"H", 9}, {"W", 7}, {"K", 40}},
       "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; map k_o grid.y; "
       "map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o; stage Wt at q_o; "
       "map q_o pipelined; unroll q 8"},
      {"conv3d_ncdhw.loop",
       {{"N", 2}, {"C", 3}, {"D", 5}, {"H", 7}, {"W", 6}, {"K", 40}},
       "collapse c,a,b,e; interchange n k; collapse n,od,oh,ow; tile k,n_od_oh_ow 64,64; map k_o grid.y; "
       "map n_od_oh_ow_o grid.x; map k block.y; map n_od_oh_ow block.x; regtile k,n_od_oh_ow 8,4; strip c_a_b_e 16; "
       "stage In at c_a_b_e_o; stage Wt at c_a_b_e_o; unroll c_a_b_e 16; map c_a_b_e_o pipelined"},
  };
  for (const Case& c : cases) testing::expectComputesTheNestOnHost(c.example, c.sizes, c.recipe);
}

// Two products back to back as one kernel (the b2b step): the first product's rows of H kept in
// dynamic shared memory, its epilogue (ReLU; a bias and GELU) applied, the second product's
// columns a block tile at a time, its epilogue (a bias); H and Y both as the nests compute them.
TEST(EmitHostRun, BackToBackProductsComputeTheNests) {
  const std::map<std::string, int64_t> sizes = {{"M", 64}, {"D", 64}, {"F", 32}};
  for (const char* example : {"mlp2.loop", "mlp2_bias_gelu.loop"})
    for (const char* recipe : {"b2b i,r 16,32 2,2 strip 8", "b2b i,r 32,16 4,1 strip 16"})
      testing::expectComputesTheNestOnHost(example, sizes, recipe, "Hs[(tr * ");
}

}  // namespace
}  // namespace cudaburg
