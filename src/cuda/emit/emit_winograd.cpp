// The fused Winograd kernel. A block takes `tiles` output tiles (m x m pixels each, numbered over
// the images' tiles in order) by `filters` output channels, and runs over the input channels a
// strip of `channels` at a time, with two buffers of shared memory:
//   - each strip's alpha x alpha input patches (zero outside the image) are read into registers
//     and transformed, V = B^T d B, into shared memory as V[xi][c][t]; the filters' 3 x 3 taps
//     likewise, U = G g G^T, as U[xi][c][k] (the rows padded by 4 floats against bank conflicts);
//   - the alpha^2 GEMMs M[xi][t][k] += V[xi][c][t] * U[xi][c][k]: each thread holds a register
//     tile of tt x tk accumulators for each of its points and reads its operands 4 at a time;
//   - the next strip's values are read from global memory before this strip's GEMMs and stored,
//     transformed, after them, into the other buffer: one barrier a strip;
//   - after the last strip the accumulators go through shared memory (in passes over a thread's
//     filters where all of them do not fit), and each thread transforms whole alpha x alpha sets,
//     Y = A^T M A, into m x m outputs, written where they lie inside the image, each through
//     the nest's epilogue where it has one (a bias, a scale and shift, a shortcut, an activation).
#include "src/cuda/emit/emit_winograd.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "src/analysis/reference_shape.hpp"
#include "src/cuda/emit/float_parameters.hpp"
#include "src/idioms/write_back.hpp"
#include "src/loop/math_functions.hpp"
#include "src/loop/scalar_types.hpp"
#include "src/target/gpu_target.hpp"

