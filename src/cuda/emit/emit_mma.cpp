// Tensor cores: the part of the CUDA emitter's writer (kernel_writer.hpp) that writes the warp
// tiles the mma step makes (Kernel::warpTiles, Mapping::Mma). A register buffer is then a warp's
// accumulator fragments: C_r[m][n] of an M x N tile is held as float C_r[M/16][N/8][4], the
// layout of mma.sync's C operand (element r of tile (a, b) at row 16a + lane/4 + 8(r/2), column
// 8b + 2(lane%4) + r%2). A and B fragments are loaded with ldmatrix from shared memory where
// their rows are 16-byte aligned and no bound cuts the tile, else element by element (zero where
// a loop bound cuts it), in the layouts of the PTX ISA for m16n8k16 (f16, bf16) and m16n8k8 (tf32).
#include <algorithm>
#include <functional>

#include "src/cuda/emit/kernel_writer.hpp"

namespace cudaburg::emit_internal {

namespace {

// `a` divided by `d` when every coefficient and the constant are multiples of it.
std::optional<Affine> dividedExactly(const Affine& a, int64_t d) {
  Affine q(a.constant / d);
  if (a.constant % d != 0) return std::nullopt;
  for (const auto& [name, c] : a.terms) {
    if (c % d != 0) return std::nullopt;
    q.terms[name] = c / d;
  }
  return q;
}

const char* kMmaHelpers =
    "\n// Tensor cores (sm_80 and later): D += A * B on a warp's fragments (PTX ISA layouts), and\n"
    "// ldmatrix loads of 8x8 tiles of 16-bit elements from shared memory, each lane giving a row.\n"
    "__device__ __forceinline__ void mma_m16n8k16_f16(float* d, const unsigned* a, const unsigned* b) {\n"
    "  asm(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "      \"{%0, %1, %2, %3};\\n\" : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
    "      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "}\n"
    "__device__ __forceinline__ void mma_m16n8k16_bf16(float* d, const unsigned* a, const unsigned* b) {\n"
    "  asm(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "      \"{%0, %1, %2, %3};\\n\" : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
    "      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "}\n"
    "__device__ __forceinline__ void mma_m16n8k8_tf32(float* d, const unsigned* a, const unsigned* b) {\n"
    "  asm(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "      \"{%0, %1, %2, %3};\\n\" : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
    "      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "}\n"
    "template <int Count, bool Transposed>\n"
    "__device__ __forceinline__ void ldmatrix(unsigned* r, const void* row) {\n"
    "  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));\n"
    "  if (Count == 4 && !Transposed)\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n\"\n"
    "                 : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(at));\n"
    "  else if (Count == 4)\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\\n\"\n"
    "                 : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(at));\n"
    "  else if (!Transposed)\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\\n\" : \"=r\"(r[0]), \"=r\"(r[1]) : "
    "\"r\"(at));\n"
    "  else\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\\n\" : \"=r\"(r[0]), "
    "\"=r\"(r[1]) : \"r\"(at));\n"
    "}\n"
    "// Two 16-bit elements as the 32-bit register of a fragment, the first in the low half.\n"
    "__device__ __forceinline__ unsigned mma_pack(unsigned short lo, unsigned short hi) {\n"
    "  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);\n"
    "}\n"
    "__device__ __forceinline__ unsigned tf32_bits(float x) {\n"
    "  unsigned r;\n"
    "  asm(\"cvt.rna.tf32.f32 %0, %1;\\n\" : \"=r\"(r) : \"f\"(x));\n"
    "  return r;\n"
    "}\n";

}  // namespace

Access substituted(Access a, const std::map<std::string, Affine>& by) {
  for (auto& s : a.subscripts)
    for (const auto& [name, value] : by) s = s.substitute(name, value);
  return a;
}

std::string KernelWriter::mmaHelpers() const { return (uses_.mma() ? kMmaHelpers : "") + wgmmaHelpers(); }

// A's rows, permuted (wgmmaRegisterA): row 16w + g + 8h of the instruction is row 32 (w / 2) +
// 8 (w % 2) + 16 (g / 4) + g % 4 + 4h of the tile, so that a warp's loads of one register (4 k
// by 8 rows) cover 8 different 16-byte chunks of the swizzled rows, 32 banks, where 8 adjacent
// rows would cover 4. D's rows are A's: the accumulators are read and written through the same
// permutation.
Affine KernelWriter::fragmentRow(const Affine& half) const {
  if (kernel_.wgmmaRegisterA())
    return Affine::var("mma_wh", 32) + Affine::var("mma_wl", 8) + Affine::var("mma_gh", 16) + Affine::var("mma_gl") +
           half * 4;
  Affine warpRows = kernel_.warpGroupTiles() ? Affine::var("mma_w", 16) : Affine(0);
  return warpRows + Affine::var("mma_g") + half * 8;
}

void KernelWriter::bindFragmentRowBits(Scope& scope) {
  for (const char* bit : {"mma_wh", "mma_wl", "mma_gh"}) scope.ranges.bind(bit, IndexRange{0, 1, 1});
  scope.ranges.bind("mma_gl", IndexRange{0, 3, 1});
}

