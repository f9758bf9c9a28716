#include "src/cuda/worker/cudnn_graph.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "src/cuda/worker/device.hpp"

namespace cudaburg {

namespace {

void check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(status));
}

// One backend descriptor, destroyed with the object.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) {
    check(cudnnBackendCreateDescriptor(type, &d_), "cudnnBackendCreateDescriptor");
  }
  ~Descriptor() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(Descriptor&& o) noexcept : d_(o.d_) { o.d_ = nullptr; }
  Descriptor& operator=(Descriptor&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnBackendDescriptor_t* slot() { return &d_; }
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count, const void* value) {
    check(cudnnBackendSetAttribute(d_, name, type, count, value), "cudnnBackendSetAttribute");
  }
  void set(cudnnBackendAttributeName_t name, const std::vector<int64_t>& values) {
    set(name, CUDNN_TYPE_INT64, int64_t(values.size()), values.data());
  }
  void set(cudnnBackendAttributeName_t name, const Descriptor& other) {
    cudnnBackendDescriptor_t d = other.get();
    set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
  }
  void finalize() { check(cudnnBackendFinalize(d_), "cudnnBackendFinalize"); }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

enum Uid : int64_t { kInput = 1, kWeight = 2, kOutput = 3 };

// Strides of a dense tensor whose dims are (N, C, spatial...): channels first, or channels last
// (C varying fastest, then the spatial dimensions from the innermost out, then N).
std::vector<int64_t> denseStrides(const std::vector<int64_t>& dims, bool channelsLast) {
  std::vector<int64_t> order;  // the dims from the innermost (stride 1) out
  if (channelsLast) {
    order.push_back(1);
    for (size_t d = dims.size(); d-- > 2;) order.push_back(int64_t(d));
    order.push_back(0);
  } else {
    for (size_t d = dims.size(); d-- > 0;) order.push_back(int64_t(d));
  }
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (int64_t d : order) strides[size_t(d)] = stride, stride *= dims[size_t(d)];
  return strides;
}

Descriptor tensor(Uid uid, cudnnDataType_t type, const std::vector<int64_t>& dims, bool channelsLast) {
  Descriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
  t.set(CUDNN_ATTR_TENSOR_STRIDES, denseStrides(dims, channelsLast));
  int64_t id = uid, alignment = 16;  // device allocations are aligned far beyond 16 bytes
  t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
  t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  t.finalize();
  return t;
}

// Whether an engine's numerics keep to the reference's math for `operands`.
bool keepsMath(const Descriptor& config, ScalarType operands) {
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t got = 0;
  check(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                 engine.slot()),
        "reading an engine configuration");
  std::vector<cudnnBackendNumericalNote_t> notes(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  check(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 int64_t(notes.size()), &got, notes.data()),
        "reading an engine's numerical notes");
  notes.resize(size_t(got));
  auto has = [&](cudnnBackendNumericalNote_t n) { return std::find(notes.begin(), notes.end(), n) != notes.end(); };
  if (has(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) return false;
  return operands != ScalarType::Float || !has(CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
}

int64_t engineIndex(const Descriptor& config) {
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t got = 0, index = -1;
  check(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                 engine.slot()),
        "reading an engine configuration");
  check(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index),
        "reading an engine's index");
  return index;
}

// The engine configurations a heuristic mode proposes for `graph`, best first.
std::vector<Descriptor> proposals(const Descriptor& graph, cudnnBackendHeurMode_t mode) {
  Descriptor heuristic(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristic.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  heuristic.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  heuristic.finalize();
  int64_t count = 0;
  check(cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                 &count, nullptr),
        "counting the heuristic's engines");
  std::vector<Descriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  int64_t got = 0;
  check(cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                 &got, raw.data()),
        "reading the heuristic's engines");
  while (int64_t(configs.size()) > got) configs.pop_back();
  return configs;
}

// The arrays and workspace one execution of a plan reads and writes.
Descriptor variantPack(CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output, CUdeviceptr workspace) {
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  int64_t uids[3] = {kInput, kWeight, kOutput};
  void* data[3] = {reinterpret_cast<void*>(input), reinterpret_cast<void*>(weight), reinterpret_cast<void*>(output)};
  void* scratch = reinterpret_cast<void*>(workspace);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, data);
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &scratch);
  pack.finalize();
  return pack;
}

}  // namespace

struct CudnnGraphConv::Plan {
  cudnnHandle_t handle = nullptr;
  std::vector<Descriptor> kept;  // the descriptors the plan refers to
  std::unique_ptr<Descriptor> config, plan;
  DeviceBuffer workspace;
  double ms = INFINITY;
  std::string name;
  // The variant pack of the pointers last run with: made again only when they change.
  std::unique_ptr<Descriptor> pack;
  CUdeviceptr packed[3] = {0, 0, 0};
};

