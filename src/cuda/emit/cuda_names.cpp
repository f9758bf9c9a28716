#include "src/cuda/emit/cuda_names.hpp"

#include <set>

namespace cudaburg {

namespace {

constexpr const char* kPrefix = "user_";

// C++ keywords and alternative tokens, the CUDA builtins and the types and functions the emitted
// code names, and the names of best.cu's host program.
const std::set<std::string>& reservedWords() {
  static const std::set<std::string> words = {
      // C++
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
      "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
      "consteval", "constexpr", "constinit", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
      "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
      "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "main", "std", "NULL", "assert",
      "INFINITY", "NAN",
      // CUDA builtins, types and functions the emitted code uses
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "half2", "nv_bfloat16", "float2",
      "float4", "int2", "int4", "uint2", "uint4", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t",
      "uint8_t", "uint16_t", "uint32_t", "uint64_t", "min", "max", "fminf", "fmaxf", "fmin", "fmax", "sqrt", "sqrtf",
      "exp", "expf", "fabs", "fabsf", "atomicAdd", "memcpy", "printf", "tensor_map", "shared_address", "CUtensorMap",
      "cuuint32_t", "cuuint64_t",
      // best.cu's host program: the names it declares where its arrays are declared
      // (those of its inner blocks may be shadowed)
      "CHECK", "round_tf32", "rng", "uniform", "worst", "times", "ms", "start", "stop", "tolerance"};
  return words;
}

// The families of names the emitter declares itself (thread_x, block_linear, stage_e, mma_a,
// wgmma_full, split_part, ...): a user name in one of them is reserved.
constexpr const char* kEmitterFamilies[] = {"thread_",   "block_", "warp_", "stage_", "split_",    "mma_", "wgmma_",
                                            "mbarrier_", "tf32_",  "tma_",  "async_", "producer_", "make_"};

}  // namespace

bool reservedInCuda(const std::string& name) {
  if (name.rfind(kPrefix, 0) == 0) return true;  // so that "user_x" and "x" never meet
  // Reserved to the implementation: a double underscore anywhere, or an underscore and a capital.
  if (name.find("__") != std::string::npos) return true;
  if (name.size() >= 2 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))) return true;
  if (reservedWords().count(name)) return true;
  for (const char* family : kEmitterFamilies)
    if (name.rfind(family, 0) == 0) return true;
  return false;
}

std::string cudaName(const std::string& name) { return reservedInCuda(name) ? kPrefix + name : name; }

namespace {

Affine renamed(const Affine& a) {
  Affine out(a.constant);
  for (const auto& [name, coef] : a.terms) out.terms[cudaName(name)] = coef;
  return out;
}

std::vector<Affine> renamed(const std::vector<Affine>& list) {
  std::vector<Affine> out;
  for (const Affine& a : list) out.push_back(renamed(a));
  return out;
}

Access renamed(const Access& a) { return {cudaName(a.array), renamed(a.subscripts)}; }

std::vector<CollapsedLoop> renamed(std::vector<CollapsedLoop> loops) {
  for (CollapsedLoop& l : loops) l.index = cudaName(l.index);
  return loops;
}

std::vector<std::string> renamed(std::vector<std::string> names) {
  for (std::string& n : names) n = cudaName(n);
  return names;
}

ExprPtr renamed(const ExprPtr& e) {
  if (!e) return e;
  auto out = std::make_shared<Expr>(*e);
  out->index = renamed(e->index);
  out->load = renamed(e->load);
  for (ExprPtr& arg : out->args) arg = renamed(arg);
  return out;
}

NodePtr renamed(const NodePtr& node) {
  if (!node) return node;
  auto out = std::make_shared<Node>(*node);
  out->index = cudaName(node->index);
  out->lower = renamed(node->lower);
  out->upper = renamed(node->upper);
  out->collapsed = renamed(node->collapsed);
  out->target = renamed(node->target);
  out->value = renamed(node->value);
  out->buffer.name = cudaName(node->buffer.name);
  out->source = node->source.empty() ? "" : cudaName(node->source);
  out->origin = renamed(node->origin);
  for (GatherDim& g : out->gather) {
    g.index = cudaName(g.index);
    g.collapsed = renamed(g.collapsed);
  }
  out->gatherSubscripts = renamed(node->gatherSubscripts);
  for (NodePtr& kid : out->kids) kid = renamed(kid);
  return out;
}

}  // namespace

Kernel withCudaNames(const Kernel& kernel) {
  Kernel out = kernel;
  out.name = cudaName(kernel.name);
  for (auto& [name, value] : out.sizes) name = cudaName(name);
  for (Array& a : out.params) a.name = cudaName(a.name);
  out.body = renamed(kernel.body);
  out.zeroFirst = renamed(kernel.zeroFirst);
  if (!out.workspaceSplit.empty()) out.workspaceSplit = cudaName(out.workspaceSplit);
  if (auto* wgmma = std::get_if<WgmmaTile>(&out.tile); wgmma && !wgmma->splitBuffer.empty())
    wgmma->splitBuffer = cudaName(wgmma->splitBuffer);
  out.peeled = renamed(kernel.peeled);
  out.prefetched = renamed(kernel.prefetched);
  return out;
}

}  // namespace cudaburg
