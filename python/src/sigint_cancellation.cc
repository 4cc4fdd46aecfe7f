#include "sigint_cancellation.h"

#include <Python.h>
#include "nb_casters.h"

#include <atomic>

namespace weft::python {
namespace {

unsigned long g_main_thread = 0;  // PyThread_get_thread_ident() at init

// Read by the signal handler: plain lock-free atomics and a struct written
// before the handler is installed.
std::atomic<CancellationToken*> g_token{nullptr};
std::atomic<bool> g_fired{false};
struct sigaction g_previous {};

void OnSigint(int signo, siginfo_t* info, void* context) {
  g_fired.store(true, std::memory_order_relaxed);
  if (CancellationToken* token = g_token.load(std::memory_order_acquire)) {
    token->Cancel();
  }
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) {
      g_previous.sa_sigaction(signo, info, context);
    }
  } else if (g_previous.sa_handler != SIG_DFL &&
             g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signo);
  }
}

}  // namespace

void InitSigintCancellation() { g_main_thread = PyThread_get_thread_ident(); }

SigintCancellation::SigintCancellation(CancellationToken* token) {
  if (PyThread_get_thread_ident() != g_main_thread) return;
  if (sigaction(SIGINT, nullptr, &previous_) != 0) return;
  if (!(previous_.sa_flags & SA_SIGINFO) &&
      (previous_.sa_handler == SIG_DFL || previous_.sa_handler == SIG_IGN)) {
    return;
  }
  g_previous = previous_;
  g_fired.store(false, std::memory_order_relaxed);
  g_token.store(token, std::memory_order_release);
  struct sigaction ours {};
  ours.sa_sigaction = OnSigint;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  installed_ = sigaction(SIGINT, &ours, nullptr) == 0;
  if (!installed_) g_token.store(nullptr, std::memory_order_release);
}

SigintCancellation::~SigintCancellation() { Restore(); }

void SigintCancellation::Restore() {
  if (!installed_) return;
  sigaction(SIGINT, &previous_, nullptr);
  g_token.store(nullptr, std::memory_order_release);
  installed_ = false;
  fired_ = g_fired.load(std::memory_order_relaxed);
}

void SigintCancellation::Check() {
  Restore();
  if (fired_ && PyErr_CheckSignals() != 0) throw nanobind::python_error();
}

}  // namespace weft::python
