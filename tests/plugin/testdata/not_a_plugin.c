/* A shared object that is no weft op library: it has no weft_plugin_init. */
#include "weft/c_types.h"

WEFT_API int not_a_weft_plugin(void) { return 42; }
