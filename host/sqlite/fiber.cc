#include "host/sqlite/fiber.h"

#include <boost/context/protected_fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define FLASHSTACK_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLASHSTACK_ASAN_FIBERS 1
#endif
#endif
#if defined(FLASHSTACK_ASAN_FIBERS)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace host::sqlite {

namespace {

// Thrown on a fiber to unwind it; caught where its body was called.
struct FiberUnwind {};

// AddressSanitizer's fiber-switch annotations (no-ops without it). Before
// a switch: the stack being entered (`fake_save` null when the stack being
// left goes away); after it: where control came from.
void StartSwitch(void** fake_save, const void* bottom, size_t size) {
#if defined(FLASHSTACK_ASAN_FIBERS)
  __sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
  (void)fake_save, (void)bottom, (void)size;
#endif
}
void FinishSwitch(void* fake_save, const void** from_bottom, size_t* from_size) {
#if defined(FLASHSTACK_ASAN_FIBERS)
  __sanitizer_finish_switch_fiber(fake_save, from_bottom, from_size);
#else
  (void)fake_save, (void)from_bottom, (void)from_size;
#endif
}

// A protected fixed-size stack that reports where it is.
class RecordedStack {
 public:
  RecordedStack(size_t bytes, const void** bottom, size_t* size) : inner_(bytes), bottom_(bottom), size_(size) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context sctx = inner_.allocate();
    *bottom_ = static_cast<const char*>(sctx.sp) - sctx.size;
    *size_ = sctx.size;
    return sctx;
  }
  // The shadow of a stack outlives its mapping: frames still marked there
  // (redzones of frames a fiber left by a switch and never returned to)
  // would show on a later stack mapped at the same address as overflows.
  void deallocate(boost::context::stack_context& sctx) noexcept {
#if defined(FLASHSTACK_ASAN_FIBERS)
    __asan_unpoison_memory_region(static_cast<char*>(sctx.sp) - sctx.size, sctx.size);
#endif
    inner_.deallocate(sctx);
  }

 private:
  boost::context::protected_fixedsize_stack inner_;
  const void** bottom_;
  size_t* size_;
};

}  // namespace

Fiber::Fiber(FiberRuntime* rt, std::string name, std::function<void()> body, size_t stack_bytes)
    : rt_(rt),
      name_(std::move(name)),
      body_(std::move(body)),
      enter_event_(this),
      start_event_(sim::Priority::kDefault),
      done_(rt->queue()) {
  ctx_ = boost::context::fiber(std::allocator_arg, RecordedStack(stack_bytes, &stack_bottom_, &stack_size_),
                               [this](boost::context::fiber&& caller) {
                                 caller_ = std::move(caller);
                                 Arrived();
                                 // A fiber first entered by the shutdown never starts.
                                 if (!rt_->shutting_down_) {
                                   try {
                                     body_();
                                   } catch (const FiberUnwind&) {
                                   }
                                 }
                                 body_ = nullptr;
                                 finished_ = true;
                                 Departing(/*finished=*/true);
                                 return std::move(caller_);
                               });
}

Fiber::~Fiber() {
  // The runtime shut down first: every fiber has finished, so destroying
  // ctx_ switches to nothing.
  CHECK(!enter_event_.scheduled() && !start_event_.scheduled()) << "fiber destroyed with a pending event";
  CHECK(finished_ || !ctx_) << "fiber " << name_ << " destroyed unfinished";
}

void Fiber::Enter() {
  CHECK(rt_->current_ == nullptr) << "fiber " << name_ << " entered from another fiber";
  CHECK(ctx_) << "fiber " << name_ << " entered after it finished";
  rt_->current_ = this;
  ++switches_;
  void* fake = nullptr;
  StartSwitch(&fake, stack_bottom_, stack_size_);
  ctx_ = std::move(ctx_).resume();
  FinishSwitch(fake, nullptr, nullptr);
  rt_->current_ = nullptr;
  if (finished_) {
    CHECK(!ctx_);
    finish_time_ = rt_->queue()->now();
    // Nothing is resumed any more once the runtime shuts down.
    if (!rt_->shutting_down_) done_.Complete(true);
  }
}

