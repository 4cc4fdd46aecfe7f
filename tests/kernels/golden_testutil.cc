#include "tests/kernels/golden_testutil.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/dtype_traits.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"

namespace weft::test {
namespace {

bool ParseBool(const std::string& s, bool* out) {
  if (s == "1" || s == "true") {
    *out = true;
    return true;
  }
  if (s == "0" || s == "false") {
    *out = false;
    return true;
  }
  return false;
}

// Element `i` of `t` from `text`; false when it does not parse.
bool SetElement(Tensor* t, int64_t i, const std::string& text) {
  const char* c = text.c_str();
  char* end = nullptr;
  bool ok = true;
  auto as_int = [&]() {
    long long v = std::strtoll(c, &end, 10);
    ok = end != c && *end == '\0';
    return v;
  };
  auto as_uint = [&]() {
    unsigned long long v = std::strtoull(c, &end, 10);
    ok = end != c && *end == '\0';
    return v;
  };
  auto as_double = [&]() {
    double v = std::strtod(c, &end);
    ok = end != c && *end == '\0';
    return v;
  };
  switch (t->dtype()) {
    case DT_BOOL: {
      bool b = false;
      ok = ParseBool(text, &b);
      t->data<bool>()[i] = b;
      break;
    }
    case DT_INT8:
      t->data<int8_t>()[i] = static_cast<int8_t>(as_int());
      break;
    case DT_INT16:
      t->data<int16_t>()[i] = static_cast<int16_t>(as_int());
      break;
    case DT_INT32:
      t->data<int32_t>()[i] = static_cast<int32_t>(as_int());
      break;
    case DT_INT64:
      t->data<int64_t>()[i] = as_int();
      break;
    case DT_UINT8:
      t->data<uint8_t>()[i] = static_cast<uint8_t>(as_uint());
      break;
    case DT_UINT16:
      t->data<uint16_t>()[i] = static_cast<uint16_t>(as_uint());
      break;
    case DT_UINT32:
      t->data<uint32_t>()[i] = static_cast<uint32_t>(as_uint());
      break;
    case DT_UINT64:
      t->data<uint64_t>()[i] = as_uint();
      break;
    case DT_FLOAT:
      t->data<float>()[i] = std::strtof(c, &end);
      ok = end != c;
      break;
    case DT_DOUBLE:
      t->data<double>()[i] = as_double();
      break;
    // The generators check that double -> half (bfloat16), which rounds
    // through float as Eigen does, gives back the stored value.
    case DT_HALF:
      t->data<half>()[i] = static_cast<half>(as_double());
      break;
    case DT_BFLOAT16:
      t->data<bfloat16>()[i] = static_cast<bfloat16>(as_double());
      break;
    default:
      return false;
  }
  return ok;
}

// Element `i` of a complex tensor from its real and imaginary parts (each
// read in the part's own precision, so that it reads back exactly).
bool SetComplex(Tensor* t, int64_t i, const std::string& re,
                const std::string& im) {
  char* end_re = nullptr;
  char* end_im = nullptr;
  if (t->dtype() == DT_COMPLEX64) {
    const float r = std::strtof(re.c_str(), &end_re);
    const float m = std::strtof(im.c_str(), &end_im);
    t->data<complex64>()[i] = complex64(r, m);
  } else {
    const double r = std::strtod(re.c_str(), &end_re);
    const double m = std::strtod(im.c_str(), &end_im);
    t->data<complex128>()[i] = complex128(r, m);
  }
  return end_re != re.c_str() && *end_re == '\0' && end_im != im.c_str() &&
         *end_im == '\0';
}

// "in float 2,3 1 2 3 4 5 6"; complex tensors interleave the parts,
// "in complex64 2 re0 im0 re1 im1".
StatusOr<Tensor> ParseTensor(const std::vector<std::string>& words) {
  if (words.size() < 3) return errors::InvalidArgument("short tensor line");
  const std::optional<DataType> dtype = DataTypeFromName(words[1]);
  if (!dtype) return errors::InvalidArgument("unknown dtype ", words[1]);
  std::vector<int64_t> dims;
  if (words[2] != "scalar") {
    for (absl::string_view d : absl::StrSplit(words[2], ',')) {
      int64_t v;
      if (!absl::SimpleAtoi(d, &v)) {
        return errors::InvalidArgument("bad shape ", words[2]);
      }
      dims.push_back(v);
    }
  }
  WEFT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  const size_t n = words.size() - 3;
  const bool complex = DataTypeIsComplex(*dtype);
  const int64_t per_element = complex ? 2 : 1;
  if (static_cast<int64_t>(n) != per_element * shape.num_elements()) {
    return errors::InvalidArgument(n, " values for shape ", shape.DebugString(),
                                   complex ? " (two per complex element)" : "");
  }
  Tensor t(*dtype, shape);
  if (complex) {
    for (size_t i = 0; i < n; i += 2) {
      if (!SetComplex(&t, static_cast<int64_t>(i / 2), words[3 + i],
                      words[4 + i])) {
        return errors::InvalidArgument("bad ", words[1], " value '",
                                       words[3 + i], " ", words[4 + i], "'");
      }
    }
    return t;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!SetElement(&t, static_cast<int64_t>(i), words[3 + i])) {
      return errors::InvalidArgument("bad ", words[1], " value '", words[3 + i],
                                     "'");
    }
  }
  return t;
}

StatusOr<AttrValue> ParseAttr(const std::string& kind,
                              const std::string& value) {
  std::vector<std::string> items;
  if (value != "-") items = absl::StrSplit(value, ',');
  if (kind == "bool") {
    bool b;
    if (!ParseBool(value, &b)) return errors::InvalidArgument("bad bool");
    return AttrValue::Bool(b);
  }
  if (kind == "string") return AttrValue::String(value == "-" ? "" : value);
  if (kind == "int") {
    int64_t i;
    if (!absl::SimpleAtoi(value, &i)) return errors::InvalidArgument("bad int");
    return AttrValue::Int(i);
  }
  if (kind == "float") {
    double f;
    if (!absl::SimpleAtod(value, &f)) {
      return errors::InvalidArgument("bad float");
    }
    return AttrValue::Float(static_cast<float>(f));
  }
  if (kind == "type") {
    auto dt = DataTypeFromName(value);
    if (!dt) return errors::InvalidArgument("bad type");
    return AttrValue::Type(*dt);
  }
  if (kind == "ints") {
    std::vector<int64_t> v;
    for (const auto& s : items) {
      int64_t i;
      if (!absl::SimpleAtoi(s, &i)) return errors::InvalidArgument("bad int");
      v.push_back(i);
    }
    return AttrValue::IntList(v);
  }
  if (kind == "floats") {
    std::vector<float> v;
    for (const auto& s : items) {
      double f;
      if (!absl::SimpleAtod(s, &f)) return errors::InvalidArgument("bad float");
      v.push_back(static_cast<float>(f));
    }
    return AttrValue::FloatList(v);
  }
  if (kind == "types") {
    std::vector<DataType> v;
    for (const auto& s : items) {
      auto dt = DataTypeFromName(s);
      if (!dt) return errors::InvalidArgument("bad type");
      v.push_back(*dt);
    }
    return AttrValue::TypeList(v);
  }
  if (kind == "shape") {
    // "?" for unknown rank, "scalar" for rank 0, else sizes with -1 unknown.
    if (value == "?") return AttrValue::Shape(PartialTensorShape());
    if (value == "scalar") {
      return AttrValue::Shape(PartialTensorShape::Scalar());
    }
    std::vector<int64_t> dims;
    for (const auto& s : items) {
      int64_t i;
      if (!absl::SimpleAtoi(s, &i)) return errors::InvalidArgument("bad dim");
      dims.push_back(i);
    }
    StatusOr<PartialTensorShape> shape = PartialTensorShape::Build(dims);
    if (!shape.ok()) return shape.status();
    return AttrValue::Shape(*std::move(shape));
  }
  return errors::InvalidArgument("unknown attr kind '", kind, "'");
}

}  // namespace

