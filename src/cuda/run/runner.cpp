#include "src/cuda/run/runner.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/emit_launch.hpp"
#include "src/cuda/run/device_checks_source.hpp"
#include "src/cuda/run/inputs.hpp"
#include "src/cuda/run/reference_check.hpp"
#include "src/cuda/run/worker_process.hpp"
#include "src/cuda/run/worker_protocol.hpp"

namespace cudaburg {
namespace {

std::string findWorkerProgram(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = getenv("CUDABURG_WORKER"); env && *env) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "cudaburg-worker";
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
#ifdef CUDABURG_WORKER_BUILD_PATH
  return CUDABURG_WORKER_BUILD_PATH;
#else
  return "cudaburg-worker";
#endif
}

// Why nothing can be measured, as one plain sentence: a worker that the dynamic loader could not
// start for want of the CUDA driver library says that, not the loader's own words.
std::string noDeviceReason(const std::string& why) {
  const std::string loader = "error while loading shared libraries: ";
  if (size_t at = why.find(loader); at != std::string::npos) {
    std::string library = why.substr(at + loader.size());
    library = library.substr(0, library.find(':'));
    if (library.rfind("libcuda.so", 0) == 0) return "no CUDA driver on this machine (" + library + " not found)";
    return "the measuring worker cannot start (" + library + " not found)";
  }
  if (why.rfind("no CUDA device", 0) == 0 || why.rfind("no usable CUDA device", 0) == 0) return why;
  return "no CUDA device (" + why + ")";
}

RunResult resultWith(RunStatus status, std::string reason) {
  RunResult r;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

// The type an array of the variant has: as the emitter says (CudaKernel::paramTypes), else float
// and half arrays take the variant's element type.
ScalarType variantType(const Array& a, const CudaKernel& variant) {
  for (size_t i = 0; i < variant.params.size() && i < variant.paramTypes.size(); ++i)
    if (variant.params[i] == a.name) return variant.paramTypes[i];
  return emittedType(a, variant.elementType);
}

// Whether every array of the variant has the type the nest declares (no other precision).
bool declaredTypes(const Kernel& kernel, const CudaKernel& variant) {
  for (const auto& name : variant.params) {
    const Array* a = kernel.findParam(name);
    if (!a || variantType(*a, variant) != a->type) return false;
  }
  return true;
}

uint64_t freshSeed() {
  std::random_device device;
  return (uint64_t(device()) << 32 | device()) | 1;
}

// The arrays of a variant in its parameter order, with how each starts.
std::vector<ArraySpec> variantArrays(const Kernel& kernel, const CudaKernel& variant, std::string& error) {
  auto inits = arrayInits(kernel);
  std::vector<ArraySpec> arrays;
  for (const auto& name : variant.params) {
    const Array* a = kernel.findParam(name);
    if (!a) {
      error = "the variant has a parameter " + name + " that the loop nest does not";
      return {};
    }
    ArraySpec s{a->name, variantType(*a, variant), a->extents, inits[size_t(a - kernel.params.data())], !a->input};
    for (const auto& z : variant.zeroFirst)
      if (z == name) s.init = ArrayInit::Zero;
    arrays.push_back(std::move(s));
  }
  for (const KernelWorkspace& w : variant.workspaces)
    arrays.push_back(ArraySpec{w.name, w.type, {w.elements}, ArrayInit::Workspace, false});
  return arrays;
}

LaunchSpec launchSpec(const CudaKernel& k, const std::string& cubinPath) {
  LaunchSpec s;
  s.cubinPath = cubinPath;
  s.entry = k.entry;
  s.grid = k.grid;
  s.block = k.block;
  s.dynamicSharedBytes = k.dynamicSharedBytes;
  s.raiseSharedLimit = k.needsSharedMemoryAttribute;
  s.tensorMaps = k.tensorMaps;
  return s;
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& contents, const std::string& suffix) {
  std::string dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  std::string pattern = dir + "/cudaburg-XXXXXX" + suffix;
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), int(suffix.size()));
  if (fd < 0) return;
  bool written = write(fd, contents.data(), contents.size()) == ssize_t(contents.size());
  close(fd);
  if (written)
    path_ = name.data();
  else
    unlink(name.data());
}

TemporaryFile::~TemporaryFile() {
  if (!path_.empty()) unlink(path_.c_str());
}

struct Runner::CompiledReference {
  CudaKernel kernel;
  std::unique_ptr<TemporaryFile> cubin;
  common::Reason reason;  // why there is none
};

Runner::Runner(RunnerOptions options) : options_(std::move(options)), worker_(std::make_unique<WorkerProcess>()) {}

Runner::~Runner() = default;

