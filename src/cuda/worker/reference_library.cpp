#include "src/cuda/worker/reference_library.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#ifdef CUDABURG_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "src/analysis/gemm_epilogue.hpp"
#include "src/cuda/run/column_major_gemm.hpp"
#include "src/cuda/run/worker_protocol.hpp"
#ifdef CUDABURG_HAVE_CUDNN
#include "src/cuda/worker/cudnn_graph.hpp"
#endif
#include "src/cuda/worker/timing_events.hpp"

namespace cudaburg {
namespace {

void checkCublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
}

// A key that tells two reference shapes apart: their protocol JSON says everything.
std::string shapeKey(const ReferenceSpec& spec) { return toJson(spec).dump(); }

// The element types of a product: A and B hold `operands`, C holds float; tf32 operands are
// floats multiplied on tensor cores.
cudaDataType_t operandType(ScalarType operands) {
  return operands == ScalarType::Half ? CUDA_R_16F : operands == ScalarType::BFloat16 ? CUDA_R_16BF : CUDA_R_32F;
}
cublasComputeType_t computeType(ScalarType operands) {
  return operands == ScalarType::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// The classic cuBLAS call of a product (SGEMM with TF32 off for float operands, GemmEx with fp32
// accumulation otherwise), enqueued on the handle's stream.
void classicGemm(cublasHandle_t handle, const GemmShape& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
  ColumnMajorGemm cm = columnMajor(g);
  const float one = 1, zero = 0;
  cublasOperation_t opFirst = cm.first.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opSecond = cm.second.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int m = int(cm.m), n = int(cm.n), k = int(cm.k);
  if (g.operands != ScalarType::Float) {
    cudaDataType_t ab = operandType(g.operands);
    cublasComputeType_t compute = computeType(g.operands);
    auto* B = reinterpret_cast<const void*>(b);
    auto* A = reinterpret_cast<const void*>(a);
    auto* C = reinterpret_cast<void*>(c);
    if (g.batch == 1) {
      checkCublas(cublasGemmEx(handle, opFirst, opSecond, m, n, k, &one, B, ab, int(cm.first.ld), A, ab,
                               int(cm.second.ld), &zero, C, CUDA_R_32F, int(cm.out.ld), compute, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmEx");
    } else {
      checkCublas(
          cublasGemmStridedBatchedEx(handle, opFirst, opSecond, m, n, k, &one, B, ab, int(cm.first.ld), cm.first.stride,
                                     A, ab, int(cm.second.ld), cm.second.stride, &zero, C, CUDA_R_32F, int(cm.out.ld),
                                     cm.out.stride, int(g.batch), compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
    }
    return;
  }
  auto* B = reinterpret_cast<const float*>(b);
  auto* A = reinterpret_cast<const float*>(a);
  auto* C = reinterpret_cast<float*>(c);
  if (g.batch == 1) {
    checkCublas(cublasSgemm(handle, opFirst, opSecond, m, n, k, &one, B, int(cm.first.ld), A, int(cm.second.ld), &zero,
                            C, int(cm.out.ld)),
                "cublasSgemm");
  } else {
    checkCublas(cublasSgemmStridedBatched(handle, opFirst, opSecond, m, n, k, &one, B, int(cm.first.ld),
                                          cm.first.stride, A, int(cm.second.ld), cm.second.stride, &zero, C,
                                          int(cm.out.ld), cm.out.stride, int(g.batch)),
                "cublasSgemmStridedBatched");
  }
}

// The name of a cuBLASLt tile shape ("256x128"), or "" for one this toolkit does not list.
std::string tileName(int tile) {
  static const std::map<int, std::string> names = {
#include "cublaslt_tiles.inc"
  };
  auto it = names.find(tile);
  return it == names.end() ? "" : it->second;
}

// One product's cuBLASLt descriptors, and which engine runs it: the classic call or a cuBLASLt
// algorithm, whichever was fastest when the shape was first seen.
struct GemmPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  bool classic = true;
  cublasLtMatmulAlgo_t algorithm{};
  std::string engine;  // "" for the classic call, else cublasLtEngineName's
  DeviceBuffer workspace;

  ~GemmPlan() {
    if (first) cublasLtMatrixLayoutDestroy(first);
    if (second) cublasLtMatrixLayoutDestroy(second);
    if (out) cublasLtMatrixLayoutDestroy(out);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

// Room cuBLASLt may use: enough for its split-K and stream-K algorithms.
constexpr size_t kLtWorkspaceBytes = size_t(64) << 20;
// How many of its heuristic's algorithms are timed.
constexpr int kLtCandidates = 8;

cublasLtMatrixLayout_t ltLayout(const ColumnMajorMatrix& m, cudaDataType_t type, int64_t batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  checkCublas(cublasLtMatrixLayoutCreate(&layout, type, uint64_t(m.rows), uint64_t(m.cols), m.ld),
              "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    int32_t count = int32_t(batch);
    int64_t stride = m.stride;
    checkCublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                "setting the batch count");
    checkCublas(
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
        "setting the batch stride");
  }
  return layout;
}

std::string ltEngineName(const cublasLtMatmulAlgo_t& algo) {
  int32_t id = 0, splitK = 1;
  uint32_t tile = 0;  // the attributes' own types: a size that differs is refused
  size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitK, sizeof splitK, &written);
  return cublasLtEngineName(id, tileName(int(tile)), std::max(splitK, 1));
}

cublasLtEpilogue_t ltEpilogue(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::Bias:
      return CUBLASLT_EPILOGUE_BIAS;
    case GemmEpilogue::Relu:
      return CUBLASLT_EPILOGUE_RELU;
    case GemmEpilogue::ReluBias:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case GemmEpilogue::Gelu:
      return CUBLASLT_EPILOGUE_GELU;
    case GemmEpilogue::GeluBias:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
    default:
      return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

#ifdef CUDABURG_HAVE_CUDNN
void checkCudnn(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(status));
}

// The descriptors and chosen algorithm of one convolution shape.
struct ConvPlan {
  cudnnTensorDescriptor_t input = nullptr, output = nullptr;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  DeviceBuffer workspace;
  std::unique_ptr<CudnnGraphConv> graph;  // when one of its engines beat the legacy algorithm
  std::string name;                       // of the one that runs

  ~ConvPlan() {
    if (input) cudnnDestroyTensorDescriptor(input);
    if (output) cudnnDestroyTensorDescriptor(output);
    if (filter) cudnnDestroyFilterDescriptor(filter);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

// The time a run of the convolution `plan` describes takes with algorithm `a` (its math type set
// on the plan's descriptor as a side effect).
double forwardMs(cudnnHandle_t handle, CUstream stream, L2Flusher& flusher, const ConvPlan& plan,
                 const cudnnConvolutionFwdAlgoPerf_t& a, CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output) {
  checkCudnn(cudnnSetConvolutionMathType(plan.conv, a.mathType), "cudnnSetConvolutionMathType");
  DeviceBuffer workspace(a.memory);
  const float one = 1, zero = 0;
  return trialMs(stream, flusher, [&] {
    checkCudnn(cudnnConvolutionForward(handle, &one, plan.input, reinterpret_cast<const void*>(input), plan.filter,
                                       reinterpret_cast<const void*>(weight), plan.conv, a.algo,
                                       reinterpret_cast<void*>(workspace.ptr()), workspace.bytes(), &zero, plan.output,
                                       reinterpret_cast<void*>(output)),
               "cudnnConvolutionForward");
  });
}

const char* algorithmName(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "unknown";
  }
}

#endif

}  // namespace

struct ReferenceLibraries::Handles {
  L2Flusher* flusher = nullptr;  // the session's, which outlives the libraries
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t lt = nullptr;
  std::map<std::string, std::unique_ptr<GemmPlan>> gemmPlans;  // by shapeKey
#ifdef CUDABURG_HAVE_CUDNN
  cudnnHandle_t cudnn = nullptr;
  std::map<std::string, std::unique_ptr<ConvPlan>> convPlans;  // by shapeKey
#endif
};

ReferenceLibraries::ReferenceLibraries(L2Flusher& flusher) : handles_(std::make_unique<Handles>()) {
  handles_->flusher = &flusher;
  checkCublas(cublasCreate(&handles_->cublas), "cublasCreate");
  // Plain fp32 arithmetic: no TF32 tensor cores, so that the reference is as exact as the variant.
  checkCublas(cublasSetMathMode(handles_->cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  checkCublas(cublasLtCreate(&handles_->lt), "cublasLtCreate");
}

ReferenceLibraries::~ReferenceLibraries() {
#ifdef CUDABURG_HAVE_CUDNN
  handles_->convPlans.clear();
  if (handles_->cudnn) cudnnDestroy(handles_->cudnn);
#endif
  handles_->gemmPlans.clear();
  if (handles_->lt) cublasLtDestroy(handles_->lt);
  if (handles_->cublas) cublasDestroy(handles_->cublas);
}

bool ReferenceLibraries::hasConv() {
#ifdef CUDABURG_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}

std::string ReferenceLibraries::gemm(CUstream stream, const GemmShape& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                                     CUdeviceptr bias, ScalarType biasType) {
  checkCublas(cublasSetStream(handles_->cublas, stream), "cublasSetStream");
  ReferenceSpec spec;
  spec.kind = ReferencePlan::Kind::Gemm;
  spec.gemm = g;
  auto& plan = handles_->gemmPlans[shapeKey(spec)];
  const float one = 1, zero = 0;
  // An epilogue fuses into cuBLASLt's matmul alone: the classic call is no candidate then.
  GemmEpilogue fused = chooseGemmEpilogue(g);
  if (fused == GemmEpilogue::ElementWise)
    throw std::runtime_error("cuBLASLt has no epilogue for " + g.epilogue.describe());
  bool biased = fused == GemmEpilogue::Bias || fused == GemmEpilogue::ReluBias || fused == GemmEpilogue::GeluBias;
  if (biased && !bias) throw std::runtime_error("the bias of the fused epilogue is missing");
  // The output's type: float, or the 16-bit operands' type that cuBLASLt alone writes (from fp32 sums).
  cudaDataType_t outType = g.epilogue.empty() ? CUDA_R_32F : operandType(g.epilogue.outputType);
  bool classicAllowed = fused == GemmEpilogue::None && outType == CUDA_R_32F;
  auto ltMatmul = [&](const GemmPlan& p, const cublasLtMatmulAlgo_t& algo, const DeviceBuffer& workspace) {
    // The bias is this call's array (the plan outlives the request that made it).
    if (biased)
      checkCublas(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                  "setting the bias pointer");
    checkCublas(cublasLtMatmul(handles_->lt, p.desc, &one, reinterpret_cast<const void*>(b), p.first,
                               reinterpret_cast<const void*>(a), p.second, &zero, reinterpret_cast<void*>(c), p.out,
                               reinterpret_cast<void*>(c), p.out, &algo, reinterpret_cast<void*>(workspace.ptr()),
                               workspace.bytes(), reinterpret_cast<cudaStream_t>(stream)),
                "cublasLtMatmul");
  };
  if (!plan) {
    // The classic call and the algorithms cuBLASLt's heuristic proposes, each timed; the fastest
    // is the reference from now on, its error the bound and its time the one a kernel is held to.
    auto p = std::make_unique<GemmPlan>();
    ColumnMajorGemm cm = columnMajor(g);
    cudaDataType_t ab = operandType(g.operands);
    checkCublas(cublasLtMatmulDescCreate(&p->desc, computeType(g.operands), CUDA_R_32F), "cublasLtMatmulDescCreate");
    cublasOperation_t opFirst = cm.first.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opSecond = cm.second.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    checkCublas(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opFirst, sizeof opFirst),
                "setting the first operand's transpose");
    checkCublas(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opSecond, sizeof opSecond),
                "setting the second operand's transpose");
    p->first = ltLayout(cm.first, ab, g.batch);
    p->second = ltLayout(cm.second, ab, g.batch);
    p->out = ltLayout(cm.out, outType, g.batch);
    if (fused != GemmEpilogue::None) {
      cublasLtEpilogue_t epilogue = ltEpilogue(fused);
      checkCublas(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
                  "setting the epilogue");
      if (biased) {
        checkCublas(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                    "setting the bias pointer");
        cudaDataType_t type = operandType(biasType);
        checkCublas(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, sizeof type),
                    "setting the bias type");
      }
    }

    double best = !classicAllowed
                      ? INFINITY
                      : trialMs(stream, *handles_->flusher, [&] { classicGemm(handles_->cublas, g, a, b, c); });
    cublasLtMatmulPreference_t preference = nullptr;
    checkCublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    size_t room = kLtWorkspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &room, sizeof room);
    std::vector<cublasLtMatmulHeuristicResult_t> proposed(kLtCandidates);
    int found = 0;
    cublasStatus_t asked = cublasLtMatmulAlgoGetHeuristic(handles_->lt, p->desc, p->first, p->second, p->out, p->out,
                                                          preference, kLtCandidates, proposed.data(), &found);
    cublasLtMatmulPreferenceDestroy(preference);
    // No proposal (a layout cuBLASLt does not take) leaves the classic call as the reference.
    for (int i = 0; asked == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
      if (proposed[i].state != CUBLAS_STATUS_SUCCESS) continue;
      DeviceBuffer workspace(proposed[i].workspaceSize);
      double ms = INFINITY;
      try {
        ms = trialMs(stream, *handles_->flusher, [&] { ltMatmul(*p, proposed[i].algo, workspace); });
      } catch (const CudaError&) {
        throw;  // the device failed: nothing after it can be trusted
      } catch (const std::runtime_error&) {
        continue;  // an algorithm that refuses these arguments is not a candidate
      }
      if (ms < best) {
        best = ms;
        p->classic = false;
        p->algorithm = proposed[i].algo;
        p->workspace = std::move(workspace);
      }
    }
    if (p->classic && !classicAllowed)
      throw std::runtime_error("cuBLASLt has no algorithm for this product with its epilogue (" +
                               g.epilogue.describe() + ")");
    if (!p->classic) p->engine = ltEngineName(p->algorithm);
    plan = std::move(p);
  }
  if (plan->classic)
    classicGemm(handles_->cublas, g, a, b, c);
  else
    ltMatmul(*plan, plan->algorithm, plan->workspace);
  return plan->engine;
}

void ReferenceLibraries::gemmDouble(CUstream stream, const GemmShape& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
  checkCublas(cublasSetStream(handles_->cublas, stream), "cublasSetStream");
  const double one = 1, zero = 0;
  cublasOperation_t opA = g.aTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = g.bTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto* A = reinterpret_cast<const double*>(a);
  auto* B = reinterpret_cast<const double*>(b);
  auto* C = reinterpret_cast<double*>(c);
  if (g.batch == 1) {
    checkCublas(cublasDgemm(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B, int(g.ldb), A,
                            int(g.lda), &zero, C, int(g.ldc)),
                "cublasDgemm");
  } else {
    checkCublas(
        cublasDgemmStridedBatched(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B, int(g.ldb),
                                  g.strideB, A, int(g.lda), g.strideA, &zero, C, int(g.ldc), g.strideC, int(g.batch)),
        "cublasDgemmStridedBatched");
  }
}

std::string ReferenceLibraries::conv(CUstream stream, const ConvShape& s, CUdeviceptr input, CUdeviceptr weight,
                                     CUdeviceptr output, bool winograd) {
#ifdef CUDABURG_HAVE_CUDNN
  if (!handles_->cudnn) checkCudnn(cudnnCreate(&handles_->cudnn), "cudnnCreate");
  checkCudnn(cudnnSetStream(handles_->cudnn, stream), "cudnnSetStream");
  bool tensorOps = s.operands != ScalarType::Float;
  ReferenceSpec spec;
  spec.kind = ReferencePlan::Kind::Conv;
  spec.conv = s;
  auto& plan = handles_->convPlans[shapeKey(spec) + (winograd ? " winograd" : "")];
  if (!plan) {
    auto p = std::make_unique<ConvPlan>();
    checkCudnn(cudnnCreateTensorDescriptor(&p->input), "cudnnCreateTensorDescriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&p->output), "cudnnCreateTensorDescriptor");
    checkCudnn(cudnnCreateFilterDescriptor(&p->filter), "cudnnCreateFilterDescriptor");
    checkCudnn(cudnnCreateConvolutionDescriptor(&p->conv), "cudnnCreateConvolutionDescriptor");
    // cuDNN takes 2 or 3 spatial dimensions: a 1-D convolution gets a leading one of extent 1.
    std::vector<int> in, filter, pad, stride, dilation;
    if (s.rank() == 1)
      in.push_back(1), filter.push_back(1), pad.push_back(0), stride.push_back(1), dilation.push_back(1);
    for (size_t d = 0; d < s.rank(); ++d) {
      in.push_back(int(s.in[d])), filter.push_back(int(s.filter[d])), pad.push_back(int(s.pad[d]));
      stride.push_back(int(s.stride[d])), dilation.push_back(int(s.dilation[d]));
    }
    bool last = s.layout == ConvShape::Layout::ChannelsLast;
    in.insert(in.begin(), {int(s.n), int(s.c)});
    filter.insert(filter.begin(), {int(s.k), int(s.c / s.groups)});
    int dims = int(in.size());
    cudnnTensorFormat_t format = last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    // Float operands with FMA math (tf32 ones, floats in memory, with tensor-op math); half or
    // bfloat16 ones (x, w and y alike: the legacy API wants one type) on tensor cores, accumulating
    // in fp32 as the kernels do.
    cudnnDataType_t data = s.operands == ScalarType::Half       ? CUDNN_DATA_HALF
                           : s.operands == ScalarType::BFloat16 ? CUDNN_DATA_BFLOAT16
                                                                : CUDNN_DATA_FLOAT;
    if (s.operands == ScalarType::Double || s.operands == ScalarType::Int)
      throw std::runtime_error(std::string("cuDNN convolves no ") + scalarTypeName(s.operands) + " operands here");
    cudnnMathType_t math = tensorOps ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
    // 2-D through the 4-D calls: with them cuDNN offers all its algorithms (Winograd, FFT).
    auto setTensor = [&](cudnnTensorDescriptor_t t, const std::vector<int>& d, const char* what) {
      checkCudnn(dims == 4 ? cudnnSetTensor4dDescriptor(t, format, data, d[0], d[1], d[2], d[3])
                           : cudnnSetTensorNdDescriptorEx(t, format, data, dims, d.data()),
                 what);
    };
    setTensor(p->input, in, "setting the input descriptor");
    if (dims == 4) {
      checkCudnn(cudnnSetFilter4dDescriptor(p->filter, data, format, filter[0], filter[1], filter[2], filter[3]),
                 "cudnnSetFilter4dDescriptor");
      checkCudnn(cudnnSetConvolution2dDescriptor(p->conv, pad[0], pad[1], stride[0], stride[1], dilation[0],
                                                 dilation[1], CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 "cudnnSetConvolution2dDescriptor");
    } else {
      checkCudnn(cudnnSetFilterNdDescriptor(p->filter, data, format, dims, filter.data()),
                 "cudnnSetFilterNdDescriptor");
      checkCudnn(cudnnSetConvolutionNdDescriptor(p->conv, dims - 2, pad.data(), stride.data(), dilation.data(),
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 "cudnnSetConvolutionNdDescriptor");
    }
    checkCudnn(cudnnSetConvolutionGroupCount(p->conv, int(s.groups)), "cudnnSetConvolutionGroupCount");
    checkCudnn(cudnnSetConvolutionMathType(p->conv, math), "cudnnSetConvolutionMathType");
    std::vector<int> out(dims);
    checkCudnn(cudnnGetConvolutionNdForwardOutputDim(p->conv, p->input, p->filter, dims, out.data()),
               "cudnnGetConvolutionNdForwardOutputDim");
    std::vector<int> expected = {int(s.n), int(s.k)};
    if (s.rank() == 1) expected.push_back(1);
    for (int64_t e : s.out) expected.push_back(int(e));
    if (out != expected) throw std::runtime_error("cuDNN computes a different output size for this convolution");
    setTensor(p->output, out, "setting the output descriptor");
    // The fastest algorithm that keeps to the math chosen (FMA: no TF32). For 16-bit and tf32
    // operands, tensor ops (else the fastest of any math).
    // Room for every algorithm in every math type: cudnnFind lists an algorithm once a math type,
    // fastest first, and a list of only CUDNN_CONVOLUTION_FWD_ALGO_COUNT entries would lose the
    // FMA entry of an algorithm whenever faster other-math entries fill it.
    int most = 0;
    checkCudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handles_->cudnn, &most),
               "cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(size_t(std::max(most, 4 * CUDNN_CONVOLUTION_FWD_ALGO_COUNT)));
    int found = 0;
    checkCudnn(cudnnFindConvolutionForwardAlgorithm(handles_->cudnn, p->input, p->filter, p->conv, p->output,
                                                    int(perf.size()), &found, perf.data()),
               "cudnnFindConvolutionForwardAlgorithm");
    std::vector<const cudnnConvolutionFwdAlgoPerf_t*> allowed;
    for (bool anyMath : {false, true}) {
      if (anyMath && (!allowed.empty() || !tensorOps)) break;
      for (int i = 0; i < found; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && (anyMath || perf[i].mathType == math) &&
            (!winograd || perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
             perf[i].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED))
          allowed.push_back(&perf[i]);
    }
    // cudnnFind times each algorithm once: the allowed ones are timed again (ten runs each) and
    // the fastest kept, so that one slow trial cannot hide it.
    const cudnnConvolutionFwdAlgoPerf_t* chosen = nullptr;
    double legacyMs = INFINITY;
    for (const cudnnConvolutionFwdAlgoPerf_t* a : allowed) {
      double ms = forwardMs(handles_->cudnn, stream, *handles_->flusher, *p, *a, input, weight, output);
      if (ms < legacyMs) legacyMs = ms, chosen = a;
    }
    if (chosen) {
      p->algorithm = chosen->algo;
      p->workspace = DeviceBuffer(chosen->memory);
      p->name = algorithmName(chosen->algo);
    }
    // The graph API's engines beside the legacy algorithms (not for a Winograd kernel's reference,
    // which is cuDNN's Winograd algorithm): the faster runs.
    if (!winograd) {
      try {
        auto graph =
            std::make_unique<CudnnGraphConv>(handles_->cudnn, stream, *handles_->flusher, s, input, weight, output);
        if (!chosen || graph->ms() < legacyMs) p->name = graph->name(), p->graph = std::move(graph);
      } catch (const CudaError&) {
        throw;
      } catch (const std::runtime_error&) {
        if (!chosen) throw;
      }
    }
    if (!chosen && !p->graph)
      throw std::runtime_error(std::string("cuDNN has no ") + (tensorOps ? "" : "fp32 ") +
                               (winograd ? "Winograd " : "") + "algorithm for this convolution");
    if (chosen) checkCudnn(cudnnSetConvolutionMathType(p->conv, chosen->mathType), "cudnnSetConvolutionMathType");
    plan = std::move(p);
  }
  if (plan->graph) {
    plan->graph->enqueue(input, weight, output);
    return plan->name;
  }
  const float one = 1, zero = 0;
  checkCudnn(cudnnConvolutionForward(handles_->cudnn, &one, plan->input, reinterpret_cast<const void*>(input),
                                     plan->filter, reinterpret_cast<const void*>(weight), plan->conv, plan->algorithm,
                                     reinterpret_cast<void*>(plan->workspace.ptr()), plan->workspace.bytes(), &zero,
                                     plan->output, reinterpret_cast<void*>(output)),
             "cudnnConvolutionForward");
  return plan->name;
#else
  (void)stream, (void)s, (void)input, (void)weight, (void)output, (void)winograd;
  throw std::runtime_error("this build has no cuDNN");
#endif
}

}  // namespace cudaburg
