// The key a TensorBundle stores one slice of a partitioned variable under:
// TensorFlow's checkpoint::EncodeTensorNameSlice, built from OrderedCode
// (tensorflow/core/lib/strings/ordered_code.cc): the number 0, the full
// tensor's key as an escaped string, the rank, then each dimension's start
// and length (-1 for the whole dimension) as order-preserving signed
// numbers.
#ifndef WEFT_SAVEDMODEL_TENSOR_SLICE_KEY_H_
#define WEFT_SAVEDMODEL_TENSOR_SLICE_KEY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/saved_model_def.h"

namespace weft {

std::string EncodeTensorSliceKey(absl::string_view full_key,
                                 const std::vector<BundleSliceExtent>& slice);

// TensorFlow's slice spelling, "0,2:-" (start,length per dimension, "-" for
// a whole one), for messages.
std::string TensorSliceSpec(const std::vector<BundleSliceExtent>& slice);

namespace ordered_code {
// Exposed for tests.
void AppendNumIncreasing(std::string* dest, uint64_t value);
void AppendSignedNumIncreasing(std::string* dest, int64_t value);
void AppendString(std::string* dest, absl::string_view s);
}  // namespace ordered_code

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_TENSOR_SLICE_KEY_H_
