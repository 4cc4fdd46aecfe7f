#include "tests/kernels/cuda_kernel_cases.h"

namespace weft::test {

std::vector<Case> ReduceCases() { return {}; }

}  // namespace weft::test
