#include "host/workload/fio_generator.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <glog/logging.h>

namespace host {

namespace {
constexpr const char* kOpNames[] = {"read", "write", "trim", "flush"};
constexpr size_t OpIndex(ssd::BlockOp op) { return static_cast<size_t>(op); }

// "workload.job3" for the generator registered under "workload".
std::string StreamName(const std::string& prefix, uint32_t job) {
  return (prefix.empty() ? std::string("workload") : prefix) + ".job" + std::to_string(job);
}
}  // namespace

// One job: its request slots, RNG stream, position and arrival schedule.
class FioGenerator::Job final : public ssd::BlockClient {
 public:
  Job(FioGenerator* gen, uint32_t index, std::unique_ptr<AccessDistribution> dist)
      : gen_(gen),
        plan_(gen->plan_),
        index_(index),
        rng_(gen->env_.seed, StreamName(gen->env_.stats.prefix(), index)),
        dist_(std::move(dist)),
        slots_(plan_.iodepth) {
    free_.reserve(plan_.iodepth);
    // Hand out slot 0 first (stack order), which keeps traces readable.
    for (uint32_t i = plan_.iodepth; i-- > 0;) free_.push_back(i);
    const uint32_t queue = gen->env_.first_queue + index % gen->env_.device_queues;
    for (uint32_t i = 0; i < plan_.iodepth; ++i) {
      slots_[i].client = this;
      slots_[i].tag = i;
      slots_[i].queue = queue;
    }
    if (plan_.sequential) {
      stripe_start_ = plan_.range_start + uint64_t{index} * plan_.stripe_len;
      stripe_end_ = stripe_start_ + plan_.stripe_len;
      seq_pos_ = stripe_start_;
    }
  }

  ~Job() override {
    if (arrival_event_.scheduled()) gen_->env_.queue->Deschedule(&arrival_event_);
  }

  void Start() {
    if (plan_.open_loop()) {
      const sim::SimTime now = gen_->env_.queue->now();
      next_arrival_ns_ = static_cast<double>(now.ns());
      if (now < gen_->deadline_) {
        gen_->env_.queue->Schedule(&arrival_event_, now);
      } else {
        arrivals_over_ = true;
      }
    } else {
      FillSlots();
    }
    MaybeFinish();
  }

  void OnBlockComplete(ssd::BlockRequest* req) override {
    CHECK_GT(inflight_, 0u);
    gen_->NoteCompleted(*req);
    --inflight_;
    free_.push_back(static_cast<uint32_t>(req->tag));
    if (!plan_.open_loop()) {
      FillSlots();
    } else if (flush_pending_) {
      IssueFlush();
    } else if (arrival_waiting_) {
      arrival_waiting_ = false;
      if (gen_->MayIssue(gen_->env_.queue->now())) {
        IssueArrival();
      } else {
        arrivals_over_ = true;
      }
    }
    MaybeFinish();
  }

  // The global I/O or byte bound was reached: no more arrivals.
  void StopArrivals() {
    if (!plan_.open_loop() || arrivals_over_) return;
    if (arrival_event_.scheduled()) gen_->env_.queue->Deschedule(&arrival_event_);
    arrival_waiting_ = false;
    arrivals_over_ = true;
    MaybeFinish();
  }

  uint32_t inflight() const { return inflight_; }

 private:
  void OnArrival() {
    if (!gen_->MayIssue(gen_->env_.queue->now())) {
      arrivals_over_ = true;
      MaybeFinish();
      return;
    }
    if (free_.empty() || flush_pending_) {
      arrival_waiting_ = true;
      gen_->delayed_.Inc();
      return;
    }
    IssueArrival();
  }

