// Fuzz target: a .npy file as `weft run --input NAME=FILE.npy` reads it
// (tools/npy.h). An array that parses must serialize and parse back to the
// same dtype, shape and bytes; anything else is reported by abort().
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  weft::StatusOr<weft::Tensor> t = weft::ParseNpy(bytes, "fuzz.npy");
  if (!t.ok()) return 0;
  weft::StatusOr<std::string> saved = weft::SerializeNpy(*t);
  if (!saved.ok()) {
    std::fprintf(stderr, "weft fuzz: a parsed array does not serialize: %s\n",
                 saved.status().ToString().c_str());
    std::abort();
  }
  weft::StatusOr<weft::Tensor> again = weft::ParseNpy(*saved, "roundtrip.npy");
  if (!again.ok() || again->dtype() != t->dtype() ||
      again->shape() != t->shape() || again->TotalBytes() != t->TotalBytes() ||
      (t->TotalBytes() > 0 &&
       std::memcmp(again->raw_data(), t->raw_data(), t->TotalBytes()) != 0)) {
    std::fprintf(stderr, "weft fuzz: .npy round trip changed the array\n");
    std::abort();
  }
  return 0;
}
