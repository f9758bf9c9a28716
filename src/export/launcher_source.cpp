#include "src/export/launcher_source.hpp"

#include <cstdio>
#include <sstream>

#include "src/export/c_signature.hpp"

namespace cudaburg {

namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// The helpers every function's file has: its message, the pointer and device checks, and (with
// tensor maps) the driver's encoder, found through the runtime so that no -lcuda is needed.
std::string helpers(const ExportedFunction& f, bool tensorMaps) {
  const std::string& n = f.name;
  std::ostringstream o;
  o << "// Why the last call on this thread failed (\"\" after a success).\n"
    << "static thread_local char " << n << "_message[512] = \"\";\n\n"
    << "extern \"C\" const char* " << n << "_last_error(void) { return " << n << "_message; }\n\n"
    << "static cudaError_t " << n << "_fail(cudaError_t code, const char* format, ...) {\n"
    << "  va_list args;\n  va_start(args, format);\n"
    << "  vsnprintf(" << n << "_message, sizeof " << n << "_message, format, args);\n"
    << "  va_end(args);\n  return code;\n}\n\n"
    << "// Every array: not null, and 16-byte aligned (the kernels' vector loads and TMA copies need it).\n"
    << "static cudaError_t " << n << "_check_array(const void* p, const char* name) {\n"
    << "  if (!p) return " << n << "_fail(cudaErrorInvalidValue, \"" << n << ": %s is a null pointer\", name);\n"
    << "  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)\n"
    << "    return " << n << "_fail(cudaErrorInvalidValue, \"" << n
    << ": %s (%p) is not 16-byte aligned, as the kernel's loads need\", name, p);\n"
    << "  return cudaSuccess;\n}\n\n"
    << "// The current device has the compute capability the kernel was tuned and compiled for.\n"
    << "static cudaError_t " << n << "_check_device(int major, int minor, const char* gpu) {\n"
    << "  int device = 0, has_major = 0, has_minor = 0;\n"
    << "  cudaError_t e = cudaGetDevice(&device);\n"
    << "  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&has_major, cudaDevAttrComputeCapabilityMajor, device);\n"
    << "  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&has_minor, cudaDevAttrComputeCapabilityMinor, device);\n"
    << "  if (e != cudaSuccess) return " << n << "_fail(e, \"" << n
    << ": no usable GPU: %s\", cudaGetErrorString(e));\n"
    << "  if (has_major != major || has_minor != minor)\n"
    << "    return " << n << "_fail(cudaErrorInvalidDevice, \"" << n
    << ": tuned for compute capability %d.%d (%s); device %d has %d.%d\", major, minor, gpu,\n"
    << "                device, has_major, has_minor);\n"
    << "  return cudaSuccess;\n}\n";
  if (tensorMaps)
    o << "\n// The driver's cuTensorMapEncodeTiled, found once (a race finds the same function twice).\n"
      << "typedef CUresult (*" << n << "_encode_tiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,\n"
      << "                                      const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,\n"
      << "                                      const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,\n"
      << "                                      CUtensorMapL2promotion, CUtensorMapFloatOOBfill);\n\n"
      << "static " << n << "_encode_tiled " << n << "_encoder(void) {\n"
      << "  static " << n << "_encode_tiled found = nullptr;\n"
      << "  " << n << "_encode_tiled f = __atomic_load_n(&found, __ATOMIC_ACQUIRE);\n"
      << "  if (f) return f;\n"
      << "  void* entry = nullptr;\n"
      << "  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;\n"
      << "#if CUDART_VERSION >= 12050\n"
      << "  cudaError_t e = cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", &entry, 12000, "
         "cudaEnableDefault, &query);\n"
      << "#else\n"
      << "  cudaError_t e = cudaGetDriverEntryPoint(\"cuTensorMapEncodeTiled\", &entry, cudaEnableDefault, &query);\n"
      << "#endif\n"
      << "  if (e != cudaSuccess || query != cudaDriverEntryPointSuccess || !entry) return nullptr;\n"
      << "  f = reinterpret_cast<" << n << "_encode_tiled>(entry);\n"
      << "  __atomic_store_n(&found, f, __ATOMIC_RELEASE);\n"
      << "  return f;\n}\n";
  return o.str();
}

// Encodes the kernel's tensor map `m` for the array's address into `<name>`.
std::string encodeTensorMap(const ExportedFunction& f, const std::string& space, const TensorMapParam& m) {
  std::ostringstream o;
  o << "  " << space << "::" << kTensorMapType << " " << m.name << ";  // " << m.array << "'s boxes of " << list(m.box)
    << " elements (innermost first)\n"
    << "  {\n"
    << "    const cuuint64_t dims[] = {" << list(m.dims) << "}, strides[] = {" << list(m.strides) << "};\n"
    << "    const cuuint32_t box[] = {" << list(m.box) << "}, steps[] = {"
    << list(std::vector<int64_t>(m.box.size(), 1)) << "};\n"
    << "    CUresult r = encode(reinterpret_cast<CUtensorMap*>(&" << m.name << "), " << tensorMapDataTypeName(m.type)
    << ", " << m.dims.size() << ", const_cast<void*>(static_cast<const void*>(" << m.array
    << ")), dims, strides, box, steps,\n"
    << "                        CU_TENSOR_MAP_INTERLEAVE_NONE, " << tensorMapSwizzleName(m.swizzleBytes)
    << ", CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
    << "    if (r != CUDA_SUCCESS)\n"
    << "      return " << f.name << "_fail(cudaErrorInvalidValue, \"" << f.name << ": cannot encode the tensor map of "
    << m.array << " (driver error %d)\", static_cast<int>(r));\n"
    << "  }\n";
  return o.str();
}

// The launcher of kernel `index`: what best.cu does around its launch, on `stream`.
std::string launcher(const ExportedFunction& f, size_t index) {
  const TunedKernel& t = f.kernels[index];
  const CudaKernel& k = t.cuda;
  std::string space = kernelNamespace(f, index);
  std::ostringstream o;
  o << "// sizes " << t.key.sizes << ": grid (" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2] << "), block ("
    << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << "), " << k.dynamicSharedBytes
    << " bytes of dynamic shared memory\n"
    << "static cudaError_t " << launcherName(f, index) << "(";
  for (const Array& a : f.arrays) o << arrayParameter(a) << ", ";
  o << "cudaStream_t stream) {\n"
    << "  cudaError_t e = cudaSuccess;\n";
  if (k.needsSharedMemoryAttribute)
    o << "  e = cudaFuncSetAttribute(" << space << "::" << k.entry << ", cudaFuncAttributeMaxDynamicSharedMemorySize, "
      << k.dynamicSharedBytes << ");\n"
      << "  if (e != cudaSuccess) return " << f.name << "_fail(e, \"" << f.name
      << ": cannot give the kernel %d bytes of shared memory: %s\", " << k.dynamicSharedBytes
      << ", cudaGetErrorString(e));\n";
  if (!k.tensorMaps.empty()) {
    o << "  " << f.name << "_encode_tiled encode = " << f.name << "_encoder();\n"
      << "  if (!encode) return " << f.name << "_fail(cudaErrorNotSupported, \"" << f.name
      << ": the driver has no cuTensorMapEncodeTiled\");\n";
    for (const TensorMapParam& m : k.tensorMaps) o << encodeTensorMap(f, space, m);
  }
  for (const std::string& z : k.zeroFirst)
    for (const Array& a : t.nest.params)
      if (a.name == z)
        o << "  e = cudaMemsetAsync(" << z << ", 0, " << a.elements() << " * sizeof(*" << z
          << "), stream);  // the split's parts add into it\n"
          << "  if (e != cudaSuccess) return " << f.name << "_fail(e, \"" << f.name << ": cannot zero " << z
          << ": %s\", cudaGetErrorString(e));\n";
  // A split's workspace: zeroed memory of the stream's own, for this launch alone.
  for (const KernelWorkspace& w : k.workspaces) {
    std::string type = cudaTypeName(w.type);
    o << "  " << type << "* " << w.name << " = nullptr;\n"
      << "  e = cudaMallocAsync(reinterpret_cast<void**>(&" << w.name << "), " << w.elements << " * sizeof(" << type
      << "), stream);\n"
      << "  if (e == cudaSuccess) e = cudaMemsetAsync(" << w.name << ", 0, " << w.elements << " * sizeof(" << type
      << "), stream);\n"
      << "  if (e != cudaSuccess) return " << f.name << "_fail(e, \"" << f.name << ": no workspace " << w.name
      << ": %s\", cudaGetErrorString(e));\n";
  }
  o << "  " << space << "::" << k.entry << "<<<dim3(" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2]
    << "), dim3(" << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << "), " << k.dynamicSharedBytes
    << ", stream>>>(" << arrayArguments(f);
  for (const KernelWorkspace& w : k.workspaces) o << ", " << w.name;
  for (const TensorMapParam& m : k.tensorMaps) o << ", " << m.name;
  o << ");\n"
    << "  e = cudaGetLastError();\n";
  for (const KernelWorkspace& w : k.workspaces) o << "  cudaFreeAsync(" << w.name << ", stream);\n";
  o << "  if (e != cudaSuccess) return " << f.name << "_fail(e, \"" << f.name
    << ": launch failed: %s\", cudaGetErrorString(e));\n"
    << "  return cudaSuccess;\n}\n";
  return o.str();
}

