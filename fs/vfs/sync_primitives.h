// Lock and wait primitives for simulated threads of the file-system models.
//
// Like sim::Semaphore, waiters live in their coroutine frames (intrusive
// FIFO lists) and resume from an event at the current time, and a waiter
// destroyed mid-wait (its frame destroyed) withdraws: it leaves the list,
// or drops the wake-up (and gives back the lock) it was handed but had not
// taken yet. Unlike it, each primitive can be killed (Kill): after a power
// cut the file system stops scheduling anything, so frames destroyed
// afterwards (their RAII guards release locks) neither touch the queue nor
// the dead waiters.
#pragma once

#include <coroutine>
#include <cstdint>

#include <glog/logging.h>

#include "sim/event_queue.h"
#include "sim/task.h"

namespace fs::vfs {

namespace internal {
struct Waiter {
  sim::internal::ResumeEvent ev;
  Waiter* next = nullptr;
  bool exclusive = false;
  bool queued = false;  // in a WaiterList
};
struct WaiterList {
  Waiter* head = nullptr;
  Waiter* tail = nullptr;
  bool empty() const { return head == nullptr; }
  void Push(Waiter* w) {
    w->next = nullptr;
    w->queued = true;
    if (tail) tail->next = w; else head = w;
    tail = w;
  }
  Waiter* Pop() {
    Waiter* w = head;
    head = w->next;
    if (!head) tail = nullptr;
    w->next = nullptr;
    w->queued = false;
    return w;
  }
  // REQUIRES: w->queued.
  void Remove(Waiter* w);
};
}  // namespace internal

// Readers-writer lock with FIFO hand-off: a waiting writer blocks later
// readers (like the kernel's rw_semaphore), so a checkpoint waiting for
// cp_rwsem is not starved and operations arriving after it stall.
class RwLock {
 public:
  explicit RwLock(sim::EventQueue* q) : q_(q) {}
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  class Acquirer {
   public:
    Acquirer(RwLock* l, bool exclusive) : l_(l) { w_.exclusive = exclusive; }
    ~Acquirer() {
      if (w_.queued || w_.ev.scheduled()) l_->Withdraw(&w_);
    }
    bool await_ready() noexcept { return l_->TryLock(w_.exclusive); }
    void await_suspend(std::coroutine_handle<> h) {
      w_.ev.h = h;
      l_->waiters_.Push(&w_);
    }
    void await_resume() const noexcept {}

   private:
    RwLock* l_;
    internal::Waiter w_;
  };
  Acquirer LockShared() { return Acquirer(this, false); }
  Acquirer LockExclusive() { return Acquirer(this, true); }
  void UnlockShared();
  void UnlockExclusive();

  bool TryLock(bool exclusive);
  int readers() const { return readers_; }
  bool writer() const { return writer_; }
  bool has_waiters() const { return !waiters_.empty(); }
  bool idle() const { return readers_ == 0 && !writer_ && waiters_.empty(); }
  void Kill() { dead_ = true; }

 private:
  void Wake();
  // A waiter going away: out of the list, or its grant handed back.
  void Withdraw(internal::Waiter* w);
  sim::EventQueue* q_;
  int readers_ = 0;
  bool writer_ = false;
  bool dead_ = false;
  internal::WaiterList waiters_;
};

// RAII holders (released at scope end, including frame destruction).
class SharedLock {
 public:
  SharedLock() = default;
  explicit SharedLock(RwLock* l) : l_(l) {}
  SharedLock(SharedLock&& o) noexcept : l_(o.l_) { o.l_ = nullptr; }
  SharedLock& operator=(SharedLock&& o) noexcept {
    Release();
    l_ = o.l_;
    o.l_ = nullptr;
    return *this;
  }
  ~SharedLock() { Release(); }
  void Release() {
    if (l_) l_->UnlockShared();
    l_ = nullptr;
  }

 private:
  RwLock* l_ = nullptr;
};
class ExclusiveLock {
 public:
  ExclusiveLock() = default;
  explicit ExclusiveLock(RwLock* l) : l_(l) {}
  ExclusiveLock(ExclusiveLock&& o) noexcept : l_(o.l_) { o.l_ = nullptr; }
  ExclusiveLock& operator=(ExclusiveLock&& o) noexcept {
    Release();
    l_ = o.l_;
    o.l_ = nullptr;
    return *this;
  }
  ~ExclusiveLock() { Release(); }
  void Release() {
    if (l_) l_->UnlockExclusive();
    l_ = nullptr;
  }

