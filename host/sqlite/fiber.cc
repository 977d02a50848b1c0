#include "host/sqlite/fiber.h"

#include <boost/context/protected_fixedsize_stack.hpp>

namespace host::sqlite {

Fiber::Fiber(FiberRuntime* rt, std::string name, std::function<void()> body, size_t stack_bytes)
    : rt_(rt),
      name_(std::move(name)),
      body_(std::move(body)),
      enter_event_(this),
      start_event_(sim::Priority::kDefault),
      done_(rt->queue()) {
  ctx_ = boost::context::fiber(std::allocator_arg, boost::context::protected_fixedsize_stack(stack_bytes),
                               [this](boost::context::fiber&& caller) {
                                 caller_ = std::move(caller);
                                 body_();
                                 body_ = nullptr;
                                 finished_ = true;
                                 return std::move(caller_);
                               });
}

Fiber::~Fiber() {
  // Events of a fiber that never finished are descheduled by the runtime
  // before the fiber goes; destroying ctx_ then unwinds the fiber's stack.
  CHECK(!enter_event_.scheduled() && !start_event_.scheduled()) << "fiber destroyed with a pending event";
}

void Fiber::Enter() {
  CHECK(rt_->current_ == nullptr) << "fiber " << name_ << " entered from another fiber";
  CHECK(ctx_) << "fiber " << name_ << " entered after it finished";
  rt_->current_ = this;
  ++switches_;
  ctx_ = std::move(ctx_).resume();
  rt_->current_ = nullptr;
  if (finished_) {
    CHECK(!ctx_);
    finish_time_ = rt_->queue()->now();
    done_.Complete(true);
  }
}

void Fiber::Leave() {
  caller_ = std::move(caller_).resume();
}

void Fiber::WakeFromTask() {
  rt_->queue()->Schedule(&enter_event_, rt_->queue()->now());
}

FiberRuntime::FiberRuntime(sim::EventQueue* q, size_t stack_bytes) : q_(q), stack_bytes_(stack_bytes) {
  CHECK(q_ != nullptr);
  CHECK_GE(stack_bytes_, 16u * 1024) << "fiber stacks below 16 KiB cannot run SQLite";
}

FiberRuntime::~FiberRuntime() {
  CHECK(current_ == nullptr) << "fiber runtime destroyed from inside a fiber";
  tearing_down_ = true;
  for (auto& f : fibers_) {
    if (f->enter_event_.scheduled()) q_->Deschedule(&f->enter_event_);
    if (f->start_event_.scheduled()) q_->Deschedule(&f->start_event_);
    f->driver_ = {};  // the task it waits for, with everything that awaits
  }
  // Newest first: a later fiber may refer to state of an earlier one.
  while (!fibers_.empty()) fibers_.pop_back();
}

Fiber* FiberRuntime::Spawn(std::string name, std::function<void()> body) {
  CHECK(!tearing_down_);
  fibers_.push_back(std::unique_ptr<Fiber>(new Fiber(this, std::move(name), std::move(body), stack_bytes_)));
  Fiber* f = fibers_.back().get();
  q_->Schedule(&f->enter_event_, q_->now());
  return f;
}

void FiberRuntime::Sleep(sim::SimTime d) {
  Fiber* f = current_;
  CHECK(f != nullptr) << "Sleep outside a fiber";
  CHECK(!tearing_down_) << "simulated wait while the fiber runtime is being destroyed";
  CHECK_GE(d.ns(), 0);
  q_->ScheduleIn(&f->enter_event_, d);
  f->Leave();
}

size_t FiberRuntime::live_fibers() const {
  size_t n = 0;
  for (const auto& f : fibers_) n += f->finished() ? 0 : 1;
  return n;
}

sim::Task<void> FiberRuntime::DriveVoid(sim::Task<void> task, Fiber* f) {
  co_await task;
  f->WakeFromTask();
}

void FiberRuntime::BlockOn(sim::Task<void> driver) {
  Fiber* f = current_;
  CHECK(f != nullptr) << "AwaitTask outside a fiber";
  CHECK(!tearing_down_) << "simulated I/O while the fiber runtime is being destroyed";
  // The previous driver finished (its fiber ran again); this one starts
  // from an event and stays owned by the fiber until the next.
  f->driver_ = std::move(driver);
  f->start_event_.h = f->driver_.handle();
  q_->Schedule(&f->start_event_, q_->now());
  f->Leave();
}

}  // namespace host::sqlite
