#include "src/cuda/run/device_checks_source.hpp"

#include "src/analysis/epilogue_shape.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {
namespace {

// Written without headers (NVRTC compiles it as it is) and without instructions newer than the
// oldest architecture cudaburg targets: conversions by bit operations where PTX would need sm_80.
const char* kBody = R"(
typedef unsigned long long u64;

__device__ u64 splitmix64(u64 x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ unsigned short half_bits(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ float from_half(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
// Round to nearest even, as the host's floatToBfloat16.
__device__ unsigned short bfloat16_bits(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
__device__ float from_bfloat16(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
// Ten fraction bits, ties away from zero, as the host's roundToTf32.
__device__ float round_tf32(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7F800000u) == 0x7F800000u) return f;
  return __uint_as_float((u + 0x1000u) & 0xFFFFE000u);
}

__device__ double load_value(const void* p, u64 i, int type) {
  switch (type) {
    case T_DOUBLE: return ((const double*)p)[i];
    case T_HALF: return from_half(((const unsigned short*)p)[i]);
    case T_BFLOAT16: return from_bfloat16(((const unsigned short*)p)[i]);
    case T_INT: return ((const int*)p)[i];
    default: return ((const float*)p)[i];
  }
}

__device__ void store_value(void* p, u64 i, int type, double v) {
  switch (type) {
    case T_DOUBLE: ((double*)p)[i] = v; break;
    case T_HALF: ((unsigned short*)p)[i] = half_bits((float)v); break;
    case T_BFLOAT16: ((unsigned short*)p)[i] = bfloat16_bits((float)v); break;
    case T_INT: ((int*)p)[i] = (int)v; break;
    default: ((float*)p)[i] = (float)v; break;
  }
}

// Element i of randomValues(value, n, seed), base = randomBase(seed), stored as `storage`.
extern "C" __global__ void cudaburg_fill(void* data, int storage, int value, u64 n, u64 base) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    u64 bits = splitmix64(base + i);
    double v;
    if (value == T_INT) {
      v = (double)((long long)(bits % 9) - 4);
    } else {
      double unit = (double)(bits >> 11) * 1.1102230246251565404236316680908203125e-16;  // 2^-53
      float f = (float)(2 * unit - 1);
      switch (value) {
        case T_DOUBLE: v = 2 * unit - 1; break;
        case T_HALF: v = from_half(half_bits(f)); break;
        case T_BFLOAT16: v = from_bfloat16(bfloat16_bits(f)); break;
        case T_TF32: v = round_tf32(f); break;
        default: v = f; break;
      }
    }
    store_value(data, i, storage, v);
  }
}

// The element-wise epilogue of a library's product (epilogue_shape.hpp), in fp32 as the libraries
// compute theirs: element i of `product` times scale[c], plus shift[c] (c = i / channelStride %
// channels) and shortcut[i], through the activation, stored as outType. Null arrays are left out.
extern "C" __global__ void cudaburg_epilogue(const void* product, int productType, void* out, int outType,
                                             const void* scale, int scaleType, const void* shift, int shiftType,
                                             const void* shortcut, int shortcutType, u64 channelStride,
                                             u64 channels, int activation, u64 n) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    u64 c = i / channelStride % channels;
    float x = (float)load_value(product, i, productType);
    if (scale) x *= (float)load_value(scale, c, scaleType);
    if (shift) x += (float)load_value(shift, c, shiftType);
    if (shortcut) x += (float)load_value(shortcut, i, shortcutType);
    switch (activation) {
      case A_RELU: x = fmaxf(x, 0.0f); break;
      case A_GELU_TANH: x = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); break;
      case A_GELU_ERF: x = 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); break;
      default: break;
    }
    store_value(out, i, outType, x);
  }
}

struct Partial {
  double diffNorm, refNorm, worst;
  u64 worstIndex, nonFinite, firstNonFinite, refNonFinite;
};

__device__ bool finite(double x) { return fabs(x) <= 1.7976931348623157e308; }

// Folds `b` (later elements of the same thread, or another thread's) into `a`; ties keep the
// lower index, so that the worst element is the first of the largest differences.
__device__ void merge(Partial& a, const Partial& b) {
  a.diffNorm += b.diffNorm;
  a.refNorm += b.refNorm;
  if (b.worst > a.worst || (b.worst == a.worst && b.worstIndex < a.worstIndex)) {
    a.worst = b.worst;
    a.worstIndex = b.worstIndex;
  }
  if (b.nonFinite > 0 && (a.nonFinite == 0 || b.firstNonFinite < a.firstNonFinite)) a.firstNonFinite = b.firstNonFinite;
  a.nonFinite += b.nonFinite;
  a.refNonFinite += b.refNonFinite;
}

extern "C" __global__ void __launch_bounds__(THREADS) cudaburg_compare(const void* out, int outType, const void* ref,
                                                                      int refType, u64 n, Partial* partials) {
  Partial mine = {0, 0, -1, 0, 0, 0, 0};
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    double r = load_value(ref, i, refType);
    if (!finite(r)) {
      ++mine.refNonFinite;
      continue;
    }
    double o = load_value(out, i, outType);
    if (!finite(o)) {
      if (mine.nonFinite++ == 0) mine.firstNonFinite = i;
      continue;
    }
    double d = o - r;
    mine.diffNorm += d * d;
    mine.refNorm += r * r;
    if (fabs(d) > mine.worst) {
      mine.worst = fabs(d);
      mine.worstIndex = i;
    }
  }
  __shared__ Partial all[THREADS];
  all[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) merge(all[threadIdx.x], all[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = all[0];
}
)";

}  // namespace

const std::string& deviceChecksSource() {
  static const std::string source = [] {
    std::string s = "// cudaburg's checking kernels: random inputs and comparisons on the GPU.\n";
    auto define = [&](const char* name, long value) {
      s += "#define " + std::string(name) + " " + std::to_string(value) + "\n";
    };
    define("T_FLOAT", long(ScalarType::Float));
    define("T_DOUBLE", long(ScalarType::Double));
    define("T_HALF", long(ScalarType::Half));
    define("T_INT", long(ScalarType::Int));
    define("T_BFLOAT16", long(ScalarType::BFloat16));
    define("T_TF32", long(ScalarType::TF32));
    define("THREADS", long(kCheckThreads));
    define("A_RELU", long(EpilogueShape::Activation::Relu));
    define("A_GELU_TANH", long(EpilogueShape::Activation::GeluTanh));
    define("A_GELU_ERF", long(EpilogueShape::Activation::GeluErf));
    return s + kBody;
  }();
  return source;
}

}  // namespace cudaburg
