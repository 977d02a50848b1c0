#include "host/replay/trace_replayer.h"

#include <algorithm>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host {

namespace {
constexpr const char* kOpNames[] = {"read", "write", "trim", "flush"};
constexpr size_t OpIndex(ssd::BlockOp op) { return static_cast<size_t>(op); }

}  // namespace

sim::Result<std::unique_ptr<TraceReplayer>> TraceReplayer::Create(const TraceReplayConfig& cfg, Env env,
                                                                  std::string_view base_dir,
                                                                  std::string_view key_path) {
  CHECK(env.queue != nullptr && env.device != nullptr);
  FS_RETURN_IF_ERROR(cfg.Validate(env.device->capacity(), env.device->sector_size(), key_path));
  return Make(cfg, std::move(env), TraceInput::File(ResolveTracePath(cfg.path, base_dir)), key_path);
}

sim::Result<std::unique_ptr<TraceReplayer>> TraceReplayer::CreateFromMemory(const TraceReplayConfig& cfg, Env env,
                                                                            std::string name,
                                                                            std::string_view data,
                                                                            std::string_view key_path) {
  CHECK(env.queue != nullptr && env.device != nullptr);
  TraceReplayConfig c = cfg;
  if (c.path.empty()) c.path = name;  // Validate wants a path; it is not opened
  FS_RETURN_IF_ERROR(c.Validate(env.device->capacity(), env.device->sector_size(), key_path));
  return Make(c, std::move(env), TraceInput::Memory(std::move(name), data), key_path);
}

sim::Result<std::unique_ptr<TraceReplayer>> TraceReplayer::Make(const TraceReplayConfig& cfg, Env env,
                                                                TraceInput input, std::string_view key_path) {
  CHECK_GE(env.device_queues, 1u);
  // Open first: a missing file or an undetectable format is reported before
  // any pre-pass work.
  sim::Result<std::unique_ptr<BlockTraceReader>> first = input.Open(cfg.reader);
  if (!first.ok()) return first.status();
  if (cfg.zoned == "remap") {
    const ssd::DeviceLayout& l = env.device->layout();
    if (l.zoned == nullptr) {
      return sim::KeyErrors(key_path)("zoned", "remap needs a zoned device (ftl.kind: zns)");
    }
    if (cfg.EffectiveAlign(env.device->sector_size()) % l.page_size != 0) {
      return sim::KeyErrors(key_path)(
          "align", fmt::format("zoned: remap takes whole {}-byte flash pages: set align to a multiple of it",
                               l.page_size));
    }
  }
  FS_ASSIGN_OR_RETURN(AddressMap map,
                      AddressMap::Build(cfg, env.device->capacity(), env.device->sector_size(), input));
  return std::unique_ptr<TraceReplayer>(
      new TraceReplayer(cfg, std::move(env), std::move(map), std::move(input), std::move(first).value()));
}

TraceReplayer::TraceReplayer(const TraceReplayConfig& cfg, Env env, AddressMap map, TraceInput input,
                             std::unique_ptr<BlockTraceReader> first)
    : cfg_(cfg), env_(std::move(env)), map_(std::move(map)), open_loop_(cfg.open_loop()) {
  stream_ = std::make_unique<ReplayStream>(cfg_, std::move(input), std::move(first), &map_, &sc_);
  slots_.resize(cfg_.iodepth);
  slot_info_.resize(cfg_.iodepth);
  free_.reserve(cfg_.iodepth);
  for (uint32_t i = cfg_.iodepth; i-- > 0;) free_.push_back(i);  // slot 0 first
  for (uint32_t i = 0; i < cfg_.iodepth; ++i) {
    slots_[i].client = this;
    slots_[i].tag = i;
    slots_[i].queue = env_.first_queue + i % env_.device_queues;
  }
  if (open_loop_) backlog_.resize(cfg_.max_backlog);
  if (cfg_.zoned == "remap") {
    const ssd::DeviceLayout& l = env_.device->layout();
    zones_ = l.zoned->layout();
    page_ = l.page_size;
    remap_ = std::make_unique<ZoneRemap>(zones_, env_.device->capacity() / page_);
    held_.reserve(cfg_.iodepth);
  }
  RegisterStats();
}