namespace cudaburg::emit_internal {

// Registers left between the Winograd tile's estimate (WinogradTiling::registers) and what launch
// bounds promising more blocks a multiprocessor would leave a thread.
constexpr int64_t kLaunchBoundMargin = 16;

namespace {

// sum over p of coef[p] * operand(p), without the zero terms: "a - b + 0.5f*c" ("0.0f" if none).
std::string linearCombination(const std::vector<double>& coef, const std::vector<std::string>& operand) {
  std::string s;
  for (size_t p = 0; p < coef.size(); ++p) {
    double c = coef[p];
    if (c == 0) continue;
    bool negative = c < 0;
    std::string term = (negative ? -c : c) == 1 ? operand[p] : cudaFloatLiteral(negative ? -c : c) + " * " + operand[p];
    s += s.empty() ? (negative ? "-" : "") + term : (negative ? " - " : " + ") + term;
  }
  return s.empty() ? "0.0f" : s;
}

// `pattern` with each '$' replaced by `index`.
std::string at(const std::string& pattern, int index) {
  std::string s;
  for (char c : pattern) s += c == '$' ? std::to_string(index) : std::string(1, c);
  return s;
}

// The rows of L (rows x cols, row major) in groups: a row alone, or a pair i < i' whose
// coefficients are the same but for signs, agreeing on some terms and opposite on others (the
// interpolation points +a and -a of B^T and G), which can share their sums.
std::vector<std::vector<int>> rowGroups(const std::vector<double>& l, int rows, int cols) {
  std::vector<std::vector<int>> groups;
  std::vector<bool> taken(rows, false);
  for (int i = 0; i < rows; ++i) {
    if (taken[i]) continue;
    groups.push_back({i});
    for (int k = i + 1; k < rows && groups.back().size() == 1; ++k) {
      bool same = !taken[k], agree = false, opposite = false;
      for (int p = 0; p < cols && same; ++p) {
        double a = l[i * cols + p], b = l[k * cols + p];
        same = a == b || a == -b;
        agree |= a != 0 && a == b;
        opposite |= a != 0 && a == -b;
      }
      if (same && agree && opposite) groups.back().push_back(k), taken[k] = true;
    }
  }
  return groups;
}

// Statements giving each row i of `group` its sum over p of L[i][p] * operand[p], written by
// `set(i, value)`; a pair i, i' computes the terms they agree on (e) and those they do not (o)
// once: i = e + o, i' = e - o. `name` makes the temporaries' names unique.
std::string combine(const std::vector<double>& l, int cols, const std::vector<int>& group,
                    const std::vector<std::string>& operand, const std::function<std::string(int, std::string)>& set,
                    const std::string& name, const std::string& indent) {
  std::vector<double> row(l.begin() + group[0] * cols, l.begin() + (group[0] + 1) * cols);
  if (group.size() == 1) return indent + set(group[0], linearCombination(row, operand)) + "\n";
  std::vector<double> agree(cols, 0), opposite(cols, 0);
  for (int p = 0; p < cols; ++p) (l[group[1] * cols + p] == row[p] ? agree : opposite)[p] = row[p];
  return indent + "const float " + name + "e = " + linearCombination(agree, operand) + ";\n" + indent + "const float " +
         name + "o = " + linearCombination(opposite, operand) + ";\n" + indent +
         set(group[0], name + "e + " + name + "o") + "\n" + indent + set(group[1], name + "e - " + name + "o") + "\n";
}

// Statements computing L X L^T, for L rows x cols (row major) and X cols x cols read as `in[i]`,
// each result i stored to `out` with '$' standing for i. A group of rows of L X at a time (see
// rowGroups), its results stored before the next: few values live beside X.
std::string sandwich(const std::vector<double>& l, int rows, int cols, const std::string& in, const std::string& out,
                     const std::string& indent) {
  std::ostringstream s;
  std::vector<std::vector<int>> groups = rowGroups(l, rows, cols);
  for (const std::vector<int>& group : groups) {
    s << indent << "{\n";
    for (int j = 0; j < cols; ++j) {  // the group's rows of L X, column j
      std::vector<std::string> x;
      for (int p = 0; p < cols; ++p) x.push_back(in + "[" + std::to_string(p * cols + j) + "]");
      s << combine(
          l, cols, group, x,
          [&](int i, const std::string& v) {
            return "const float r" + std::to_string(i) + "_" + std::to_string(j) + " = " + v + ";";
          },
          "c" + std::to_string(j), indent + "  ");
    }
    for (int i : group) {  // row i of L X times L^T
      std::vector<std::string> r;
      for (int p = 0; p < cols; ++p) r.push_back("r" + std::to_string(i) + "_" + std::to_string(p));
      for (const std::vector<int>& pair : groups)
        s << combine(
            l, cols, pair, r, [&](int j, const std::string& v) { return at(out, i * rows + j) + " = " + v + ";"; },
            "s" + std::to_string(i) + "_" + std::to_string(pair[0]), indent + "  ");
    }
    s << indent << "}\n";
  }
  return s.str();
}

class WinogradWriter {
 public:
  WinogradWriter(const Kernel& kernel, const ConvShape& conv, const NestEpilogue& split, const EmitOptions& options)
      : kernel_(kernel),
        conv_(conv),
        split_(split),
        options_(options),
        t_(*kernel.winograd()),
        w_(winogradMatrices(static_cast<int>(t_.m))) {}

  EmitResult write() {
    EmitResult result;
    if (std::string why = plan(); !why.empty()) {
      result.reason = why;
      return result;
    }
    CudaKernel out;
    out.entry = options_.entry.empty() ? kernel_.name : options_.entry;
    const std::string params = floatParameters(kernel_, out);
    std::ostringstream src;
    src << header() << "extern \"C\" __global__ void __launch_bounds__(" << threads_ << ", " << minBlocks_ << ")\n"
        << out.entry << "(" << params << ") {\n"
        << body() << "}\n";
    out.source = src.str();
    out.grid = {static_cast<unsigned>(gridX_), static_cast<unsigned>(gridY_), 1};
    out.block = {static_cast<unsigned>(threads_), 1, 1};
    out.sharedBytes = out.dynamicSharedBytes = static_cast<size_t>(sharedFloats_ * 4);
    out.needsSharedMemoryAttribute = true;
    out.recipe = options_.recipe;
    out.elementType = ScalarType::Float;
    out.minTolerance = t_.errorBound();
    result.kernel = std::move(out);
    return result;
  }

