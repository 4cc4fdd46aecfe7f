/* Registers one good op, then one with a malformed attr spec: the load must
 * fail and leave neither op registered (loads are all or nothing). */
#include "weft/plugin.h"

static const weft_plugin_api* api;

static void unknown(weft_shape_context* c, void* u, weft_status* s) {
  (void)u;
  api->shape_set_output(c, 0, -1, NULL, s);
}

WEFT_PLUGIN_EXPORT void weft_plugin_init(weft_plugin* p,
                                         const weft_plugin_api* a) {
  if (!a->declare_api_version(p, WEFT_PLUGIN_API_VERSION)) return;
  api = a;
  weft_op_builder* good = api->op_new(p, "HalfBadGood");
  api->op_output(good, "y: float");
  api->op_set_shape_fn(good, unknown, NULL);
  api->op_register(good, NULL);

  weft_op_builder* bad = api->op_new(p, "HalfBadBroken");
  api->op_output(bad, "y: T");
  api->op_attr(bad, "T: {float, doubel}");
  api->op_set_shape_fn(bad, unknown, NULL);
  api->op_register(bad, NULL);
}
