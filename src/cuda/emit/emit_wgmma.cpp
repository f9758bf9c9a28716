// Warpgroup MMA (Hopper, sm_90a): the part of the CUDA emitter's writer (kernel_writer.hpp) that
// writes the accumulation tiles of a kernel the wgmma step made (Kernel::warpGroupTiles). Each is
// one wgmma.mma_async.sync.aligned.m64nNk16.f32 of the warpgroup (m64nNk8 for tf32), A read
// K-major and B N-major (imm-trans-b 1; tf32, which wgmma reads only K-major, from B's transposed
// stage, K-major as A) from swizzled shared buffers through matrix descriptors
// (wgmma_descriptor.hpp); its accumulators are the warpgroup's fragments, float C_r[M/64][N/8][4],
// in the layout of the PTX ISA's wgmma D: warp w of the group holds rows 16w to 16w + 15 of each
// 64, element 4q + r of a lane at row 16w + lane/4 + 8(r/2), column 8q + 2(lane%4) + r%2: the
// layout of mma.sync's C, which the rest of the warp-tile writer (emit_mma.cpp) then reads and
// writes. The pipelined loop around the tiles fences, commits and waits (emit_stage.cpp). With
// A from registers (Kernel::wgmmaRegisterA, tf32), the threads load A's fragments from its stage
// each k step and fence, commit and wait for themselves (emitWgmmaRegisterTile), D's rows
// permuted as fragmentRow says. With float operands split into tf32 parts
// (Kernel::wgmmaSplitBuffer, tf32x3), they split A's fragments as they load them, and each tile
// and k step is three instructions: A's low parts by B, A's high parts by B's low copy (the stage
// copy the producer warpgroup split it into, emit_stage.cpp), and the high parts by each other.
#include <cstdio>

#include "src/cuda/emit/kernel_writer.hpp"
#include "src/cuda/emit/wgmma_descriptor.hpp"

namespace cudaburg::emit_internal {

namespace {

const char* kWgmmaHelpers = R"(
// Warpgroup MMA (sm_90a). A matrix descriptor: `layout` (offsets and swizzle mode) with the start
// address of the operand's tile in shared memory; the fences, commits and waits of wgmma groups.
__device__ __forceinline__ unsigned long long wgmma_descriptor(unsigned long long layout, const void* start) {
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(start));
  return layout | ((at & 0x3FFFF) >> 4);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(Pending) : "memory");
}
// The thread's writes to shared memory (its landed cp.async copies) made visible to the async
// proxy, through which wgmma reads its operands.
__device__ __forceinline__ void wgmma_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
)";

const char* kTf32SplitHelpers = R"(
// tf32x3: a float x as the sum of two tf32 values, high = rna(x) and low = rna(x - high) (the
// instruction's rounding), so that a * b is al * bh + ah * bl + ah * bh but for al * bl.
__device__ __forceinline__ float tf32_round(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}
__device__ __forceinline__ void tf32_parts(float x, unsigned& high, unsigned& low) {
  const float h = tf32_round(x);
  high = __float_as_uint(h);
  low = __float_as_uint(tf32_round(x - h));
}
// A strip of `Elements` floats split by the 128 threads of a warpgroup, `rank` among them, 4
// elements at a time: the high parts in place, the low ones at the same place of `low`.
template <int Elements>
__device__ __forceinline__ void tf32_split(float* high, float* low, int rank) {
  #pragma unroll
  for (int e = 4 * rank; e < Elements; e += 4 * 128) {
    float4 x = *reinterpret_cast<const float4*>(high + e), h, l;
    tf32_parts(x.x, reinterpret_cast<unsigned&>(h.x), reinterpret_cast<unsigned&>(l.x));
    tf32_parts(x.y, reinterpret_cast<unsigned&>(h.y), reinterpret_cast<unsigned&>(l.y));
    tf32_parts(x.z, reinterpret_cast<unsigned&>(h.z), reinterpret_cast<unsigned&>(l.z));
    tf32_parts(x.w, reinterpret_cast<unsigned&>(h.w), reinterpret_cast<unsigned&>(l.w));
    *reinterpret_cast<float4*>(high + e) = h;
    *reinterpret_cast<float4*>(low + e) = l;
  }
}
)";

