// Fibers: stackful simulated threads for synchronous code (SQLite).
//
// SQLite calls its VFS through plain synchronous C functions, while every
// fs::FileSystem call is a coroutine that completes later in simulated
// time. A Fiber runs such code on its own stack: when the code needs a
// coroutine's result it calls FiberRuntime::AwaitTask(), which starts the
// task from the event loop, switches back to the loop, and switches into
// the fiber again when the task has finished. To the synchronous code the
// call simply returns, with simulated time advanced.
//
// Everything runs on the one OS thread of the EventQueue: the loop and all
// fibers take turns, a fiber only ever runs inside an event of its own
// (never re-entrantly inside another component's code), and the order of
// those events is the queue's deterministic order. Task coroutines always
// run on the loop's stack, never on a fiber stack, so a fiber's stack holds
// only the synchronous code's frames.
//
// Stacks are boost::context protected fixed-size stacks: mmap'ed with a
// guard page below, so an overflow faults instead of corrupting memory, and
// only the pages actually touched consume memory. SQLite needs on the order
// of 100 KiB in its deepest paths (parser, B-tree balance, VDBE); the
// default (kDefaultStackBytes) leaves ample room for that plus logging.
//
// Lifetime: a fiber should finish (its body return) before the runtime is
// destroyed. When the runtime shuts down (Shutdown(), or its destructor)
// with unfinished fibers (a simulation stopped early), the task each one
// waits for is destroyed and every fiber runs on to its end at once, with
// its waits cut: AwaitTask() returns CancelledResult<T> without running the
// task (for fs::FsResult a failed call, Errno::kIo) and Sleep() returns. So
// SQLite sees I/O errors and winds down through its own error paths,
// freeing what it holds (a fiber's SQLite frames are never abandoned
// half-way). A fiber that keeps waiting (kMaxCutWaits cut waits), or waits
// for a result type without a CancelledResult, is unwound instead: an
// exception runs the C++ destructors on its stack (C frames in between are
// skipped). A fiber not started by then never runs its body.
//
// AddressSanitizer is told about every switch between the loop's stack and
// a fiber's (__sanitizer_start/finish_switch_fiber); without that it takes
// an exception thrown on a fiber stack for one on the thread's stack, skips
// unpoisoning, and reports false stack-buffer-overflows. A stack is
// unpoisoned before it is unmapped (its entry frame never returns).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>
#include <glog/logging.h>

#include "fs/file_system.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/task.h"
#include "sim/time.h"

namespace host::sqlite {

class FiberRuntime;

// What AwaitTask() returns instead of running a task once the runtime is
// shutting down: a failed result. Types without one (kDefined false) unwind
// the waiting fiber instead.
template <class T>
struct CancelledResult {
  static constexpr bool kDefined = false;
};
template <class U>
struct CancelledResult<fs::FsResult<U>> {
  static constexpr bool kDefined = true;
  static fs::FsResult<U> Get() { return fs::FsResult<U>{U{}, fs::Errno::kIo}; }
};

// One simulated thread with its own stack. Created by FiberRuntime::Spawn;
// owned by the runtime.
class Fiber {
 public:
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  ~Fiber();

  const std::string& name() const { return name_; }
  bool finished() const { return finished_; }
  // Simulated time at which the body returned (valid once finished()).
  sim::SimTime finish_time() const { return finish_time_; }
  // Number of times the fiber was switched into (a measure of work).
  uint64_t switches() const { return switches_; }

  // For a coroutine on the loop: `co_await fiber->Join();` resumes when the
  // body has returned (at once if it already has). One waiter at most.
  sim::Completion<bool>::Awaiter Join() { return done_.operator co_await(); }

 private:
  friend class FiberRuntime;
  Fiber(FiberRuntime* rt, std::string name, std::function<void()> body, size_t stack_bytes);

  // Event handler: switch into the fiber until it yields or finishes.
  void Enter();
  // Called on the fiber: switch back to the loop.
  void Leave();
  // Called on the loop when an awaited task has finished.
  void WakeFromTask();
  // AddressSanitizer bookkeeping, on the fiber: it has just arrived / is
  // about to switch to the stack it came from (for the last time once
  // `finished`).
  void Arrived();
  void Departing(bool finished);

  FiberRuntime* rt_;
  std::string name_;
  std::function<void()> body_;
  boost::context::fiber ctx_;     // the fiber's own continuation (valid while suspended)
  boost::context::fiber caller_;  // the loop's continuation (valid while the fiber runs)
  sim::MemberEvent<Fiber, &Fiber::Enter> enter_event_;
  sim::internal::ResumeEvent start_event_;  // starts an awaited task on the loop
  sim::SimThread thread_;                   // the fiber's identity (CPU model)
  sim::Task<void> driver_;                  // runs the awaited task (see AwaitTask)
  sim::Completion<bool> done_;
  bool finished_ = false;
  sim::SimTime finish_time_;
  uint64_t switches_ = 0;
  uint32_t cut_waits_ = 0;  // waits cut short by the shutdown
  // The fiber's stack, and the stack it was entered from (for ASan).
  const void* stack_bottom_ = nullptr;
  size_t stack_size_ = 0;
  const void* from_bottom_ = nullptr;
  size_t from_size_ = 0;
  void* fake_stack_ = nullptr;
};

class FiberRuntime {
 public:
  static constexpr size_t kDefaultStackBytes = 512 * 1024;

