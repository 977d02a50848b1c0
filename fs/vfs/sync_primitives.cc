#include "fs/vfs/sync_primitives.h"

namespace fs::vfs {

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

void OwnedThread::Start(sim::EventQueue* q, sim::Task<void> task) {
  CHECK(!h_) << "thread started twice";
  q_ = q;
  h_ = task.Release();
  starter_.h = h_;
  q->Schedule(&starter_, q->now());
}

void OwnedThread::Destroy() {
  if (starter_.scheduled()) q_->Deschedule(&starter_);
  if (h_) h_.destroy();
  h_ = {};
}

}  // namespace fs::vfs