  // Issues the arrival due at next_arrival_ns_ (now or overdue) and
  // schedules the one after it.
  void IssueArrival() {
    const sim::SimTime now = gen_->env_.queue->now();
    gen_->arrival_delay_.Record(now.ns() - std::llround(next_arrival_ns_));
    const uint64_t bytes = IssueData();
    double gap = 0;
    if (plan_.rate_iops > 0) gap = 1e9 / plan_.rate_iops;
    if (plan_.rate_bw > 0) gap = std::max(gap, static_cast<double>(bytes) * 1e9 / plan_.rate_bw);
    if (plan_.poisson) gap = rng_.Exponential(gap);
    next_arrival_ns_ += gap;
    if (arrivals_over_) return;  // IssueData reached a global bound
    const sim::SimTime next = std::max(now, sim::Ns(std::llround(next_arrival_ns_)));
    if (next >= gen_->deadline_) {
      arrivals_over_ = true;
    } else {
      gen_->env_.queue->Schedule(&arrival_event_, next);
    }
  }

  // Closed loop: use every free slot, a pending flush first.
  void FillSlots() {
    while (!free_.empty()) {
      if (flush_pending_) {
        IssueFlush();
      } else if (gen_->MayIssue(gen_->env_.queue->now())) {
        IssueData();
      } else {
        break;
      }
    }
  }

  void MaybeFinish() {
    if (finished_ || inflight_ > 0 || flush_pending_) return;
    const bool more = plan_.open_loop() ? (!arrivals_over_ || arrival_waiting_)
                                        : gen_->MayIssue(gen_->env_.queue->now());
    if (more) return;
    finished_ = true;
    gen_->OnJobFinished();
  }

  ssd::BlockRequest* TakeSlot() {
    CHECK(!free_.empty());
    ssd::BlockRequest* req = &slots_[free_.back()];
    free_.pop_back();
    ++inflight_;
    CHECK_LE(inflight_, plan_.iodepth);
    return req;
  }

  // Draws and submits one data I/O. REQUIRES: a free slot, MayIssue(now).
  // Returns its length.
  uint64_t IssueData() {
    const ssd::BlockOp op = DrawOp();
    const uint64_t len = gen_->ClampToIoSize(DrawSize());
    const uint64_t offset = NextOffset(len);
    ssd::BlockRequest* req = TakeSlot();
    req->op = op;
    req->offset = offset;
    req->length = len;
    gen_->env_.device->Submit(req);
    gen_->NoteIssued(len);
    if (op == ssd::BlockOp::kWrite && plan_.fsync > 0 && ++writes_since_flush_ == plan_.fsync) {
      writes_since_flush_ = 0;
      flush_pending_ = true;
      if (!free_.empty()) IssueFlush();
    }
    return len;
  }

  void IssueFlush() {
    flush_pending_ = false;
    ssd::BlockRequest* req = TakeSlot();
    req->op = ssd::BlockOp::kFlush;
    req->offset = 0;
    req->length = 0;
    ++gen_->flushes_issued_;
    gen_->env_.device->Submit(req);
  }

  ssd::BlockOp DrawOp() {
    if (plan_.p_read >= 1) return ssd::BlockOp::kRead;
    if (plan_.p_write >= 1) return ssd::BlockOp::kWrite;
    if (plan_.p_trim >= 1) return ssd::BlockOp::kTrim;
    const double u = rng_.UniformDouble();
    if (u < plan_.p_read) return ssd::BlockOp::kRead;
    if (u < plan_.p_read + plan_.p_write) return ssd::BlockOp::kWrite;
    return ssd::BlockOp::kTrim;
  }

  uint64_t DrawSize() {
    if (gen_->size_table_ == nullptr) return plan_.sizes[0].bytes;
    return plan_.sizes[gen_->size_table_->Next(rng_)].bytes;
  }

  uint64_t NextOffset(uint64_t len) {
    if (plan_.sequential) {
      if (seq_pos_ + len > stripe_end_) seq_pos_ = stripe_start_;
      const uint64_t off = seq_pos_;
      seq_pos_ += len;
      return off;
    }
    const uint64_t off = plan_.range_start + dist_->Next(rng_) * plan_.align;
    if (off + len <= plan_.range_end) return off;
    // The last slots cannot hold a large I/O: use the last aligned place that does.
    return plan_.range_start + (plan_.range_end - plan_.range_start - len) / plan_.align * plan_.align;
  }

