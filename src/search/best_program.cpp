#include "src/search/best_program.hpp"

#include <algorithm>
#include <sstream>

#include "src/cuda/emit/cuda_names.hpp"
#include "src/cuda/run/inputs.hpp"
#include "src/cuda/run/reference_check.hpp"
#include "src/cuda/run/timing.hpp"

namespace cudaburg {

namespace {

// A kernel as main() names it: `space` is the namespace its code is in ("" for a single nest);
// the workspaces and tensor maps main() declares for it take the namespace as a prefix.
struct Launch {
  const CudaKernel& k;
  std::string space;

  std::string entry() const { return space.empty() ? k.entry : space + "::" + k.entry; }
  std::string local(const std::string& name) const { return space.empty() ? name : space + "_" + name; }
};

// Above 48 KB of dynamic shared memory a kernel must ask for it once before its first launch.
std::string sharedMemoryAttribute(const Launch& l) {
  if (!l.k.needsSharedMemoryAttribute) return "";
  return "  CHECK(cudaFuncSetAttribute(" + l.entry() + ", cudaFuncAttributeMaxDynamicSharedMemorySize, " +
         std::to_string(l.k.dynamicSharedBytes) + "));\n";
}

std::string launch(const Launch& l, const std::string& prefix, const std::string& indent = "  ") {
  const CudaKernel& k = l.k;
  std::ostringstream o;
  o << indent << l.entry() << "<<<dim3(" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2] << "), dim3("
    << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << "), " << k.dynamicSharedBytes << ">>>(";
  for (size_t i = 0; i < k.params.size(); ++i) o << (i ? ", " : "") << prefix << cudaName(k.params[i]);
  for (const KernelWorkspace& w : k.workspaces) o << ", " << l.local(w.name);
  for (const TensorMapParam& m : k.tensorMaps) o << ", " << prefix << l.local(m.name);
  o << ");\n" << indent << "CHECK(cudaGetLastError());\n";
  return o.str();
}

// The outputs a kernel adds into, set to zero before each launch (CudaKernel::zeroFirst).
std::string zeroOutputs(const CudaKernel& k, const std::string& indent = "  ") {
  std::string out;
  for (const std::string& nestName : k.zeroFirst) {
    std::string z = cudaName(nestName);
    out += indent + "CHECK(cudaMemset(" + z + ", 0, n_" + z + " * sizeof(*" + z + ")));\n";
  }
  return out;
}

// The workspaces a kernel takes after its arrays, zeroed once: every launch leaves them so.
std::string allocateWorkspaces(const Launch& l) {
  std::ostringstream o;
  for (const KernelWorkspace& w : l.k.workspaces) {
    std::string t = cudaTypeName(w.type), name = l.local(w.name);
    o << "  " << t << "* " << name << " = nullptr;\n"
      << "  CHECK(cudaMalloc(&" << name << ", " << w.elements << " * sizeof(" << t << ")));\n"
      << "  CHECK(cudaMemset(" << name << ", 0, " << w.elements << " * sizeof(" << t << ")));\n";
  }
  return o.str();
}

// The tensor maps a kernel takes (its TMA copies' boxes), encoded by the driver (hence -lcuda)
// for the arrays allocated before: the CUtensorMap each is, under the kernel's name for its type.
std::string encodeTensorMaps(const Launch& l) {
  std::ostringstream o;
  auto list = [](const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
  };
  std::string type = l.space.empty() ? kTensorMapType : l.space + "::" + kTensorMapType;
  for (const TensorMapParam& m : l.k.tensorMaps) {
    std::string name = l.local(m.name);
    o << "  " << type << " " << name << ";  // " << m.array << "'s boxes of " << list(m.box)
      << " elements (innermost first), as the kernel's TMA copies read them\n"
      << "  {\n"
      << "    const cuuint64_t dims[] = {" << list(m.dims) << "}, strides[] = {" << list(m.strides) << "};\n"
      << "    const cuuint32_t box[] = {" << list(m.box) << "}, steps[] = {"
      << list(std::vector<int64_t>(m.box.size(), 1)) << "};\n"
      << "    CUresult r = cuTensorMapEncodeTiled(reinterpret_cast<CUtensorMap*>(&" << name << "), "
      << tensorMapDataTypeName(m.type) << ", " << m.dims.size() << ", " << cudaName(m.array)
      << ", dims, strides, box, steps,\n"
      << "                                        CU_TENSOR_MAP_INTERLEAVE_NONE, "
      << tensorMapSwizzleName(m.swizzleBytes) << ", CU_TENSOR_MAP_L2_PROMOTION_L2_256B,\n"
      << "                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
      << "    if (r != CUDA_SUCCESS) {\n"
      << "      std::fprintf(stderr, \"cuTensorMapEncodeTiled " << name << ": error %d\\n\", static_cast<int>(r));\n"
      << "      std::exit(2);\n"
      << "    }\n"
      << "  }\n";
  }
  return o.str();
}

// The C++ type of an array on the device for the variant and for the FP64 reference.
std::string deviceType(ScalarType t, bool reference) {
  if (t == ScalarType::Int) return "int";
  if (reference) return "double";
  return cudaTypeName(t);
}

// A host value (a double) as the variant's array of type `t` holds it.
std::string toDevice(ScalarType t, const std::string& value) {
  switch (t) {
    case ScalarType::Half:
      return "__float2half(static_cast<float>(" + value + "))";
    case ScalarType::BFloat16:
      return "__float2bfloat16(static_cast<float>(" + value + "))";
    default:
      return "static_cast<" + deviceType(t, false) + ">(" + value + ")";
  }
}

// An element of the variant's array of type `t` as a double.
std::string fromDevice(ScalarType t, const std::string& value) {
  switch (t) {
    case ScalarType::Half:
      return "static_cast<double>(__half2float(" + value + "))";
    case ScalarType::BFloat16:
      return "static_cast<double>(__bfloat162float(" + value + "))";
    default:
      return "static_cast<double>(" + value + ")";
  }
}

// The nvcc option that compiles `k` for its GPU: an architecture-specific target (wgmma's
// "sm_90a") named for the real and the virtual architecture both, which `-arch` alone does not do.
std::string buildTarget(const CudaKernel& k) {
  if (k.requiredArch.empty()) return "-arch=sm_90";
  return "-gencode=arch=compute_" + k.requiredArch.substr(3) + ",code=" + k.requiredArch;
}

}  // namespace

