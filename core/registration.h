// What the static registries (REGISTER_OP, REGISTER_KERNEL_BUILDER) share:
// where a registration was written, for messages such as "op 'Foo'
// registered twice: at ops/a.cc:10 and at ops/b.cc:4", and how the failures
// of registrations that ran before main() are reported. One spelling for
// ops and kernels, and none that depends on where the tree was checked out.
#ifndef WEFT_CORE_REGISTRATION_H_
#define WEFT_CORE_REGISTRATION_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace weft {

// "kernels/cpu/matmul_op.cc:42" from __FILE__ and __LINE__: the path
// relative to weft's source root for a file inside it (the root as the
// compiler spelled it for this library), else its last two components
// ("plugins/my_op.cc:7"); a path with fewer is kept whole.
std::string SourceLocation(absl::string_view file, int line);

// The failures of static registrations as one status: OK for none, the
// failure itself for one, else "<N> <what> registrations failed:" and each
// message on a line of its own, with the first failure's code.
Status JoinRegistrationErrors(const std::vector<Status>& errors,
                              absl::string_view what);

}  // namespace weft

#endif  // WEFT_CORE_REGISTRATION_H_