std::string GoldenPath(const std::string& file) {
  return std::string(WEFT_SOURCE_DIR) + "/tests/kernels/testdata/" + file;
}

StatusOr<std::vector<GoldenCase>> LoadGoldenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::NotFound("cannot open ", path);
  std::vector<GoldenCase> cases;
  GoldenCase current;
  bool open = false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    auto fail = [&](absl::string_view why) {
      return errors::InvalidArgument(path, ":", n, ": ", why);
    };
    if (words[0] == "case") {
      if (open || words.size() != 3) return fail("bad 'case' line");
      current = GoldenCase();
      current.line = n;
      current.name = words[1];
      current.op = words[2];
      open = true;
    } else if (!open) {
      return fail("line outside a case");
    } else if (words[0] == "attr") {
      if (words.size() != 4) return fail("bad 'attr' line");
      StatusOr<AttrValue> v = ParseAttr(words[2], words[3]);
      if (!v.ok()) return fail(v.status().message());
      current.attrs[words[1]] = *std::move(v);
    } else if (words[0] == "in" || words[0] == "out") {
      StatusOr<Tensor> t = ParseTensor(words);
      if (!t.ok()) return fail(t.status().message());
      (words[0] == "in" ? current.inputs : current.expected)
          .push_back(*std::move(t));
    } else if (words[0] == "end") {
      if (current.expected.empty()) return fail("case has no 'out'");
      cases.push_back(std::move(current));
      open = false;
    } else {
      return fail("unknown record");
    }
  }
  if (open) return errors::InvalidArgument(path, ": last case has no 'end'");
  return cases;
}