TraceReplayer::~TraceReplayer() {
  if (arrival_event_.scheduled()) env_.queue->Deschedule(&arrival_event_);
  if (instant_event_.scheduled()) env_.queue->Deschedule(&instant_event_);
}

void TraceReplayer::Start() {
  CHECK(!started_) << "TraceReplayer::Start called twice";
  started_ = true;
  start_time_ = env_.queue->now();
  CHECK_LT(start_time_.ns(), int64_t{1} << 62) << "replay starts too late for trace times to fit";
  env_.stats.BeginMeasured(start_time_);
  if (open_loop_) {
    ReadNext();
    PumpArrivals();
  } else {
    Fill();
  }
  MaybeDone();
}

void TraceReplayer::ReadNext() {
  if (stream_over_ || have_pending_) return;
  sim::Result<bool> more = stream_->Next(&pending_);
  if (!more.ok()) {
    Fail(more.status());
    return;
  }
  if (!*more) {
    stream_over_ = true;
    return;
  }
  have_pending_ = true;
}

void TraceReplayer::PumpArrivals() {
  const sim::SimTime now = env_.queue->now();
  while (have_pending_) {
    const sim::SimTime at = start_time_ + sim::Ns(pending_.arrival_ns);
    if (at > now) {
      env_.queue->Reschedule(&arrival_event_, at);
      return;
    }
    if (backlog_size_ == backlog_.size()) {
      // Host queue full: stop reading until a completion makes room.
      if (!paused_) {
        paused_ = true;
        pauses_.Inc();
      }
      return;
    }
    paused_ = false;
    if (!free_.empty() && backlog_size_ == 0) {
      Issue(pending_, at);
    } else {
      delayed_.Inc();
      backlog_[(backlog_head_ + backlog_size_) % backlog_.size()] = pending_;
      ++backlog_size_;
      backlog_hist_.Record(static_cast<int64_t>(backlog_size_));
      if (backlog_size_ > backlog_max_) {
        backlog_max_ = backlog_size_;
        backlog_max_gauge_.Set(static_cast<double>(backlog_max_));
      }
    }
    have_pending_ = false;
    ReadNext();
  }
  MaybeDone();
}

void TraceReplayer::Fill() {
  while (!free_.empty() && !stream_over_) {
    ReadNext();
    if (!have_pending_) break;
    have_pending_ = false;
    Issue(pending_, env_.queue->now());
  }
}

void TraceReplayer::Issue(const ReplayItem& item, sim::SimTime arrival) {
  CHECK(!free_.empty());
  const uint32_t slot = free_.back();
  free_.pop_back();
  ssd::BlockRequest* req = &slots_[slot];
  req->op = item.op;
  req->offset = item.offset;
  req->length = item.length;
  req->fua = item.fua;
  slot_info_[slot].arrival = arrival;
  const sim::SimTime now = env_.queue->now();
  if (open_loop_) lateness_.Record((now - arrival).ns());
  ++outstanding_;
  outstanding_hist_.Record(outstanding_);
  if (outstanding_ > outstanding_max_) {
    outstanding_max_ = outstanding_;
    outstanding_max_gauge_.Set(outstanding_max_);
  }
  if (!have_trace_time_) {
    have_trace_time_ = true;
    trace_min_ns_ = trace_max_ns_ = item.trace_ns;
  }
  trace_min_ns_ = std::min(trace_min_ns_, item.trace_ns);
  trace_max_ns_ = std::max(trace_max_ns_, item.trace_ns);
  issued_.Inc();
  if (remap_ != nullptr && item.op != ssd::BlockOp::kFlush) {
    IssueRemapped(slot, item);
    return;
  }
  env_.device->Submit(req);
}

void TraceReplayer::OnBlockComplete(ssd::BlockRequest* req) {
  if (req->tag >= kPartTag) {
    OnPartDone(req);
    return;
  }
  CHECK_GT(outstanding_, 0u);
  const uint32_t slot = static_cast<uint32_t>(req->tag);
  CHECK_LT(slot, slots_.size());
  CHECK_EQ(req, &slots_[slot]);
  Finish(slot, req->op, req->length, req->submit_time, req->status == ssd::IoStatus::kOk);
}

