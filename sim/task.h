// Simulated threads: C++20 coroutines on the simulation clock.
//
// A simulated thread (a workload job, a file-system background thread such
// as checkpoint or cleaning) is a coroutine returning Task<>. Work that takes
// simulated time suspends with `co_await Delay(q, d)`; waiting for another
// component uses a Completion (one-shot) or a Semaphore. Tasks compose:
// `co_await fs.Write(...)` runs a child Task and resumes the caller when it
// finishes, at once (no event).
//
// Control transfer. Coroutines run inside Resume(), a loop (a trampoline):
// awaiting a Task suspends the caller and names the child as the next
// coroutine to run; a finishing Task names its awaiter. The loop then
// resumes that one. So the native stack holds one coroutine frame at a time,
// however many tasks are awaited one after the other (a loop over
// synchronously completing children) or inside each other (a deep chain):
// flat by construction, without relying on the compiler turning symmetric
// transfer into tail calls (GCC does not at -O0 or under AddressSanitizer).
// Coroutines run in exactly the order symmetric transfer gives. Code outside
// a coroutine starts or continues one only through Resume() (ResumeEvent
// does): a coroutine resumed any other way that awaits or finishes a Task
// leaves its transfer pending, and the next Resume() CHECK-fails.
//
// Root threads. ThreadGroup::Spawn() starts a root task from an event at the
// current time; the root's frame is destroyed when it finishes. A group
// owns its roots: destroying it destroys the frames of those still
// suspended (a run cut short), with every task they await. A component
// that starts threads therefore owns a ThreadGroup declared after all the
// state those threads use (members are destroyed in reverse order).
// Spawn(q, task) starts a root nobody owns: only for a thread certain to
// finish before its queue stops (a leak otherwise).
//
// Destroying a suspended coroutine is safe: every awaitable here withdraws
// when destroyed mid-wait. Delay deschedules its event; a Completion
// forgets its waiter; a Semaphore acquirer leaves the wait list, or gives
// back a permit it was handed but had not taken yet. Awaitables elsewhere
// follow the same rule.
//
// Everything runs on the one EventQueue thread: no OS threads, no locks.
// Suspension points keep their Event inside the coroutine frame (or the
// Completion), so waiting never allocates; only creating a coroutine frame
// does (and Spawn, for the root's start event).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <glog/logging.h>

#include "sim/event_queue.h"