std::string KernelWriter::fragmentRowText(const std::string& half) const {
  if (kernel_.wgmmaRegisterA()) return "32 * mma_wh + 8 * mma_wl + 16 * mma_gh + mma_gl + 4 * " + half;
  return std::string(kernel_.warpGroupTiles() ? "16 * mma_w + " : "") + "mma_g + 8 * " + half;
}

void KernelWriter::declareFragments(const Array& buffer) {
  const int64_t rows = fragmentRows();
  if (buffer.extents.size() != 2 || buffer.extents[0] % rows != 0 || buffer.extents[1] % 8 != 0)
    return refuse("register buffer `" + buffer.name + "` is no " + (rows == 16 ? "warp" : "warpgroup") + " tile of " +
                  std::to_string(rows) + " x 8 accumulator fragments");
  if (typeOf(buffer) != ScalarType::Float) return refuse("accumulator fragments hold float");
  line("float " + buffer.name + "[" + std::to_string(buffer.extents[0] / rows) + "][" +
       std::to_string(buffer.extents[1] / 8) + "][4];  // a " + (rows == 16 ? "warp" : "warpgroup") +
       "'s accumulator fragments, 4 elements a lane" + (rows == 16 ? "" : " (its warp's 16 rows of each 64)"));
  if (kernel_.wgmmaPromote() > 0) wgmmaGroups_.declarePartialSums(buffer);
}

// The fragment of register buffer access `a` in the tile whose first element is (rowOrigin,
// colOrigin): "C_r[1][3]", with `a`'s two subscripts read at the origin.
std::string KernelWriter::fragmentText(const Access& a, const std::string& i, const Affine& rowOrigin,
                                       const std::string& j, const Affine& colOrigin, const Scope& scope) {
  Affine row = a.subscripts.at(0).substitute(i, rowOrigin), col = a.subscripts.at(1).substitute(j, colOrigin);
  for (const auto& [name, as] : scope.unrolledAs) row = row.substitute(name, as), col = col.substitute(name, as);
  auto tileRow = dividedExactly(row, fragmentRows()), tileCol = dividedExactly(col, 8);
  bool constant = tileRow && tileCol;
  for (const Affine* x : {&row, &col})
    for (const auto& [name, c] : x->terms) constant = constant && scope.compileTimeIndices.count(name);
  if (!constant) {
    refuse("`" + a.str() + "` is no fragment known when the kernel is compiled");
    return "?";
  }
  return a.array + "[" + affineText(*tileRow) + "][" + affineText(*tileCol) + "]";
}