void TraceReplayer::Finish(uint32_t slot, ssd::BlockOp op, uint64_t length, sim::SimTime submit, bool ok) {
  const sim::SimTime now = env_.queue->now();
  // A request the device refused did no work: it counts as failed, never
  // in the throughput or the latencies.
  if (!ok) {
    failed_.Inc();
  } else {
    OpStats& s = ops_[OpIndex(op)];
    s.ios.Inc();
    s.bytes.Inc(length);
    s.lat.Record((now - slot_info_[slot].arrival).ns());
    s.device_lat.Record((now - submit).ns());
    if (op != ssd::BlockOp::kFlush) {
      ios_total_.Inc();
      bytes_total_.Inc(length);
    }
  }
  ++completed_;
  --outstanding_;
  free_.push_back(slot);
  if (open_loop_) {
    if (backlog_size_ > 0 && status_.ok()) {
      const ReplayItem item = backlog_[backlog_head_];
      backlog_head_ = (backlog_head_ + 1) % backlog_.size();
      --backlog_size_;
      Issue(item, start_time_ + sim::Ns(item.arrival_ns));
    }
    if (have_pending_ && !arrival_event_.scheduled()) PumpArrivals();
  } else {
    Fill();
  }
  MaybeDone();
}

void TraceReplayer::Fail(const sim::Status& st) {
  if (status_.ok()) status_ = st;
  stream_over_ = true;
  have_pending_ = false;
  dropped_ += backlog_size_;
  backlog_size_ = 0;
  if (arrival_event_.scheduled()) env_.queue->Deschedule(&arrival_event_);
}

// ---------------------------------------------------------------------------
// workload.trace.zoned: remap

void TraceReplayer::IssueRemapped(uint32_t slot, const ReplayItem& item) {
  SlotInfo& si = slot_info_[slot];
  si.parts = 0;
  si.failed = false;
  si.first_submit = env_.queue->now();
  si.op = item.op;
  si.length = item.length;
  si.line_no = item.line_no;
  const uint64_t lp = item.offset / page_;
  const uint64_t n = (item.offset + item.length + page_ - 1) / page_ - lp;
  if (item.op == ssd::BlockOp::kWrite) {
    si.next_lp = lp;
    si.left = n;
    held_.push_back(slot);
    PlaceHeld();
    return;
  }
  remap_->Runs(lp, n, &runs_);
  uint64_t mapped = 0;
  for (const ZoneRemap::Run& r : runs_) mapped += r.pages;
  if (item.op == ssd::BlockOp::kTrim) {
    remap_->Trim(lp, n);  // a ZNS device ignores trims in zones: host-side only
  } else {
    z_unmapped_.Inc(n - mapped);
    for (const ZoneRemap::Run& r : runs_) SubmitPart(slot, ssd::BlockOp::kRead, r.device_page * page_, r.pages * page_);
  }
  if (si.parts == 0) Instant(slot);
}

// Places the held writes in record order; stops at a zone reset (resumed
// when it completes) or, with no space left, fails the replay.
void TraceReplayer::PlaceHeld() {
  while (held_head_ < held_.size() && !reset_inflight_) {
    const uint32_t slot = held_[held_head_];
    SlotInfo& si = slot_info_[slot];
    while (si.left > 0) {
      if (!status_.ok()) {
        si.left = 0;  // the replay failed: what was placed completes, the rest is dropped
        break;
      }
      const ZoneRemap::Place p = remap_->PlaceWrite(si.left);
      if (p.kind == ZoneRemap::Place::kReset) {
        const uint32_t part = SubmitPart(slot, ssd::BlockOp::kZoneMgmt, zones_.ZoneStart(p.zone) * page_, 0);
        --si.parts;  // a reset is no part of the record
        part_info_[part].slot = UINT32_MAX;
        part_info_[part].zone = p.zone;
        reset_inflight_ = true;
        return;
      }
      if (p.kind == ZoneRemap::Place::kNoSpace) {
        Fail(sim::Status::InvalidInput(fmt::format(
            "{}:{}: zoned: remap: no zone is empty or free of live data for this write (remap does no cleaning: "
            "the trace's live data fills the zones)",
            stream_->path(), si.line_no)));
        continue;
      }
      const uint32_t part =
          SubmitPart(slot, ssd::BlockOp::kZoneAppend, zones_.ZoneStart(p.zone) * page_, p.pages * page_);
      part_info_[part].zone = p.zone;
      part_info_[part].first_lp = si.next_lp;
      part_info_[part].pages = p.pages;
      z_appends_.Inc();
      si.next_lp += p.pages;
      si.left -= p.pages;
    }
    ++held_head_;
    if (si.parts == 0) Instant(slot);
  }
  if (held_head_ == held_.size()) {
    held_.clear();
    held_head_ = 0;
  }
}

