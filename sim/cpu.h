// The host's CPUs: simulated threads compete for a configured number of
// cores (host.cpu.*).
//
// A simulated thread (sim/task.h's SimThread) that spends CPU time awaits
// `cpu->Run(d)`: it runs only while it holds a core. With every core busy it
// waits in one run queue, first come first served; a burst longer than the
// time slice gives its core up after each slice when others wait, and goes
// to the tail of the queue (round robin, as SCHED_RR; the long-run share of
// CPU-bound threads equals CFS/EEVDF's fair share at equal weights, and the
// model's bursts, microseconds long, mostly end inside one slice). A thread
// keeps its core from one burst to the next as long as it does not block:
// the core is given up only when the thread's code suspends on something
// else (I/O, a sleeping lock, a timer), or when its slice is over while
// others wait. Waiting for anything else holds no core. A core that passes
// from one thread to another costs `context_switch` of CPU time, charged to
// the thread arriving (before its burst runs); an idle core taken by the
// thread that ran on it last costs nothing. A free core goes to the thread
// that ran on it last when it is free, else to the lowest never-used core,
// else to the lowest free core. `Hold()` takes a core without preemption
// until released (a spinning waiter and a spinlock's critical section, with
// preemption off).
//
// cores = 0 keeps the unlimited model: every burst runs at once, as if the
// host had a core per thread; CPU time is still accounted by owner.
//
// What it does not model: caches, NUMA, SMT, frequency scaling, priorities
// and nice levels, CFS/EEVDF's wake-up preference for sleepers, interrupts
// and softirq time, and per-core run queues with migration (one global
// queue: a waiting thread takes the first core that frees up).
//
// Owners: components name who CPU time is charged to once, at construction
// (Owner("f2fs.gc")), and give the index to the threads they start; the
// statistics then show CPU time by owner (workload threads, each kernel
// thread kind).
//
// Determinism: everything runs on the EventQueue in its order; cores are
// chosen by index; the run queue is FIFO.
#pragma once

#include <coroutine>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <glog/logging.h>

#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace sim {

struct CpuConfig {
  uint32_t cores = 4;
  SimTime slice;
  SimTime context_switch;
  SimTime lock_acquire;
  static void Describe(Schema<CpuConfig>& s);
};

class CpuScheduler;

// One request for CPU by one thread: a burst (Run) or a hold (Hold). Lives
// in the awaiting coroutine's frame; destroyed mid-wait it withdraws (leaves
// the run queue, or gives its core up).
class CpuRequest final : public Event {
 public:
  CpuRequest(CpuScheduler* cpu, SimTime d, bool hold);
  ~CpuRequest() override;
  CpuRequest(const CpuRequest&) = delete;
  CpuRequest& operator=(const CpuRequest&) = delete;

  bool await_ready() noexcept;
  void await_suspend(std::coroutine_handle<> h);
  void await_resume() const noexcept {}
  void Process() override;
  std::string_view Name() const override { return "cpu"; }

 private:
  friend class CpuScheduler;
  friend class CoreHold;
  enum class Phase : uint8_t { kIdle, kQueued, kRunning, kHeld, kDone };
  // Given core `c` (from the queue or at once); starts the next chunk.
  void Granted(int c);
  // Takes the core the thread kept from its last burst, or gives it up to
  // the run queue's head when its slice is over (then false).
  bool Reuse(int c);
  void StartChunk();

  CpuScheduler* cpu_;
  SimTime remaining_;  // burst time left (Run)
  SimTime chunk_;      // the chunk running now
  SimTime chunk_start_;
  SimTime queued_at_;
  std::coroutine_handle<> h_;
  SimThread* thread_ = nullptr;
  uint64_t thread_id_ = 0;
  uint16_t owner_ = 0;
  bool hold_;
  Phase phase_ = Phase::kIdle;
  int core_ = -1;
  CpuRequest* next_ = nullptr;  // run queue link
};

// A core held without preemption (Hold): released by Release() or at
// destruction. Its busy time is charged to the holder's owner.
class CoreHold {
 public:
  CoreHold() = default;
  ~CoreHold() { Release(); }
  CoreHold(const CoreHold&) = delete;
  CoreHold& operator=(const CoreHold&) = delete;
  bool held() const { return req_ != nullptr; }
  void Release();

 private:
  friend class CpuScheduler;
  CpuRequest* req_ = nullptr;
};

class CpuScheduler {
 public:
  // Statistics go under `stats` (e.g. "host.cpu"). REQUIRES: q outlives it.
  CpuScheduler(EventQueue* q, const CpuConfig& cfg, StatGroup stats);
  ~CpuScheduler();
  CpuScheduler(const CpuScheduler&) = delete;
  CpuScheduler& operator=(const CpuScheduler&) = delete;

