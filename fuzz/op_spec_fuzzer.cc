// Fuzz target: op and kernel registrations as an op library makes them,
// through the plugin ABI's function table (include/weft/plugin.h): the
// REGISTER_OP spec strings ("x: T", "T: {int32, float} = DT_FLOAT",
// "n: int >= 1 = 3", "N * T", ...), kernel type constraints and host-memory
// args, and attr values read back the way a library's kernel reads them.
//
// The input is lines; the first names the op, each other starts with a
// letter saying what it passes:
//   i SPEC   op_input        o SPEC   op_output       a SPEC   op_attr
//   d TEXT   op_doc          s        op_set_is_stateful
//   K DEV    kernel_new(op, DEV), then for that kernel:
//   k ATTR N kernel_type_constraint(ATTR, dtype N)
//   h ARG    kernel_host_memory(ARG)     p N      kernel_priority(N)
//   r NAME   read attr NAME of the op's defaults with every attr_* reader
// Nothing is committed to the global registries: a load commits only after
// weft_plugin_init returns, which this target never reaches.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "api/plugin_api.h"
#include "ops/attr_value.h"
#include "weft/plugin.h"

namespace {

void UnchangedShape(weft_shape_context* ctx, void* user_data,
                    weft_status* status) {
  const weft_plugin_api* api = static_cast<const weft_plugin_api*>(user_data);
  if (api->shape_num_inputs(ctx) > 0 && api->shape_num_outputs(ctx) > 0) {
    api->shape_set_output_to_input(ctx, 0, 0, status);
  }
}

void Compute(void* kernel, weft_kernel_context* ctx, weft_status* status) {}

// Every reader on one attr name: each must answer (a value or a status)
// without crashing, whatever type the attr has.
void ReadEveryWay(const weft_plugin_api* api, const weft_attrs* attrs,
                  const std::string& name) {
  weft_status* s = api->status_new();
  int64_t i = 0;
  float f = 0;
  int b = 0;
  weft_dtype t = WEFT_INVALID;
  const char* str = nullptr;
  size_t len = 0;
  const int64_t* ints = nullptr;
  const float* floats = nullptr;
  int64_t n = 0;
  api->attr_int(attrs, name.c_str(), &i, s);
  api->attr_float(attrs, name.c_str(), &f, s);
  api->attr_bool(attrs, name.c_str(), &b, s);
  api->attr_type(attrs, name.c_str(), &t, s);
  api->attr_string(attrs, name.c_str(), &str, &len, s);
  api->attr_int_list(attrs, name.c_str(), &ints, &n, s);
  api->attr_float_list(attrs, name.c_str(), &floats, &n, s);
  // Null outputs are allowed too.
  api->attr_int(attrs, name.c_str(), nullptr, nullptr);
  api->attr_string(attrs, name.c_str(), nullptr, nullptr, nullptr);
  api->status_delete(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const weft_plugin_api* api = weft::PluginApiTable();
  std::vector<std::string> lines = absl::StrSplit(
      absl::string_view(reinterpret_cast<const char*>(data), size), '\n');
  if (lines.empty()) return 0;
  weft_plugin plugin;
  plugin.path = "fuzz_op_library.so";
  api->declare_api_version(&plugin, weft::kPluginApiVersion);

  const std::string& op_name = lines[0];
  weft_op_builder* op = api->op_new(&plugin, op_name.c_str());
  std::vector<std::string> reads;
  for (size_t l = 1; l < lines.size(); ++l) {
    absl::string_view line = lines[l];
    if (line.empty()) continue;
    const std::string arg(line.size() > 2 ? line.substr(2) : "");
    switch (line[0]) {
      case 'i':
        api->op_input(op, arg.c_str());
        break;
      case 'o':
        api->op_output(op, arg.c_str());
        break;
      case 'a':
        api->op_attr(op, arg.c_str());
        break;
      case 'd':
        api->op_doc(op, arg.c_str());
        break;
      case 's':
        api->op_set_is_stateful(op);
        break;
      case 'r':
        reads.push_back(arg);
        break;
      default:
        break;
    }
  }
  api->op_set_shape_fn(op, UnchangedShape, const_cast<weft_plugin_api*>(api));
  weft_status* status = api->status_new();
  api->op_register(op, status);

  // Kernels, after the op (as a library registers them).
  weft_kernel_builder* kernel = nullptr;
  auto finish_kernel = [&] {
    if (kernel == nullptr) return;
    api->kernel_set_callbacks(kernel, nullptr, Compute, nullptr, nullptr);
    api->kernel_register(kernel, status);
    kernel = nullptr;
  };
  for (size_t l = 1; l < lines.size(); ++l) {
    absl::string_view line = lines[l];
    if (line.empty()) continue;
    const std::string arg(line.size() > 2 ? line.substr(2) : "");
    if (line[0] == 'K') {
      finish_kernel();
      kernel = api->kernel_new(&plugin, op_name.c_str(), arg.c_str());
    } else if (kernel != nullptr && line[0] == 'k') {
      std::vector<std::string> parts = absl::StrSplit(arg, ' ');
      int dtype = 0;
      if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &dtype)) {
        api->kernel_type_constraint(kernel, parts[0].c_str(),
                                    static_cast<weft_dtype>(dtype));
      }
    } else if (kernel != nullptr && line[0] == 'h') {
      api->kernel_host_memory(kernel, arg.c_str());
    } else if (kernel != nullptr && line[0] == 'p') {
      int32_t priority = 0;
      if (absl::SimpleAtoi(arg, &priority)) {
        api->kernel_priority(kernel, priority);
      }
    }
  }
  finish_kernel();

  // The op's attr defaults, read back through the ABI as a kernel would.
  if (!plugin.ops.empty()) {
    weft::AttrMap defaults;
    for (const auto& attr : plugin.ops.back().op_def.attr) {
      if (attr.default_value) defaults[attr.name] = *attr.default_value;
      reads.push_back(attr.name);
    }
    const weft_attrs* handle = reinterpret_cast<const weft_attrs*>(&defaults);
    for (const std::string& name : reads) ReadEveryWay(api, handle, name);
  }
  api->status_delete(status);
  return 0;
}