 private:
  RwLock* l_ = nullptr;
};

// Condition-variable-like wait queue: Wait() suspends until the next
// NotifyAll(); callers re-check their condition in a loop.
class WaitQueue {
 public:
  explicit WaitQueue(sim::EventQueue* q) : q_(q) {}
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;

  class Awaiter {
   public:
    explicit Awaiter(WaitQueue* wq) : wq_(wq) {}
    ~Awaiter() {
      if (w_.queued) {
        wq_->waiters_.Remove(&w_);
      } else if (w_.ev.scheduled()) {
        wq_->q_->Deschedule(&w_.ev);
      }
    }
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      w_.ev.h = h;
      wq_->waiters_.Push(&w_);
    }
    void await_resume() const noexcept {}

   private:
    WaitQueue* wq_;
    internal::Waiter w_;
  };
  Awaiter Wait() { return Awaiter(this); }
  void NotifyAll();
  bool has_waiters() const { return !waiters_.empty(); }
  void Kill() { dead_ = true; }

 private:
  sim::EventQueue* q_;
  bool dead_ = false;
  internal::WaiterList waiters_;
};

// A sleeping background thread's timer. The event is a daemon (it never
// keeps the simulation alive) owned by the component, so the component can
// cancel it; Kick() wakes the sleeper early.
class DaemonTimer {
 public:
  explicit DaemonTimer(sim::EventQueue* q) : q_(q) { ev_.set_daemon(true); }
  ~DaemonTimer() { Cancel(); }
  DaemonTimer(const DaemonTimer&) = delete;
  DaemonTimer& operator=(const DaemonTimer&) = delete;

  struct Awaiter {
    DaemonTimer* t;
    sim::SimTime d;
    bool armed = false;
    // The sleeper destroyed mid-sleep: the timer stops.
    ~Awaiter() {
      if (!armed) return;
      t->Cancel();
      t->Woken();
    }
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      CHECK(!t->ev_.scheduled()) << "timer already sleeping";
      t->ev_.h = h;
      t->sleeping_ = true;
      armed = true;
      t->q_->ScheduleIn(&t->ev_, d);
    }
    void await_resume() noexcept {
      armed = false;
      t->Woken();
    }
  };
  Awaiter Sleep(sim::SimTime d) { return Awaiter{this, d}; }
  // Wakes the sleeper at the current time (no-op unless sleeping). The
  // early wake-up is real work someone waits for, so it is not a daemon.
  void Kick() {
    if (!sleeping_ || !ev_.scheduled()) return;
    q_->Deschedule(&ev_);
    ev_.set_daemon(false);
    q_->Schedule(&ev_, q_->now());
  }
  void Cancel() {
    if (ev_.scheduled()) q_->Deschedule(&ev_);
  }
  bool sleeping() const { return sleeping_; }

 private:
  void Woken() {
    sleeping_ = false;
    if (!ev_.daemon()) ev_.set_daemon(true);
  }
  sim::EventQueue* q_;
  sim::internal::ResumeEvent ev_;
  bool sleeping_ = false;
};

// A root simulated thread owned by a component: started from an event,
// destroyed with its owner, suspended or not (its waits withdraw, see
// sim/task.h); the owner destroys it before what the thread uses.
class OwnedThread {
 public:
  OwnedThread() = default;
  ~OwnedThread() { Destroy(); }
  OwnedThread(const OwnedThread&) = delete;
  OwnedThread& operator=(const OwnedThread&) = delete;

  void Start(sim::EventQueue* q, sim::Task<void> task);
  bool done() const { return !h_ || h_.done(); }
  void Destroy();

 private:
  class Starter final : public sim::Event {
   public:
    void Process() override { sim::Resume(h); }
    std::coroutine_handle<> h;
  };
  sim::Task<void>::Handle h_;
  sim::EventQueue* q_ = nullptr;
  Starter starter_;
};

}  // namespace fs::vfs
