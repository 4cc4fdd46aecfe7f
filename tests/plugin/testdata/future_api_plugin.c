/* An op library built against a plugin API one version newer than this
 * weft's: loading must refuse it, naming both versions. */
#include "weft/plugin.h"

WEFT_PLUGIN_EXPORT void weft_plugin_init(weft_plugin* p,
                                         const weft_plugin_api* api) {
  if (!api->declare_api_version(p, WEFT_PLUGIN_API_VERSION + 1)) return;
  /* Only reached if weft accepted the version, which it must not. */
  weft_op_builder* op = api->op_new(p, "FutureOp");
  api->op_output(op, "y: float");
  api->op_register(op, NULL);
}
