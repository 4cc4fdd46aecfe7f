// A core header reaching up into kernels: the arrow the test must catch.
#include "core/fine.h"
#include "kernels/kernel.h"
