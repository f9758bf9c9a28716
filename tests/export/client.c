/* A C program calling an exported library (tests/export): every call here is refused before any
   launch (a null pointer, a misaligned one, sizes that were not tuned), so it runs with or without
   a GPU, and each refusal must come with its code and message. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conv2d.h"
#include "matmul.h"

static int failures = 0;

static void expect(cudaError_t got, const char* message, const char* wanted) {
  if (got != cudaErrorInvalidValue || strstr(message, wanted) == NULL) {
    printf("FAIL: got error %d, message '%s'; wanted cudaErrorInvalidValue and '%s'\n", (int)got, message, wanted);
    ++failures;
  }
}

int main(void) {
  /* 16-byte aligned addresses no call below reads: each is refused first. */
  float* p = (float*)(uintptr_t)0x100000;
  const float* misaligned = (const float*)(uintptr_t)(0x100000 + 4);
  expect(matmul(NULL, p, p, 2048, 2048, 2048, 0), matmul_last_error(), "matmul: C is a null pointer");
  expect(matmul(p, misaligned, p, 2048, 2048, 2048, 0), matmul_last_error(), "A (0x100004) is not 16-byte aligned");
  expect(matmul(p, p, p, 1024, 1024, 1024, 0), matmul_last_error(),
         "matmul: no kernel was tuned for M=1024,N=1024,K=1024 (tuned: M=2048,N=2048,K=2048; M=127,N=4099,K=513)");
  expect(conv2d(p, NULL, p, 0), conv2d_last_error(), "conv2d: In is a null pointer");
  if (failures) return 1;
  printf("client: every bad call refused with its message\n");
  return 0;
}