  FioGenerator* gen_;
  const FioPlan& plan_;
  uint32_t index_;
  sim::Rng rng_;
  std::unique_ptr<AccessDistribution> dist_;  // random patterns only
  std::vector<ssd::BlockRequest> slots_;      // iodepth requests, reused
  std::vector<uint32_t> free_;                // free slot indexes (stack)
  uint32_t inflight_ = 0;
  uint64_t stripe_start_ = 0;
  uint64_t stripe_end_ = 0;
  uint64_t seq_pos_ = 0;
  uint32_t writes_since_flush_ = 0;
  bool flush_pending_ = false;
  bool finished_ = false;
  // Open loop.
  sim::MemberEvent<Job, &Job::OnArrival> arrival_event_{this, sim::Priority::kIssue};
  double next_arrival_ns_ = 0;  // nominal time of the next (or the waiting) arrival
  bool arrival_waiting_ = false;
  bool arrivals_over_ = false;
};

sim::Result<std::unique_ptr<FioGenerator>> FioGenerator::Create(const FioConfig& cfg, Env env,
                                                                std::string_view path) {
  CHECK(env.queue != nullptr && env.device != nullptr);
  FS_ASSIGN_OR_RETURN(FioPlan plan, ResolveFio(cfg, env.device->capacity(), env.device->sector_size(), path));
  return std::make_unique<FioGenerator>(plan, std::move(env));
}

FioGenerator::FioGenerator(const FioPlan& plan, Env env) : plan_(plan), env_(std::move(env)) {
  CHECK(env_.queue != nullptr && env_.device != nullptr);
  CHECK_GE(env_.device_queues, 1u);
  CHECK_LE(plan_.range_end, env_.device->capacity());
  CHECK(!plan_.sizes.empty());
  if (plan_.sizes.size() > 1) {
    std::vector<double> w;
    for (const FioPlan::BlockSize& s : plan_.sizes) w.push_back(s.fraction);
    size_table_ = std::make_unique<AliasTable>(w);
  }
  for (uint32_t i = 0; i < plan_.numjobs; ++i) {
    std::unique_ptr<AccessDistribution> dist;
    if (!plan_.sequential) {
      auto d = MakeAccessDistribution(plan_.distribution, {plan_.access_units, &plan_.distributions});
      CHECK(d.ok()) << d.status().message();
      dist = std::move(d.value());
    }
    jobs_.push_back(std::make_unique<Job>(this, i, std::move(dist)));
  }
  RegisterStats();
}

FioGenerator::~FioGenerator() = default;

void FioGenerator::Start() {
  CHECK(!started_) << "FioGenerator::Start called twice";
  started_ = true;
  start_time_ = env_.queue->now();
  if (plan_.runtime > sim::SimTime::Zero()) deadline_ = start_time_ + plan_.runtime;
  for (auto& job : jobs_) job->Start();
}

bool FioGenerator::MayIssue(sim::SimTime now) const {
  if (now >= deadline_) return false;
  if (plan_.total_ios > 0 && issued_ios_ >= plan_.total_ios) return false;
  if (plan_.io_size > 0 && issued_bytes_ >= plan_.io_size) return false;
  return true;
}

uint64_t FioGenerator::ClampToIoSize(uint64_t want) const {
  if (plan_.io_size == 0) return want;
  return std::min(want, plan_.io_size - issued_bytes_);
}

void FioGenerator::NoteIssued(uint64_t bytes) {
  ++issued_ios_;
  issued_bytes_ += bytes;
  // A global bound just ran out: open-loop jobs stop their schedules now, so
  // no arrival event outlives the workload.
  if (!MayIssue(env_.queue->now()) && plan_.open_loop()) {
    for (auto& job : jobs_) job->StopArrivals();
  }
}

void FioGenerator::NoteCompleted(const ssd::BlockRequest& req) {
  if (req.op != ssd::BlockOp::kFlush) {
    completed_all_.Inc();
    bytes_all_.Inc(req.length);
  }
  if (req.complete_time > measure_start()) {
    OpStats& s = ops_[OpIndex(req.op)];
    s.ios.Inc();
    s.bytes.Inc(req.length);
    s.lat.Record((req.complete_time - req.submit_time).ns());
  }
}

void FioGenerator::OnJobFinished() {
  ++finished_jobs_;
  CHECK_LE(finished_jobs_, jobs_.size());
  if (finished_jobs_ < jobs_.size()) return;
  done_ = true;
  end_time_ = env_.queue->now();
  if (on_done_) on_done_();
}

sim::SimTime FioGenerator::end_time() const {
  if (done_) return end_time_;
  return started_ ? env_.queue->now() : start_time_;
}

double FioGenerator::MeasuredSeconds() const {
  const sim::SimTime t = end_time() - measure_start();
  return t > sim::SimTime::Zero() ? t.sec() : 0.0;
}

double FioGenerator::OpIops(ssd::BlockOp op) const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(op_stats(op).ios.value()) / s : 0.0;
}

