// kernels -> core is allowed.
#include "core/fine.h"