const char* kBarrierHelpers = R"(
// The barriers of a pipeline filled by a producer warpgroup (mbarriers in shared memory): set up
// with the arrivals that complete each phase; a thread's arrival; its cp.async copies' arrival,
// once they land; a wait for the phase of the given parity to complete.
__device__ __forceinline__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbarrier_init(unsigned long long* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(shared_address(barrier)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(unsigned long long* barrier) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" :: "r"(shared_address(barrier)) : "memory");
}
__device__ __forceinline__ void async_arrive(unsigned long long* barrier) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" :: "r"(shared_address(barrier)) : "memory");
}
// A warpgroup's registers a thread (setmaxnreg, the whole warpgroup at once): fewer, handed back
// to the block's pool, or more, taken from it.
template <int registers> __device__ __forceinline__ void warpgroup_registers_fewer() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" :: "n"(registers));
}
template <int registers> __device__ __forceinline__ void warpgroup_registers_more() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" :: "n"(registers));
}
__device__ __forceinline__ void mbarrier_wait(unsigned long long* barrier, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(shared_address(barrier)), "r"(parity) : "memory");
}
)";

std::string operandType(ScalarType t) {
  return t == ScalarType::Half ? "f16" : t == ScalarType::BFloat16 ? "bf16" : "tf32";
}

// The k of one instruction: 32 bytes of the operands' type.
int64_t instructionK(ScalarType t) { return t == ScalarType::TF32 ? 8 : 16; }

std::string instructionName(int64_t n, ScalarType t) {
  return "wgmma_m64n" + std::to_string(n) + "k" + std::to_string(instructionK(t)) + "_" + operandType(t);
}

// The same for a 16-bit B read K-major (an implicit GEMM's filters, rows of the reduction): "_kb" more.
std::string instructionName(int64_t n, ScalarType t, bool kMajorB) {
  return instructionName(n, t) + (kMajorB && t != ScalarType::TF32 ? "_kb" : "");
}

// The asm operands of a lane's `regs` accumulators: their placeholders ("%0, %1, ...") and the
// read-write constraints binding them to d[0..regs).
std::pair<std::string, std::string> accumulatorOperands(int64_t regs) {
  std::string list, outs;
  for (int64_t r = 0; r < regs; ++r) {
    list += (r ? ", %" : "%") + std::to_string(r);
    outs += std::string(r == 0       ? ""
                        : r % 8 == 0 ? ",\n                 "
                                     : ", ") +
            "\"+f\"(d[" + std::to_string(r) + "])";
  }
  return {list, outs};
}

// D (n/2 floats a lane) += A * B, both by descriptor: A K-major; B N-major (transposed) for
// 16-bit types unless `kMajorB`, K-major for tf32, whose wgmma takes no transpose operands.
std::string instructionHelper(int64_t n, ScalarType t, bool kMajorB) {
  const int64_t regs = n / 2;
  const auto [list, outs] = accumulatorOperands(regs);
  std::string type = operandType(t);
  std::string scaleAndTranspose = t == ScalarType::TF32 ? "p, 1, 1" : kMajorB ? "p, 1, 1, 0, 0" : "p, 1, 1, 0, 1";
  return "__device__ __forceinline__ void " + instructionName(n, t, kMajorB) +
         "(float* d, unsigned long long a, unsigned long long b) {\n"
         "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 2) +
         ", 0;\\n\"\n"
         "               \"wgmma.mma_async.sync.aligned.m64n" +
         std::to_string(n) + "k" + std::to_string(instructionK(t)) + ".f32." + type + "." + type + " {" + list +
         "}, %" + std::to_string(regs) + ", %" + std::to_string(regs + 1) + ", " + scaleAndTranspose +
         ";\\n}\\n\"\n"
         "               : " +
         outs +
         "\n"
         "               : \"l\"(a), \"l\"(b), \"r\"(1) : \"memory\");\n"
         "}\n";
}

