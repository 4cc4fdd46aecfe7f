// Includes only its own room and what is outside the project.
#include <vector>

#include "absl/strings/str_cat.h"