uint32_t TraceReplayer::SubmitPart(uint32_t slot, ssd::BlockOp op, uint64_t offset, uint64_t length) {
  if (free_parts_.empty()) {
    free_parts_.push_back(static_cast<uint32_t>(parts_.size()));
    parts_.push_back(std::make_unique<ssd::BlockRequest>());
    part_info_.emplace_back();
    parts_.back()->client = this;
    parts_.back()->tag = kPartTag + (parts_.size() - 1);
  }
  const uint32_t i = free_parts_.back();
  free_parts_.pop_back();
  ssd::BlockRequest* req = parts_[i].get();
  req->op = op;
  req->offset = offset;
  req->length = length;
  req->fua = false;
  req->zone_action = ssd::ZoneAction::kReset;
  req->queue = slots_[slot].queue;
  part_info_[i] = PartInfo{slot, 0, 0, 0};
  ++slot_info_[slot].parts;
  env_.device->Submit(req);
  return i;
}

void TraceReplayer::OnPartDone(ssd::BlockRequest* req) {
  const uint32_t i = static_cast<uint32_t>(req->tag - kPartTag);
  const PartInfo pi = part_info_[i];
  free_parts_.push_back(i);
  if (req->status != ssd::IoStatus::kOk) z_errors_.Inc();
  if (pi.slot == UINT32_MAX) {  // a zone reset
    remap_->ResetDone(pi.zone);
    z_resets_.Inc();
    z_reset_lat_.Record((req->complete_time - req->submit_time).ns());
    reset_inflight_ = false;
    PlaceHeld();
    MaybeDone();
    return;
  }
  if (req->op == ssd::BlockOp::kZoneAppend) {
    remap_->AppendDone(pi.zone, pi.first_lp, pi.pages, req->result_offset / page_, req->status == ssd::IoStatus::kOk);
  }
  SlotInfo& si = slot_info_[pi.slot];
  CHECK_GT(si.parts, 0u);
  if (req->status != ssd::IoStatus::kOk) si.failed = true;
  if (--si.parts == 0 && si.left == 0) Finish(pi.slot, si.op, si.length, si.first_submit, !si.failed);
}

void TraceReplayer::Instant(uint32_t slot) {
  instant_.push_back(slot);
  if (!instant_event_.scheduled()) env_.queue->Schedule(&instant_event_, env_.queue->now());
}

void TraceReplayer::OnInstantEvent() {
  std::vector<uint32_t> now;
  now.swap(instant_);
  for (uint32_t slot : now) {
    const SlotInfo& si = slot_info_[slot];
    Finish(slot, si.op, si.length, si.first_submit, !si.failed);
  }
}

void TraceReplayer::MaybeDone() {
  if (done_ || !started_ || !stream_over_ || have_pending_ || backlog_size_ > 0 || outstanding_ > 0) return;
  done_ = true;
  end_time_ = env_.queue->now();
  env_.stats.EndMeasured(end_time_);
  if (on_done_) on_done_();
}

sim::SimTime TraceReplayer::end_time() const {
  if (done_) return end_time_;
  return started_ ? env_.queue->now() : start_time_;
}

double TraceReplayer::MeasuredSeconds() const {
  const sim::SimTime t = end_time() - start_time_;
  return t > sim::SimTime::Zero() ? t.sec() : 0.0;
}

double TraceReplayer::OpIops(ssd::BlockOp op) const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(op_stats(op).ios.value()) / s : 0.0;
}

double TraceReplayer::OpBandwidth(ssd::BlockOp op) const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(op_stats(op).bytes.value()) / s : 0.0;
}

double TraceReplayer::Iops() const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(ios_total_.value()) / s : 0.0;
}

double TraceReplayer::Bandwidth() const {
  const double s = MeasuredSeconds();
  return s > 0 ? static_cast<double>(bytes_total_.value()) / s : 0.0;
}