// D (n/2 floats a lane) += A * B, A from four registers a lane (tf32: the m16n8k8 A fragment
// of each warp's 16 rows), B by descriptor, K-major. With `overwrite`, the helper takes whether to
// add (1) or to write D = A * B (0): the instruction's scale-d.
std::string registerHelper(int64_t n, ScalarType t, bool overwrite) {
  const int64_t regs = n / 2;
  const auto [list, outs] = accumulatorOperands(regs);
  std::string type = operandType(t), a;
  for (int64_t q = 0; q < 4; ++q) a += (q ? ", %" : "%") + std::to_string(regs + q);
  return "__device__ __forceinline__ void " + instructionName(n, t) +
         "_rs(float* d, const unsigned* a, unsigned long long b" + (overwrite ? ", int accumulate" : "") +
         ") {\n"
         "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 5) +
         ", 0;\\n\"\n"
         "               \"wgmma.mma_async.sync.aligned.m64n" +
         std::to_string(n) + "k" + std::to_string(instructionK(t)) + ".f32." + type + "." + type + " {" + list +
         "}, {" + a + "}, %" + std::to_string(regs + 4) +
         ", p, 1, 1;\\n}\\n\"\n"
         "               : " +
         outs +
         "\n"
         "               : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b), \"r\"(" +
         (overwrite ? "accumulate" : "1") +
         ") : \"memory\");\n"
         "}\n";
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llxull", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string KernelWriter::wgmmaHelpers() const {
  if (!kernel_.warpGroupTiles()) return "";
  std::string out = kWgmmaHelpers;
  if (kernel_.wgmmaProducer()) out += kBarrierHelpers;
  if (!kernel_.wgmmaSplitBuffer().empty()) out += kTf32SplitHelpers;
  out += tmaHelpers();
  out +=
      "// D += A * B on a warpgroup's fragments: A (64 x k, K-major) and B (k x N; N-major, or K-major for tf32)\n"
      "// by descriptor.\n";
  for (const auto& [n, t, kMajorB] : uses_.wgmmaShapes()) out += instructionHelper(n, t, kMajorB);
  if (!uses_.wgmmaRegisterShapes().empty())
    out += "// The same with A (64 x k) from registers, four a lane, and B (k x N, K-major) by descriptor.\n";
  for (const auto& [n, t] : uses_.wgmmaRegisterShapes()) out += registerHelper(n, t, kernel_.wgmmaPromote() > 0);
  return out;
}

std::string KernelWriter::wgmmaDescriptorText(const Access& a, bool kMajor, const std::map<std::string, Affine>& origin,
                                              const Scope& scope) {
  const Array* array = findArray(a.array, scope);
  if (!array) return "?";
  Access first = substituted(a, origin);
  if (first.subscripts.size() != 2) return refuse("wgmma operand `" + a.str() + "` is no 2-D buffer"), "?";
  Affine row = first.subscripts[0], col = first.subscripts[1];
  for (const auto& [name, as] : scope.unrolledAs) row = row.substitute(name, as), col = col.substitute(name, as);
  const int64_t bytes = scalarTypeBytes(typeOf(*array)), rowElements = kWgmmaSwizzleBytes / bytes;
  // Rows then columns of the buffer: A's m and k; N-major B's k and n; a K-major B (tf32's, or
  // float split into tf32 parts, stored transposed; a 16-bit one as it lies) n and k, as A.
  // The tile starts on a swizzle atom's first row; along the row, at a k step (K-major: 32 bytes)
  // or on a slab (N-major B).
  if (scope.ranges.multipleOf(row) % 8 != 0 ||
      scope.ranges.multipleOf(col) % (kMajor ? kWgmmaKStepBytes / bytes : rowElements) != 0)
    return refuse("wgmma operand `" + a.str() + "` at its tile starts at row " + affineText(row) + ", column " +
                  affineText(col) + ": not on a swizzle atom"),
           "?";
  // Bytes from the buffer's start: K-major rows one after another; N-major B's slabs of
  // `rowElements` columns, each its rows of k.
  const int64_t slabBytes = array->extents[0] * kWgmmaSwizzleBytes;
  Affine offset =
      kMajor ? row * kWgmmaSwizzleBytes + col * bytes : col * (slabBytes / rowElements) + row * kWgmmaSwizzleBytes;
  WgmmaOffsets o = kMajor ? wgmmaKMajorOffsets() : wgmmaMnMajorOffsets(static_cast<uint64_t>(slabBytes));
  Access start{a.array, {Affine(0), Affine(0)}};
  return "wgmma_descriptor(" + hex(wgmmaDescriptor(0, o.leadingBytes, o.strideBytes)) +
         ", reinterpret_cast<const char*>(&" + accessText(start, scope) + ") + " + affineText(offset) + ")";
}