  // The index CPU time of threads named `name` is charged to (registered
  // once; the same name gives the same index). Call before sampling starts.
  uint16_t Owner(std::string_view name);

  // co_await cpu->Run(d): spends d of CPU time as the current thread (see
  // the file comment), plus the CPU time the thread owes.
  CpuRequest Run(SimTime d) { return CpuRequest(this, d, false); }
  // co_await cpu->Hold(&hold): takes a core for the current thread until
  // hold.Release() (no time slice: a spinning waiter or a spinlock's
  // critical section). REQUIRES: !hold->held().
  struct HoldAwaiter {
    std::unique_ptr<CpuRequest> req;
    CoreHold* hold;
    bool await_ready() noexcept;
    void await_suspend(std::coroutine_handle<> h) { req->await_suspend(h); }
    void await_resume() noexcept {
      if (req) hold->req_ = req.release();
    }
  };
  HoldAwaiter Hold(CoreHold* hold);

  // Adds d of CPU time to the current thread's next burst (a lock's
  // acquisition cost): no event of its own. No-op outside a thread.
  static void Owe(SimTime d) {
    if (internal::current_thread != nullptr) internal::current_thread->owed += d;
  }
  // Charges d of CPU time spent without a request (a fiber that sleeps its
  // CPU time) to `owner`. REQUIRES: unlimited().
  void Account(uint16_t owner, SimTime d) {
    CHECK(unlimited());
    Charge(owner, d);
  }

  const CpuConfig& config() const { return cfg_; }
  bool unlimited() const { return cfg_.cores == 0; }
  EventQueue* queue() const { return q_; }
  // CPU time cores spent so far (bursts, holds and switches; running ones
  // up to now).
  SimTime busy() const;
  size_t run_queue_length() const { return queued_; }

 private:
  friend class CpuRequest;
  friend class CoreHold;
  struct Core {
    uint64_t last_thread = 0;
    uint64_t retained = 0;  // busy, kept by this thread between two bursts
    bool busy = false;
    SimTime busy_since;
    SimTime busy_total;
    SimTime slice_start;  // the running thread's slice began
  };
  struct OwnerStats {
    std::string name;
    Counter time_ns;
    Counter bursts;
  };
  // A free core for `thread` (see the file comment), or -1.
  int PickCore(uint64_t thread) const;
  // The core `thread` kept since its last burst, or -1.
  int RetainedCore(uint64_t thread) const;
  // After the thread that ran a burst on core c ran on until it suspended:
  // gives the core up unless its next burst took it.
  void EndRetention(int c, uint64_t thread);
  void Take(CpuRequest* r, int c);
  // Frees core c and hands it to the head of the run queue.
  void Free(CpuRequest* r, int c);
  void Enqueue(CpuRequest* r);
  void Unlink(CpuRequest* r);
  void Charge(uint16_t owner, SimTime d);

  EventQueue* q_;
  CpuConfig cfg_;
  StatGroup stats_;
  std::vector<Core> cores_;
  uint32_t free_ = 0;
  CpuRequest* head_ = nullptr;
  CpuRequest* tail_ = nullptr;
  size_t queued_ = 0;
  std::vector<std::unique_ptr<OwnerStats>> owners_;
  Counter context_switches_;
  Counter switch_time_ns_;
  Counter preemptions_;
  Counter unlimited_busy_ns_;
  Histogram run_queue_wait_;
};

// co_await CpuBurst(cpu, q, d): a burst of d on `cpu` (cpu->Run(d)), or,
// where a component runs without a CPU model (cpu == nullptr), a plain
// delay of d on q (none when d <= 0). A component's Cpu(d) returns one by
// value, so that its callers await the burst itself: no coroutine frame,
// and one resumption, per burst. Not movable: returned only as a prvalue.
class CpuBurst {
 public:
  CpuBurst(CpuScheduler* cpu, EventQueue* q, SimTime d) {
    if (cpu != nullptr) {
      req_.emplace(cpu, d, false);
    } else if (d > SimTime::Zero()) {
      delay_.emplace(q, d);
    }
  }
  CpuBurst(const CpuBurst&) = delete;
  CpuBurst& operator=(const CpuBurst&) = delete;

  bool await_ready() noexcept { return req_ ? req_->await_ready() : !delay_; }
  void await_suspend(std::coroutine_handle<> h) {
    if (req_) {
      req_->await_suspend(h);
    } else {
      delay_->await_suspend(h);
    }
  }
  void await_resume() const noexcept {}

 private:
  std::optional<CpuRequest> req_;
  std::optional<Delay> delay_;
};

}  // namespace sim