 private:
  // Sizes and the launch; why there is no kernel ("" when there is).
  std::string plan() {
    if (options_.elementType && *options_.elementType != ScalarType::Float)
      return "the Winograd kernel computes in float only";
    if (std::string why = t_.problem(); !why.empty()) return why;
    for (const Array& p : kernel_.params)
      if (p.type != ScalarType::Float) return "the Winograd kernel reads and writes float arrays only";
    for (const Array& p : kernel_.params)
      if (p.elements() > 2147483647LL) return "array `" + p.name + "` has more elements than 32-bit indices reach";
    m_ = t_.m, alpha_ = t_.alpha(), points_ = alpha_ * alpha_;
    tilesH_ = (conv_.out[0] + m_ - 1) / m_, tilesW_ = (conv_.out[1] + m_ - 1) / m_;
    tileCount_ = conv_.n * tilesH_ * tilesW_;
    gridX_ = (tileCount_ + t_.tiles - 1) / t_.tiles;
    gridY_ = (conv_.k + t_.filters - 1) / t_.filters;
    if (gridX_ > 2147483647LL || gridY_ > 65535) return "the grid is too large";
    threads_ = t_.threads();
    vStride_ = t_.tiles + 4, uStride_ = t_.filters + 4;
    stripFloats_ = t_.stripFloats();
    filterGroups_ = t_.filters / t_.threadFilters;
    // The widest pass over a thread's filters whose accumulators fit where the strips were.
    passWidth_ = 1;
    for (int64_t j = t_.threadFilters; j >= 1; --j)
      if (t_.threadFilters % j == 0 && outputFloats(j) <= 2 * stripFloats_) {
        passWidth_ = j;
        break;
      }
    sharedFloats_ = std::max(2 * stripFloats_, outputFloats(passWidth_));
    if (sharedFloats_ * 4 > kMaxSharedBytesPerBlock) return "the block needs more than 227 KB of shared memory";
    // Blocks a multiprocessor can hold by shared memory (228 KB, 1 KB a block reserved) and by
    // the registers a thread needs, promised to the compiler so that it keeps within them. The
    // estimate is a fit: with less than kLaunchBoundMargin registers to spare, one ptxas kept the
    // default 8x8 tile of F(2x2) within 128 registers and another spilled, so no promise is made.
    int64_t byShared = 228 * 1024 / (sharedFloats_ * 4 + 1024);
    minBlocks_ =
        std::max<int64_t>(1, std::min(byShared, blocksByRegisters(threads_, t_.registers() + kLaunchBoundMargin)));
    return planEpilogue();
  }

  // What each output stores: its sum, or its epilogue's value at it.
  std::string planEpilogue() {
    stored_ = "y[dy * " + n(m_) + " + dx]";
    if (split_.epilogue.statements.empty()) return "";
    // The output's loop indices, by the variables that hold them at the store: the spatial ones
    // oy and ox; of the others, the one the weight reads is the filter k, the other the image.
    std::map<std::string, std::string> indices;
    std::set<std::string> weightReads;
    indicesReading(split_.bare, conv_.weight, weightReads);
    for (const Affine& sub : split_.target.subscripts)
      for (const auto& [name, coef] : sub.terms)
        indices[name] = name == conv_.outIndices[0]   ? "oy"
                        : name == conv_.outIndices[1] ? "ox"
                        : weightReads.count(name)     ? "k"
                                                      : "img";
    std::string refusal;
    stored_ = epilogueCuda(split_, kernel_, indices, stored_, refusal);
    return refusal;
  }

  // Adds to `names` the loop indices the loads of `array` in `kernel` use.
  static void indicesReading(const Kernel& kernel, const std::string& array, std::set<std::string>& names) {
    std::function<void(const Expr&)> visit = [&](const Expr& e) {
      if (e.kind == Expr::Kind::Load && e.load.array == array)
        for (const Affine& sub : e.load.subscripts)
          for (const auto& [name, coef] : sub.terms) names.insert(name);
      for (const ExprPtr& a : e.args) visit(*a);
    };
    std::function<void(const Node&)> walkNode = [&](const Node& node) {
      if (node.kind == NodeKind::Assign) visit(*node.value);
      for (const NodePtr& kid : node.kids)
        if (kid) walkNode(*kid);
    };
    walkNode(*kernel.body);
  }