std::optional<WgmmaTileNest> KernelWriter::wgmmaTileNest(const Node& itLoop, const Scope& scope) {
  WgmmaTileNest n{&itLoop, itLoop.body().get(), nullptr, nullptr, nullptr, nullptr};
  n.i = n.jt->body().get();
  n.j = n.i->body().get();
  n.k = n.j->body().get();
  n.stmt = n.k->body().get();
  auto itTrips = scope.ranges.maxTripCount(*n.it), jtTrips = scope.ranges.maxTripCount(*n.jt);
  auto nTrips = scope.ranges.maxTripCount(*n.j), kTrips = scope.ranges.maxTripCount(*n.k);
  if (!itTrips || !jtTrips || !nTrips || !kTrips)
    return refuse("a wgmma tile without constant trip counts"), std::nullopt;
  n.itTrips = *itTrips, n.jtTrips = *jtTrips, n.nTrips = *nTrips, n.kTrips = *kTrips;
  return n;
}

std::string KernelWriter::openWgmmaTiles(const WgmmaTileNest& n, const Scope& scope, Scope& both,
                                         std::map<std::string, Affine>& origin) {
  both = scope;
  openTileLoop(*n.it, n.itTrips, scope, both);
  openTileLoop(*n.jt, n.jtTrips, scope, both);
  origin = {{n.i->index, Affine::var(n.it->index)}, {n.j->index, Affine::var(n.jt->index)}, {n.k->index, n.k->lower}};
  return fragmentText(n.stmt->target, n.i->index, Affine::var(n.it->index), n.j->index, Affine::var(n.jt->index), both);
}

