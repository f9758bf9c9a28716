#include "src/cuda/worker/reference_library.hpp"

#include <cublas_v2.h>
#ifdef CUDABURG_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <stdexcept>
#include <tuple>
#include <vector>

namespace cudaburg {
namespace {

void checkCublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
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

  ~ConvPlan() {
    if (input) cudnnDestroyTensorDescriptor(input);
    if (output) cudnnDestroyTensorDescriptor(output);
    if (filter) cudnnDestroyFilterDescriptor(filter);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

using ConvKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t>;

ConvKey convKey(const Conv2dShape& s) {
  return {s.n, s.c, s.h, s.w, s.k, s.r, s.s, s.padH, s.padW, s.strideH, s.strideW, s.dilationH, s.dilationW};
}
#endif

}  // namespace

struct ReferenceLibraries::Handles {
  cublasHandle_t cublas = nullptr;
#ifdef CUDABURG_HAVE_CUDNN
  cudnnHandle_t cudnn = nullptr;
  std::map<ConvKey, std::unique_ptr<ConvPlan>> convPlans;
#endif
};

ReferenceLibraries::ReferenceLibraries() : handles_(std::make_unique<Handles>()) {
  checkCublas(cublasCreate(&handles_->cublas), "cublasCreate");
  // Plain fp32 arithmetic: no TF32 tensor cores, so that the reference is as exact as the variant.
  checkCublas(cublasSetMathMode(handles_->cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

ReferenceLibraries::~ReferenceLibraries() {
#ifdef CUDABURG_HAVE_CUDNN
  handles_->convPlans.clear();
  if (handles_->cudnn) cudnnDestroy(handles_->cudnn);
#endif
  if (handles_->cublas) cublasDestroy(handles_->cublas);
}

bool ReferenceLibraries::hasConv2d() {
#ifdef CUDABURG_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}

void ReferenceLibraries::gemm(CUstream stream, const GemmShape& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
  // cuBLAS is column major: a row-major X[r][c] is the column-major c x r matrix X^T, so the
  // product is computed as C^T = op(B)^T op(A)^T.
  checkCublas(cublasSetStream(handles_->cublas, stream), "cublasSetStream");
  const float one = 1, zero = 0;
  cublasOperation_t opA = g.aTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = g.bTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (g.operands != ScalarType::Float) {
    // Half, bfloat16 or tf32 operands, fp32 accumulation and a float C: what the kernels compute.
    cudaDataType_t ab = g.operands == ScalarType::Half       ? CUDA_R_16F
                        : g.operands == ScalarType::BFloat16 ? CUDA_R_16BF
                                                             : CUDA_R_32F;
    cublasComputeType_t compute = g.operands == ScalarType::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    auto* A = reinterpret_cast<const void*>(a);
    auto* B = reinterpret_cast<const void*>(b);
    auto* C = reinterpret_cast<void*>(c);
    if (g.batch == 1) {
      checkCublas(cublasGemmEx(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B, ab, int(g.ldb), A, ab,
                               int(g.lda), &zero, C, CUDA_R_32F, int(g.ldc), compute, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmEx");
    } else {
      checkCublas(cublasGemmStridedBatchedEx(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B, ab,
                                             int(g.ldb), g.strideB, A, ab, int(g.lda), g.strideA, &zero, C, CUDA_R_32F,
                                             int(g.ldc), g.strideC, int(g.batch), compute, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmStridedBatchedEx");
    }
    return;
  }
  auto* A = reinterpret_cast<const float*>(a);
  auto* B = reinterpret_cast<const float*>(b);
  auto* C = reinterpret_cast<float*>(c);
  if (g.batch == 1) {
    checkCublas(cublasSgemm(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B, int(g.ldb), A,
                            int(g.lda), &zero, C, int(g.ldc)),
                "cublasSgemm");
  } else {
    checkCublas(cublasSgemmStridedBatched(handles_->cublas, opB, opA, int(g.n), int(g.m), int(g.k), &one, B,
                                          int(g.ldb), g.strideB, A, int(g.lda), g.strideA, &zero, C, int(g.ldc),
                                          g.strideC, int(g.batch)),
                "cublasSgemmStridedBatched");
  }
}

void ReferenceLibraries::conv2d(CUstream stream, const Conv2dShape& s, CUdeviceptr input, CUdeviceptr weight,
                                CUdeviceptr output) {
#ifdef CUDABURG_HAVE_CUDNN
  if (!handles_->cudnn) checkCudnn(cudnnCreate(&handles_->cudnn), "cudnnCreate");
  checkCudnn(cudnnSetStream(handles_->cudnn, stream), "cudnnSetStream");
  auto& plan = handles_->convPlans[convKey(s)];
  if (!plan) {
    auto p = std::make_unique<ConvPlan>();
    checkCudnn(cudnnCreateTensorDescriptor(&p->input), "cudnnCreateTensorDescriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&p->output), "cudnnCreateTensorDescriptor");
    checkCudnn(cudnnCreateFilterDescriptor(&p->filter), "cudnnCreateFilterDescriptor");
    checkCudnn(cudnnCreateConvolutionDescriptor(&p->conv), "cudnnCreateConvolutionDescriptor");
    checkCudnn(cudnnSetTensor4dDescriptor(p->input, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(s.n), int(s.c), int(s.h),
                                          int(s.w)),
               "cudnnSetTensor4dDescriptor(input)");
    checkCudnn(cudnnSetFilter4dDescriptor(p->filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(s.k), int(s.c), int(s.r),
                                          int(s.s)),
               "cudnnSetFilter4dDescriptor");
    checkCudnn(cudnnSetConvolution2dDescriptor(p->conv, int(s.padH), int(s.padW), int(s.strideH), int(s.strideW),
                                               int(s.dilationH), int(s.dilationW), CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT),
               "cudnnSetConvolution2dDescriptor");
    checkCudnn(cudnnSetConvolutionMathType(p->conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
    int n, k, h, w;
    checkCudnn(cudnnGetConvolution2dForwardOutputDim(p->conv, p->input, p->filter, &n, &k, &h, &w),
               "cudnnGetConvolution2dForwardOutputDim");
    if (n != s.n || k != s.k || h != s.p || w != s.q)
      throw std::runtime_error("cuDNN computes a different output size for this convolution");
    checkCudnn(cudnnSetTensor4dDescriptor(p->output, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, h, w),
               "cudnnSetTensor4dDescriptor(output)");
    // The fastest algorithm that keeps to FMA math (no TF32).
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    int found = 0;
    checkCudnn(cudnnFindConvolutionForwardAlgorithm(handles_->cudnn, p->input, p->filter, p->conv, p->output,
                                                    int(perf.size()), &found, perf.data()),
               "cudnnFindConvolutionForwardAlgorithm");
    bool chosen = false;
    for (int i = 0; i < found && !chosen; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) {
        p->algorithm = perf[i].algo;
        p->workspace = DeviceBuffer(perf[i].memory);
        chosen = true;
      }
    }
    if (!chosen) throw std::runtime_error("cuDNN has no fp32 algorithm for this convolution");
    plan = std::move(p);
  }
  const float one = 1, zero = 0;
  checkCudnn(cudnnConvolutionForward(handles_->cudnn, &one, plan->input, reinterpret_cast<const void*>(input),
                                     plan->filter, reinterpret_cast<const void*>(weight), plan->conv, plan->algorithm,
                                     reinterpret_cast<void*>(plan->workspace.ptr()), plan->workspace.bytes(), &zero,
                                     plan->output, reinterpret_cast<void*>(output)),
             "cudnnConvolutionForward");
#else
  (void)stream, (void)s, (void)input, (void)weight, (void)output;
  throw std::runtime_error("this build has no cuDNN");
#endif
}

}  // namespace cudaburg
