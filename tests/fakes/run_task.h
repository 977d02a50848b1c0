// RunTask: drives a simulated task to completion on its event queue (tests).
#pragma once

#include <optional>
#include <utility>

#include <glog/logging.h>

#include "sim/event_queue.h"
#include "sim/task.h"

namespace fakes {

// Runs `task` on `q` until it finishes (CHECK-fails if the simulation runs
// dry first) and returns its result.
template <class T>
T RunTask(sim::EventQueue& q, sim::Task<T> task) {
  std::optional<T> result;
  bool done = false;
  auto body = [&]() -> sim::Task<void> {
    result.emplace(co_await std::move(task));
    done = true;
  };
  sim::Task<void> t = body();
  auto h = t.Release();
  sim::Resume(h);
  while (!done) {
    if (!q.Step()) break;
  }
  CHECK(done) << "task did not finish: the simulation ran out of events";
  h.destroy();
  return std::move(*result);
}
inline void RunTask(sim::EventQueue& q, sim::Task<void> task) {
  bool done = false;
  auto body = [&]() -> sim::Task<void> {
    co_await std::move(task);
    done = true;
  };
  sim::Task<void> t = body();
  auto h = t.Release();
  sim::Resume(h);
  while (!done) {
    if (!q.Step()) break;
  }
  CHECK(done) << "task did not finish: the simulation ran out of events";
  h.destroy();
}

}  // namespace fakes