// An Mma loop over i { j { S } }: each lane does its four elements of the tile's fragment.
void KernelWriter::emitMmaElements(const Node& iLoop, const Scope& scope) {
  const Node& jLoop = *iLoop.body();
  const Node& stmt = *jLoop.body();
  if (jLoop.kind != NodeKind::For || stmt.kind != NodeKind::Assign)
    return refuse("tensor-core tile `" + iLoop.index + "` is not `i { j { statement } }`");
  coordinate("mma_lane");
  Scope inner = scope;
  inner.ranges.bind("mma_g", IndexRange{0, 7, 1});
  inner.ranges.bind("mma_t", IndexRange{0, 3, 1});
  inner.ranges.bind("mma_r", IndexRange{0, 3, 1});
  inner.ranges.bind("mma_w", IndexRange{0, kernel_.warpGroupTiles() ? 3 : 0, 1});
  inner.ranges.bindLoop(iLoop, scope.ranges.loopIndexRange(iLoop, fragmentRows()));
  inner.ranges.bindLoop(jLoop, scope.ranges.loopIndexRange(jLoop, 8));
  auto isFragment = [&](const Access& a) {
    auto it = scope.arrays.find(a.array);
    return it != scope.arrays.end() && it->second.space == MemorySpace::Register;
  };
  std::vector<Access> loads;
  std::function<void(const Expr&)> collect = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Load && isFragment(e.load)) loads.push_back(e.load);
    for (const auto& arg : e.args) collect(*arg);
  };
  collect(*stmt.value);
  for (const Access& a : loads)
    inner.loadOverrides[a.str()] =
        fragmentText(a, iLoop.index, iLoop.lower, jLoop.index, jLoop.lower, scope) + "[mma_r]";
  // The bounds that may cut the tile, proven or not with the element's place in it.
  inner.ranges.bind("mma_half", IndexRange{0, 1, 1});
  // A warpgroup's warp w holds rows 16w to 16w + 15 of the 64 (the PTX ISA's wgmma D fragments).
  bindFragmentRowBits(inner);
  Affine row = iLoop.lower + fragmentRow(Affine::var("mma_half"));
  Affine col = jLoop.lower + Affine::var("mma_t", 2) + Affine::var("mma_half");
  std::vector<std::string> rowConds, colConds;
  for (const Affine& u : iLoop.upper)
    if (!inner.ranges.provesLess(row, u)) rowConds.push_back(iLoop.index + " < " + affineText(u));
  for (const Affine& u : jLoop.upper)
    if (!inner.ranges.provesLess(col, u)) colConds.push_back(jLoop.index + " < " + affineText(u));
  std::vector<std::string> conds = rowConds;
  conds.insert(conds.end(), colConds.begin(), colConds.end());
  const Array* target = findArray(stmt.target.array, scope);
  // The fragment copied as it is into global memory (floats, or 16-bit elements converted), no
  // bound cutting the tile's columns, each pair of a lane's columns (elements 2p and 2p + 1)
  // aligned to the pair: one store a pair (float2, or __half2 / __nv_bfloat162), under the bound
  // of its row where one cuts the rows. Rows may derive collapsed indices (an implicit GEMM's
  // pixels: n, oh, ow), set for each pair's row; columns may not (a pair would straddle them).
  bool derives = !jLoop.collapsed.empty();
  // (Only where the columns run along the target's rows: not C transposed, as wgmmaRegisterA holds it.)
  bool alongRows = !stmt.target.subscripts.empty() && stmt.target.subscripts.back().coef(jLoop.index) == 1 &&
                   !stmt.target.subscripts.back().uses(iLoop.index);
  // A pair of 16-bit elements is one 4-byte store, converted from the fp32 sums by one instruction.
  const ScalarType stored = target ? typeOf(*target) : ScalarType::Float;
  const bool pairable = stored == ScalarType::Float || stored == ScalarType::Half || stored == ScalarType::BFloat16;
  const std::string pairBytes = stored == ScalarType::Float ? "8" : "4";
  auto storePair = [&](const std::string& at, const std::string& x, const std::string& y) {
    const char* type = stored == ScalarType::Float  ? "float2"
                       : stored == ScalarType::Half ? "__half2"
                                                    : "__nv_bfloat162";
    const char* make = stored == ScalarType::Float  ? "make_float2"
                       : stored == ScalarType::Half ? "__floats2half2_rn"
                                                    : "__floats2bfloat162_rn";
    line(std::string("*reinterpret_cast<") + type + "*>(&" + at + ") = " + make + "(" + x + ", " + y + ");");
  };
  // A pair's row: its index, the indices it derives, and the bound that may cut it.
  std::vector<size_t> pairRowDerived;
  auto openPairRow = [&] {
    line("const " + index_ + " " + iLoop.index + " = " + affineText(iLoop.lower) + " + " + fragmentRowText("mma_p") +
         ";");
    pairRowDerived = declareDerived(iLoop);
    if (!rowConds.empty()) open("if (" + joinConditions(rowConds) + ") {");
  };
  auto closePairRow = [&] {
    if (!rowConds.empty()) close();
    dropDerived(iLoop, pairRowDerived);
  };
  bool readsTarget = false;
  std::function<void(const Expr&)> scanTarget = [&](const Expr& e) {
    readsTarget |= e.kind == Expr::Kind::Load && e.load.array == stmt.target.array;
    for (const auto& arg : e.args) scanTarget(*arg);
  };
  scanTarget(*stmt.value);
  bool oneFragment = !loads.empty() && std::all_of(loads.begin(), loads.end(),
                                                   [&](const Access& a) { return a.str() == loads.front().str(); });
  if (target && colConds.empty() && !derives && alongRows && target->space == MemorySpace::Global && pairable &&
      !stmt.accumulate && !stmt.atomic && oneFragment && !readsTarget && !isFragment(stmt.target) &&
      emitRowRuns(stmt, iLoop, jLoop, *target, loads.front(), rowConds, inner))
    return;
  if (target && colConds.empty() && !derives && alongRows && target->space == MemorySpace::Global && pairable &&
      !stmt.accumulate && !stmt.atomic && stmt.value->kind == Expr::Kind::Load && isFragment(stmt.value->load)) {
    Access pair = substituted(stmt.target, {{iLoop.index, row}, {jLoop.index, jLoop.lower + Affine::var("mma_t", 2)}});
    if (inner.ranges.multipleOf(flatOffset(pair, *target)) % 2 == 0) {
      std::string fragment = fragmentText(stmt.value->load, iLoop.index, iLoop.lower, jLoop.index, jLoop.lower, scope);
      line("#pragma unroll");
      open("for (int mma_p = 0; mma_p < 2; ++mma_p) {  // " + iLoop.index + ", " + jLoop.index +
           ": this lane's pairs of elements of the 16 x 8 tile, " + pairBytes + " bytes a store");
      openPairRow();
      line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " + 2 * mma_t;");
      storePair(accessText(stmt.target, inner), fragment + "[2 * mma_p]", fragment + "[2 * mma_p + 1]");
      closePairRow();
      close();
      return;
    }
  }
  // The same with an epilogue (a bias, an activation: the value an expression of the one fragment
  // element and of other arrays): each element of a pair computed at its own column, then stored
  // as one pair.
  if (target && colConds.empty() && !derives && alongRows && target->space == MemorySpace::Global && pairable &&
      !stmt.accumulate && !stmt.atomic && oneFragment && !readsTarget && !isFragment(stmt.target)) {
    Access pair = substituted(stmt.target, {{iLoop.index, row}, {jLoop.index, jLoop.lower + Affine::var("mma_t", 2)}});
    if (inner.ranges.multipleOf(flatOffset(pair, *target)) % 2 == 0) {
      std::string fragment = fragmentText(loads.front(), iLoop.index, iLoop.lower, jLoop.index, jLoop.lower, scope);
      line("#pragma unroll");
      open("for (int mma_p = 0; mma_p < 2; ++mma_p) {  // " + iLoop.index + ", " + jLoop.index +
           ": this lane's pairs of elements of the 16 x 8 tile, each computed at its column, " + pairBytes +
           " bytes a store");
      openPairRow();
      line("float2 mma_pair;");
      for (int q = 0; q < 2; ++q) {
        open("{");
        line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " + 2 * mma_t + " +
             std::to_string(q) + ";");
        for (const Access& a : loads)
          inner.loadOverrides[a.str()] = fragment + "[2 * mma_p + " + std::to_string(q) + "]";
        line(std::string("mma_pair.") + (q ? "y" : "x") + " = " +
             exprText(*stmt.value, computeType(ScalarType::Float), inner, true) + ";");
        close();
      }
      line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " + 2 * mma_t;");
      if (stored == ScalarType::Float)
        line("*reinterpret_cast<float2*>(&" + accessText(stmt.target, inner) + ") = mma_pair;");
      else
        storePair(accessText(stmt.target, inner), "mma_pair.x", "mma_pair.y");
      closePairRow();
      close();
      return;
    }
  }
  line("#pragma unroll");
  open("for (int mma_r = 0; mma_r < 4; ++mma_r) {  // " + iLoop.index + ", " + jLoop.index +
       ": this lane's elements of the 16 x 8 tile");
  line("const " + index_ + " " + iLoop.index + " = " + affineText(iLoop.lower) + " + " +
       fragmentRowText("(mma_r >> 1)") + ";");
  line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " + 2 * mma_t + (mma_r & 1);");
  // An implicit GEMM's rows (or columns) derive the indices they collapse: n, oh, ow of a pixel.
  std::vector<size_t> derivedRows = declareDerived(iLoop), derivedCols = declareDerived(jLoop);
  if (!conds.empty()) open("if (" + joinConditions(conds) + ") {");
  if (target) {
    ScalarType targetType = typeOf(*target);
    std::string value = exprText(*stmt.value, computeType(targetType), inner, true);
    if (isFragment(stmt.target))
      line(storeText(stmt,
                     fragmentText(stmt.target, iLoop.index, iLoop.lower, jLoop.index, jLoop.lower, scope) + "[mma_r]",
                     targetType, value));
    else
      emitStore(stmt, stmt.target, *target, value, inner);
  }
  if (!conds.empty()) close();
  dropDerived(jLoop, derivedCols);
  dropDerived(iLoop, derivedRows);
  close();
}