  // Floats the accumulators of a pass `width` filters of each thread wide take in shared memory.
  int64_t outputFloats(int64_t width) const { return points_ * t_.tiles * passStride(width); }
  // A pass's row: a column for each filter it covers, and one more where that makes it even.
  int64_t passStride(int64_t width) const {
    int64_t columns = filterGroups_ * width;
    return columns % 2 ? columns : columns + 1;
  }

  bool channelsLast() const { return conv_.layout == ConvShape::Layout::ChannelsLast; }

  std::string header() const {
    std::ostringstream h;
    h << "// Generated by cudaburg from " << (kernel_.sourceName.empty() ? "<text>" : kernel_.sourceName) << "\n";
    h << "// Sizes:";
    for (const auto& [name, value] : kernel_.sizes) h << " " << name << " = " << value << ";";
    h << "\n// Recipe:\n";
    std::istringstream lines(options_.recipe);
    for (std::string l; std::getline(lines, l);) h << "//   " << l << "\n";
    h << "// Winograd F(" << m_ << "x" << m_ << ",3x3): " << tileCount_ << " tiles of " << m_ << "x" << m_
      << " outputs; a block " << t_.tiles << " tiles by " << t_.filters << " filters over strips of " << t_.channels
      << " channels, a thread " << t_.threadTiles << " tiles by " << t_.threadFilters << " filters of " << t_.points
      << (t_.points == 1 ? " point" : " points") << " of " << points_ << "\n";
    h << "// Launch: grid (" << gridX_ << ", " << gridY_ << ", 1), block (" << threads_ << ", 1, 1); shared memory "
      << sharedFloats_ * 4 << " bytes (dynamic)\n\n";
    return h.str();
  }

  std::string n(int64_t v) const { return std::to_string(v); }

  // The tile tl and channel cl of a thread's patch p: along the channels where they lie side by side
  // in memory (channels last), else along the tiles (a row's tiles lie side by side).
  std::string patchPlace() const {
    return channelsLast() ? "      const int cl = p % " + n(t_.channels) + ", tl = p / " + n(t_.channels) + ";\n"
                          : "      const int tl = p % " + n(t_.tiles) + ", cl = p / " + n(t_.tiles) + ";\n";
  }

  // The block's input patches and filters of strip `strip` (an expression), read into d_r and g_r.
  std::string loads(const std::string& strip) const {
    int64_t patches = t_.tiles * t_.channels, filters = t_.filters * t_.channels;
    std::ostringstream s;
    s << "  {  // read strip " << strip << "\n"
      << "    const int strip = " << strip << ";\n"
      << "#pragma unroll\n"
      << "    for (int q = 0; q < " << patchItems() << "; ++q) {\n"
      << "      const int p = threadIdx.x + q * " << threads_ << ";\n";
    s << patchPlace();
    s << "      const int tile = tile0 + tl, c = strip * " << t_.channels << " + cl;\n"
      << "      const bool live = " << (patches % threads_ ? "p < " + n(patches) + " && " : "") << "tile < "
      << tileCount_ << " && c < " << conv_.c << ";\n"
      << "      const int img = tile / " << tilesH_ * tilesW_ << ", at = tile % " << tilesH_ * tilesW_ << ";\n"
      << "      const int y0 = at / " << tilesW_ << " * " << m_ << " - " << conv_.pad[0] << ", x0 = at % " << tilesW_
      << " * " << m_ << " - " << conv_.pad[1] << ";\n"
      << "#pragma unroll\n"
      << "      for (int y = 0; y < " << alpha_ << "; ++y)\n"
      << "#pragma unroll\n"
      << "        for (int x = 0; x < " << alpha_ << "; ++x) {\n"
      << "          const int iy = y0 + y, ix = x0 + x;\n"
      << "          d_r[q][y * " << alpha_ << " + x] = live && iy >= 0 && iy < " << conv_.in[0]
      << " && ix >= 0 && ix < " << conv_.in[1] << " ? " << conv_.input << "["
      << (channelsLast()
              ? "((img * " + n(conv_.in[0]) + " + iy) * " + n(conv_.in[1]) + " + ix) * " + n(conv_.c) + " + c"
              : "((img * " + n(conv_.c) + " + c) * " + n(conv_.in[0]) + " + iy) * " + n(conv_.in[1]) + " + ix")
      << "] : 0.0f;\n"
      << "        }\n"
      << "    }\n"
      << "#pragma unroll\n"
      << "    for (int q = 0; q < " << filterItems() << "; ++q) {\n"
      << "      const int f = threadIdx.x + q * " << threads_ << ";\n"
      << "      const int cl = f % " << t_.channels << ", kl = f / " << t_.channels << ";\n"
      << "      const int c = strip * " << t_.channels << " + cl, k = filter0 + kl;\n"
      << "      const bool live = " << (filters % threads_ ? "f < " + n(filters) + " && " : "") << "c < " << conv_.c
      << " && k < " << conv_.k << ";\n"
      << "#pragma unroll\n"
      << "      for (int tap = 0; tap < 9; ++tap)\n"
      << "        g_r[q][tap] = live ? " << conv_.weight << "["
      << (channelsLast() ? "(k * 9 + tap) * " + n(conv_.c) + " + c" : "(k * " + n(conv_.c) + " + c) * 9 + tap")
      << "] : 0.0f;\n"
      << "    }\n"
      << "  }\n";
    return s.str();
  }