namespace sim {

template <class T = void>
class Task;
class ThreadGroup;

// A simulated thread's identity, for the CPU model (sim/cpu.h): which thread
// runs on a core (a core passing to another thread is a context switch), who
// its CPU time is charged to (`owner`, an index the CpuScheduler gives a
// name), and CPU time it owes (a lock acquisition's cost, charged with its
// next burst). Each root thread has one (ThreadGroup::Spawn), as has each
// vfs::OwnedThread and each SQLite fiber. Code runs "as" a thread: every
// event that resumes a coroutine restores the thread that was running when
// it suspended (ResumeEvent), so CurrentThread() is the thread whose code
// runs now, or null outside any (a device completion, setup code).
struct SimThread {
  uint64_t id = 0;     // unique among live threads; 0 = none
  uint16_t owner = 0;  // CpuScheduler owner index; 0 = unattributed
  SimTime owed;        // CPU time to add to the thread's next burst
};
// A fresh identity (a process-wide sequence: ids only compare for equality).
SimThread NewThread(uint16_t owner);

// Runs the suspended coroutine `h`, and every coroutine control passes to
// from there (children it awaits, awaiters of tasks that finish), until all
// of them wait for something other than a Task or have finished. Nested
// calls (from inside a coroutine) are allowed.
void Resume(std::coroutine_handle<> h);

namespace internal {

// The trampoline of this OS thread: the coroutine Resume() runs next. Set
// only just before a coroutine suspends back into Resume()'s loop.
inline constinit thread_local std::coroutine_handle<> next_to_run{};
// The simulated thread whose code runs now (see SimThread).
inline constinit thread_local SimThread* current_thread = nullptr;

// Runs code as thread `t` for its lifetime, then restores the one before.
class ThreadScope {
 public:
  explicit ThreadScope(SimThread* t) : saved_(current_thread) { current_thread = t; }
  ~ThreadScope() { current_thread = saved_; }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  SimThread* saved_;
};

[[noreturn]] void TransferOutsideResume() noexcept;

// Makes `h` the next coroutine to run once the running one has suspended.
inline void TransferTo(std::coroutine_handle<> h) noexcept { next_to_run = h; }

class RootRecord;
// Called when root `r` finishes: forgets and frees its record.
void FinishRoot(RootRecord* r) noexcept;

// Coroutine frames. Creating a frame is the one allocation of a task, and
// the file-system stack creates one per awaited call; frames up to
// kPooledFrameBytes come from per-size free lists (64-byte classes) that
// keep the memory of finished frames for the next one of the class, per OS
// thread. The lists only grow to the most frames of a class alive at once.
// Under AddressSanitizer every frame is a plain allocation, so a use of a
// destroyed frame is still reported.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPoolFrames = false;
#else
inline constexpr bool kPoolFrames = true;
#endif
inline constexpr std::size_t kFrameGrain = 64;
inline constexpr std::size_t kPooledFrameBytes = 4096;
struct FreeFrame {
  FreeFrame* next;
};
inline constinit thread_local FreeFrame* free_frames[kPooledFrameBytes / kFrameGrain]{};

inline void* AllocateFrame(std::size_t n) {
  if (!kPoolFrames || n > kPooledFrameBytes) return ::operator new(n);
  const std::size_t c = (n - 1) / kFrameGrain;
  if (FreeFrame* f = free_frames[c]) {
    free_frames[c] = f->next;
    return f;
  }
  return ::operator new((c + 1) * kFrameGrain);
}

inline void ReleaseFrame(void* p, std::size_t n) noexcept {
  if (!kPoolFrames || n > kPooledFrameBytes) {
    ::operator delete(p);
    return;
  }
  const std::size_t c = (n - 1) / kFrameGrain;
  auto* f = static_cast<FreeFrame*>(p);
  f->next = free_frames[c];
  free_frames[c] = f;
}

}  // namespace internal

// Code to run when a task ends, set with Task::SetFinishHook: `finished`
// runs once the task's body has returned, before anything else happens (its
// awaiter resumes, a root's frame goes), with a pointer to the task's value
// (null for Task<void>). It lets a decorator observe a call it passes on
// (its outcome, the time it ended) without a coroutine frame of its own. A
// task destroyed before it ends never runs it. The hook must outlive the
// task's end.
struct FinishHook {
  void (*finished)(FinishHook* self, const void* value) noexcept = nullptr;
};

namespace internal {

struct PromiseBase {
  static void* operator new(std::size_t n) { return AllocateFrame(n); }
  static void operator delete(void* p, std::size_t n) noexcept { ReleaseFrame(p, n); }

  std::coroutine_handle<> continuation;  // resumed when this task finishes
  RootRecord* root = nullptr;            // a root task: its frame goes at the end
  FinishHook* finish_hook = nullptr;     // runs first when the task ends

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.finish_hook != nullptr) [[unlikely]] {
        if constexpr (requires { h.promise().value; }) {
          p.finish_hook->finished(p.finish_hook, &*h.promise().value);
        } else {
          p.finish_hook->finished(p.finish_hook, nullptr);
        }
      }
      if (p.root != nullptr) {
        FinishRoot(p.root);
        h.destroy();
      } else if (p.continuation) {
        TransferTo(p.continuation);
      }
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() { std::terminate(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object();
  void return_value(T v) { value.emplace(std::move(v)); }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object();
  void return_void() {}
};

}  // namespace internal

inline void Resume(std::coroutine_handle<> h) {
  std::coroutine_handle<>& next = internal::next_to_run;
  // A transfer left pending: a coroutine resumed outside Resume().
  if (next) [[unlikely]] internal::TransferOutsideResume();
  next = h;
  do {
    std::exchange(next, nullptr).resume();
  } while (next);
}

// A lazily started coroutine. Await it from another coroutine, or hand it to
// a ThreadGroup. Move-only; destroying a Task destroys its frame (an unstarted
// one, or a suspended one with everything it awaits).
template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = internal::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      Reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() { Reset(); }