void KernelWriter::emitWgmmaTile(const Node& itLoop, const Scope& scope) {
  std::optional<WgmmaTileNest> nest = wgmmaTileNest(itLoop, scope);
  if (!nest) return;
  if (kernel_.wgmmaRegisterA()) return emitWgmmaRegisterTile(*nest, scope);
  const Node& jtLoop = *nest->jt;
  const Node& iLoop = *nest->i;
  const Node& stmt = *nest->stmt;
  const int64_t itTrips = nest->itTrips;
  const int64_t jtTrips = nest->jtTrips;
  const int64_t nTrips = nest->nTrips;
  const int64_t kTrips = nest->kTrips;
  const Access* a = &stmt.value->args[0]->load;
  const Access* b = &stmt.value->args[1]->load;
  if (a->subscripts.size() != 2 || !a->subscripts[0].uses(iLoop.index)) std::swap(a, b);
  const Array* aArray = findArray(a->array, scope);
  const Array* bArray = findArray(b->array, scope);
  if (!aArray || !bArray) return;
  ScalarType t = productType(*aArray);
  if ((t != ScalarType::Half && t != ScalarType::BFloat16 && t != ScalarType::TF32) || productType(*bArray) != t)
    return refuse(std::string("wgmma multiplies half, bfloat16 or tf32 operands here, not ") + scalarTypeName(t));
  if (kTrips != instructionK(t) || nTrips % 64 != 0 || nTrips > 256)
    return refuse("a wgmma tile of " + std::to_string(nTrips) + " columns and " + std::to_string(kTrips) +
                  " of k: wgmma here is m64nNk" + std::to_string(instructionK(t)) + " for " + scalarTypeName(t) +
                  ", N a multiple of 64 up to 256");
  // B is K-major where its buffer's rows run along N (tf32's always; a 16-bit one stored so).
  const bool kMajorB = t == ScalarType::TF32 || (b->subscripts.size() == 2 && b->subscripts[0].uses(nest->j->index));
  uses_.useWgmma(nTrips, t, kMajorB);
  const std::string name = instructionName(nTrips, t, kMajorB);
  line("// " + itLoop.index + ", " + jtLoop.index + ": the warpgroup's " + std::to_string(itTrips) + " x " +
       std::to_string(jtTrips) + " tiles of " + name + ", both operands read from shared memory");
  Scope both;
  std::map<std::string, Affine> origin;
  std::string fragment = openWgmmaTiles(*nest, scope, both, origin);
  std::string da = wgmmaDescriptorText(*a, true, origin, both), db = wgmmaDescriptorText(*b, kMajorB, origin, both);
  line(name + "(" + fragment + ", " + da + ", " + db + ");");
  close();
  close();
}