// The device check and launch of kernel `index`, as a statement of the function.
std::string dispatch(const ExportedFunction& f, size_t index, const std::string& indent) {
  const TunedKernel& t = f.kernels[index];
  int major = 0, minor = 0;
  std::sscanf(t.key.computeCapability.c_str(), "%d.%d", &major, &minor);
  std::ostringstream o;
  o << indent << "e = " << f.name << "_check_device(" << major << ", " << minor << ", \"" << t.key.gpu << "\");\n"
    << indent << "if (e != cudaSuccess) return e;\n"
    << indent << "return " << launcherName(f, index) << "(" << arrayArguments(f) << ", stream);\n";
  return o.str();
}

}  // namespace

std::string kernelNamespace(const ExportedFunction& f, size_t index) {
  return f.name + "_tuned_" + std::to_string(index);
}

std::string launcherName(const ExportedFunction& f, size_t index) {
  return f.name + "_launch_" + std::to_string(index);
}

std::string launcherSource(const ExportPlan& plan, const ExportedFunction& f) {
  bool tensorMaps = false;
  for (const TunedKernel& t : f.kernels) tensorMaps = tensorMaps || !t.cuda.tensorMaps.empty();
  std::ostringstream o;
  o << "// " << f.name << ".cu: generated by cudaburg export (library " << plan.library << "). The tuned kernel"
    << (f.kernels.size() > 1 ? "s" : "") << " of `" << f.name << "` and\n"
    << "// the launcher" << (f.kernels.size() > 1 ? "s" : "") << " the function " << f.name << "() calls (include/"
    << f.name << ".h says what each was tuned for).\n"
    << "#include \"" << f.name << ".h\"\n\n"
    << (tensorMaps ? "#include <cuda.h>\n" : "")
    << "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_runtime.h>\n"
    << "#include <stdarg.h>\n#include <stdint.h>\n#include <stdio.h>\n\n"
    << helpers(f, tensorMaps);
  for (size_t i = 0; i < f.kernels.size(); ++i)
    o << "\n// ---- the kernel tuned for " << f.kernels[i].key.sizes << " ----\nnamespace " << kernelNamespace(f, i)
      << " {\n"
      << f.kernels[i].cuda.source << "}  // namespace " << kernelNamespace(f, i) << "\n\n"
      << launcher(f, i);
  o << "\nextern \"C\" cudaError_t " << f.name << "(" << functionParameters(f) << ") {\n"
    << "  " << f.name << "_message[0] = '\\0';\n"
    << "  cudaError_t e = cudaSuccess;\n";
  for (const Array& a : f.arrays)
    o << "  if ((e = " << f.name << "_check_array(" << a.name << ", \"" << a.name << "\")) != cudaSuccess) return e;\n";
  if (f.sizeArgs.empty()) {
    o << dispatch(f, 0, "  ");
  } else {
    std::string tuned;
    for (size_t i = 0; i < f.kernels.size(); ++i) {
      o << "  if (";
      for (size_t s = 0; s < f.sizeArgs.size(); ++s)
        o << (s ? " && " : "") << f.sizeArgs[s] << " == " << sizeValue(f.kernels[i].nest, f.sizeArgs[s]);
      o << ") {\n" << dispatch(f, i, "    ") << "  }\n";
      tuned += (tuned.empty() ? "" : "; ") + sizeSetText(f, f.kernels[i]);
    }
    std::string format, args;
    for (const std::string& s : f.sizeArgs) {
      format += (format.empty() ? "" : ",") + s + "=%lld";
      args += ", static_cast<long long>(" + s + ")";
    }
    o << "  return " << f.name << "_fail(cudaErrorInvalidValue, \"" << f.name << ": no kernel was tuned for " << format
      << " (tuned: " << tuned << ")\"" << args << ");\n";
  }
  o << "}\n";
  return o.str();
}

}  // namespace cudaburg