  int64_t patchItems() const { return t_.patchesPerThread(); }
  int64_t filterItems() const { return t_.filtersPerThread(); }

  // d_r and g_r transformed into buffer `buf` (an expression).
  std::string stores(const std::string& buf) const {
    std::ostringstream s;
    s << "  {  // transform into buffer " << buf << "\n"
      << "    const int buf = " << buf << ";\n"
      << "    float* V = shared + buf * " << stripFloats_ << ";\n"
      << "    float* U = V + " << points_ * t_.channels * vStride_ << ";\n"
      << "#pragma unroll\n"
      << "    for (int q = 0; q < " << patchItems() << "; ++q) {\n"
      << "      const int p = threadIdx.x + q * " << threads_ << ";\n";
    s << patchPlace();
    if ((t_.tiles * t_.channels) % threads_) s << "      if (p >= " << t_.tiles * t_.channels << ") break;\n";
    s << sandwich(w_.bt, alpha_, alpha_, "d_r[q]", "V[($ * " + n(t_.channels) + " + cl) * " + n(vStride_) + " + tl]",
                  "      ")
      << "    }\n"
      << "#pragma unroll\n"
      << "    for (int q = 0; q < " << filterItems() << "; ++q) {\n"
      << "      const int f = threadIdx.x + q * " << threads_ << ";\n"
      << "      const int cl = f % " << t_.channels << ", kl = f / " << t_.channels << ";\n";
    if ((t_.filters * t_.channels) % threads_) s << "      if (f >= " << t_.filters * t_.channels << ") break;\n";
    s << sandwich(w_.g, alpha_, 3, "g_r[q]", "U[($ * " + n(t_.channels) + " + cl) * " + n(uStride_) + " + kl]",
                  "      ")
      << "    }\n"
      << "  }\n";
    return s.str();
  }

  // A thread's `count` operands of the GEMM of point xi and channel cc read into `into` from
  // `buffer` (rows `stride` apart), at `group` * count in the row, 4 at a time.
  std::string operandRow(const std::string& into, const std::string& buffer, int64_t stride, const std::string& group,
                         int64_t count) const {
    return "#pragma unroll\n        for (int e = 0; e < " + n(count) + "; e += 4) {\n" +
           "          const float4 f4 = *reinterpret_cast<const float4*>(" + buffer + " + (xi * " + n(t_.channels) +
           " + cc) * " + n(stride) + " + " + group + " * " + n(count) + " + e);\n" + "          " + into +
           "[e] = f4.x, " + into + "[e + 1] = f4.y, " + into + "[e + 2] = f4.z, " + into + "[e + 3] = f4.w;\n" +
           "        }\n";
  }

