// Ctrl-C during a run. Python's own SIGINT handler only records the signal;
// Python raises KeyboardInterrupt when the main thread next runs bytecode,
// which it does not while it waits in Session::Run with the GIL released. For
// the length of one run on the main thread, this installs a SIGINT handler
// that cancels the run's token (the run stops before its next kernel) and
// then calls the handler it replaced, so Python records the signal as it
// would have. After the run, Check() lets Python act on it: the default
// handler raises KeyboardInterrupt.
//
// Only the main thread takes part: Python delivers KeyboardInterrupt nowhere
// else, and runs on the main thread follow one another, so one scope is
// active at a time. When SIGINT is ignored or left to the system's default
// (signal.SIG_IGN, SIG_DFL), nothing is installed. The cost is two
// sigaction() calls per main-thread run.
#ifndef WEFT_PYTHON_SIGINT_CANCELLATION_H_
#define WEFT_PYTHON_SIGINT_CANCELLATION_H_

#include <signal.h>

#include "executor/session.h"

namespace weft::python {

// Records the main thread's id; call once, from the module's init, with the
// GIL held.
void InitSigintCancellation();

class SigintCancellation {
 public:
  // Construct with the GIL held, before releasing it for the run.
  explicit SigintCancellation(CancellationToken* token);
  // Restores the replaced handler; may run without the GIL.
  ~SigintCancellation();
  SigintCancellation(const SigintCancellation&) = delete;
  SigintCancellation& operator=(const SigintCancellation&) = delete;

  // With the GIL held, after the run: when SIGINT arrived during the run,
  // runs Python's signal handlers and throws what they raise (nanobind's
  // python_error: KeyboardInterrupt for the default handler).
  // Restores the replaced handler first.
  void Check();

 private:
  void Restore();

  bool installed_ = false;
  bool fired_ = false;
  struct sigaction previous_ {};
};

}  // namespace weft::python

#endif  // WEFT_PYTHON_SIGINT_CANCELLATION_H_
