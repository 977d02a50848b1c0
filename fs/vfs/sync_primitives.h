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
#include <string>

#include <glog/logging.h>

#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::vfs {

// A class of kernel lock, shared by its instances (every inode's i_rwsem is
// one class): what its waiters do, what an acquisition costs, and its
// statistics under fs.locks.<name>.*. Sleeping locks (mutex, rw_semaphore:
// RwLock) let a waiter give its core up; spinning ones (spinlock_t,
// rwlock_t: SpinLock) keep the waiter on its core, burning CPU, and run the
// critical section with preemption off. Every acquisition owes the CPU's
// lock_acquire to the acquiring thread's next burst (sim::CpuScheduler::
// Owe). With no scheduler the class only keeps statistics.
class LockClass {
 public:
  enum class Kind { kSleeping, kSpinning };
  // Registers the statistics under `stats` (e.g. fs.locks.cp_rwsem; none
  // for a group with an empty prefix). REQUIRES: cpu (may be null) outlives the class.
  LockClass(std::string name, Kind kind, sim::CpuScheduler* cpu, sim::StatGroup stats);
  LockClass(const LockClass&) = delete;
  LockClass& operator=(const LockClass&) = delete;

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  sim::CpuScheduler* cpu() const { return cpu_; }
  sim::SimTime acquire_cost() const { return cpu_ != nullptr ? cpu_->config().lock_acquire : sim::SimTime::Zero(); }

  // An acquisition after waiting `wait` (zero: uncontended).
  void Acquired(sim::SimTime wait) {
    acquisitions_.Inc();
    if (wait > sim::SimTime::Zero()) contended_.Inc();
    wait_.Record(wait.ns());
    sim::CpuScheduler::Owe(acquire_cost());
  }
  void Released(sim::SimTime held) { hold_.Record(held.ns()); }
  void Spun(sim::SimTime d) { spin_ns_.Inc(static_cast<uint64_t>(d.ns())); }
  const sim::Histogram& wait() const { return wait_; }
  const sim::Histogram& hold() const { return hold_; }
  uint64_t contended() const { return contended_.value(); }

 private:
  std::string name_;
  Kind kind_;
  sim::CpuScheduler* cpu_;
  sim::Counter acquisitions_;
  sim::Counter contended_;
  sim::Counter spin_ns_;
  sim::Histogram wait_;
  sim::Histogram hold_;
};

namespace internal {
struct Waiter {
  sim::internal::ResumeEvent ev;
  sim::SimTime since;  // when it started waiting (lock statistics)
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
// A sleeping lock (rw_semaphore); with a LockClass its acquisitions and
// holds are counted there (holds by the SharedLock/ExclusiveLock holders).
class RwLock {
 public:
  explicit RwLock(sim::EventQueue* q, LockClass* cls = nullptr) : q_(q), cls_(cls) {}
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  class Acquirer {
   public:
    Acquirer(RwLock* l, bool exclusive) : l_(l) { w_.exclusive = exclusive; }
    ~Acquirer() {
      if (w_.queued || w_.ev.scheduled()) l_->Withdraw(&w_);
    }
    bool await_ready() noexcept {
      w_.since = l_->q_->now();
      return l_->TryLock(w_.exclusive);
    }
    void await_suspend(std::coroutine_handle<> h) {
      w_.ev.Arm(h);
      l_->waiters_.Push(&w_);
    }
    void await_resume() const noexcept {
      if (l_->cls_ != nullptr) l_->cls_->Acquired(l_->q_->now() - w_.since);
    }

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
  LockClass* lock_class() const { return cls_; }
  void set_lock_class(LockClass* cls) { cls_ = cls; }
  sim::SimTime now() const { return q_->now(); }

 private:
  void Wake();
  // A waiter going away: out of the list, or its grant handed back.
  void Withdraw(internal::Waiter* w);
  sim::EventQueue* q_;
  LockClass* cls_;
  int readers_ = 0;
  bool writer_ = false;
  bool dead_ = false;
  internal::WaiterList waiters_;
};

// RAII holders (released at scope end, including frame destruction),
// created right after the acquisition: the time to their release is the
// hold time their lock's class records.
template <bool kExclusive>
class RwLockHolder {
 public:
  RwLockHolder() = default;
  explicit RwLockHolder(RwLock* l) : l_(l) {
    if (l_->lock_class() != nullptr) since_ = l_->now();
  }
  RwLockHolder(RwLockHolder&& o) noexcept : l_(o.l_), since_(o.since_) { o.l_ = nullptr; }
  RwLockHolder& operator=(RwLockHolder&& o) noexcept {
    Release();
    l_ = o.l_;
    since_ = o.since_;
    o.l_ = nullptr;
    return *this;
  }
  ~RwLockHolder() { Release(); }
  void Release() {
    if (l_ == nullptr) return;
    if (LockClass* c = l_->lock_class()) c->Released(l_->now() - since_);
    if constexpr (kExclusive) l_->UnlockExclusive(); else l_->UnlockShared();
    l_ = nullptr;
  }

 private:
  RwLock* l_ = nullptr;
  sim::SimTime since_;
};
using SharedLock = RwLockHolder<false>;
using ExclusiveLock = RwLockHolder<true>;

// A spinning lock (spinlock_t), FIFO like the kernel's queued spinlock.
// Section() takes a core from the class's CPU scheduler (preemption off),
// spins on it until the lock is free, runs the critical section's CPU time
// with both held, then releases both: a waiter burns its core the whole
// time it spins, so a long critical section keeps other threads off the
// cores its waiters hold.
class SpinLock {
 public:
  // REQUIRES: cls->kind() == kSpinning.
  SpinLock(sim::EventQueue* q, LockClass* cls);
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

  // Lock, `critical` of CPU time (plus the acquisition's cost), unlock.
  sim::Task<void> Section(sim::SimTime critical);
  bool held() const { return held_; }
  bool has_waiters() const { return !waiters_.empty(); }
  void Kill() { dead_ = true; }

 private:
  struct Awaiter {
    SpinLock* l;
    internal::Waiter w;
    ~Awaiter() {
      if (w.queued) l->waiters_.Remove(&w);
      else if (w.ev.scheduled()) l->Handoff(&w);
    }
    bool await_ready() noexcept {
      if (l->held_ || !l->waiters_.empty()) return false;
      l->held_ = true;
      return true;
    }
    void await_suspend(std::coroutine_handle<> h) {
      w.ev.Arm(h);
      l->waiters_.Push(&w);
    }
    void await_resume() const noexcept {}
  };
  void Unlock();
  // A waiter handed the lock going away without taking it.
  void Handoff(internal::Waiter* w);
  sim::EventQueue* q_;
  LockClass* cls_;
  bool held_ = false;
  bool dead_ = false;
  internal::WaiterList waiters_;
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
      w_.ev.Arm(h);
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
      t->ev_.Arm(h);
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

  // Starts `task` as a thread charged to CPU owner `owner` (see
  // sim::CpuScheduler::Owner; 0: unattributed).
  void Start(sim::EventQueue* q, sim::Task<void> task, uint16_t owner = 0);
  bool done() const { return !h_ || h_.done(); }
  void Destroy();

 private:
  class Starter final : public sim::Event {
   public:
    void Process() override {
      sim::internal::ThreadScope s(&thread);
      sim::Resume(h);
    }
    std::coroutine_handle<> h;
    sim::SimThread thread;
  };
  sim::Task<void>::Handle h_;
  sim::EventQueue* q_ = nullptr;
  Starter starter_;
};

}  // namespace fs::vfs