// it { jt { m (mma) { n { k { R += A * B } } } } } where A (read along m, MN-major in its stage:
// rows of k) comes from registers: each thread loads its fragments of each row of tiles (4 a lane:
// rows r and r + 8 of its warp's 16, at k t and t + 4, the rows permuted as fragmentRow says) with
// 4-byte shared loads through the stage's swizzle, then fences, and every tile multiplies with B
// (read along n, K-major) by descriptor. A k step is one group; the wait for all but it to be
// done lets the next step load its fragments while this one runs, and write the registers the
// step before read.
void KernelWriter::emitWgmmaRegisterTile(const WgmmaTileNest& nest, const Scope& scope) {
  const Node& itLoop = *nest.it;
  const Node& jtLoop = *nest.jt;
  const Node& iLoop = *nest.i;
  const Node& kLoop = *nest.k;
  const Node& stmt = *nest.stmt;
  const int64_t itTrips = nest.itTrips;
  const int64_t jtTrips = nest.jtTrips;
  const int64_t nTrips = nest.nTrips;
  const int64_t kTrips = nest.kTrips;
  const Access* a = &stmt.value->args[0]->load;
  const Access* b = &stmt.value->args[1]->load;
  auto readsAlong = [](const Access* x, const std::string& index) {
    for (const Affine& s : x->subscripts)
      if (s.uses(index)) return true;
    return false;
  };
  if (!readsAlong(a, iLoop.index)) std::swap(a, b);
  const Array* aArray = findArray(a->array, scope);
  const Array* bArray = findArray(b->array, scope);
  if (!aArray || !bArray) return;
  // tf32x3 (Kernel::wgmmaSplitBuffer): float operands, split into tf32 parts.
  const bool split = !kernel_.wgmmaSplitBuffer().empty();
  if (productType(*aArray) != (split ? ScalarType::Float : ScalarType::TF32) ||
      productType(*bArray) != productType(*aArray))
    return refuse(
        std::string("wgmma's A from registers is built for tf32 operands, or float ones split (tf32x3), not ") +
        scalarTypeName(productType(*aArray)));
  if (split && b->array != kernel_.wgmmaSplitBuffer())
    return refuse("tf32x3 splits `" + kernel_.wgmmaSplitBuffer() + "`, not the operand read by descriptor, `" +
                  b->array + "`");
  const ScalarType t = ScalarType::TF32;
  if (kTrips != instructionK(t) || nTrips % 8 != 0 || nTrips > 256)
    return refuse("a wgmma tile of " + std::to_string(nTrips) + " columns and " + std::to_string(kTrips) +
                  " of k: wgmma with A from registers is m64nNk8 here, N a multiple of 8 up to 256");
  if (aArray->space != MemorySpace::Shared || a->subscripts.size() != 2)
    return refuse("wgmma's A `" + a->str() + "` is loaded into registers from its stage in shared memory");
  uses_.useWgmmaRegisterA(nTrips, t);
  if (!split) uses_.useTf32Round();
  coordinate("mma_lane");
  const std::string rows = std::to_string(itTrips), name = instructionName(nTrips, t) + "_rs";
  line("// " + itLoop.index + ", " + jtLoop.index + ": the warpgroup's " + rows + " x " + std::to_string(jtTrips) +
       " tiles of " + name + ", A's fragments of each row of tiles loaded from " + a->array + ", B read by descriptor");
  open("{");
  line("unsigned wgmma_a[" + rows + "][4];");
  if (split) line("unsigned wgmma_a_low[" + rows + "][4];  // the low tf32 parts of A's fragments");
  Scope rowsScope = scope;
  openTileLoop(itLoop, itTrips, scope, rowsScope);
  Scope at = rowsScope;
  at.ranges.bind("mma_g", IndexRange{0, 7, 1});
  at.ranges.bind("mma_t", IndexRange{0, 3, 1});
  bindFragmentRowBits(at);
  for (int64_t q = 0; q < 4; ++q) {
    Affine row = Affine::var(itLoop.index) + fragmentRow(Affine(q & 1));
    Affine k = kLoop.lower + Affine::var("mma_t") + Affine(4 * (q >> 1));
    Access element = substituted(*a, {{iLoop.index, row}, {kLoop.index, k}});
    const std::string fragment = "[" + itLoop.index + "_u][" + std::to_string(q) + "]";
    if (split)
      line("tf32_parts(" + accessText(element, at) + ", wgmma_a" + fragment + ", wgmma_a_low" + fragment + ");");
    else  // rounded to tf32, as mma.sync's fragments are (wgmma truncates what it reads)
      line("wgmma_a" + fragment + " = __float_as_uint(tf32_round(" + accessText(element, at) + "));");
  }
  close();
  line("wgmma_fence();  // the fragments (and the accumulators) are written before the wgmma that read them");
  Scope both;
  std::map<std::string, Affine> origin;
  std::string fragment = openWgmmaTiles(nest, scope, both, origin);
  std::string db = wgmmaDescriptorText(*b, true, origin, both);
  const std::string high = "wgmma_a[" + itLoop.index + "_u]";
  // With promoted sums (Kernel::wgmmaPromote), into the partial sums, the first product after a
  // promotion overwriting them.
  const bool promoted = kernel_.wgmmaPromote() > 0;
  const std::string adding = promoted ? stmt.target.array + "_adding" : "";
  const std::string into = promoted ? wgmmaGroups_.partialSumsOf(fragment) : fragment;
  auto mode = [&](bool first) { return promoted ? ", " + (first ? adding : std::string("1")) : std::string(); };
  if (split) {  // the small terms first: A's low parts by B's high ones, A's high by B's low
    Scope low = both;
    low.slots[b->array] = lowPartsSlot(both.slots.at(b->array));
    line(name + "(" + into + ", wgmma_a_low[" + itLoop.index + "_u], " + db + mode(true) + ");");
    line(name + "(" + into + ", " + high + ", " + wgmmaDescriptorText(*b, true, origin, low) + mode(false) + ");");
  }
  line(name + "(" + into + ", " + high + ", " + db + mode(!split) + ");");
  close();
  close();
  if (promoted) line(adding + " = 1;");
  line("wgmma_commit();  // this k step: one group");
  line("wgmma_wait<1>();  // the step before done: its fragments' registers may be written again");
  close();
}

}  // namespace cudaburg::emit_internal