CudnnGraphConv::CudnnGraphConv(cudnnHandle_t handle, CUstream stream, L2Flusher& flusher, const ConvShape& s,
                               CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output)
    : plan_(std::make_unique<Plan>()) {
  plan_->handle = handle;
  cudnnDataType_t data = s.operands == ScalarType::Half       ? CUDNN_DATA_HALF
                         : s.operands == ScalarType::BFloat16 ? CUDNN_DATA_BFLOAT16
                                                              : CUDNN_DATA_FLOAT;
  if (s.operands == ScalarType::Double || s.operands == ScalarType::Int)
    throw std::runtime_error(std::string("cuDNN convolves no ") + scalarTypeName(s.operands) + " operands here");
  // cuDNN's graphs take 2 or 3 spatial dimensions: a 1-D convolution gets a leading one of extent 1.
  std::vector<int64_t> in = {s.n, s.c}, filter = {s.k, s.c / s.groups}, out = {s.n, s.k};
  std::vector<int64_t> pad, stride, dilation;
  if (s.rank() == 1)
    in.push_back(1), filter.push_back(1), out.push_back(1), pad.push_back(0), stride.push_back(1),
        dilation.push_back(1);
  for (size_t d = 0; d < s.rank(); ++d) {
    in.push_back(s.in[d]), filter.push_back(s.filter[d]), out.push_back(s.out[d]);
    pad.push_back(s.pad[d]), stride.push_back(s.stride[d]), dilation.push_back(s.dilation[d]);
  }
  bool last = s.layout == ConvShape::Layout::ChannelsLast;
  auto& kept = plan_->kept;
  kept.push_back(tensor(kInput, data, in, last));
  kept.push_back(tensor(kWeight, data, filter, last));
  kept.push_back(tensor(kOutput, data, out, last));

  Descriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int64_t spatial = int64_t(pad.size());
  conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  conv.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, pad);
  conv.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, pad);
  conv.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, dilation);
  conv.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, stride);
  conv.finalize();

  Descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, kept[0]);
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, kept[1]);
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, kept[2]);
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv);
  float one = 1, zero = 0;
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one);
  op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero);
  op.finalize();

  Descriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnBackendDescriptor_t ops = op.get();
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ops);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  graph.finalize();

  // Mode A's list first, then the fallback list's engines not already in it: each engine that
  // keeps the math and builds a plan is timed, up to a fixed number.
  constexpr int kMostTimed = 12;
  constexpr size_t kMostWorkspace = size_t(1) << 30;
  std::vector<int64_t> seen;
  int timed = 0;
  std::string firstError;
  for (cudnnBackendHeurMode_t heuristicMode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    std::vector<Descriptor> configs;
    try {
      configs = proposals(graph, heuristicMode);
    } catch (const std::runtime_error& e) {
      if (firstError.empty()) firstError = e.what();
      continue;
    }
    for (Descriptor& config : configs) {
      if (timed == kMostTimed) break;
      try {
        int64_t index = engineIndex(config);
        if (std::find(seen.begin(), seen.end(), index) != seen.end() || !keepsMath(config, s.operands)) continue;
        seen.push_back(index);
        auto candidate = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        candidate->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        candidate->set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
        candidate->finalize();
        int64_t bytes = 0, got = 0;
        check(cudnnBackendGetAttribute(candidate->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                       &got, &bytes),
              "reading a plan's workspace size");
        if (size_t(bytes) > kMostWorkspace) continue;
        DeviceBuffer workspace{static_cast<size_t>(bytes)};
        Descriptor pack = variantPack(input, weight, output, workspace.ptr());
        double ms = trialMs(stream, flusher, [&] {
          check(cudnnBackendExecute(handle, candidate->get(), pack.get()), "cudnnBackendExecute");
        });
        ++timed;
        if (ms < plan_->ms) {
          plan_->ms = ms;
          plan_->name = "graph engine " + std::to_string(index);
          plan_->plan = std::move(candidate);
          plan_->workspace = std::move(workspace);
          plan_->config = std::make_unique<Descriptor>(std::move(config));  // the plan refers to it
        }
      } catch (const CudaError&) {
        throw;  // the context is gone: nothing more runs here
      } catch (const std::runtime_error& e) {
        if (firstError.empty()) firstError = e.what();  // this engine builds no plan here: the next
      }
    }
  }
  if (!plan_->plan)
    throw std::runtime_error("cuDNN's graph API has no engine for this convolution" +
                             (firstError.empty() ? std::string() : " (" + firstError + ")"));
  plan_->name += " of " + std::to_string(timed) + " timed";
  plan_->kept.push_back(std::move(conv));
  plan_->kept.push_back(std::move(op));
  plan_->kept.push_back(std::move(graph));
}

CudnnGraphConv::~CudnnGraphConv() = default;

void CudnnGraphConv::enqueue(CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output) {
  Plan& p = *plan_;
  CUdeviceptr pointers[3] = {input, weight, output};
  if (!p.pack || !std::equal(pointers, pointers + 3, p.packed)) {
    p.pack = std::make_unique<Descriptor>(variantPack(input, weight, output, p.workspace.ptr()));
    std::copy(pointers, pointers + 3, p.packed);
  }
  check(cudnnBackendExecute(p.handle, p.plan->get(), p.pack->get()), "cudnnBackendExecute");
}

double CudnnGraphConv::ms() const { return plan_->ms; }

const std::string& CudnnGraphConv::name() const { return plan_->name; }

}  // namespace cudaburg
