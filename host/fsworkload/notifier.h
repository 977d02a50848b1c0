// Notifier: a condition-variable-like wait list for simulated threads.
//
// `co_await n.Wait()` suspends the calling coroutine until the next
// NotifyAll(); waiters then resume from events at the notification time in
// the order they started waiting. There is no predicate: callers re-check
// their condition in a loop. Waiters live in their coroutine frames
// (intrusive list), so waiting never allocates. Destroying a Notifier
// abandons its waiters (they never resume): only do so when their queue
// will not run again.
#pragma once

#include <coroutine>

#include "sim/event_queue.h"
#include "sim/task.h"

namespace host {

class Notifier {
 public:
  explicit Notifier(sim::EventQueue* q) : q_(q) {}
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;
  ~Notifier() = default;

  class Awaiter {
   public:
    explicit Awaiter(Notifier* n) : n_(n), ev_(sim::Priority::kDefault) {}
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      ev_.h = h;
      if (n_->tail_) {
        n_->tail_->next_ = this;
      } else {
        n_->head_ = this;
      }
      n_->tail_ = this;
    }
    void await_resume() const noexcept {}

   private:
    friend class Notifier;
    Notifier* n_;
    sim::internal::ResumeEvent ev_;
    Awaiter* next_ = nullptr;
  };

  Awaiter Wait() { return Awaiter(this); }

  // Wakes every current waiter.
  void NotifyAll() {
    Awaiter* a = head_;
    head_ = tail_ = nullptr;
    while (a != nullptr) {
      Awaiter* next = a->next_;
      a->next_ = nullptr;
      q_->Schedule(&a->ev_, q_->now());
      a = next;
    }
  }
  bool has_waiters() const { return head_ != nullptr; }

 private:
  sim::EventQueue* q_;
  Awaiter* head_ = nullptr;
  Awaiter* tail_ = nullptr;
};

}  // namespace host