std::string TraceReplayer::Report() const {
  std::string out = fmt::format("replay     {} ({}): {} records read, {} issued, {} completed, {} loop(s)\n",
                                stream_->path(), stream_->format(), records_read(), issued(), completed(),
                                loops_started());
  out += fmt::format("skipped    volume {}, window {}, op {}, zero-length {}, malformed {}\n", skipped_volume(),
                     skipped_window(), skipped_op(), skipped_zero_length(), skipped_malformed());
  const std::vector<std::string>& errors = reader_errors();
  if (!errors.empty()) {
    out += fmt::format("malformed  first {} of {} lines:\n", errors.size(), skipped_malformed());
    for (const std::string& e : errors) out += fmt::format("  {}\n", e);
  }
  const FitCounters& f = fit_counters();
  out += fmt::format("fit        {}: wrapped {}, moved {}, clamped {}; alignment added {} bytes\n", cfg_.fit,
                     f.wrapped.value(), f.moved.value(), f.clamped.value(), f.align_bytes.value());
  if (open_loop_) {
    out += fmt::format("timing     trace {} replayed in {}; {} arrivals delayed, reading paused {} times\n",
                       trace_time().ToString(), (end_time() - start_time_).ToString(), delayed(), pauses());
    if (sc_.out_of_order.value() > 0) {
      out += fmt::format("order      {} records earlier than a record before them, issued at once with it (the "
                         "earliest {} before); none dropped\n",
                         sc_.out_of_order.value(), stream_->max_out_of_order().ToString());
    }
    const uint64_t kept = stream_->first_loop_records();
    const uint64_t ties = sc_.ties.value();
    if (kept >= kMinTiedRecords && ties * 2 >= kept) {
      if (cfg_.spread_ties > sim::SimTime::Zero()) {
        out += fmt::format("ties       {} of {} records have the time of the record before (a coarse clock); each "
                           "run spread evenly over {}\n",
                           ties, kept, cfg_.spread_ties.ToString());
      } else {
        out += fmt::format("warning    {} of {} records have the time of the record before (a coarse clock): each "
                           "run is issued at once; set workload.trace.spread_ties to the clock's step (e.g. 1s) "
                           "to spread it\n",
                           ties, kept);
      }
    }
  }
  if (!status_.ok()) {
    out += fmt::format("stopped    {}", status_.message());
    if (dropped_ > 0) out += fmt::format(" ({} queued arrivals dropped)", dropped_);
    out += "\n";
  }
  return out;
}