// A tile's write-back (the value an expression of its fragment `fragment` and of other arrays,
// stored into global `target` along its rows) by runs of neighbouring tiles along the row, through
// a slice of shared memory of the warp's own (LaunchPlan::rowSliceBytes: its 16 rows of 128
// bytes): where the tiles' column counter is a compile-time index over whole runs (4 tiles of 8
// floats, 8 of 8 16-bit elements: 128 bytes a row), the last tile of each run computes the run's
// values into the slice, each lane its pairs, and the warp reads it back 16 bytes a lane, so that
// a store covers 4 whole rows of 128 bytes: a request a line at L2, where a pair's store makes
// one a sector (bench/RESULTS.md: the write-back's requests crowded L2's tag lookups). The slice's
// 16-byte chunks are swizzled (chunk c of row r at c ^ r % 8) so that neither the lanes' pairs nor
// their reads fall in one bank. The tiles' rows may be cut by a bound; their columns may not.
std::string KernelWriter::rowSliceText() {
  if (!rowSliceAt_) rowSliceAt_ = shared_.take(plan_.rowSliceBytes);
  return "reinterpret_cast<unsigned*>(shared_memory + " + std::to_string(*rowSliceAt_) + ") + ((threadIdx.x + " +
         std::to_string(plan_.block[0]) + " * threadIdx.y) >> 5) * 512";
}