  // `stack_bytes` is the usable stack size of each fiber (rounded up to
  // pages; a guard page is added). REQUIRES: q outlives the runtime.
  explicit FiberRuntime(sim::EventQueue* q, size_t stack_bytes = kDefaultStackBytes);
  FiberRuntime(const FiberRuntime&) = delete;
  FiberRuntime& operator=(const FiberRuntime&) = delete;
  // Shuts down (see the file comment) and destroys the fibers.
  ~FiberRuntime();
  // Deschedules the fibers' events, destroys the tasks they wait for and
  // runs every unfinished fiber to its end with its waits cut (see the file
  // comment). Call it while what the fibers use is still alive. Idempotent.
  // REQUIRES: called on the loop.
  void Shutdown();
  bool shutting_down() const { return shutting_down_; }
  // Cut waits after which a fiber is unwound.
  static constexpr uint32_t kMaxCutWaits = 100000;

  // Creates a fiber that starts running `body` at the current simulated time
  // (from an event, after the caller's own code). The fiber is owned by the
  // runtime and stays valid until the runtime is destroyed.
  Fiber* Spawn(std::string name, std::function<void()> body);

  // --- Callable only from inside a fiber ---------------------------------

  // Runs `task` on the event loop and blocks the calling fiber until it
  // completes; returns its value. Simulated time advances by whatever the
  // task waits. The task starts from an event at now() (after events
  // already scheduled for this instant at the same priority). During a
  // shutdown: CancelledResult<T> at once (see the file comment).
  template <class T>
  T AwaitTask(sim::Task<T> task);
  // Blocks the calling fiber for `d` of simulated time (d >= 0); returns at
  // once during a shutdown.
  void Sleep(sim::SimTime d);
  // Lets every event already scheduled for now run, then continues.
  void Yield() { Sleep(sim::SimTime::Zero()); }
  // Spends `d` of CPU time on the host's cores (SetCpu; without one, or
  // with unlimited cores, a Sleep).
  void Compute(sim::SimTime d);
  // Fibers run as threads charged to CPU owner `owner` of `cpu` (null: no
  // CPU model). REQUIRES: before the first Spawn.
  void SetCpu(sim::CpuScheduler* cpu, uint16_t owner) {
    cpu_ = cpu;
    owner_ = owner;
  }

  // The fiber currently running, or nullptr on the event loop.
  Fiber* current() const { return current_; }
  bool InFiber() const { return current_ != nullptr; }

  sim::EventQueue* queue() const { return q_; }
  size_t stack_bytes() const { return stack_bytes_; }
  size_t fibers() const { return fibers_.size(); }
  size_t live_fibers() const;

 private:
  sim::CpuScheduler* cpu_ = nullptr;
  uint16_t owner_ = 0;
  friend class Fiber;
  template <class T>
  static sim::Task<void> Drive(sim::Task<T> task, std::optional<T>* out, Fiber* f);
  static sim::Task<void> DriveVoid(sim::Task<void> task, bool* done, Fiber* f);
  // Hands `driver` to the current fiber's start event and switches to the
  // loop; returns when the driver woke the fiber, or the shutdown did.
  void BlockOn(sim::Task<void> driver);
  // On the fiber, a wait the shutdown cut: counts it, and unwinds the fiber
  // past kMaxCutWaits.
  void WaitCut();
  // On the fiber: unwinds it (throws; caught where its body was called).
  [[noreturn]] static void Unwind();

  sim::EventQueue* q_;
  size_t stack_bytes_;
  Fiber* current_ = nullptr;
  bool shutting_down_ = false;
  std::vector<std::unique_ptr<Fiber>> fibers_;
};

// --- Implementation of the templates --------------------------------------

template <class T>
sim::Task<void> FiberRuntime::Drive(sim::Task<T> task, std::optional<T>* out, Fiber* f) {
  out->emplace(co_await task);
  f->WakeFromTask();
}

template <class T>
T FiberRuntime::AwaitTask(sim::Task<T> task) {
  if constexpr (std::is_void_v<T>) {
    bool done = false;
    if (!shutting_down_) BlockOn(DriveVoid(std::move(task), &done, current_));
    if (!done) WaitCut();
  } else {
    std::optional<T> result;
    if (!shutting_down_) BlockOn(Drive<T>(std::move(task), &result, current_));
    if (result.has_value()) return std::move(*result);
    WaitCut();
    if constexpr (CancelledResult<T>::kDefined) {
      return CancelledResult<T>::Get();
    } else {
      Unwind();
    }
  }
}

}  // namespace host::sqlite