void TraceReplayer::RegisterStats() {
  const sim::StatGroup& g = env_.stats;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const ssd::BlockOp op = static_cast<ssd::BlockOp>(i);
    const std::string name = kOpNames[i];
    const sim::StatGroup og = g.Group(name);
    og.Add(&ops_[i].ios, "ios", "ios", name + " requests completed");
    og.Add(&ops_[i].bytes, "bytes", "bytes", name + " bytes completed (as sent to the device)");
    og.Add(&ops_[i].lat, "lat", "ns", name + " latency from trace arrival to completion (host queue included)");
    og.Add(&ops_[i].device_lat, "device_lat", "ns", name + " latency from device submit to completion");
    if (op == ssd::BlockOp::kRead || op == ssd::BlockOp::kWrite) og.AddIntervalPercentiles(&ops_[i].lat, "lat", "ns");
    og.AddFormula([this, op] { return OpIops(op); }, "iops", "ios/s", name + " requests per second");
    og.AddFormula([this, op] { return OpBandwidth(op); }, "bw", "bytes/s", name + " bytes per second");
  }
  g.Add(&sc_.records_read, "records_read", "records", "Records returned by the trace reader (all loops)");
  g.Add(&issued_, "records_issued", "records", "Records submitted to the device");
  g.Add(&sc_.skipped_op, "skipped.op", "records", "Trims/flushes not replayed (include_trims/include_flushes)");
  g.Add(&sc_.skipped_volume, "skipped.volume", "records", "Records of volumes not selected");
  g.Add(&sc_.skipped_window, "skipped.window", "records", "Records outside the time or count window");
  g.AddFormula([this] { return static_cast<double>(skipped_zero_length()); }, "skipped.zero_length", "records",
               "Zero-length requests dropped by the reader (first loop)");
  g.AddFormula([this] { return static_cast<double>(skipped_malformed()); }, "skipped.malformed", "lines",
               "Malformed lines skipped (on_error: skip; first loop)");
  g.Add(&sc_.loops_started, "loops", "loops", "Loops over the trace started");
  g.Add(&sc_.out_of_order, "out_of_order", "records",
        "Records earlier than a record before them, issued at once (all loops)");
  g.Add(&sc_.ties, "ties", "records", "Records at the time of the record before (first loop)");
  g.Add(&sc_.spread, "spread", "records", "Records moved later by spread_ties (all loops)");
  g.Add(&ios_total_, "ios_total", "ios", "Reads+writes+trims completed");
  g.Add(&failed_, "failed_ios", "ios",
        "Requests the device refused (any op): not counted as completed, in the rates or the latencies");
  g.AddFormula([this] { return Iops(); }, "iops", "ios/s", "Reads+writes+trims per second of replay");
  g.AddFormula([this] { return Bandwidth(); }, "bw", "bytes/s", "Read+write+trim bytes per second of replay");
  g.AddFormula([this] { return MeasuredSeconds(); }, "measured_time", "s",
               "Replay duration: start to the last completion");
  g.AddFormula([this] { return trace_time().sec(); }, "trace_time", "s",
               "Trace time spanned by the issued records (all loops, before speedup)");
  g.AddFormula(
      [this] {
        const double m = MeasuredSeconds();
        return m > 0 ? trace_time().sec() / m : 0.0;
      },
      "speedup", "ratio", "trace_time / measured_time");
  g.Add(&lateness_, "lateness", "ns", "Open loop: issue time minus trace arrival time");
  g.Add(&delayed_, "delayed", "records", "Open loop: arrivals that found every slot busy and queued host-side");
  g.Add(&pauses_, "pauses", "count", "Open loop: times reading paused because the host queue was full");
  g.Add(&backlog_hist_, "backlog", "records", "Open loop: host queue length after each delayed arrival");
  g.Add(&backlog_max_gauge_, "backlog_max", "records", "Open loop: longest host queue");
  g.Add(&outstanding_hist_, "outstanding", "ios", "Requests in flight at the device after each issue");
  g.Add(&outstanding_max_gauge_, "outstanding_max", "ios", "Most requests in flight at the device");
  const sim::StatGroup fg = g.Group("fit");
  fg.Add(&sc_.fit.wrapped, "wrapped", "records", "Offsets taken modulo the region (or trace_span)");
  fg.Add(&sc_.fit.clamped, "clamped", "records", "Requests longer than their region, cut to it");
  fg.Add(&sc_.fit.moved, "moved", "records", "Requests moved to end inside their region");
  fg.Add(&sc_.fit.align_bytes, "align_bytes", "bytes", "Bytes added by widening requests to the alignment");
  if (remap_ != nullptr) {
    const sim::StatGroup zg = g.Group("zoned");
    zg.Add(&z_appends_, "appends", "requests", "zoned: remap: Zone Appends sent (a write split where a zone fills)");
    zg.Add(&z_resets_, "resets", "zones", "zoned: remap: zones reset for reuse (no page mapped to them)");
    zg.Add(&z_reset_lat_, "reset_lat", "ns", "zoned: remap: Zone Reset latency, submit to completion");
    zg.Add(&z_unmapped_, "unmapped_pages", "pages", "zoned: remap: read pages never written (no device read)");
    zg.Add(&z_errors_, "errors", "requests", "zoned: remap: requests the device refused (0 unless the model is wrong)");
  }
  g.AddSeries([this] { return static_cast<double>(ios_total_.value()); }, sim::StatGroup::SeriesKind::kRate, "iops",
              "ios/s", "Reads+writes+trims completed per second");
  g.AddSeries([this] { return static_cast<double>(bytes_total_.value()) / 1e6; }, sim::StatGroup::SeriesKind::kRate,
              "MBps", "MB/s", "Bytes completed per second (1 MB = 1e6 B)");
  g.AddSeries([this] { return static_cast<double>(outstanding_); }, sim::StatGroup::SeriesKind::kValue,
              "outstanding", "ios", "Requests in flight at the device");
  g.AddSeries([this] { return static_cast<double>(backlog_size_); }, sim::StatGroup::SeriesKind::kValue, "backlog",
              "records", "Arrivals waiting host-side");
}

}  // namespace host