bool KernelWriter::emitRowRuns(const Node& stmt, const Node& iLoop, const Node& jLoop, const Array& target,
                               const Access& fragment, const std::vector<std::string>& rowConds, Scope& inner) {
  if (plan_.rowSliceBytes == 0 || !plan_.dynamicShared) return false;
  const ScalarType stored = typeOf(target);
  const bool floats = stored == ScalarType::Float;
  const int run = floats ? 4 : 8;  // tiles of 8 columns in 128 bytes
  Affine col = jLoop.lower;
  for (const auto& [name, as] : inner.unrolledAs) col = col.substitute(name, as);
  std::string counter;
  for (const auto& [name, c] : col.terms) {
    auto range = inner.ranges.bounds(Affine::var(name));
    if (c == 8 && inner.compileTimeIndices.count(name) && range && range->first == 0 && (range->second + 1) % run == 0)
      counter = name;
  }
  if (counter.empty()) return false;
  // A bound on the columns cuts them a tile at a time (each tile's loop guarded), so a run is
  // whole, and written by its last tile, only where the run starts on a multiple of its columns
  // and every bound but the tile's own end is one too.
  const int64_t runColumns = 8 * run;
  for (const Affine& u : jLoop.upper)
    if (!(u - jLoop.lower).terms.empty() && inner.ranges.multipleOf(u) % runColumns != 0) return false;
  if (inner.ranges.multipleOf(col - Affine::var(counter, 8)) % runColumns != 0) return false;
  // The run's rows must start on 16 bytes: its first column's offset a multiple of 4 floats or 8
  // 16-bit elements, for every row.
  const Affine row = iLoop.lower + fragmentRow(Affine::var("mma_half"));
  const Access first = substituted(stmt.target, {{iLoop.index, row}, {jLoop.index, jLoop.lower}});
  if (inner.ranges.multipleOf(flatOffset(first, target)) % (floats ? 4 : 8) != 0) return false;
  const std::string last = std::to_string(run - 1), back = std::to_string(8 * (run - 1));
  open("if ((" + counter + " & " + last + ") == " + last + ") {  // the last of a run of " + std::to_string(run) +
       " tiles along the row: the run's write-back, through the warp's rows in shared memory");
  line("unsigned* const mma_rows = " + rowSliceText() + ";  // 16 rows of 128 bytes, the warp's own");
  line("__syncwarp();  // the warp has read its last run back");
  line("#pragma unroll");
  open("for (int mma_p = 0; mma_p < 2; ++mma_p) {  // " + iLoop.index + ": this lane's rows of the tiles");
  line("const " + index_ + " " + iLoop.index + " = " + affineText(iLoop.lower) + " + " + fragmentRowText("mma_p") +
       ";");
  std::vector<size_t> derived = declareDerived(iLoop);
  line("const int mma_row = mma_g + 8 * mma_p;  // the lane's row of the warp's 16");
  for (int q = 0; q < run; ++q) {
    open("{");
    line("float mma_pair[2] = {0.0f, 0.0f};");
    if (!rowConds.empty()) open("if (" + joinConditions(rowConds) + ") {");
    for (int e = 0; e < 2; ++e) {
      open("{");
      line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " - " +
           std::to_string(8 * (run - 1 - q)) + " + 2 * mma_t + " + std::to_string(e) + ";");
      inner.loadOverrides[fragment.str()] = fragmentText(fragment, iLoop.index, iLoop.lower, jLoop.index,
                                                         jLoop.lower + Affine(8 * (q - run + 1)), inner) +
                                            "[2 * mma_p + " + std::to_string(e) + "]";
      line("mma_pair[" + std::to_string(e) +
           "] = " + exprText(*stmt.value, computeType(ScalarType::Float), inner, true) + ";");
      close();
    }
    if (!rowConds.empty()) close();
    // Columns 8q + 2t and 8q + 2t + 1 of the run: word 8q + 2t of the row (floats), or 4q + t (a
    // 16-bit pair), in chunk c of 16 bytes at c ^ row % 8.
    const std::string word =
        floats ? "8 * " + std::to_string(q) + " + 2 * mma_t" : "4 * " + std::to_string(q) + " + mma_t";
    const std::string at = "mma_row * 32 + (((" + word + ") >> 2) ^ (mma_row & 7)) * 4 + ((" + word + ") & 3)";
    if (floats) {
      line("*reinterpret_cast<float2*>(mma_rows + " + at + ") = make_float2(mma_pair[0], mma_pair[1]);");
    } else {
      const char* pack = stored == ScalarType::Half ? "__floats2half2_rn" : "__floats2bfloat162_rn";
      line(std::string("{ const auto h = ") + pack + "(mma_pair[0], mma_pair[1]); mma_rows[" + at +
           "] = *reinterpret_cast<const unsigned*>(&h); }");
    }
    close();
  }
  dropDerived(iLoop, derived);
  close();
  line("__syncwarp();  // the warp's rows are in shared memory");
  // Read back: lane l takes chunk l % 8 of row 4k + l / 8, k = 0..3, and stores it.
  line("#pragma unroll");
  open("for (int mma_k = 0; mma_k < 4; ++mma_k) {  // 4 rows of the warp's 16 a store, 8 lanes a row");
  line("const int mma_row = 4 * mma_k + (mma_lane >> 3), mma_chunk = mma_lane & 7;");
  line(
      "const uint4 mma_run = *reinterpret_cast<const uint4*>(mma_rows + mma_row * 32 + (mma_chunk ^ (mma_row & 7)) * "
      "4);");
  line("const " + index_ + " " + iLoop.index + " = " + affineText(iLoop.lower) + " + " +
       (kernel_.warpGroupTiles() ? "16 * mma_w + " : "") + "mma_row;");
  std::vector<size_t> readDerived = declareDerived(iLoop);
  line("const " + index_ + " " + jLoop.index + " = " + affineText(jLoop.lower) + " - " + back + " + " +
       (floats ? "4" : "8") + " * mma_chunk;");
  if (!rowConds.empty()) open("if (" + joinConditions(rowConds) + ") {");
  line("*reinterpret_cast<uint4*>(&" + accessText(stmt.target, inner) + ") = mma_run;");
  if (!rowConds.empty()) close();
  dropDerived(iLoop, readDerived);
  close();
  close();
  return true;
}

