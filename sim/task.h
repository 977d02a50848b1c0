// Simulated threads: C++20 coroutines on the simulation clock.
//
// A simulated thread (a workload job, a file-system background thread such
// as checkpoint or cleaning) is a coroutine returning Task<>. Work that takes
// simulated time suspends with `co_await Delay(q, d)`; waiting for another
// component uses a Completion (one-shot) or a Semaphore. Tasks compose:
// `co_await fs.Write(...)` runs a child Task and resumes the caller when it
// finishes, at once (no event). Spawn() starts a root task from an event at
// the current time; the root task's frame is destroyed when it finishes.
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
// Everything runs on the one EventQueue thread: no OS threads, no locks.
// Suspension points keep their Event inside the coroutine frame (or the
// Completion), so waiting never allocates; only creating a coroutine frame
// does.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <glog/logging.h>

#include "sim/event_queue.h"

namespace sim {

template <class T = void>
class Task;

// Runs the suspended coroutine `h`, and every coroutine control passes to
// from there (children it awaits, awaiters of tasks that finish), until all
// of them wait for something other than a Task or have finished. Nested
// calls (from inside a coroutine) are allowed.
void Resume(std::coroutine_handle<> h);

namespace internal {

// The trampoline of this OS thread: the coroutine Resume() runs next. Set
// only just before a coroutine suspends back into Resume()'s loop.
inline constinit thread_local std::coroutine_handle<> next_to_run{};

[[noreturn]] void TransferOutsideResume() noexcept;

// Makes `h` the next coroutine to run once the running one has suspended.
inline void TransferTo(std::coroutine_handle<> h) noexcept { next_to_run = h; }

struct PromiseBase {
  std::coroutine_handle<> continuation;  // resumed when this task finishes
  bool detached = false;                 // root task: destroy frame at the end

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      const std::coroutine_handle<> next = p.continuation;
      if (p.detached) h.destroy();
      if (next) TransferTo(next);
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
// Spawn(). Move-only; destroying an unstarted Task destroys its frame.
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

  // Releases ownership of the frame (used by Spawn). Start it with
  // Resume().
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

// Event that resumes a coroutine.
class ResumeEvent final : public Event {
 public:
  explicit ResumeEvent(Priority p = Priority::kDefault) : Event(p) {}
  void Process() override { Resume(h); }
  std::string_view Name() const override { return "resume"; }
  std::coroutine_handle<> h;
};
}  // namespace internal

// Starts `task` as a root simulated thread at q->now() (from an event, so
// the caller's own code finishes first). The frame frees itself at the end.
void Spawn(EventQueue* q, Task<void> task);

// Suspends the calling coroutine for `d` of simulated time (d >= 0; a zero
// delay yields to events already scheduled at this instant).
class Delay {
 public:
  Delay(EventQueue* q, SimTime d, Priority p = Priority::kDefault) : q_(q), d_(d), ev_(p) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    ev_.h = h;
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
    bool await_ready() const noexcept { return c->done_; }
    void await_suspend(std::coroutine_handle<> h) {
      CHECK(!c->ev_.h) << "a completion admits one waiter";
      c->ev_.h = h;
    }
    T await_resume() const { return c->value_; }
  };
  Awaiter operator co_await() { return Awaiter{this}; }

 private:
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
    bool await_ready() noexcept {
      if (s_->permits_ > 0 && !s_->head_) {
        --s_->permits_;
        return true;
      }
      return false;
    }
    void await_suspend(std::coroutine_handle<> h) {
      ev_.h = h;
      if (s_->tail_) s_->tail_->next_ = this; else s_->head_ = this;
      s_->tail_ = this;
    }
    void await_resume() const noexcept {}

   private:
    friend class Semaphore;
    Semaphore* s_;
    internal::ResumeEvent ev_;
    Acquirer* next_ = nullptr;
  };

  Acquirer Acquire() { return Acquirer(this); }
  void Release(int64_t n = 1);
  int64_t available() const { return permits_; }
  bool has_waiters() const { return head_ != nullptr; }

 private:
  EventQueue* q_;
  int64_t permits_;
  Acquirer* head_ = nullptr;
  Acquirer* tail_ = nullptr;
};

}  // namespace sim
