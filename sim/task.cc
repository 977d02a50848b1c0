#include "sim/task.h"

#include <cstdlib>

namespace sim {

namespace internal {

void TransferOutsideResume() noexcept {
  LOG(FATAL) << "a coroutine resumed outside sim::Resume() awaited or finished a Task";
  std::abort();
}

void FinishRoot(RootRecord* r) noexcept {
  if (ThreadGroup* g = r->group) {
    if (r->prev) r->prev->next = r->next; else g->head_ = r->next;
    if (r->next) r->next->prev = r->prev;
    --g->size_;
  }
  delete r;
}

namespace {
// Makes `task` a root thread starting from an event at q->now().
RootRecord* StartRoot(EventQueue* q, Task<void> task, int owner) {
  auto h = task.Release();
  CHECK(h) << "spawn of an empty task";
  auto* r = new RootRecord;
  r->h = h;
  if (owner < 0) owner = current_thread != nullptr ? current_thread->owner : 0;
  r->thread = NewThread(static_cast<uint16_t>(owner));
  h.promise().root = r;
  q->Schedule(r, q->now());
  return r;
}
}  // namespace

}  // namespace internal

SimThread NewThread(uint16_t owner) {
  static constinit thread_local uint64_t next_id = 0;
  SimThread t;
  t.id = ++next_id;
  t.owner = owner;
  return t;
}

void Spawn(EventQueue* q, Task<void> task) { internal::StartRoot(q, std::move(task), -1); }

void ThreadGroup::Spawn(Task<void> task, int owner) {
  internal::RootRecord* r = internal::StartRoot(q_, std::move(task), owner);
  r->group = this;
  r->next = head_;
  if (head_) head_->prev = r;
  head_ = r;
  ++size_;
}

void ThreadGroup::DestroyAll() {
  while (head_ != nullptr) {
    internal::RootRecord* r = head_;
    head_ = r->next;
    if (head_) head_->prev = nullptr;
    --size_;
    if (r->scheduled()) q_->Deschedule(r);  // not started yet
    const std::coroutine_handle<> h = r->h;
    delete r;
    h.destroy();
  }
}

void Semaphore::Release(int64_t n) {
  permits_ += n;
  while (permits_ > 0 && head_) {
    Acquirer* a = head_;
    head_ = a->next_;
    if (!head_) tail_ = nullptr;
    a->next_ = nullptr;
    a->queued_ = false;
    --permits_;
    q_->Schedule(&a->ev_, q_->now());
  }
}

void Semaphore::Unlink(Acquirer* a) {
  Acquirer* prev = nullptr;
  for (Acquirer* x = head_; x != nullptr; prev = x, x = x->next_) {
    if (x != a) continue;
    (prev ? prev->next_ : head_) = a->next_;
    if (tail_ == a) tail_ = prev;
    a->next_ = nullptr;
    a->queued_ = false;
    return;
  }
  LOG(FATAL) << "semaphore waiter missing from its queue";
}

}  // namespace sim
