// The index arithmetic of the CUDA ConcatV2/Pack kernel (array_ops_gpu.cu),
// also compiled for the host so that tests/kernels/cuda_array_body_test.cc
// checks it against the CPU kernel without a GPU.
//
// As on the CPU, every input is viewed as [rows, width_k] and the output as
// [rows, out_row_width]; output row r is the inputs' rows r one after
// another. One launch copies up to kMaxConcatInputs non-empty inputs, whose
// columns are a contiguous range [col_begin, col_begin + width) of the
// output; the table of their pointers travels in the kernel's parameters,
// so no device memory is needed for it. More inputs take more launches.
#ifndef WEFT_KERNELS_CUDA_CONCAT_BODY_H_
#define WEFT_KERNELS_CUDA_CONCAT_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// 64 inputs keep the parameters near 1.1 KB, well inside the 4 KB every
// CUDA architecture accepts.
inline constexpr int kMaxConcatInputs = 64;

struct ConcatParams {
  int num_inputs = 0;
  int64_t out_row_width = 0;
  int64_t col_begin = 0;
  // Columns of the output this launch writes: col_offsets[num_inputs].
  int64_t width = 0;
  // Input k fills columns [col_offsets[k], col_offsets[k + 1]) of this
  // launch's range; every input is non-empty, so they increase strictly.
  int64_t col_offsets[kMaxConcatInputs + 1] = {};
  const void* inputs[kMaxConcatInputs] = {};
};

template <typename Index>
struct ConcatElement {
  int input;  // which of p.inputs
  Index src;  // element index in that input
  Index dst;  // element index in the output
};

// Where the launch's element `j` (of rows * p.width) comes from and goes.
// Index is int32_t when the output has fewer than 2^31 elements (32-bit
// division is several times faster on GPUs).
template <typename Index>
WEFT_HOST_DEVICE ConcatElement<Index> ConcatLocate(const ConcatParams& p,
                                                   Index j) {
  const Index width = static_cast<Index>(p.width);
  const Index row = j / width;
  const Index col = j - row * width;
  // The last input whose first column is <= col.
  int lo = 0, hi = p.num_inputs - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (static_cast<Index>(p.col_offsets[mid]) <= col) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const Index first = static_cast<Index>(p.col_offsets[lo]);
  const Index in_width = static_cast<Index>(p.col_offsets[lo + 1]) - first;
  ConcatElement<Index> e;
  e.input = lo;
  e.src = row * in_width + (col - first);
  e.dst = row * static_cast<Index>(p.out_row_width) +
          static_cast<Index>(p.col_begin) + col;
  return e;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_CONCAT_BODY_H_