  bool valid() const { return static_cast<bool>(h_); }
  bool done() const { return h_ && h_.done(); }

  // Awaiting a task starts it and resumes the awaiter when it finishes.
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> awaiter) noexcept {
    h_.promise().continuation = awaiter;
    internal::TransferTo(h_);
  }
  T await_resume() {
    if constexpr (!std::is_void_v<T>) {
      return std::move(*h_.promise().value);
    }
  }

  // Runs `hook` when the task ends (see FinishHook). False, and nothing
  // set, when the task has a hook already. REQUIRES: valid(), not started.
  bool SetFinishHook(FinishHook* hook) noexcept {
    internal::PromiseBase& p = h_.promise();
    if (p.finish_hook != nullptr) return false;
    p.finish_hook = hook;
    return true;
  }

  // The frame, still owned by the task: start it with Resume() (e.g. from a
  // ResumeEvent); it stops at its end, to be destroyed with the task.
  Handle handle() const { return h_; }
  // Releases ownership of the frame. Start it with Resume(); it stops at its
  // end, for the new owner to destroy.
  Handle Release() { return std::exchange(h_, {}); }

 private:
  void Reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  Handle h_;
};

namespace internal {
template <class T>
Task<T> Promise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}

// Event that resumes a coroutine, as the thread that armed it.
class ResumeEvent final : public Event {
 public:
  explicit ResumeEvent(Priority p = Priority::kDefault) : Event(p) {}
  void Process() override {
    ThreadScope s(thread);
    Resume(h);
  }
  std::string_view Name() const override { return "resume"; }
  // Sets the coroutine to resume, and the thread to resume it as: the one
  // running now (the suspending coroutine's).
  void Arm(std::coroutine_handle<> hh) {
    h = hh;
    thread = current_thread;
  }
  std::coroutine_handle<> h;
  SimThread* thread = nullptr;
};

// A root thread's bookkeeping: the event that starts it, its identity, and
// its place in the owning group (none for Spawn()).
class RootRecord final : public Event {
 public:
  void Process() override {
    ThreadScope s(&thread);
    Resume(h);
  }
  std::string_view Name() const override { return "spawn"; }
  std::coroutine_handle<> h;
  SimThread thread;
  ThreadGroup* group = nullptr;
  RootRecord* prev = nullptr;
  RootRecord* next = nullptr;
};
}  // namespace internal

// The root threads a component starts, owned by it (see the file comment).
class ThreadGroup {
 public:
  explicit ThreadGroup(EventQueue* q) : q_(q) {}
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;
  ~ThreadGroup() { DestroyAll(); }

  // Starts `task` as a root thread at q->now(), from an event (the caller's
  // own code finishes first), with a new identity charged to `owner` (see
  // SimThread; -1: the owner of the thread running now, if any).
  void Spawn(Task<void> task, int owner = -1);
  // Destroys every root still running, the newest first (a thread started
  // by another may use the starter's frame), each with the tasks it awaits.
  // REQUIRES: not called from one of the group's threads.
  void DestroyAll();
  // Roots started and not finished.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  friend void internal::FinishRoot(internal::RootRecord* r) noexcept;
  EventQueue* q_;
  internal::RootRecord* head_ = nullptr;  // newest first
  size_t size_ = 0;
};

// Starts `task` as a root thread that nobody owns (see the file comment),
// charged to the owner of the thread running now.
void Spawn(EventQueue* q, Task<void> task);

