// Notifier: a condition-variable-like wait list for simulated threads.
//
// `co_await n.Wait()` suspends the calling coroutine until the next
// NotifyAll(); waiters then resume from events at the notification time in
// the order they started waiting. There is no predicate: callers re-check
// their condition in a loop. Waiters live in their coroutine frames
// (intrusive list), so waiting never allocates; a waiter destroyed
// mid-wait (its frame destroyed) leaves the list or drops its wake-up.
// Destroying a Notifier abandons its waiters (they never resume): only do
// so after their frames are gone or when their queue will not run again.
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
    ~Awaiter() {
      if (queued_) {
        n_->Unlink(this);
      } else if (ev_.scheduled()) {
        n_->q_->Deschedule(&ev_);
      }
    }
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      ev_.Arm(h);
      queued_ = true;
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
    bool queued_ = false;
  };

  Awaiter Wait() { return Awaiter(this); }

  // Wakes every current waiter.
  void NotifyAll() {
    Awaiter* a = head_;
    head_ = tail_ = nullptr;
    while (a != nullptr) {
      Awaiter* next = a->next_;
      a->next_ = nullptr;
      a->queued_ = false;
      q_->Schedule(&a->ev_, q_->now());
      a = next;
    }
  }
  bool has_waiters() const { return head_ != nullptr; }

 private:
  void Unlink(Awaiter* a) {
    Awaiter* prev = nullptr;
    for (Awaiter* x = head_; x != nullptr; prev = x, x = x->next_) {
      if (x != a) continue;
      (prev ? prev->next_ : head_) = a->next_;
      if (tail_ == a) tail_ = prev;
      a->next_ = nullptr;
      a->queued_ = false;
      return;
    }
  }
  sim::EventQueue* q_;
  Awaiter* head_ = nullptr;
  Awaiter* tail_ = nullptr;
};

}  // namespace host
