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
    if (plan_.zbd) {
      const uint64_t n = gen->zr1_ - gen->zr0_;
      jz0_ = gen->zr0_ + n * index / plan_.numjobs;
      jz1_ = gen->zr0_ + n * (index + 1) / plan_.numjobs;
      zpos_[0] = zpos_[1] = gen->ZoneStartByte(jz0_);
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
    --inflight_;
    free_.push_back(static_cast<uint32_t>(req->tag));
    if (plan_.zbd) {
      if (req->status != ssd::IoStatus::kOk) gen_->zone_errors_.Inc();
      if (req->op == ssd::BlockOp::kZoneMgmt) {
        OnResetDone(req);
      } else {
        gen_->NoteCompleted(*req);
        if (req->op == ssd::BlockOp::kWrite) OnZoneWriteDone(*req);
      }
      // A waiting write goes once the job is quiet (or its reset is done).
      if (pend_.valid && inflight_ == 0) TryPending();
    } else {
      gen_->NoteCompleted(*req);
    }
    if (!plan_.open_loop()) {
      FillSlots();
    } else if (flush_pending_) {
      IssueFlush();
    } else if (arrival_waiting_ && !pend_.valid) {
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
    if (free_.empty() || flush_pending_ || pend_.valid) {
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
    while (!free_.empty() && !pend_.valid && !zbd_eof_) {
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
    if (finished_ || inflight_ > 0 || flush_pending_ || pend_.valid) return;
    if (zbd_eof_ && plan_.open_loop() && !arrivals_over_) {
      if (arrival_event_.scheduled()) gen_->env_.queue->Deschedule(&arrival_event_);
      arrival_waiting_ = false;
      arrivals_over_ = true;
    }
    const bool more = plan_.open_loop() ? (!arrivals_over_ || arrival_waiting_)
                                        : gen_->MayIssue(gen_->env_.queue->now()) && !zbd_eof_;
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
    if (plan_.zbd) return IssueZbd();
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

  // ---- zonemode zbd (see the header)

  static constexpr uint64_t kNoZone = UINT64_MAX;

  bool ZoneFull(uint64_t z) { return gen_->Wp(z) + plan_.min_bs > gen_->zone_cap_; }
  bool IsOpen(uint64_t z) const { return std::find(open_.begin(), open_.end(), z) != open_.end(); }

  // fio's zbd_open_zone: true if z is open (and not full) or may be opened now.
  bool OpenZone(uint64_t z) {
    if (gen_->job_open_limit_ == 0) return true;
    if (IsOpen(z)) return gen_->Wp(z) < gen_->zone_cap_;
    if (open_.size() >= gen_->job_open_limit_) return false;
    open_.push_back(z);
    return true;
  }

  // fio's zbd_convert_to_open_zone: an open zone for a write drawn at `off`
  // into zone z, kNoZone when the job must first quiesce.
  uint64_t ConvertToOpenZone(uint64_t z, uint64_t off) {
    if (!open_.empty()) {
      const uint64_t i = (off - plan_.range_start) * open_.size() / (plan_.range_end - plan_.range_start);
      const uint64_t c = open_[std::min<uint64_t>(i, open_.size() - 1)];
      if (!ZoneFull(c)) return c;
    }
    const uint64_t n = jz1_ - jz0_;
    if (open_.size() >= gen_->job_open_limit_ || open_.size() >= n) {
      if (inflight_ > 0) return kNoZone;
      // Quiet: the full zones' last writes have completed and closed them.
      std::erase_if(open_, [this](uint64_t o) { return gen_->Wp(o) >= gen_->zone_cap_; });
    }
    for (uint64_t i = 1; i <= n; ++i) {
      const uint64_t c = jz0_ + (z - jz0_ + i) % n;
      if (IsOpen(c)) continue;
      if (OpenZone(c)) return c;
      break;
    }
    for (uint64_t c : open_) {
      if (!ZoneFull(c)) return c;
    }
    CHECK_GT(inflight_, 0u) << "zonemode zbd: no zone to write with nothing in flight";
    return kNoZone;
  }

  // Draws one I/O and submits it, or keeps a write pending until the job
  // is quiet. Returns its drawn length.
  uint64_t IssueZbd() {
    ssd::BlockOp op = DrawOp();
    if (op == ssd::BlockOp::kRead && plan_.p_write > 0 && !plan_.read_beyond_wp && !gen_->AnyData()) {
      op = ssd::BlockOp::kWrite;  // fio's zbd_adjust_ddir: nothing to read yet
    }
    const uint64_t len = gen_->ClampToIoSize(DrawSize());
    const int d = op == ssd::BlockOp::kRead ? 0 : 1;
    uint64_t off = zpos_[d];
    if (!plan_.sequential) off = NextOffset(len);
    if (op == ssd::BlockOp::kRead) {
      ZbdRead(off, len);
      return len;
    }
    gen_->NoteIssued(len);
    pend_ = Pending{true, len, off, false, false, kNoZone};
    TryPending();
    return len;
  }

  void ZbdRead(uint64_t off, uint64_t len) {
    uint64_t new_len = len;
    if (!plan_.read_beyond_wp) {
      const uint64_t min_bs = plan_.min_bs;
      const uint64_t z0 = gen_->zl_.ZoneOf(off / gen_->page_);
      uint64_t z = z0;
      uint64_t range = gen_->Readable(z);
      if (range < min_bs || (plan_.sequential && off + min_bs > gen_->ZoneStartByte(z) + range)) {
        z = FindZone(z0);
        if (z == kNoZone) {
          zbd_eof_ = true;  // fio: io_u_eof, the job ends
          return;
        }
        range = gen_->Readable(z);
        if (plan_.sequential) off = gen_->ZoneStartByte(z);
      }
      const uint64_t zs = gen_->ZoneStartByte(z);
      if (range <= len) {
        off = zs;
      } else if (!plan_.sequential) {
        off = zs + ((off - gen_->ZoneStartByte(z0)) % (range - len)) / min_bs * min_bs;
      }
      new_len = std::min(len, zs + range - off) / min_bs * min_bs;
    }
    if (plan_.sequential) {
      zpos_[0] = off + new_len;
      if (zpos_[0] >= gen_->ZoneStartByte(jz1_)) zpos_[0] = gen_->ZoneStartByte(jz0_);
    }
    Submit(ssd::BlockOp::kRead, off, new_len);
  }

  // fio's zbd_find_zone: the nearest zone (sequential: the next) with at
  // least min_bs bytes written; sequential jobs look in their own zones.
  uint64_t FindZone(uint64_t zb) {
    const uint64_t lo = plan_.sequential ? jz0_ : gen_->zr0_;
    const uint64_t hi = plan_.sequential ? jz1_ : gen_->zr1_;
    for (uint64_t i = 1; i < hi - lo + 1; ++i) {
      if (zb + i < hi && gen_->Readable(zb + i) >= plan_.min_bs) return zb + i;
      if (!plan_.sequential && zb >= lo + i && gen_->Readable(zb - i) >= plan_.min_bs) return zb - i;
    }
    return kNoZone;
  }

  // Submits the pending write, its zone's reset first if due; returns
  // without submitting when the job must first quiesce.
  void TryPending() {
    CHECK(pend_.valid);
    const uint64_t off = pend_.off;
    const uint64_t rz = (off - plan_.range_start) / gen_->zone_bytes_;
    uint64_t z = plan_.sequential ? gen_->zr0_ + rz
                                  : jz0_ + rz * (jz1_ - jz0_) / (gen_->zr1_ - gen_->zr0_);
    if (pend_.zone != kNoZone) {
      z = pend_.zone;  // reset done: write there
    } else if (!OpenZone(z)) {
      z = ConvertToOpenZone(z, off);
      if (z == kNoZone) {
        gen_->quiesces_.Inc();
        return;
      }
    }
    if (!pend_.reset_checked) {
      pend_.reset_checked = true;
      const double range = static_cast<double>(plan_.range_end - plan_.range_start);
      pend_.reset_due = plan_.zone_reset_frequency > 0 &&
                        static_cast<double>(gen_->zdata_) >= range * plan_.zone_reset_threshold && gen_->DecWriteCnt();
    }
    if (pend_.reset_due || ZoneFull(z)) {
      if (inflight_ > 0) {
        gen_->quiesces_.Inc();
        return;
      }
      pend_.reset_due = false;
      if (gen_->Wp(z) > 0) {
        ssd::BlockRequest* req = TakeSlot();
        req->op = ssd::BlockOp::kZoneMgmt;
        req->zone_action = ssd::ZoneAction::kReset;
        req->offset = gen_->ZoneStartByte(z);
        req->length = 0;
        pend_.zone = z;
        gen_->env_.device->Submit(req);
        return;  // the write goes when the reset completes
      }
    }
    uint64_t& wp = gen_->Wp(z);
    const uint64_t new_len = std::min(pend_.len, gen_->zone_cap_ - wp) / plan_.min_bs * plan_.min_bs;
    CHECK_GT(new_len, 0u);
    const uint64_t at = gen_->ZoneStartByte(z) + wp;
    wp += new_len;
    gen_->zdata_ += new_len;
    gen_->zinflight_[z - gen_->zr0_] += new_len;
    if (plan_.sequential) {
      uint64_t pos = at + new_len;
      if (pos - gen_->ZoneStartByte(z) >= gen_->zone_cap_) pos = gen_->ZoneStartByte(z) + gen_->zone_bytes_;
      if (pos >= gen_->ZoneStartByte(jz1_)) pos = gen_->ZoneStartByte(jz0_);
      zpos_[1] = pos;
    }
    pend_.valid = false;
    SubmitCounted(ssd::BlockOp::kWrite, at, new_len);
    if (plan_.fsync > 0 && ++writes_since_flush_ == plan_.fsync) {
      writes_since_flush_ = 0;
      flush_pending_ = true;
      if (!free_.empty()) IssueFlush();
    }
  }

  void OnResetDone(const ssd::BlockRequest* req) {
    const uint64_t z = gen_->zl_.ZoneOf(req->offset / gen_->page_);
    uint64_t& wp = gen_->Wp(z);
    gen_->zdata_ -= wp;
    wp = 0;
    gen_->zone_resets_.Inc();
    gen_->zone_reset_lat_.Record((req->complete_time - req->submit_time).ns());
  }

  // fio's zbd_end_zone_io: a write reaching the capacity closes its zone.
  void OnZoneWriteDone(const ssd::BlockRequest& req) {
    const uint64_t z = gen_->zl_.ZoneOf(req.offset / gen_->page_);
    gen_->zinflight_[z - gen_->zr0_] -= req.length;
    if (req.offset + req.length >= gen_->ZoneStartByte(z) + gen_->zone_cap_) std::erase(open_, z);
  }

  void Submit(ssd::BlockOp op, uint64_t off, uint64_t len) {
    gen_->NoteIssued(len);
    SubmitCounted(op, off, len);
  }
  // A data I/O already counted by NoteIssued.
  void SubmitCounted(ssd::BlockOp op, uint64_t off, uint64_t len) {
    ssd::BlockRequest* req = TakeSlot();
    req->op = op;
    req->offset = off;
    req->length = len;
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
  // zonemode zbd.
  struct Pending {
    bool valid = false;
    uint64_t len = 0;
    uint64_t off = 0;  // drawn offset (random) or position (sequential)
    bool reset_checked = false;
    bool reset_due = false;
    uint64_t zone = UINT64_MAX;  // the zone chosen, once its reset has been sent
  };
  uint64_t jz0_ = 0, jz1_ = 0;  // the job's zones
  std::vector<uint64_t> open_;  // its open zones, in open order
  uint64_t zpos_[2] = {0, 0};   // sequential positions: reads, writes
  Pending pend_;                // a write waiting for the job to quiesce
  bool zbd_eof_ = false;        // a read found no data anywhere: the job ends
};

sim::Result<std::unique_ptr<FioGenerator>> FioGenerator::Create(const FioConfig& cfg, Env env,
                                                                std::string_view path) {
  CHECK(env.queue != nullptr && env.device != nullptr);
  FS_ASSIGN_OR_RETURN(FioPlan plan, ResolveFio(cfg, env.device->capacity(), env.device->sector_size(), path));
  if (plan.zbd) {
    const ssd::Zoned* z = env.device->layout().zoned;
    if (z == nullptr) {
      return sim::KeyErrors(path)("zonemode", "zbd needs a zoned device (ftl.kind: zns)");
    }
    FS_RETURN_IF_ERROR(CheckZbd(plan, z->layout(), env.device->layout().page_size, path));
  }
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
    if (i == 0 && plan_.zbd) {
      zoned_ = env_.device->layout().zoned;
      CHECK(zoned_ != nullptr) << "zonemode zbd on a device that is not zoned";
      zl_ = zoned_->layout();
      page_ = env_.device->layout().page_size;
      zone_bytes_ = zl_.zone_pages * page_;
      zone_cap_ = zl_.zone_capacity * page_;
      zr0_ = zl_.ZoneOf(plan_.range_start / page_);
      zr1_ = zl_.ZoneOf(plan_.range_end / page_ - 1) + 1;
      const uint32_t limit = ZbdOpenLimit(plan_, zl_);
      job_open_limit_ = limit / plan_.numjobs;
      CHECK(limit == 0 || job_open_limit_ > 0);
      zwp_.assign(zr1_ - zr0_, 0);
      zinflight_.assign(zr1_ - zr0_, 0);
    }
    jobs_.push_back(std::make_unique<Job>(this, i, std::move(dist)));
  }
  RegisterStats();
}

uint64_t FioGenerator::Readable(uint64_t z) const {
  if (plan_.p_write > 0 && z >= zr0_ && z < zr1_) {
    // Its own writes: those completed (a zone's writes are issued in
    // address order, so the bytes below wp - in flight have completed).
    return zwp_[z - zr0_] - zinflight_[z - zr0_];
  }
  const ssd::ZoneInfo i = zoned_->Report(z);
  if (i.state == ssd::ZoneState::kOffline) return 0;
  return (i.write_pointer - i.start) * page_;
}

bool FioGenerator::AnyData() const {
  for (uint64_t z = zr0_; z < zr1_; ++z) {
    if (Readable(z) > 0) return true;
  }
  return false;
}

// fio's zbd_dec_and_reset_write_cnt.
bool FioGenerator::DecWriteCnt() {
  if (write_cnt_ > 0) --write_cnt_;
  if (write_cnt_ > 0) return false;
  write_cnt_ = plan_.zone_reset_frequency > 0
                   ? static_cast<uint64_t>(std::min(1.0 / plan_.zone_reset_frequency, 4294967295.0))
                   : UINT32_MAX;
  return true;
}

FioGenerator::~FioGenerator() {
  if (ramp_end_.scheduled()) env_.queue->Deschedule(&ramp_end_);
}

void FioGenerator::Start() {
  CHECK(!started_) << "FioGenerator::Start called twice";
  started_ = true;
  start_time_ = env_.queue->now();
  if (plan_.runtime > sim::SimTime::Zero()) deadline_ = start_time_ + plan_.runtime;
  if (plan_.zbd) {
    // fio's parse_zone_info: the host's write pointers from Report Zones.
    for (uint64_t z = zr0_; z < zr1_; ++z) {
      const ssd::ZoneInfo i = zoned_->Report(z);
      Wp(z) = i.state == ssd::ZoneState::kFull ? zone_cap_ : (i.write_pointer - i.start) * page_;
      zdata_ += Wp(z);
    }
    write_cnt_ = 1;
    DecWriteCnt();  // initialises it (fio's zbd_reset_write_cnt)
  }
  if (plan_.ramp_time > sim::SimTime::Zero()) {
    ramp_end_.set_daemon(true);
    env_.queue->Schedule(&ramp_end_, measure_start());
  } else {
    BeginMeasured();
  }
  for (auto& job : jobs_) job->Start();
}

void FioGenerator::BeginMeasured() {
  if (done_) return;
  measure_begun_ = true;
  env_.stats.BeginMeasured(env_.queue->now());
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
  // A request the device refused did no work: counted as failed only.
  if (req.status != ssd::IoStatus::kOk) {
    failed_.Inc();
    return;
  }
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
  if (ramp_end_.scheduled()) env_.queue->Deschedule(&ramp_end_);
  if (measure_begun_) env_.stats.EndMeasured(end_time_);
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
  if (plan_.zbd) {
    g.Add(&zone_resets_, "zone_resets", "zones", "zonemode zbd: zones reset (fio's zone resets)");
    g.Add(&zone_reset_lat_, "zone_reset_lat", "ns", "zonemode zbd: Zone Reset latency, submit to completion");
    g.Add(&quiesces_, "quiesces", "events",
          "zonemode zbd: times a write waited for its job's I/Os to complete (a zone to close or to reset)");
    g.Add(&zone_errors_, "zone_errors", "requests",
          "zonemode zbd: requests the zoned device refused (0 unless the model disagrees with the device)");
  }
  g.Add(&failed_, "failed_ios", "ios",
        "Requests the device refused (any op, ramp included): not counted as completed, in the rates or the "
        "latencies");
  g.Add(&delayed_, "delayed_arrivals", "ios", "Rate-limited arrivals that found every slot busy");
  g.Add(&arrival_delay_, "arrival_delay", "ns", "Rate-limited arrivals: wait for a free slot");
  g.AddSeries([this] { return static_cast<double>(completed_all_.value()); }, sim::StatGroup::SeriesKind::kRate,
              "iops", "ios/s", "Data requests completed per second");
  g.AddSeries([this] { return static_cast<double>(bytes_all_.value()) / 1e6; },
              sim::StatGroup::SeriesKind::kRate, "MBps", "MB/s", "Data bytes completed per second (1 MB = 1e6 B)");
}

}  // namespace host