std::string bestProgram(const Kernel& original, const CudaKernel& best, const CudaKernel& reference,
                        const CheckBound& bound) {
  return bestProgram(original, {ProgramNest{&original, &best, &reference}}, bound);
}

std::string bestProgram(const Kernel& original, const std::vector<ProgramNest>& nests, const CheckBound& bound) {
  // One nest keeps its code at file scope; several are each in a namespace of their own.
  std::vector<Launch> bests, references;
  for (size_t i = 0; i < nests.size(); ++i) {
    std::string space = nests.size() > 1 ? "nest" + std::to_string(i + 1) : "";
    bests.push_back({*nests[i].best, space});
    references.push_back({*nests[i].reference, space});
  }
  const CudaKernel* archOf = nests.front().best;
  bool tensorMaps = false;
  for (const ProgramNest& n : nests) {
    if (archOf->requiredArch.empty()) archOf = n.best;
    tensorMaps = tensorMaps || !n.best->tensorMaps.empty();
  }
  auto code = [&](const char* what, const CudaKernel& k, const std::string& space) {
    if (space.empty()) return "// ---- " + std::string(what) + " ----\n" + k.source + "\n";
    return "// ---- " + space + ": " + what + " ----\nnamespace " + space + " {\n" + k.source + "}  // namespace " +
           space + "\n\n";
  };
  // The default tolerance: each nest's own, summed (an error of one nest reaches the next).
  double tolerance = bound.value;
  for (const ProgramNest& n : nests)
    if (bound.value <= 0)
      tolerance += std::max(kernelTolerance(*n.kernel, {}, countWork(*n.kernel).reductionLength), n.best->minTolerance);
  WorkCount work = countWork(original);
  std::vector<ArrayInit> inits = arrayInits(original);
  std::ostringstream o;
  if (bound.verified)
    o << kBestProgramFirstLine << " The fastest verified kernel found for `" << original.name << "`,\n";
  else
    o << kBestProgramFirstLine << " The model's choice for `" << original.name << "` among the kernels\n"
      << "// that compiled, unverified: nothing was run or timed (no GPU). This file holds that kernel,\n";
  if (nests.size() > 1)
    o << "// Its body is " << nests.size()
      << " nests in a row: a kernel a nest, launched in order, each reading what the\n"
      << "// ones before it wrote. This file holds those kernels, the FP64 references of the nests, and a\n"
      << "// program that checks every array they write and times the launches together.\n";
  else
    o << "// the exact FP64 reference of its loop nest, and a program that checks and times the kernel.\n";
  o << "// Build and run: nvcc -O3 " << buildTarget(*archOf) << " best.cu -o best" << (tensorMaps ? " -lcuda" : "")
    << " && ./best\n"
    << (tensorMaps ? "#include <cuda.h>\n" : "")
    << "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n"
    << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
    << "#include <cstring>\n#include <random>\n#include <vector>\n\n"
    << "#define CHECK(call)                                                              \\\n"
    << "  do {                                                                           \\\n"
    << "    cudaError_t e_ = (call);                                                     \\\n"
    << "    if (e_ != cudaSuccess) {                                                     \\\n"
    << "      std::fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(e_)); \\\n"
    << "      std::exit(2);                                                              \\\n"
    << "    }                                                                            \\\n"
    << "  } while (0)\n\n"
    << "// A float rounded to TF32 (10 bits of mantissa, ties away from zero), as cvt.rna.tf32.f32 does.\n"
    << "[[maybe_unused]] static float round_tf32(float x) {\n"
    << "  uint32_t u;\n  std::memcpy(&u, &x, 4);\n"
    << "  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;\n"
    << "  std::memcpy(&x, &u, 4);\n  return x;\n}\n\n";
  for (const Launch& l : bests) o << code("the kernel", l.k, l.space);
  for (const Launch& l : references) o << code("the FP64 reference", l.k, l.space);
  o << "int main() {\n"
    << "  std::mt19937_64 rng(std::random_device{}());\n"
    << "  std::uniform_real_distribution<double> uniform(-1.0, 1.0);\n";
  // Host values in double; device copies in the variant's type and in double for the reference.
  for (size_t i = 0; i < original.params.size(); ++i) {
    const Array& a = original.params[i];
    std::string n = cudaName(a.name);  // as the kernels name it
    o << "  const size_t n_" << n << " = " << a.elements() << ";\n"
      << "  std::vector<double> h_" << n << "(n_" << n << ");\n";
    // Values exact in the type (for tf32, in TF32), so that the variant and the reference read
    // the same numbers.
    if (inits[i] == ArrayInit::Random)
      o << "  for (auto& v : h_" << n << ") v = "
        << (a.type == ScalarType::Int      ? "std::floor(uniform(rng) * 4.0)"
            : a.type == ScalarType::TF32   ? "round_tf32(static_cast<float>(uniform(rng)))"
            : a.type == ScalarType::Double ? "uniform(rng)"
                                           : fromDevice(a.type, toDevice(a.type, "uniform(rng)")))
        << ";\n";
    std::string vt = deviceType(a.type, false), rt = deviceType(a.type, true);
    o << "  std::vector<" << vt << "> v_" << n << "(n_" << n << ");\n"
      << "  std::vector<" << rt << "> r_" << n << "(n_" << n << ");\n"
      << "  for (size_t e = 0; e < n_" << n << "; ++e) { v_" << n << "[e] = " << toDevice(a.type, "h_" + n + "[e]")
      << "; r_" << n << "[e] = static_cast<" << rt << ">(h_" << n << "[e]); }\n"
      << "  " << vt << "* " << n << " = nullptr;\n  " << rt << "* ref_" << n << " = nullptr;\n"
      << "  CHECK(cudaMalloc(&" << n << ", n_" << n << " * sizeof(" << vt << ")));\n"
      << "  CHECK(cudaMalloc(&ref_" << n << ", n_" << n << " * sizeof(" << rt << ")));\n"
      << "  CHECK(cudaMemcpy(" << n << ", v_" << n << ".data(), n_" << n << " * sizeof(" << vt
      << "), cudaMemcpyHostToDevice));\n"
      << "  CHECK(cudaMemcpy(ref_" << n << ", r_" << n << ".data(), n_" << n << " * sizeof(" << rt
      << "), cudaMemcpyHostToDevice));\n";
    if (inits[i] == ArrayInit::Poison)  // every element the kernel fails to write stays NaN
      o << "  CHECK(cudaMemset(" << n << ", 0xFF, n_" << n << " * sizeof(" << vt << ")));\n";
  }
  for (const Launch& l : bests) o << allocateWorkspaces(l) << encodeTensorMaps(l);
  o << "\n  // Check: "
    << (nests.size() > 1 ? "the kernels against the FP64 references" : "the kernel against the FP64 reference")
    << ", by ||out - ref|| / ||ref||.\n";
  for (size_t i = 0; i < nests.size(); ++i)
    o << sharedMemoryAttribute(bests[i]) << sharedMemoryAttribute(references[i]);
  for (const Launch& l : bests) o << zeroOutputs(l.k) << launch(l, "");
  for (const Launch& l : references) o << launch(l, "ref_");
  o << "  CHECK(cudaDeviceSynchronize());\n"
    << "  double worst = 0;\n";
  for (size_t i = 0; i < original.params.size(); ++i) {
    const Array& a = original.params[i];
    if (a.input) continue;
    std::string n = cudaName(a.name), vt = deviceType(a.type, false), rt = deviceType(a.type, true);
    o << "  {\n"
      << "    CHECK(cudaMemcpy(v_" << n << ".data(), " << n << ", n_" << n << " * sizeof(" << vt
      << "), cudaMemcpyDeviceToHost));\n"
      << "    CHECK(cudaMemcpy(r_" << n << ".data(), ref_" << n << ", n_" << n << " * sizeof(" << rt
      << "), cudaMemcpyDeviceToHost));\n"
      << "    double diff = 0, norm = 0;\n"
      << "    for (size_t e = 0; e < n_" << n << "; ++e) {\n"
      << "      double out = " << fromDevice(a.type, "v_" + n + "[e]") << ", ref = static_cast<double>(r_" << n
      << "[e]);\n"
      << "      diff += (out - ref) * (out - ref);\n      norm += ref * ref;\n    }\n"
      << "    double error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);\n"
      << "    if (!(error == error)) error = INFINITY;  // NaN: an element was never written\n"
      << "    std::printf(\"" << a.name << ": relative error %.3e\\n\", error);\n"
      << "    worst = std::max(worst, error);\n  }\n";
  }
  o << "\n  // Time: CUDA events around each run" << (nests.size() > 1 ? " (every launch, in order)" : "")
    << " after a warm-up; the median of 51 runs.\n"
    << "  cudaEvent_t start, stop;\n  CHECK(cudaEventCreate(&start));\n  CHECK(cudaEventCreate(&stop));\n"
    << "  std::vector<float> times;\n"
    << "  for (int run = 0; run < 54; ++run) {\n"
    << "    CHECK(cudaEventRecord(start));\n";
  for (const Launch& l : bests) o << zeroOutputs(l.k, "    ") << launch(l, "", "    ");
  o << "    CHECK(cudaEventRecord(stop));\n    CHECK(cudaEventSynchronize(stop));\n"
    << "    float ms = 0;\n    CHECK(cudaEventElapsedTime(&ms, start, stop));\n"
    << "    if (run >= 3) times.push_back(ms);\n  }\n"
    << "  std::sort(times.begin(), times.end());\n"
    << "  double ms = times[times.size() / 2];\n"
    << "  std::printf(\"time %.4f ms, %.2f TFLOPS\\n\", ms, " << work.flops << " / (ms * 1e9));\n"
    << "  const double tolerance = " << tolerance
    << (bound.verified     ? ";  // the bound the search verified with"
        : nests.size() > 1 ? ";  // the FP64 checks' bounds for these nests, summed (the search ran nothing)"
                           : ";  // the FP64 check's bound for this nest (the search ran nothing)")
    << (bound.source.empty() ? "" : ": " + bound.source) << "\n"
    << "  std::printf(worst < tolerance ? \"verified\\n\" : \"WRONG: error above %g\\n\", tolerance);\n"
    << "  return worst < tolerance ? 0 : 1;\n}\n";
  return o.str();
}

}  // namespace cudaburg
