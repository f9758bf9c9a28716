// The exported matmul at 2048^3 on the GPU (label gpu; tests/export/gpu_test.sh builds it with the
// export's src/matmul.cu included, so that its launcher can be timed alone): on random inputs the
// function's result is within the bound the search verified it with of the exact FP64 product;
// bad calls are refused; and 100 calls cost at most 5% more than 100 launches of the kernel alone.
#include EXPORTED_SOURCE

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));             \
      return 2;                                                                           \
    }                                                                                     \
  } while (0)

constexpr int kN = 2048;

// The exact product in FP64, one thread an element.
__global__ void reference(double* C, const double* A, const double* B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN || j >= kN) return;
  double sum = 0;
  for (int k = 0; k < kN; ++k) sum += A[size_t(i) * kN + k] * B[size_t(k) * kN + j];
  C[size_t(i) * kN + j] = sum;
}

// Milliseconds for 100 calls of `call` on `stream`, after 10 to warm up.
template <typename Call>
float time100(cudaStream_t stream, Call call) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 10; ++i) call();
  cudaEventRecord(start, stream);
  for (int i = 0; i < 100; ++i) call();
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

int main() {
  const size_t n = size_t(kN) * kN;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> a(n), b(n), c(n);
  std::vector<double> a64(n), b64(n), ref(n);
  for (size_t e = 0; e < n; ++e) a64[e] = a[e] = uniform(rng);
  for (size_t e = 0; e < n; ++e) b64[e] = b[e] = uniform(rng);
  float *A, *B, *C;
  double *A64, *B64, *C64;
  CHECK(cudaMalloc(&A, n * 4));
  CHECK(cudaMalloc(&B, n * 4));
  CHECK(cudaMalloc(&C, n * 4));
  CHECK(cudaMalloc(&A64, n * 8));
  CHECK(cudaMalloc(&B64, n * 8));
  CHECK(cudaMalloc(&C64, n * 8));
  CHECK(cudaMemcpy(A, a.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, b.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(A64, a64.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B64, b64.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(C, 0xFF, n * 4));  // NaN wherever the kernel fails to write
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  int failures = 0;
  cudaError_t e = matmul(C, A, B, stream);
  if (e != cudaSuccess) {
    std::printf("FAIL: matmul returned %s: %s\n", cudaGetErrorString(e), matmul_last_error());
    return 1;
  }
  reference<<<dim3(kN / 16, kN / 16), dim3(16, 16), 0, stream>>>(C64, A64, B64);
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(c.data(), C, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ref.data(), C64, n * 8, cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    diff += (c[i] - ref[i]) * (c[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  double error = std::sqrt(diff / norm);
  if (!(error <= BOUND)) {
    std::printf("FAIL: relative error %.3e above the bound %.3e\n", error, BOUND);
    ++failures;
  }
  std::printf("relative error %.3e (bound %.3e)\n", error, BOUND);

  // Refusals: a null and a misaligned pointer, never a launch.
  if (matmul(C, nullptr, B, stream) != cudaErrorInvalidValue || !std::strstr(matmul_last_error(), "A is a null pointer")) {
    std::printf("FAIL: a null A is not refused: %s\n", matmul_last_error());
    ++failures;
  }
  if (matmul(C, A + 1, B, stream) != cudaErrorInvalidValue || !std::strstr(matmul_last_error(), "16-byte aligned")) {
    std::printf("FAIL: a misaligned A is not refused: %s\n", matmul_last_error());
    ++failures;
  }

  // The call against the kernel alone (its launcher, without the function's checks), 100 each.
  float alone = time100(stream, [&] { matmul_launch_0(C, A, B, stream); });
  float called = time100(stream, [&] { matmul(C, A, B, stream); });
  CHECK(cudaStreamSynchronize(stream));
  std::printf("100 calls: %.3f ms; the kernel alone: %.3f ms; overhead %.2f%%\n", called, alone,
              100.0 * (called / alone - 1));
  if (called > 1.05f * alone) {
    std::printf("FAIL: the call costs more than 5%% over the kernel alone\n");
    ++failures;
  }
  return failures ? 1 : 0;
}