bool Runner::ensureWorker() {
  if (probed_ && !available_) return false;
  if (worker_->running()) return true;
  std::string error;
  std::string program = findWorkerProgram(options_.workerPath);
  probed_ = true;
  available_ = false;
  if (!worker_->start(program, {}, error)) {
    device_ = noDeviceReason(error);
    return false;
  }
  std::string reply;
  auto outcome = worker_->request(R"({"op":"hello"})", options_.startDeadline, reply);
  if (outcome != WorkerProcess::Outcome::Reply) {
    std::string why = worker_->stderrTail();
    if (why.empty()) why = "the worker " + program + " ended: " + worker_->exitDescription();
    device_ = noDeviceReason(why);
    return false;
  }
  try {
    auto hello = nlohmann::json::parse(reply);
    if (!hello.at("ok").get<bool>()) {
      device_ = noDeviceReason(hello.at("reason").get<std::string>());
      worker_->stop();
      return false;
    }
    device_ = hello.at("device").get<std::string>();
    std::string cc = hello.at("cc").get<std::string>();
    arch_ = "sm_" + cc.substr(0, cc.find('.')) + cc.substr(cc.find('.') + 1);
    convLibrary_ = hello.value("conv_library", false);
    driver_ = hello.value("driver", "");
  } catch (const std::exception& e) {
    device_ = std::string("no CUDA device (the worker's greeting is malformed: ") + e.what() + ")";
    worker_->stop();
    return false;
  }
  available_ = true;
  return true;
}

bool Runner::available() { return ensureWorker(); }

std::string Runner::device() {
  ensureWorker();
  return device_;
}

std::string Runner::arch() {
  ensureWorker();
  return available_ ? arch_ : "";
}

std::string Runner::driver() {
  ensureWorker();
  return available_ ? driver_ : "";
}

ReferencePlan Runner::referencePlan(const Kernel& kernel, Precision precision) {
  ensureWorker();
  ReferencePlan plan = planReference(kernel, convLibrary_);
  plan.gemm.operands = libraryOperands(plan.gemm.operands, precision);
  plan.conv.operands = libraryOperands(plan.conv.operands, precision);
  return plan;
}

const Runner::CompiledReference& Runner::exactReference(const Kernel& kernel) {
  EmitResult emitted = emitReference(kernel);
  std::string key = emitted.ok() ? emitted.kernel->source : "refused: " + kernel.name + emitted.reason;
  auto& slot = references_[key];
  if (slot) return *slot;
  slot = std::make_unique<CompiledReference>();
  if (!emitted.ok()) {
    slot->reason = "the FP64 reference cannot be emitted: " + emitted.reason;
    return *slot;
  }
  slot->kernel = *emitted.kernel;
  compileInto(*slot, "the FP64 reference");
  return *slot;
}

const Runner::CompiledReference& Runner::checkingKernels() {
  if (checks_) return *checks_;
  checks_ = std::make_unique<CompiledReference>();
  checks_->kernel.source = deviceChecksSource();
  checks_->kernel.entry = kCompareEntry;
  compileInto(*checks_, "the checking kernels");
  return *checks_;
}

void Runner::compileInto(CompiledReference& slot, const std::string& what) {
  CompileOptions options;
  options.arch = arch_;
  CompileResult compiled = compile(slot.kernel, options);
  if (!compiled.ok) {
    slot.reason = what + " failed to compile: " + compiled.reason;
    return;
  }
  slot.cubin = std::make_unique<TemporaryFile>(std::string(compiled.cubin.begin(), compiled.cubin.end()), ".cubin");
  if (slot.cubin->path().empty()) slot.reason = "cannot write the binary of " + what + " to a temporary file";
}

MeasureReply Runner::ask(const std::string& request, std::chrono::milliseconds deadline) {
  MeasureReply reply;
  reply.status = RunStatus::Failed;
  std::string line;
  switch (worker_->request(request, deadline, line)) {
    case WorkerProcess::Outcome::Timeout: {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", double(deadline.count()) / 1000);
      reply.status = RunStatus::Timeout;
      reply.reason = std::string("no result within ") + seconds + " s (a hang?): the worker was stopped";
      return reply;
    }
    case WorkerProcess::Outcome::Exited: {
      std::string tail = worker_->stderrTail();
      reply.reason = "the worker ended (" + worker_->exitDescription() + ")" + (tail.empty() ? "" : ": " + tail);
      return reply;
    }
    case WorkerProcess::Outcome::Reply:
      break;
  }
  try {
    reply = measureReplyFromJson(nlohmann::json::parse(line));
  } catch (const std::exception& e) {
    reply.reason = std::string("the worker's reply is malformed: ") + e.what();
    reply.fatal = true;
  }
  if (reply.fatal) worker_->stop();  // its context is lost; the next request starts a fresh one
  return reply;
}

RunResult Runner::measure(const Kernel& kernel, const CudaKernel& variant, const CompileResult& binary,
                          const MeasureOptions& options) {
  if (!binary.ok) return resultWith(RunStatus::Failed, "not compiled: " + binary.reason);
  return measureCubin(kernel, variant, std::string(binary.cubin.begin(), binary.cubin.end()), options);
}