  // The strip in buffer `buf` (an expression) multiplied into the accumulators.
  std::string gemm(const std::string& buf) const {
    std::ostringstream s;
    int64_t tt = t_.threadTiles, tk = t_.threadFilters;
    s << "  {  // the GEMMs of buffer " << buf << "\n"
      << "    const int buf = " << buf << ";\n"
      << "    const float* V = shared + buf * " << stripFloats_ << ";\n"
      << "    const float* U = V + " << points_ * t_.channels * vStride_ << ";\n"
      << "#pragma unroll\n"
      << "    for (int cc = 0; cc < " << t_.channels << "; ++cc) {\n"
      << "#pragma unroll\n"
      << "      for (int j = 0; j < " << t_.points << "; ++j) {\n"
      << "        const int xi = pg * " << t_.points << " + j;\n"
      << "        float a[" << tt << "], b[" << tk << "];\n"
      << operandRow("a", "V", vStride_, "tq", tt) << operandRow("b", "U", uStride_, "kq", tk) << "#pragma unroll\n"
      << "        for (int i = 0; i < " << tt << "; ++i)\n"
      << "#pragma unroll\n"
      << "          for (int l = 0; l < " << tk << "; ++l) acc[j][i][l] = fmaf(a[i], b[l], acc[j][i][l]);\n"
      << "      }\n"
      << "    }\n"
      << "  }\n";
    return s.str();
  }

  // `statement` for each of a thread's accumulators acc[j][i][l] (points j, tiles i) with l below
  // `width`, the loops unrolled.
  std::string accumulatorLoops(int64_t width, const std::string& statement, const std::string& indent) const {
    return indent + "#pragma unroll\n" + indent + "for (int j = 0; j < " + n(t_.points) + "; ++j)\n" + indent +
           "#pragma unroll\n" + indent + "  for (int i = 0; i < " + n(t_.threadTiles) + "; ++i)\n" + indent +
           "#pragma unroll\n" + indent + "    for (int l = 0; l < " + n(width) + "; ++l) " + statement + "\n";
  }

  // The accumulators through shared memory, transformed back into outputs, a pass at a time.
  std::string outputs() const {
    std::ostringstream s;
    int64_t width = passWidth_, stride = passStride(width), columns = filterGroups_ * width;
    int64_t elements = t_.tiles * columns;
    s << "  // The outputs: " << t_.threadFilters / width << (t_.threadFilters / width == 1 ? " pass" : " passes")
      << " over a thread's filters, " << width << " at a time.\n"
      << "#pragma unroll\n"
      << "  for (int pass = 0; pass < " << t_.threadFilters / width << "; ++pass) {\n"
      << accumulatorLoops(width,
                          "shared[((pg * " + n(t_.points) + " + j) * " + n(t_.tiles) + " + tq * " + n(t_.threadTiles) +
                              " + i) * " + n(stride) + " + kq * " + n(width) + " + l] = acc[j][i][pass * " + n(width) +
                              " + l];",
                          "    ")
      << "    __syncthreads();\n"
      << "    for (int e = threadIdx.x; e < " << elements << "; e += " << threads_ << ") {\n";
    if (channelsLast())
      s << "      const int col = e % " << columns << ", tl = e / " << columns << ";\n";
    else
      s << "      const int tl = e % " << t_.tiles << ", col = e / " << t_.tiles << ";\n";
    s << "      const int tile = tile0 + tl, k = filter0 + col / " << width << " * " << t_.threadFilters << " + pass * "
      << width << " + col % " << width << ";\n"
      << "      if (tile >= " << tileCount_ << " || k >= " << conv_.k << ") continue;\n"
      << "      float mm[" << points_ << "];\n"
      << "#pragma unroll\n"
      << "      for (int xi = 0; xi < " << points_ << "; ++xi) mm[xi] = shared[(xi * " << t_.tiles << " + tl) * "
      << stride << " + col];\n"
      << "      float y[" << m_ * m_ << "];\n"
      << sandwich(w_.at, static_cast<int>(m_), static_cast<int>(alpha_), "mm", "y[$]", "      ")
      << "      const int img = tile / " << tilesH_ * tilesW_ << ", at = tile % " << tilesH_ * tilesW_ << ";\n"
      << "      const int oy0 = at / " << tilesW_ << " * " << m_ << ", ox0 = at % " << tilesW_ << " * " << m_ << ";\n"
      << "#pragma unroll\n"
      << "      for (int dy = 0; dy < " << m_ << "; ++dy)\n"
      << "#pragma unroll\n"
      << "        for (int dx = 0; dx < " << m_ << "; ++dx) {\n"
      << "          const int oy = oy0 + dy, ox = ox0 + dx;\n"
      << "          if (oy < " << conv_.out[0] << " && ox < " << conv_.out[1] << ") " << conv_.output << "["
      << (channelsLast()
              ? "((img * " + n(conv_.out[0]) + " + oy) * " + n(conv_.out[1]) + " + ox) * " + n(conv_.k) + " + k"
              : "((img * " + n(conv_.k) + " + k) * " + n(conv_.out[0]) + " + oy) * " + n(conv_.out[1]) + " + ox")
      << "] = " << stored_ << ";\n"
      << "        }\n"
      << "    }\n"
      << "    __syncthreads();\n"
      << "  }\n";
    return s.str();
  }