// The operand `a` of an mma (A: rows `row` = i, B: rows `row` = j; `k` the reduction) at the
// tile whose first row and first k are `rowOrigin` and `kOrigin`, into the registers `regs`; of
// B, `tiles` (1 or 2) tiles side by side, the second's registers after the first's (one
// ldmatrix.x4 loads two).
void KernelWriter::emitMmaOperand(const Access& a, bool isA, const MmaTile& tile, const Affine& rowOrigin,
                                  const Affine& kOrigin, const std::string& regs, const Scope& scope, int tiles) {
  const Array* array = findArray(a.array, scope);
  if (!array) return;
  ScalarType t = productType(*array);
  const std::string& row = isA ? tile.i : tile.j;
  const Node& rowLoop = isA ? *tile.iLoop : *tile.jLoop;
  // The fragments are read at the tile's rows and k: indices derived from them (an unstaged
  // convolution input's pixel) would each need their own division.
  for (const Node* l : {&rowLoop, tile.kLoop})
    for (const CollapsedLoop& d : l->collapsed)
      for (const Affine& sub : a.subscripts)
        if (sub.uses(d.index))
          return refuse("tensor-core operand `" + a.str() + "` reads `" + d.index +
                        "`, derived from the collapsed loop `" + l->index + "`: stage it (a gather) first");
  bool pair = !isA && tiles == 2;
  // ldmatrix: a 2-D buffer in shared memory whose rows hold the tile's rows (or its k)
  // contiguously, 16-byte aligned, and no bound to cut the tile. It moves 16-bit elements; a tf32
  // element is two of them, so a tile stored k-contiguous arrives as the fragment wants it (lane l
  // gets element l % 4 of row l / 4), while .trans cannot move whole 32-bit elements.
  bool tf32 = t == ScalarType::TF32;
  bool transposed = a.subscripts.size() == 2 && a.subscripts[0].uses(tile.k);
  const int64_t perChunk = 16 / scalarTypeBytes(t);  // elements in a 16-byte row of an 8x8 b16 matrix
  bool ldmatrix = (scalarTypeBytes(t) == 2 || (tf32 && !transposed)) && array->space == MemorySpace::Shared &&
                  array->interleave == 0 && a.subscripts.size() == 2 &&
                  a.subscripts[1].coef(transposed ? row : tile.k) == 1 &&
                  a.subscripts[0].coef(transposed ? tile.k : row) == 1 && array->extents[1] % perChunk == 0 &&
                  array->padding % perChunk == 0;
  Scope at = scope;
  at.ranges.bind("mma_g", IndexRange{0, 7, 1});
  at.ranges.bind("mma_t", IndexRange{0, 3, 1});
  at.ranges.bind("mma_lane", IndexRange{0, 31, 1});
  // The bounds of the row loop at tile p of `tiles`: its own, with the tile (rowOrigin, the tile
  // loop's index) moved 8p rows on.
  auto rowBounds = [&](int64_t p) {
    std::vector<Affine> out;
    for (Affine u : rowLoop.upper) {
      for (const auto& [name, c] : rowOrigin.terms) u = u.substitute(name, Affine::var(name) + Affine(8 * p));
      out.push_back(u);
    }
    return out;
  };
  std::vector<std::string> cuts;  // bounds that may cut the tiles
  for (int64_t p = 0; p < (isA ? 1 : tiles); ++p)
    for (const Affine& u : rowBounds(p))
      if (!scope.ranges.provesLess(rowOrigin + Affine(8 * p + (isA ? 15 : 7)), u)) cuts.push_back(rowLoop.index);
  for (const Affine& u : tile.kLoop->upper)
    if (!scope.ranges.provesLess(kOrigin + Affine(tile.kSize - 1), u)) cuts.push_back(tile.kLoop->index);
  if (ldmatrix) {  // each 8-element row of a tile starts 16-byte aligned
    Access origin = substituted(a, {{row, rowOrigin}, {tile.k, kOrigin}});
    Affine col = origin.subscripts[1];
    for (const auto& [name, as] : scope.unrolledAs) col = col.substitute(name, as);
    ldmatrix = scope.ranges.multipleOf(col) % perChunk == 0;
  }
  if (ldmatrix && cuts.empty()) {
    // Lane l gives the row (l % 16 of A, l % 8 of B, and 8 (l / 16) more for B's second tile)
    // and the half (l / 16 of A, l / 8 % 2 of B) it addresses; .trans reads tiles stored k-major.
    Affine lane16 = Affine::var("mma_l16"), half = Affine::var("mma_h");
    std::map<std::string, Affine> by;
    Affine r = rowOrigin, kk = kOrigin;
    open("{");
    if (!transposed) {
      line(std::string("const int mma_l16 = ") +
           (isA    ? "mma_lane & 15"
            : pair ? "(mma_lane & 7) + 8 * (mma_lane >> 4)"
                   : "mma_lane & 7") +
           ", mma_h = " + (isA ? "mma_lane >> 4" : "(mma_lane >> 3) & 1") + ";");
      at.ranges.bind("mma_l16", IndexRange{0, isA || pair ? 15 : 7, 1});
      at.ranges.bind("mma_h", IndexRange{0, 1, 1});
      by[row] = r + lane16;
      by[tile.k] = kk + half * perChunk;
    } else {
      // Stored [k][row]: tile q holds rows 8(q % 2) (A) of k 8(q / 2); lane l addresses k = l % 8
      // + 8 (l / 16) (A) or l % 8 + 8 (l / 8 % 2) (B), at row 8 (l / 8 % 2) (A) or 0 (B; 8 (l / 16)
      // for a pair of B tiles).
      line("const int mma_k = (mma_lane & 7) + 8 * " + std::string(isA ? "(mma_lane >> 4)" : "((mma_lane >> 3) & 1)") +
           ", mma_q = " +
           (isA    ? "8 * ((mma_lane >> 3) & 1)"
            : pair ? "8 * (mma_lane >> 4)"
                   : "0") +
           ";");
      at.ranges.bind("mma_k", IndexRange{0, 15, 1});
      at.ranges.bind("mma_q", IndexRange{0, 8, 8});
      by[row] = r + Affine::var("mma_q");
      by[tile.k] = kk + Affine::var("mma_k");
    }
    line(std::string("ldmatrix<") + (isA || pair ? "4" : "2") + ", " + (transposed ? "true" : "false") + ">(" + regs +
         ", &" + accessText(substituted(a, by), at) + ");");
    if (tf32)  // rounded to tf32 as the element-by-element loads round
      line("for (int q = 0; q < " + std::string(isA || pair ? "4" : "2") + "; ++q) (" + regs +
           ")[q] = tf32_bits(__uint_as_float((" + regs + ")[q]));");
    close();
    return;
  }
  // Element by element: register q of A holds rows g + 8 (q % 2) at k 2t + 8 (q / 2) and the
  // next (tf32: t + 4 (q / 2)); of B, rows g (+ 8 in the second tile, q / 2) at k 2t + 8 (q % 2)
  // and the next (tf32: t + 4 (q % 2)).
  int registers = isA ? 4 : 2 * tiles;
  for (int q = 0; q < registers; ++q) {
    std::vector<std::string> halves;
    int64_t rowStep = 8 * (isA ? q & 1 : q >> 1), kStep = isA ? q >> 1 : q & 1;
    for (int e = 0; e < (tf32 ? 1 : 2); ++e) {
      Affine rr = rowOrigin + Affine::var("mma_g") + Affine(rowStep);
      Affine kk = tf32 ? kOrigin + Affine::var("mma_t") + Affine(4 * kStep)
                       : kOrigin + Affine::var("mma_t", 2) + Affine(8 * kStep + e);
      std::vector<std::string> conds;
      for (const auto& [bounds, v] : {std::pair{rowBounds(isA ? 0 : q >> 1), rr}, {tile.kLoop->upper, kk}})
        for (const Affine& u : bounds)
          if (!at.ranges.provesLess(v, u)) conds.push_back(affineText(v) + " < " + affineText(u));
      Access element = substituted(a, {{row, rr}, {tile.k, kk}});
      std::string text = accessText(element, at);
      if (array->zeroPadded) {
        auto outside = outsideConditions(element, *array, at);
        conds.insert(conds.end(), outside.begin(), outside.end());
      }
      std::string zero = tf32 ? "0.0f" : fromFloat(t, "0.0f");
      if (!conds.empty()) text = "(" + joinConditions(conds) + " ? " + text + " : " + zero + ")";
      std::string bits = t == ScalarType::Half ? "__half_as_ushort(" : "__bfloat16_as_ushort(";
      halves.push_back(tf32 ? "tf32_bits(" + text + ")" : bits + text + ")");
    }
    line(regs + "[" + std::to_string(q) +
         "] = " + (tf32 ? halves[0] : "mma_pack(" + halves[0] + ", " + halves[1] + ")") + ";");
  }
}

