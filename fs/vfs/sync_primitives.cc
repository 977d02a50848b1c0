#include "fs/vfs/sync_primitives.h"

#include <fmt/format.h>

namespace fs::vfs {

LockClass::LockClass(std::string name, Kind kind, sim::CpuScheduler* cpu, sim::StatGroup stats)
    : name_(std::move(name)), kind_(kind), cpu_(cpu) {
  if (stats.prefix().empty()) return;  // a group that registers nothing
  const char* what = kind == Kind::kSleeping ? "sleeping" : "spinning";
  stats.Add(&acquisitions_, "acquisitions", "locks", fmt::format("Acquisitions of {} ({} lock)", name_, what));
  stats.Add(&contended_, "contended", "locks", "Acquisitions that waited");
  stats.Add(&wait_, "wait", "ns", "Wait of each acquisition (0 uncontended)");
  stats.Add(&hold_, "hold", "ns", "Time from acquisition to release");
  if (kind == Kind::kSpinning)
    stats.Add(&spin_ns_, "spin_time", "ns", "CPU time waiters burned spinning");
}

SpinLock::SpinLock(sim::EventQueue* q, LockClass* cls) : q_(q), cls_(cls) {
  CHECK(cls != nullptr && cls->kind() == LockClass::Kind::kSpinning) << "a SpinLock needs a spinning lock class";
}

sim::Task<void> SpinLock::Section(sim::SimTime critical) {
  sim::CoreHold core;
  if (sim::CpuScheduler* cpu = cls_->cpu()) co_await cpu->Hold(&core);
  const sim::SimTime t0 = q_->now();
  co_await Awaiter{this, {}};
  const sim::SimTime wait = q_->now() - t0;
  cls_->Spun(wait);
  cls_->Acquired(wait);
  const sim::SimTime t1 = q_->now();
  // Preemption is off: the owed acquisition cost runs inside the section.
  sim::SimTime cs = critical;
  if (sim::SimThread* t = sim::internal::current_thread) {
    cs += t->owed;
    t->owed = sim::SimTime::Zero();
  } else {
    cs += cls_->acquire_cost();
  }
  if (cs > sim::SimTime::Zero()) co_await sim::Delay(q_, cs);
  cls_->Released(q_->now() - t1);
  Unlock();
}

void SpinLock::Unlock() {
  if (dead_) return;
  CHECK(held_);
  if (waiters_.empty()) {
    held_ = false;
    return;
  }
  // Hand over: the lock stays held, by the oldest spinner.
  internal::Waiter* w = waiters_.Pop();
  q_->Schedule(&w->ev, q_->now());
}

void SpinLock::Handoff(internal::Waiter* w) {
  q_->Deschedule(&w->ev);
  Unlock();
}

bool RwLock::TryLock(bool exclusive) {
  if (!waiters_.empty() || writer_) return false;
  if (exclusive) {
    if (readers_ > 0) return false;
    writer_ = true;
    return true;
  }
  ++readers_;
  return true;
}

void RwLock::UnlockShared() {
  if (dead_) return;
  CHECK_GT(readers_, 0);
  --readers_;
  Wake();
}

void RwLock::UnlockExclusive() {
  if (dead_) return;
  CHECK(writer_);
  writer_ = false;
  Wake();
}

void internal::WaiterList::Remove(Waiter* w) {
  Waiter* prev = nullptr;
  for (Waiter* x = head; x != nullptr; prev = x, x = x->next) {
    if (x != w) continue;
    (prev ? prev->next : head) = w->next;
    if (tail == w) tail = prev;
    w->next = nullptr;
    w->queued = false;
    return;
  }
  LOG(FATAL) << "waiter missing from its list";
}

void RwLock::Withdraw(internal::Waiter* w) {
  if (w->queued) {
    waiters_.Remove(w);
    // A writer leaving the head may let the readers behind it in.
    if (!dead_) Wake();
  } else if (w->ev.scheduled()) {
    // Handed the lock, never took it.
    q_->Deschedule(&w->ev);
    if (w->exclusive) UnlockExclusive(); else UnlockShared();
  }
}

void RwLock::Wake() {
  // Hand the lock to waiters in FIFO order: one writer, or a run of readers.
  while (!waiters_.empty() && !writer_) {
    internal::Waiter* w = waiters_.head;
    if (w->exclusive) {
      if (readers_ > 0) return;
      waiters_.Pop();
      writer_ = true;
      q_->Schedule(&w->ev, q_->now());
      return;
    }
    waiters_.Pop();
    ++readers_;
    q_->Schedule(&w->ev, q_->now());
  }
}

void WaitQueue::NotifyAll() {
  if (dead_) return;
  while (!waiters_.empty()) {
    internal::Waiter* w = waiters_.Pop();
    q_->Schedule(&w->ev, q_->now());
  }
}

void OwnedThread::Start(sim::EventQueue* q, sim::Task<void> task, uint16_t owner) {
  CHECK(!h_) << "thread started twice";
  q_ = q;
  h_ = task.Release();
  starter_.h = h_;
  starter_.thread = sim::NewThread(owner);
  q->Schedule(&starter_, q->now());
}

void OwnedThread::Destroy() {
  if (starter_.scheduled()) q_->Deschedule(&starter_);
  if (h_) h_.destroy();
  h_ = {};
}

}  // namespace fs::vfs