  std::string body() const {
    std::ostringstream s;
    int64_t strips = (conv_.c + t_.channels - 1) / t_.channels;
    s << "  extern __shared__ __align__(16) float shared[];\n"
      << "  const int tile0 = blockIdx.x * " << t_.tiles << ", filter0 = blockIdx.y * " << t_.filters << ";\n"
      << "  // The thread's register tile: filters kq, tiles tq, points pg of the GEMMs.\n"
      << "  const int kq = threadIdx.x % " << filterGroups_ << ";\n"
      << "  const int tq = threadIdx.x / " << filterGroups_ << " % " << t_.tiles / t_.threadTiles << ";\n"
      << "  const int pg = threadIdx.x / " << filterGroups_ * (t_.tiles / t_.threadTiles) << ";\n"
      << "  float acc[" << t_.points << "][" << t_.threadTiles << "][" << t_.threadFilters << "];\n"
      << accumulatorLoops(t_.threadFilters, "acc[j][i][l] = 0.0f;", "  ") << "  float d_r[" << patchItems() << "]["
      << points_ << "];  // the next strip's patches\n"
      << "  float g_r[" << filterItems() << "][9];  // and filters\n"
      << loads("0") << stores("0");
    s << "  __syncthreads();\n"
      << "  for (int s = 0; s < " << strips << "; ++s) {\n"
      << "    const bool more = s + 1 < " << strips << ";\n";
    if (t_.prefetch)  // the next strip's reads in flight during the GEMMs
      s << "    if (more)\n" << loads("s + 1") << gemm("s & 1") << "    if (more)\n" << stores("(s + 1) & 1");
    else  // the next strip transformed first: other warps' GEMMs cover its reads
      s << "    if (more) {\n" << loads("s + 1") << stores("(s + 1) & 1") << "    }\n" << gemm("s & 1");
    s << "    __syncthreads();\n"
      << "  }\n"
      << outputs();
    return s.str();
  }

  const Kernel& kernel_;
  const ConvShape& conv_;
  const NestEpilogue& split_;
  const EmitOptions& options_;
  const WinogradTiling& t_;
  const WinogradMatrices& w_;
  int64_t m_ = 0, alpha_ = 0, points_ = 0;
  int64_t tilesH_ = 0, tilesW_ = 0, tileCount_ = 0, gridX_ = 0, gridY_ = 0, threads_ = 0;
  int64_t vStride_ = 0, uStride_ = 0, stripFloats_ = 0, filterGroups_ = 0, passWidth_ = 1, sharedFloats_ = 0,
          minBlocks_ = 1;
  std::string stored_;
};

}  // namespace

EmitResult emitWinograd(const Kernel& kernel, const EmitOptions& options) {
  std::string why;
  auto split = splitNestEpilogue(kernel, &why);
  if (!split) return EmitResult{std::nullopt, why};
  auto conv = recognizeConv(split->bare);
  if (!conv || !kernel.winograd()) return EmitResult{std::nullopt, "the kernel is no Winograd convolution"};
  return WinogradWriter(kernel, *conv, *split, options).write();
}

}  // namespace cudaburg::emit_internal