// The unrolled loop over tiles `loop` with its counter, `every` tiles a step: `loop`'s index
// declared, known to the ranges of `inner`.
void KernelWriter::openTileLoop(const Node& loop, int64_t trips, const Scope& scope, Scope& inner, int64_t every) {
  std::string counter = loop.index + "_u";
  Affine lower = loop.lower;
  for (const auto& [name, as] : scope.unrolledAs) lower = lower.substitute(name, as);
  inner.ranges.bind(counter, IndexRange{0, trips - every, every});
  // Every tile runs, those past a bound too (their accumulators are never written back): the
  // index ranges over all of them, and the operands' bounds guard what they read.
  Node whole = loop;
  whole.upper = {loop.lower + Affine(trips * loop.step)};
  inner.ranges.bind(loop.index, scope.ranges.loopIndexRange(whole, trips));
  inner.compileTimeIndices.insert(counter);
  inner.unrolledAs[loop.index] = lower + Affine::var(counter, loop.step);
  line("#pragma unroll");
  open("for (int " + counter + " = 0; " + counter + " < " + std::to_string(trips) + "; " +
       (every == 1 ? "++" + counter : counter + " += " + std::to_string(every)) + ") {");
  line("const " + index_ + " " + loop.index + " = " + affineText(loop.lower) + " + " + std::to_string(loop.step) +
       " * " + counter + ";");
}