const std::vector<GoldenCase>& CachedGoldens(const std::string& file,
                                             const char* env_var) {
  static std::mutex mu;
  static auto* loaded = new std::map<std::string, std::vector<GoldenCase>>;
  const char* env = env_var == nullptr ? nullptr : std::getenv(env_var);
  const std::string path = env != nullptr ? env : GoldenPath(file);
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded->find(path);
  if (it == loaded->end()) {
    StatusOr<std::vector<GoldenCase>> cases = LoadGoldenFile(path);
    EXPECT_TRUE(cases.ok()) << cases.status();
    it = loaded
             ->emplace(path, cases.ok() ? *std::move(cases)
                                        : std::vector<GoldenCase>())
             .first;
  }
  return it->second;
}

void ReplayGoldens(const std::vector<GoldenCase>& cases,
                   const std::string& file,
                   const std::function<void(const GoldenCase&)>& check) {
  ASSERT_FALSE(cases.empty()) << "no cases in " << file;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(file + ":" + std::to_string(c.line) + ": " + c.name);
    check(c);
  }
}

void ExpectCpuDtypesCovered(const std::string& op, const std::string& attr,
                            const DtypeCoverage& covered,
                            const std::function<bool(DataType)>& checked,
                            const std::string& generator) {
  const std::vector<const KernelDef*> defs =
      KernelRegistry::Global()->KernelsForOp(op);
  EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
  if (attr.empty()) return;
  for (const KernelDef* def : defs) {
    if (def->device_type != DEVICE_CPU) continue;
    const KernelDef::AttrConstraint* t = def->FindConstraint(attr);
    ASSERT_NE(t, nullptr) << op << " has no constraint on " << attr;
    for (DataType dt : t->allowed_types) {
      if (!checked(dt)) continue;
      EXPECT_TRUE(covered.count({op, dt}))
          << op << " has a CPU kernel for " << DataTypeName(dt)
          << " but no golden case; add one to " << generator;
    }
  }
}

bool GoldenHolds(DataType dtype) {
  return dtype != DT_STRING && !DataTypeIsQuantized(dtype);
}

}  // namespace weft::test