// Suspends the calling coroutine for `d` of simulated time (d >= 0; a zero
// delay yields to events already scheduled at this instant).
class Delay {
 public:
  Delay(EventQueue* q, SimTime d, Priority p = Priority::kDefault) : q_(q), d_(d), ev_(p) {}
  ~Delay() {
    if (ev_.scheduled()) q_->Deschedule(&ev_);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    ev_.Arm(h);
    q_->ScheduleIn(&ev_, d_);
  }
  void await_resume() const noexcept {}

 private:
  EventQueue* q_;
  SimTime d_;
  internal::ResumeEvent ev_;
};

// One-shot completion with a value: one waiter at most. Complete() may be
// called before or after the waiter arrives; the waiter resumes from an
// event at the completion time (priority kCompletion), never re-entrantly
// inside Complete(). Reset() makes it reusable.
template <class T = bool>
class Completion {
 public:
  explicit Completion(EventQueue* q) : q_(q), ev_(Priority::kCompletion) {}
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  void Complete(T v = T{}) {
    CHECK(!done_) << "completion completed twice";
    done_ = true;
    value_ = std::move(v);
    if (ev_.h) q_->Schedule(&ev_, q_->now());
  }
  bool done() const { return done_; }
  const T& value() const { return value_; }
  void Reset() {
    CHECK(!ev_.scheduled()) << "reset of a completion with a pending waiter";
    done_ = false;
    ev_.h = {};
  }

  struct Awaiter {
    Completion* c;
    bool waiting = false;
    // A waiter destroyed mid-wait (its frame destroyed) is forgotten.
    ~Awaiter() {
      if (waiting) c->Forget();
    }
    bool await_ready() const noexcept { return c->done_; }
    void await_suspend(std::coroutine_handle<> h) {
      CHECK(!c->ev_.h) << "a completion admits one waiter";
      c->ev_.Arm(h);
      waiting = true;
    }
    T await_resume() {
      waiting = false;
      return c->value_;
    }
  };
  Awaiter operator co_await() { return Awaiter{this}; }

 private:
  void Forget() {
    if (ev_.scheduled()) q_->Deschedule(&ev_);
    ev_.h = {};
  }
  EventQueue* q_;
  internal::ResumeEvent ev_;
  bool done_ = false;
  T value_{};
};

// Counting semaphore with FIFO waiters. Acquire() is awaited; Release()
// hands a permit to the oldest waiter, which resumes from an event at the
// current time. Waiters live in their coroutine frames (intrusive list).
class Semaphore {
 public:
  Semaphore(EventQueue* q, int64_t permits) : q_(q), permits_(permits) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  class Acquirer {
   public:
    explicit Acquirer(Semaphore* s) : s_(s), ev_(Priority::kDefault) {}
    // Destroyed mid-wait: leaves the queue, or returns the permit it was
    // handed.
    ~Acquirer() {
      if (queued_) {
        s_->Unlink(this);
      } else if (ev_.scheduled()) {
        s_->q_->Deschedule(&ev_);
        s_->Release();
      }
    }
    bool await_ready() noexcept {
      if (s_->permits_ > 0 && !s_->head_) {
        --s_->permits_;
        return true;
      }
      return false;
    }
    void await_suspend(std::coroutine_handle<> h) {
      ev_.Arm(h);
      queued_ = true;
      if (s_->tail_) s_->tail_->next_ = this; else s_->head_ = this;
      s_->tail_ = this;
    }
    void await_resume() const noexcept {}

   private:
    friend class Semaphore;
    Semaphore* s_;
    internal::ResumeEvent ev_;
    Acquirer* next_ = nullptr;
    bool queued_ = false;
  };

  Acquirer Acquire() { return Acquirer(this); }
  void Release(int64_t n = 1);
  int64_t available() const { return permits_; }
  bool has_waiters() const { return head_ != nullptr; }

 private:
  void Unlink(Acquirer* a);
  EventQueue* q_;
  int64_t permits_;
  Acquirer* head_ = nullptr;
  Acquirer* tail_ = nullptr;
};

}  // namespace sim
