// What every vector-path float loop of kernels/cpu/*_float.h (erfc, exp,
// GELU, tanh, ...) is tested for alike: it declines on the baseline path,
// stays within an ulp bound of a reference over a sweep, handles every
// length around its unrolled step with nothing written past the end, and
// gives the same bits in place. Each test brings its loop and its error
// measure (ulps against a long double or C library reference).
#ifndef WEFT_TESTS_KERNELS_FLOAT_LOOP_TESTUTIL_H_
#define WEFT_TESTS_KERNELS_FLOAT_LOOP_TESTUTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace weft {
namespace test {

// out[i] = f(in[i]) for i < n on the active vector path, or false (nothing
// written) on the baseline path: a *FloatOnVectorPath function.
using FloatLoop = std::function<bool(const float* in, float* out, int64_t n)>;
// |got - f(x)| in float ulps at f(x), as the test defines it.
using UlpError = std::function<double(float x, float got)>;

// `run` returns true on the vector paths and false on the baseline path,
// where it must leave its output alone.
void ExpectDeclinesOnlyOnTheBaselinePath(const FloatLoop& run);

// Each y[i] within `bound` ulps of `name`(x[i]); reports the first ten
// failures and records the worst error as the test property `property`.
void ExpectWithinUlps(const std::vector<float>& x, const std::vector<float>& y,
                      const UlpError& ulp_error, double bound,
                      const std::string& name,
                      const std::string& property = "worst_ulps");

// Every length n from 0 to 70 (past a four-vector step on both paths), on
// x[i] = first + step * i: within `bound` ulps, the same bits in place as
// out of place, and the element past the end untouched either way.
void ExpectEveryLengthAndInPlace(const FloatLoop& run,
                                 const UlpError& ulp_error, double bound,
                                 float first, float step);

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_KERNELS_FLOAT_LOOP_TESTUTIL_H_
