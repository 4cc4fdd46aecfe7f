// Op registrations are static initializers in files no test references by
// symbol (ops/math_ops.cc, ops/nn_ops.cc, ...). In the static-library build
// (the sanitizer CI run) this test fails if the linker dropped them, which is
// what `weft::linked` (whole-archive linking) prevents.
#include "gtest/gtest.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

TEST(StaticRegistrationTest, OpsFromEveryFamilyFileAreRegistered) {
  for (const char* op : {"Const", "Placeholder", "Identity",  // array_ops
                         "MatMul", "AddV2", "Sum",            // math_ops
                         "Conv2D", "Relu", "MaxPool",         // nn_ops
                         "ResizeBilinear",                    // image_ops
                         "TensorListReserve"}) {              // list_ops
    auto found = OpRegistry::Global()->LookUp(op);
    EXPECT_TRUE(found.ok()) << op << ": " << found.status();
  }
  EXPECT_TRUE(OpRegistry::Global()->StaticRegistrationStatus().ok())
      << OpRegistry::Global()->StaticRegistrationStatus();
}

}  // namespace
}  // namespace weft
