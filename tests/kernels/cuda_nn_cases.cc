#include "tests/kernels/cuda_kernel_cases.h"

namespace weft::test {

std::vector<Case> NnCases() { return {}; }

}  // namespace weft::test
