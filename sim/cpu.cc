#include "sim/cpu.h"

#include <fmt/format.h>
#include <glog/logging.h>

namespace sim {

void CpuConfig::Describe(Schema<CpuConfig>& s) {
  s.Param("cores", &CpuConfig::cores, "4",
          "Host CPU cores the simulated threads (workload threads and the file system's kernel threads) compete "
          "for; 0 = unlimited (a core per thread, the model without a CPU limit). Default: the quad-core testbeds "
          "of the fsync dirty-node-list study (3 GHz quad core) and exF2FS (i7-9700K, '4core')")
      .Range(0, 4096);
  s.Param("slice", &CpuConfig::slice, "2250us",
          "Round-robin time slice: a burst gives its core up after each slice while others wait. Linux EEVDF's "
          "base slice, sysctl_sched_base_slice 0.75 ms scaled by 1 + ilog2(CPUs) = 3 at 4 CPUs; 0 = no slicing");
  s.Param("context_switch", &CpuConfig::context_switch, "2us",
          "CPU time of a core passing from one thread to another (switch and scheduler path), charged to the "
          "thread arriving: lmbench lat_ctx on current x86 measures 1-3 us for two processes");
  s.Param("lock_acquire", &CpuConfig::lock_acquire, "20ns",
          "CPU time of acquiring and releasing a modelled kernel lock (two atomic read-modify-writes with their "
          "barriers, ~30 cycles each at 3 GHz), added to the thread's next CPU burst");
}

// ---- CpuRequest -----------------------------------------------------------

CpuRequest::CpuRequest(CpuScheduler* cpu, SimTime d, bool hold)
    : Event(Priority::kDefault), cpu_(cpu), remaining_(d), hold_(hold) {}

CpuRequest::~CpuRequest() {
  switch (phase_) {
    case Phase::kQueued:
      cpu_->Unlink(this);
      break;
    case Phase::kRunning:
    case Phase::kHeld:
      if (scheduled()) cpu_->q_->Deschedule(this);
      cpu_->Charge(owner_, cpu_->q_->now() - chunk_start_);
      if (core_ >= 0) cpu_->Free(this, core_);
      break;
    default:
      break;
  }
}

bool CpuRequest::await_ready() noexcept {
  thread_ = internal::current_thread;
  if (thread_ != nullptr) {
    thread_id_ = thread_->id;
    owner_ = thread_->owner;
    remaining_ += thread_->owed;
    thread_->owed = SimTime::Zero();
  }
  if (!hold_) {
    if (remaining_ <= SimTime::Zero()) return true;
    cpu_->owners_[owner_ < cpu_->owners_.size() ? owner_ : 0]->bursts.Inc();
    return false;
  }
  cpu_->owners_[owner_ < cpu_->owners_.size() ? owner_ : 0]->bursts.Inc();
  if (cpu_->unlimited()) {
    phase_ = Phase::kHeld;
    chunk_start_ = cpu_->q_->now();
    return true;
  }
  if (const int k = cpu_->RetainedCore(thread_id_); k >= 0 && Reuse(k)) {
    phase_ = Phase::kHeld;
    chunk_start_ = cpu_->q_->now();
    return true;
  }
  const int c = cpu_->head_ == nullptr ? cpu_->PickCore(thread_id_) : -1;
  if (c < 0) return false;
  cpu_->run_queue_wait_.Record(0);
  cpu_->Take(this, c);
  Granted(c);
  // Granted() scheduled the resumption when the core had to switch.
  return !scheduled();
}

bool CpuRequest::Reuse(int c) {
  CpuScheduler::Core& k = cpu_->cores_[c];
  k.retained = 0;
  const SimTime slice = cpu_->cfg_.slice;
  if (cpu_->head_ != nullptr && slice > SimTime::Zero() && cpu_->q_->now() - k.slice_start >= slice) {
    cpu_->preemptions_.Inc();
    cpu_->Free(this, c);
    return false;
  }
  core_ = c;
  cpu_->run_queue_wait_.Record(0);
  return true;
}

void CpuRequest::await_suspend(std::coroutine_handle<> h) {
  h_ = h;
  if (phase_ == Phase::kHeld) return;  // a hold resumes after its switch
  if (cpu_->unlimited()) {
    chunk_ = remaining_;
    chunk_start_ = cpu_->q_->now();
    phase_ = Phase::kRunning;
    cpu_->q_->ScheduleIn(this, chunk_);
    return;
  }
  if (const int k = cpu_->RetainedCore(thread_id_); k >= 0 && Reuse(k)) {
    StartChunk();
    return;
  }
  const int c = cpu_->head_ == nullptr ? cpu_->PickCore(thread_id_) : -1;
  if (c < 0) {
    queued_at_ = cpu_->q_->now();
    cpu_->Enqueue(this);
    return;
  }
  cpu_->run_queue_wait_.Record(0);
  cpu_->Take(this, c);
  Granted(c);
}

void CpuRequest::Granted(int c) {
  core_ = c;
  CpuScheduler::Core& k = cpu_->cores_[c];
  SimTime sw;
  if (k.last_thread != 0 && k.last_thread != thread_id_) {
    sw = cpu_->cfg_.context_switch;
    cpu_->context_switches_.Inc();
    cpu_->switch_time_ns_.Inc(static_cast<uint64_t>(sw.ns()));
  }
  k.last_thread = thread_id_;
  k.slice_start = cpu_->q_->now();
  if (hold_) {
    phase_ = Phase::kHeld;
    chunk_start_ = cpu_->q_->now();
    // From the queue the holder always resumes from an event; taken at
    // once, only when the switch takes time.
    if (h_ || sw > SimTime::Zero()) cpu_->q_->ScheduleIn(this, sw);
    return;
  }
  remaining_ += sw;
  StartChunk();
}

void CpuRequest::StartChunk() {
  SimTime slice = cpu_->cfg_.slice;
  if (slice > SimTime::Zero() && core_ >= 0) {
    // What is left of the slice (a new one when it is over and nobody waits).
    CpuScheduler::Core& k = cpu_->cores_[core_];
    const SimTime left = k.slice_start + slice - cpu_->q_->now();
    if (left <= SimTime::Zero()) k.slice_start = cpu_->q_->now(); else slice = left;
  }
  chunk_ = slice > SimTime::Zero() && remaining_ > slice ? slice : remaining_;
  chunk_start_ = cpu_->q_->now();
  phase_ = Phase::kRunning;
  cpu_->q_->ScheduleIn(this, chunk_);
}

void CpuRequest::Process() {
  if (hold_) {
    internal::ThreadScope s(thread_);
    Resume(h_);
    return;
  }
  cpu_->Charge(owner_, chunk_);
  remaining_ -= chunk_;
  if (core_ >= 0 && remaining_ > SimTime::Zero()) {
    if (cpu_->head_ != nullptr) {
      // The slice is over and others wait: to the tail of the queue.
      cpu_->preemptions_.Inc();
      const int c = core_;
      core_ = -1;
      cpu_->Free(this, c);
      queued_at_ = cpu_->q_->now();
      cpu_->Enqueue(this);
      return;
    }
    StartChunk();
    return;
  }
  phase_ = Phase::kDone;
  // The thread keeps its core while it runs on; the awaiter (this) goes
  // with the resumed coroutine's expression, so only locals after Resume.
  CpuScheduler* cpu = cpu_;
  const int c = core_;
  const uint64_t tid = thread_id_;
  core_ = -1;
  if (c >= 0) {
    if (tid == 0) cpu->Free(this, c); else cpu->cores_[c].retained = tid;
  }
  {
    internal::ThreadScope s(thread_);
    Resume(h_);
  }
  if (c >= 0 && tid != 0) cpu->EndRetention(c, tid);
}

void CoreHold::Release() {
  if (req_ == nullptr) return;
  delete req_;  // the destructor charges the hold and frees the core
  req_ = nullptr;
}

// ---- CpuScheduler ---------------------------------------------------------

CpuScheduler::CpuScheduler(EventQueue* q, const CpuConfig& cfg, StatGroup stats)
    : q_(q), cfg_(cfg), stats_(stats), cores_(cfg.cores), free_(cfg.cores) {
  Owner("other");  // index 0
  stats_.AddFormula([this] { return static_cast<double>(cfg_.cores); }, "cores", "cores",
                    "Host CPU cores (0 = unlimited)");
  stats_.AddFormula([this] { return static_cast<double>(busy().ns()); }, "busy_time", "ns",
                    "CPU time spent on the cores: bursts, spinning and critical sections with the switches");
  stats_.Add(&context_switches_, "context_switches", "switches", "A core passing from one thread to another");
  stats_.Add(&switch_time_ns_, "context_switch_time", "ns", "CPU time of context switches");
  stats_.Add(&preemptions_, "preemptions", "slices", "Bursts that gave their core up at the end of a slice");
  stats_.Add(&run_queue_wait_, "run_queue_wait", "ns",
             "Wait for a core of each CPU burst and hold (0 when a core was free)");
  if (cfg_.cores > 0) {
    stats_.AddRate([this] { return busy().sec() / cfg_.cores; }, q_, "utilization", "ratio",
                   "Busy time over cores x the measured phase (0..1)");
    stats_.AddIntervalRatio([this] { return static_cast<double>(busy().ns()); },
                            [this] { return static_cast<double>(q_->now().ns()) * cfg_.cores; }, "utilization",
                            "ratio", "CPU utilization in the interval: busy time over cores x interval");
    stats_.AddSeries([this] { return static_cast<double>(queued_); }, StatGroup::SeriesKind::kValue,
                     "run_queue", "threads", "Threads waiting for a core at the interval's end");
    for (uint32_t c = 0; c < cfg_.cores; ++c) {
      stats_.AddRate(
          [this, c] {
            const Core& k = cores_[c];
            SimTime b = k.busy_total;
            if (k.busy) b += q_->now() - k.busy_since;
            return b.sec();
          },
          q_, fmt::format("core{}.utilization", c), "ratio",
          fmt::format("Busy share of core {} over the measured phase", c));
    }
  }
}

CpuScheduler::~CpuScheduler() = default;

uint16_t CpuScheduler::Owner(std::string_view name) {
  for (size_t i = 0; i < owners_.size(); ++i)
    if (owners_[i]->name == name) return static_cast<uint16_t>(i);
  CHECK_LT(owners_.size(), 65535u) << "too many CPU owners";
  owners_.push_back(std::make_unique<OwnerStats>());
  OwnerStats& o = *owners_.back();
  o.name = std::string(name);
  StatGroup g = stats_.Group("owner").Group(name);
  g.Add(&o.time_ns, "time", "ns",
        owners_.size() == 1 ? std::string("CPU time of code outside the named threads (mount, setup)")
                            : fmt::format("CPU time of {} threads", o.name));
  g.Add(&o.bursts, "bursts", "bursts", "CPU bursts and holds");
  return static_cast<uint16_t>(owners_.size() - 1);
}

CpuScheduler::HoldAwaiter CpuScheduler::Hold(CoreHold* hold) {
  CHECK(!hold->held()) << "core already held";
  return HoldAwaiter{std::make_unique<CpuRequest>(this, SimTime::Zero(), true), hold};
}

bool CpuScheduler::HoldAwaiter::await_ready() noexcept {
  if (!req->await_ready()) return false;
  hold->req_ = req.release();
  return true;
}

SimTime CpuScheduler::busy() const {
  SimTime b = SimTime::FromNs(static_cast<int64_t>(unlimited_busy_ns_.value()));
  for (const Core& k : cores_) {
    b += k.busy_total;
    if (k.busy) b += q_->now() - k.busy_since;
  }
  return b;
}

int CpuScheduler::RetainedCore(uint64_t thread) const {
  if (thread == 0) return -1;
  for (size_t i = 0; i < cores_.size(); ++i)
    if (cores_[i].retained == thread) return static_cast<int>(i);
  return -1;
}

void CpuScheduler::EndRetention(int c, uint64_t thread) {
  Core& k = cores_[c];
  if (k.retained != thread) return;  // its next burst took it
  k.retained = 0;
  Free(nullptr, c);
}

int CpuScheduler::PickCore(uint64_t thread) const {
  if (free_ == 0) return -1;
  int fresh = -1;
  int any = -1;
  for (size_t i = 0; i < cores_.size(); ++i) {
    const Core& k = cores_[i];
    if (k.busy) continue;
    if (k.last_thread == thread && thread != 0) return static_cast<int>(i);
    if (k.last_thread == 0 && fresh < 0) fresh = static_cast<int>(i);
    if (any < 0) any = static_cast<int>(i);
  }
  return fresh >= 0 ? fresh : any;
}

void CpuScheduler::Take(CpuRequest* r, int c) {
  (void)r;
  Core& k = cores_[c];
  CHECK(!k.busy);
  k.busy = true;
  k.busy_since = q_->now();
  --free_;
}

void CpuScheduler::Free(CpuRequest* r, int c) {
  (void)r;
  Core& k = cores_[c];
  CHECK(k.busy);
  k.retained = 0;
  k.busy = false;
  k.busy_total += q_->now() - k.busy_since;
  ++free_;
  if (head_ == nullptr) return;
  CpuRequest* n = head_;
  head_ = n->next_;
  if (head_ == nullptr) tail_ = nullptr;
  n->next_ = nullptr;
  --queued_;
  run_queue_wait_.Record((q_->now() - n->queued_at_).ns());
  Take(n, c);
  n->Granted(c);
}

void CpuScheduler::Enqueue(CpuRequest* r) {
  r->phase_ = CpuRequest::Phase::kQueued;
  r->next_ = nullptr;
  if (tail_) tail_->next_ = r; else head_ = r;
  tail_ = r;
  ++queued_;
}

void CpuScheduler::Unlink(CpuRequest* r) {
  CpuRequest* prev = nullptr;
  for (CpuRequest* x = head_; x != nullptr; prev = x, x = x->next_) {
    if (x != r) continue;
    (prev ? prev->next_ : head_) = r->next_;
    if (tail_ == r) tail_ = prev;
    r->next_ = nullptr;
    --queued_;
    return;
  }
  LOG(FATAL) << "CPU request missing from the run queue";
}

void CpuScheduler::Charge(uint16_t owner, SimTime d) {
  if (d <= SimTime::Zero()) return;
  OwnerStats& o = *owners_[owner < owners_.size() ? owner : 0];
  o.time_ns.Inc(static_cast<uint64_t>(d.ns()));
  if (unlimited()) unlimited_busy_ns_.Inc(static_cast<uint64_t>(d.ns()));
}

}  // namespace sim
