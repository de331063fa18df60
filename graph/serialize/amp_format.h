// Constants of the .amp model file format, shared by the writer, the reader and tests.
// The schema and the evolution rules are in graph/schema/model.fbs.
//
// File layout (little-endian):
//   [0, 4)        uint32 L, the FlatBuffer's length (FlatBuffers' size prefix)
//   [4, 4 + L)    FlatBuffer, root amp.fb.Model; identifier "AMP1" at bytes [8, 12)
//   zero padding up to a multiple of kAmpWeightAlignment
//   weight blobs, each at a kAmpWeightAlignment-aligned offset from the file start
//
// Usage: a tool that sniffs files checks kAmpFileIdentifier at kAmpIdentifierOffset.
#pragma once

#include <cstddef>
#include <cstdint>

namespace amp::graph {

inline constexpr char kAmpFileIdentifier[] = "AMP1";  // 4 bytes + NUL
inline constexpr size_t kAmpIdentifierOffset = 8;     // size prefix + root offset
// Size prefix + root offset + identifier: the least a file can hold to be sniffed.
inline constexpr size_t kAmpMinFileSize = 12;
// Bumped only for changes an older reader must refuse; append-only additions keep it.
inline constexpr uint32_t kAmpSchemaVersion = 1;
// 256 covers every SIMD width and cudaMemcpy's best alignment, and lets weight views be
// used in place by any kernel.
inline constexpr uint64_t kAmpWeightAlignment = 256;
// Caps that keep a hostile file from requesting absurd work (ONNX tensors never come
// near them).
inline constexpr size_t kAmpMaxRank = 64;

}  // namespace amp::graph
