// Precompiled for every test executable (WEFT_PRECOMPILE_HEADERS): what
// libweft's sources get (cmake/pch/library.h) plus GoogleTest and GoogleMock,
// which nearly every test includes. Third-party headers only, as there.
#include "library.h"

#include <random>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
