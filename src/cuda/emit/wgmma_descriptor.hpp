#pragma once
// The shared-memory matrix descriptors of wgmma.mma_async (PTX ISA, "Matrix Descriptor Format"):
// a 64-bit value whose bits 0-13 hold the operand's start address, 16-29 its leading dimension
// byte offset and 32-45 its stride dimension byte offset, each encoded as (bytes & 0x3FFFF) >> 4;
// bits 49-51 a base offset (0 where the swizzle pattern starts on its own boundary: 1024 bytes for
// the 128-byte swizzle) and bits 62-63 the swizzle mode (1: 128-byte swizzle).
//
// Operands here are always stored with the 128-byte swizzle (src/loop/swizzle.hpp with rows of 128
// bytes: chunk c of row r at chunk c ^ (r & 7)), in atoms of 8 rows of 128 bytes, 1024 bytes each:
//   K-major (A[m][k], a row of 64 16-bit k): the rows of m follow each other, so the 8-row groups
//     of m lie 1024 bytes apart (stride offset); the leading offset is not used with a swizzle
//     (the ISA: "assumed 1", i.e. 16 bytes). A k step of 16 moves the start 32 bytes on in the row.
//     tf32 (a row of 32 k, a k step of 8, 32 bytes too) reads B so as well: B[n][k], stored
//     transposed, is K-major exactly as A.
//   MN-major (B[k][n] in slabs of 64 n, a row of 64 16-bit n): the 8-row groups of k lie 1024
//     bytes apart (stride offset), and the slabs of 64 n `slabBytes` apart (leading offset). A k
//     step of 16 moves the start 16 rows, 2048 bytes, on.
// In the ISA's canonical layouts (CuTe notation, T = 8 elements of 16 bits), before the swizzle:
// K-major ((8,m),(T,2k)) : ((8T,SBO),(1,T)) and MN-major ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)).
#include <cstdint>

namespace cudaburg {

constexpr int64_t kWgmmaSwizzleBytes = 128;   // a row of the 128-byte swizzle
constexpr int64_t kWgmmaAtomBytes = 8 * 128;  // its 8 rows: where the swizzle pattern repeats
constexpr int64_t kWgmmaKStepBytes = 32;      // one instruction's k along a K-major row (16 x 16 bits, 8 x 32)
constexpr uint64_t kWgmmaSwizzle128 = 1;      // the descriptor's swizzle mode for it

// The descriptor field encoding of a byte address or offset.
constexpr uint64_t wgmmaEncode(uint64_t bytes) { return (bytes & 0x3FFFF) >> 4; }

// The descriptor of an operand stored with the 128-byte swizzle, starting at shared address
// `address`, with the two byte offsets (base offset 0: the atoms start on 1024-byte boundaries).
constexpr uint64_t wgmmaDescriptor(uint64_t address, uint64_t leadingBytes, uint64_t strideBytes) {
  return wgmmaEncode(address) | wgmmaEncode(leadingBytes) << 16 | wgmmaEncode(strideBytes) << 32 |
         kWgmmaSwizzle128 << 62;
}

// The offsets of the two layouts above.
struct WgmmaOffsets {
  uint64_t leadingBytes = 0, strideBytes = 0;
};
constexpr WgmmaOffsets wgmmaKMajorOffsets() { return {16, kWgmmaAtomBytes}; }
constexpr WgmmaOffsets wgmmaMnMajorOffsets(uint64_t slabBytes) { return {slabBytes, kWgmmaAtomBytes}; }

}  // namespace cudaburg