// it { jt { i (mma) { j { k { R += A * B } } } } }: a warp's tile of mma instructions at one k
// step. The A fragments of each row of tiles and the B fragments of each column are loaded once,
// then every tile multiplies.
bool KernelWriter::emitMmaWarpTile(const Node& itLoop, const Scope& scope) {
  const Node& jtLoop = *itLoop.body();
  if (jtLoop.kind != NodeKind::For || jtLoop.mapping != Mapping::Unrolled) return false;
  const Node& iLoop = *jtLoop.body();
  if (iLoop.kind != NodeKind::For || iLoop.mapping != Mapping::Mma) return false;
  const Node& jLoop = *iLoop.body();
  if (jLoop.kind != NodeKind::For || jLoop.body()->kind != NodeKind::For) return false;
  const Node& kLoop = *jLoop.body();
  const Node& stmt = *kLoop.body();
  if (stmt.kind != NodeKind::Assign || stmt.value->kind != Expr::Kind::Binary ||
      stmt.value->args[0]->kind != Expr::Kind::Load || stmt.value->args[1]->kind != Expr::Kind::Load)
    return false;
  if (kernel_.warpGroupTiles()) return emitWgmmaTile(itLoop, scope), true;
  uses_.useMma();
  coordinate("mma_lane");
  MmaTile tile{iLoop.index, jLoop.index, kLoop.index, &iLoop, &jLoop, &kLoop, 0};
  auto kTrips = scope.ranges.maxTripCount(kLoop);
  auto itTrips = scope.ranges.maxTripCount(itLoop), jtTrips = scope.ranges.maxTripCount(jtLoop);
  if (!kTrips || !itTrips || !jtTrips) return refuse("a tensor-core tile without constant trip counts"), true;
  tile.kSize = 16;
  const Access* a = &stmt.value->args[0]->load;
  const Access* b = &stmt.value->args[1]->load;
  if (a->subscripts.size() != 2 || !(a->subscripts[0].uses(tile.i) || a->subscripts[1].uses(tile.i))) std::swap(a, b);
  const Array* aArray = findArray(a->array, scope);
  if (!aArray) return true;
  ScalarType t = productType(*aArray);
  const char* mma = t == ScalarType::Half       ? "mma_m16n8k16_f16"
                    : t == ScalarType::BFloat16 ? "mma_m16n8k16_bf16"
                    : t == ScalarType::TF32     ? "mma_m16n8k8_tf32"
                                                : nullptr;
  if (!mma) return refuse(std::string("tensor cores take no ") + scalarTypeName(t) + " operands"), true;
  tile.kSize = t == ScalarType::TF32 ? 8 : 16;
  if (*kTrips != tile.kSize)
    return refuse("a tensor-core tile's k loop runs " + std::to_string(*kTrips) + " iterations"), true;
  std::string rowsA = std::to_string(*itTrips), colsB = std::to_string(*jtTrips);
  // Under a prefetched k-step loop (the mma step's `prefetch`) the fragments live in two copies
  // declared with the loop's registers: reading ahead fills one, the tile's work multiplies the other.
  const bool prefetched = scope.operands != nullptr, loads = !prefetched || scope.readingAhead;
  std::string aRegs = "mma_a", bRegs = "mma_b";
  Node kAhead = kLoop;  // the k step the loads read: this one, or the one ahead (its bounds moved with it)
  if (prefetched) {
    aRegs += "[" + scope.operandCopy + "]";
    bRegs += "[" + scope.operandCopy + "]";
    scope.operands->fragments.insert("unsigned mma_a[2][" + rowsA + "][4], mma_b[2][" + colsB + " * 2];  // the " +
                                     mma + " fragments of loop " + scope.operands->loop + "'s iterations, one ahead");
    for (const auto& [name, by] : scope.readAhead) {
      kAhead.lower = kAhead.lower.substitute(name, by);
      for (Affine& u : kAhead.upper) u = u.substitute(name, by);
    }
    tile.kLoop = &kAhead;
  }
  if (loads)
    line("// " + itLoop.index + ", " + jtLoop.index + ": the warp's " + rowsA + " x " + colsB + " tiles of " + mma +
         ", the operands of each row and column of tiles loaded once" + (prefetched ? ", an iteration ahead" : ""));
  open("{");
  if (!prefetched)
    line("unsigned mma_a[" + rowsA + "][4], mma_b[" + colsB + " * 2];  // B: a tile's two registers after another's");
  if (loads) {
    const Access aRead = prefetched ? aheadOf(*a, scope) : *a, bRead = prefetched ? aheadOf(*b, scope) : *b;
    Scope rowsScope = scope;
    openTileLoop(itLoop, *itTrips, scope, rowsScope);
    emitMmaOperand(aRead, true, tile, Affine::var(itLoop.index), kAhead.lower, aRegs + "[" + itLoop.index + "_u]",
                   rowsScope);
    close();
    // B's tiles two at a time where there is an even number of them (ldmatrix.x4).
    Scope colsScope = scope;
    int bTiles = *jtTrips % 2 == 0 ? 2 : 1;
    openTileLoop(jtLoop, *jtTrips, scope, colsScope, bTiles);
    emitMmaOperand(bRead, false, tile, Affine::var(jtLoop.index), kAhead.lower,
                   "(" + bRegs + " + 2 * " + jtLoop.index + "_u)", colsScope, bTiles);
    close();
  }
  if (scope.readingAhead) return close(), true;
  Scope both = scope;
  openTileLoop(itLoop, *itTrips, scope, both);
  openTileLoop(jtLoop, *jtTrips, scope, both);
  std::string fragment =
      fragmentText(stmt.target, tile.i, Affine::var(itLoop.index), tile.j, Affine::var(jtLoop.index), both);
  line(std::string(mma) + "(" + fragment + ", " + aRegs + "[" + itLoop.index + "_u], " + bRegs + " + 2 * " +
       jtLoop.index + "_u);");
  close();
  close();
  close();
  return true;
}

}  // namespace cudaburg::emit_internal
