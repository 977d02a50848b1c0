#include "sim/task.h"

#include <cstdlib>

namespace sim {

namespace internal {
void TransferOutsideResume() noexcept {
  LOG(FATAL) << "a coroutine resumed outside sim::Resume() awaited or finished a Task";
  std::abort();
}
}  // namespace internal

namespace {
// Starts a detached root task from an event and deletes itself.
class Starter final : public Event {
 public:
  explicit Starter(std::coroutine_handle<> h) : h_(h) {}
  void Process() override {
    std::coroutine_handle<> h = h_;
    delete this;
    Resume(h);
  }
  std::string_view Name() const override { return "spawn"; }

 private:
  std::coroutine_handle<> h_;
};
}  // namespace

void Spawn(EventQueue* q, Task<void> task) {
  auto h = task.Release();
  CHECK(h) << "spawn of an empty task";
  h.promise().detached = true;
  q->Schedule(new Starter(h), q->now());
}

void Semaphore::Release(int64_t n) {
  permits_ += n;
  while (permits_ > 0 && head_) {
    Acquirer* a = head_;
    head_ = a->next_;
    if (!head_) tail_ = nullptr;
    --permits_;
    q_->Schedule(&a->ev_, q_->now());
  }
}

}  // namespace sim