double FioGenerator::OpBandwidth(ssd::BlockOp op) const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(op_stats(op).bytes.value()) / s : 0.0;
}

double FioGenerator::Iops() const {
  return OpIops(ssd::BlockOp::kRead) + OpIops(ssd::BlockOp::kWrite) + OpIops(ssd::BlockOp::kTrim);
}

double FioGenerator::Bandwidth() const {
  return OpBandwidth(ssd::BlockOp::kRead) + OpBandwidth(ssd::BlockOp::kWrite) + OpBandwidth(ssd::BlockOp::kTrim);
}

void FioGenerator::RegisterStats() {
  const sim::StatGroup& g = env_.stats;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const ssd::BlockOp op = static_cast<ssd::BlockOp>(i);
    const std::string name = kOpNames[i];
    const sim::StatGroup og = g.Group(name);
    og.Add(&ops_[i].ios, "ios", "ios", name + " requests completed in the measured window");
    og.Add(&ops_[i].bytes, "bytes", "bytes", name + " bytes completed in the measured window");
    og.Add(&ops_[i].lat, "lat", "ns", name + " latency, device submit to completion");
    if (op == ssd::BlockOp::kRead || op == ssd::BlockOp::kWrite) og.AddIntervalPercentiles(&ops_[i].lat, "lat", "ns");
    og.AddFormula([this, op] { return OpIops(op); }, "iops", "ios/s", name + " requests per second (measured)");
    og.AddFormula([this, op] { return OpBandwidth(op); }, "bw", "bytes/s", name + " bytes per second (measured)");
  }
  g.AddFormula([this] { return Iops(); }, "iops", "ios/s", "Reads+writes+trims per second (measured window)");
  g.AddFormula([this] { return Bandwidth(); }, "bw", "bytes/s", "Bytes per second (measured window)");
  g.AddFormula([this] { return MeasuredSeconds(); }, "measured_time", "s",
               "Measured window: from start + ramp_time to the last completion");
  g.Add(&completed_all_, "ios_total", "ios", "Data requests completed, ramp included");
  g.Add(&delayed_, "delayed_arrivals", "ios", "Rate-limited arrivals that found every slot busy");
  g.Add(&arrival_delay_, "arrival_delay", "ns", "Rate-limited arrivals: wait for a free slot");
  g.AddSeries([this] { return static_cast<double>(completed_all_.value()); }, sim::StatGroup::SeriesKind::kRate,
              "iops", "ios/s", "Data requests completed per second");
  g.AddSeries([this] { return static_cast<double>(bytes_all_.value()) / 1e6; },
              sim::StatGroup::SeriesKind::kRate, "MBps", "MB/s", "Data bytes completed per second (1 MB = 1e6 B)");
}

}  // namespace host