void Fiber::Leave() {
  Departing(/*finished=*/false);
  caller_ = std::move(caller_).resume();
  Arrived();
}

void Fiber::Arrived() { FinishSwitch(fake_stack_, &from_bottom_, &from_size_); }

void Fiber::Departing(bool finished) { StartSwitch(finished ? nullptr : &fake_stack_, from_bottom_, from_size_); }

void Fiber::WakeFromTask() {
  rt_->queue()->Schedule(&enter_event_, rt_->queue()->now());
}

FiberRuntime::FiberRuntime(sim::EventQueue* q, size_t stack_bytes) : q_(q), stack_bytes_(stack_bytes) {
  CHECK(q_ != nullptr);
  CHECK_GE(stack_bytes_, 16u * 1024) << "fiber stacks below 16 KiB cannot run SQLite";
}

FiberRuntime::~FiberRuntime() {
  Shutdown();
  // Newest first: a later fiber may refer to state of an earlier one.
  while (!fibers_.empty()) fibers_.pop_back();
}

void FiberRuntime::Shutdown() {
  CHECK(current_ == nullptr) << "fiber runtime shut down from inside a fiber";
  if (shutting_down_) return;
  shutting_down_ = true;
  for (auto& f : fibers_) {
    if (f->enter_event_.scheduled()) q_->Deschedule(&f->enter_event_);
    if (f->start_event_.scheduled()) q_->Deschedule(&f->start_event_);
    f->driver_ = {};  // the task it waits for, with everything that awaits
  }
  // Each runs to its end in one go: nothing it waits for suspends it now.
  for (auto& f : fibers_) {
    if (!f->finished_) f->Enter();
    CHECK(f->finished_) << "fiber " << f->name_ << " left during the shutdown";
  }
}

Fiber* FiberRuntime::Spawn(std::string name, std::function<void()> body) {
  CHECK(!shutting_down_);
  fibers_.push_back(std::unique_ptr<Fiber>(new Fiber(this, std::move(name), std::move(body), stack_bytes_)));
  Fiber* f = fibers_.back().get();
  f->thread_ = sim::NewThread(owner_);
  q_->Schedule(&f->enter_event_, q_->now());
  return f;
}

namespace {
sim::Task<void> RunCpu(sim::CpuScheduler* cpu, sim::SimTime d) { co_await cpu->Run(d); }
}  // namespace

void FiberRuntime::Compute(sim::SimTime d) {
  if (cpu_ == nullptr || cpu_->unlimited()) {
    if (cpu_ != nullptr && !shutting_down_) cpu_->Account(owner_, d);
    Sleep(d);
    return;
  }
  AwaitTask(RunCpu(cpu_, d));
}

void FiberRuntime::Sleep(sim::SimTime d) {
  Fiber* f = current_;
  CHECK(f != nullptr) << "Sleep outside a fiber";
  CHECK_GE(d.ns(), 0);
  if (!shutting_down_) {
    q_->ScheduleIn(&f->enter_event_, d);
    f->Leave();
  }
  if (shutting_down_) WaitCut();
}

size_t FiberRuntime::live_fibers() const {
  size_t n = 0;
  for (const auto& f : fibers_) n += f->finished() ? 0 : 1;
  return n;
}

sim::Task<void> FiberRuntime::DriveVoid(sim::Task<void> task, bool* done, Fiber* f) {
  co_await task;
  *done = true;
  f->WakeFromTask();
}

void FiberRuntime::BlockOn(sim::Task<void> driver) {
  Fiber* f = current_;
  CHECK(f != nullptr) << "AwaitTask outside a fiber";
  // The previous driver finished (its fiber ran again); this one starts
  // from an event and stays owned by the fiber until the next.
  f->driver_ = std::move(driver);
  f->start_event_.h = f->driver_.handle();
  f->start_event_.thread = &f->thread_;
  q_->Schedule(&f->start_event_, q_->now());
  f->Leave();
}

void FiberRuntime::WaitCut() {
  CHECK(shutting_down_) << "fiber resumed before its task finished";
  if (++current_->cut_waits_ > kMaxCutWaits) Unwind();
}

void FiberRuntime::Unwind() { throw FiberUnwind{}; }

}  // namespace host::sqlite