RunResult Runner::measureCubin(const Kernel& kernel, const CudaKernel& variant, const std::string& cubin,
                               const MeasureOptions& options) {
  if (!ensureWorker()) return resultWith(RunStatus::NotMeasured, device_);
  MeasureRequest request;
  std::string error;
  request.arrays = variantArrays(kernel, variant, error);
  if (!error.empty()) return resultWith(RunStatus::Failed, error);

  // The libraries compute in the nest's own types: a variant in another precision, or one given
  // its own bound, is held to the bound against the exact nest alone.
  ReferencePlan plan = declaredTypes(kernel, variant) && options.tolerance <= 0
                           ? referencePlan(kernel, options.precision)
                           : ReferencePlan{};
  request.reference.kind = plan.kind;
  request.reference.gemm = plan.gemm;
  request.reference.conv = plan.conv;
  std::string referenceName = plan.describe();
  // The exact outputs: cuBLAS DGEMM computes a plain matrix product's; the FP64 nest every other
  // (a product with an epilogue included).
  bool byDgemm = plan.kind == ReferencePlan::Kind::Gemm && plan.gemm.epilogue.empty();
  if (options.verify && !byDgemm) {
    const CompiledReference& ref = exactReference(kernel);
    if (!ref.reason.empty()) return resultWith(RunStatus::Failed, ref.reason);
    if (ref.kernel.params != variant.params)
      return resultWith(RunStatus::Failed, "the FP64 reference's parameters differ from the variant's");
    request.reference.exact = launchSpec(ref.kernel, ref.cubin->path());
    for (const auto& name : ref.kernel.params)
      request.reference.exactTypes.push_back(emittedType(*kernel.findParam(name), ScalarType::Double));
  }

  const CompiledReference& checks = checkingKernels();
  if (!checks.reason.empty()) return resultWith(RunStatus::Failed, checks.reason);
  request.checksCubin = checks.cubin->path();

  WorkCount work = countWork(kernel);
  TemporaryFile file(cubin, ".cubin");
  if (file.path().empty()) return resultWith(RunStatus::Failed, "cannot write the kernel's binary to a temporary file");
  request.variant = launchSpec(variant, file.path());
  request.seed = options.seed ? options.seed : freshSeed();
  std::vector<ScalarType> types;
  for (const Array& a : kernel.params) types.push_back(variantType(a, variant));
  request.tolerance = options.tolerance > 0
                          ? options.tolerance
                          : std::max(kernelTolerance(kernel, types, work.reductionLength), variant.minTolerance);
  request.winograd = variant.minTolerance > 0;
  request.verify = options.verify;
  request.time = options.time;
  request.warmupRuns = options.warmupRuns;
  request.runs = options.runs;

  MeasureReply reply = ask(toJson(request).dump(), options.deadline);
  RunResult result = resultWith(reply.status, reply.reason);
  result.reference = referenceName;
  result.error = options.verify ? reply.error : -1;
  result.libraryError = options.verify ? reply.libraryError : -1;
  if (result.ok() && reply.ms >= 0) {
    result.ms = reply.ms;
    result.runs = reply.runs;
    result.tflops = teraflops(work, reply.ms);
    result.gbps = gigabytesPerSecond(work, reply.ms);
  }
  return result;
}

ReferenceTiming Runner::reference(const Kernel& kernel, const MeasureOptions& options) {
  ReferenceTiming timing;
  if (!ensureWorker()) {
    timing.reason = device_;
    return timing;
  }
  ReferencePlan plan = referencePlan(kernel, options.precision);
  timing.library = plan.library();
  if (plan.kind == ReferencePlan::Kind::Exact) {
    timing.reason = "no reference library computes this loop nest";
    return timing;
  }
  MeasureRequest request;
  auto inits = arrayInits(kernel);
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Array& a = kernel.params[i];
    request.arrays.push_back(ArraySpec{a.name, a.type, a.extents, inits[i], !a.input});
  }
  request.reference.kind = plan.kind;
  request.reference.gemm = plan.gemm;
  request.reference.conv = plan.conv;
  const CompiledReference& checks = checkingKernels();
  if (!checks.reason.empty()) {
    timing.status = RunStatus::Failed;
    timing.reason = checks.reason;
    return timing;
  }
  request.checksCubin = checks.cubin->path();
  request.seed = options.seed ? options.seed : freshSeed();
  request.warmupRuns = options.warmupRuns;
  request.runs = options.runs;
  nlohmann::json message = toJson(request);
  message["op"] = "reference_time";

  MeasureReply reply = ask(message.dump(), options.deadline);
  timing.status = reply.status;
  timing.reason = reply.reason;
  timing.library = plan.library(reply.algorithm);
  if (timing.ok()) {
    WorkCount work = countWork(kernel);
    timing.ms = reply.ms;
    timing.tflops = teraflops(work, reply.ms);
    timing.gbps = gigabytesPerSecond(work, reply.ms);
  }
  return timing;
}

}  // namespace cudaburg
