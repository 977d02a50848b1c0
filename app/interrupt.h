// Stopping a run early on SIGINT or SIGTERM with its results so far.
//
// The handlers only record the signal in an atomic flag; the event loop
// polls it (sim::EventQueue::SetInterrupt) and returns, and the run writes
// its result files marked incomplete. A handler is installed with
// SA_RESETHAND, so a second signal finds the default action and kills the
// process at once.
#pragma once

#include <atomic>

namespace app {

// Installs the handlers for SIGINT and SIGTERM (again after a signal).
void InstallInterruptHandlers();
// The flag the handlers set: the first signal's number, 0 while none came.
const std::atomic<int>* InterruptFlag();
int InterruptSignal();
// "SIGINT", "SIGTERM" or "a signal".
const char* SignalName(int sig);

}  // namespace app
