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
  RegisterStats();
}

TraceReplayer::~TraceReplayer() {
  if (arrival_event_.scheduled()) env_.queue->Deschedule(&arrival_event_);
}

void TraceReplayer::Start() {
  CHECK(!started_) << "TraceReplayer::Start called twice";
  started_ = true;
  start_time_ = env_.queue->now();
  CHECK_LT(start_time_.ns(), int64_t{1} << 62) << "replay starts too late for trace times to fit";
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
  env_.device->Submit(req);
}

void TraceReplayer::OnBlockComplete(ssd::BlockRequest* req) {
  CHECK_GT(outstanding_, 0u);
  const uint32_t slot = static_cast<uint32_t>(req->tag);
  CHECK_LT(slot, slots_.size());
  CHECK_EQ(req, &slots_[slot]);
  OpStats& s = ops_[OpIndex(req->op)];
  s.ios.Inc();
  s.bytes.Inc(req->length);
  s.lat.Record((req->complete_time - slot_info_[slot].arrival).ns());
  s.device_lat.Record((req->complete_time - req->submit_time).ns());
  if (req->op != ssd::BlockOp::kFlush) {
    ios_total_.Inc();
    bytes_total_.Inc(req->length);
  }
  ++completed_;
  --outstanding_;
  free_.push_back(slot);
  if (open_loop_) {
    if (backlog_size_ > 0 && status_.ok()) {
      const ReplayItem& item = backlog_[backlog_head_];
      Issue(item, start_time_ + sim::Ns(item.arrival_ns));
      backlog_head_ = (backlog_head_ + 1) % backlog_.size();
      --backlog_size_;
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

void TraceReplayer::MaybeDone() {
  if (done_ || !started_ || !stream_over_ || have_pending_ || backlog_size_ > 0 || outstanding_ > 0) return;
  done_ = true;
  end_time_ = env_.queue->now();
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
