#include "host/replay/replay_stream.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host {

namespace {

// Scaled times stay within +/- 2^62 ns (146 years) so that adding the replay
// start time cannot overflow.
constexpr int64_t kMaxScaledNs = int64_t{1} << 62;

std::vector<uint32_t> KeptVolumes(const TraceReplayConfig& cfg) {
  std::vector<uint32_t> ids;
  for (const std::string& v : cfg.volumes) {
    sim::Result<uint32_t> id = ParseVolumeId(v);
    CHECK(id.ok()) << id.status().message();
    ids.push_back(*id);
  }
  return ids;
}

}  // namespace

ReplayStream::ReplayStream(const TraceReplayConfig& cfg, TraceInput input, std::unique_ptr<BlockTraceReader> first,
                           const AddressMap* map, ReplayStreamCounters* counters)
    : cfg_(cfg),
      input_(std::move(input)),
      map_(map),
      counters_(counters),
      selector_(cfg, KeptVolumes(cfg)),
      reader_(std::move(first)) {
  CHECK(reader_ != nullptr && map_ != nullptr && counters_ != nullptr);
  format_ = std::string(reader_->format());
  unit_scale_ = cfg.speedup == 1.0;
  inv_scale_ = 1.0L / static_cast<long double>(cfg.speedup);
  selector_.StartPass();
  counters_->loops_started.Inc();
}

const BlockTraceStats& ReplayStream::reader_stats() const {
  if (!first_stats_kept_) return reader_->stats();
  return first_stats_;
}

void ReplayStream::KeepFirstStats() {
  if (first_stats_kept_ || reader_ == nullptr) return;
  first_stats_ = reader_->stats();
  first_stats_kept_ = true;
}

sim::Status ReplayStream::Fail(sim::Status st) {
  status_ = std::move(st);
  KeepFirstStats();
  reader_.reset();
  return status_;
}

sim::Status ReplayStream::LineError(uint64_t line_no, const std::string& problem) const {
  return sim::Status::InvalidInput(
      fmt::format("{}:{}: {}: {}", input_.name(), line_no, problem, input_.LineText(line_no, cfg_.reader)));
}

void ReplayStream::EndPass() {
  if (pass_ == 0) {
    KeepFirstStats();
    pass_kept_ = selector_.kept();
    // The loop period: all of the next loop's times follow this loop's.
    int64_t gap = 0;
    const bool overflow = (last_t_ > prev_t_ && __builtin_sub_overflow(last_t_, prev_t_, &gap)) ||
                          __builtin_sub_overflow(max_t_, min_t_, &period_) ||
                          __builtin_add_overflow(period_, gap, &period_);
    if (overflow) {
      period_ = std::numeric_limits<int64_t>::max();  // StartPass reports it
    }
    if (period_ <= 0) period_ = 1;
  }
  reader_.reset();
  ++pass_;
}

sim::Status ReplayStream::StartPass() {
  if (__builtin_mul_overflow(period_, static_cast<int64_t>(pass_), &loop_offset_) || loop_offset_ > kMaxScaledNs) {
    return sim::Status::InvalidInput(fmt::format(
        "{}: loops: replaying {} loops of a {} trace goes beyond the time range", input_.name(), cfg_.loops,
        sim::Ns(period_).ToString()));
  }
  FS_ASSIGN_OR_RETURN(reader_, input_.Open(cfg_.reader));
  selector_.StartPass();
  counters_->loops_started.Inc();
  return sim::Status::Ok();
}

sim::Result<bool> ReplayStream::Next(ReplayItem* item) {
  const int64_t spread = cfg_.spread_ties.ns();
  if (spread <= 0) {
    FS_ASSIGN_OR_RETURN(const bool more, NextItem(item));
    if (!more) return false;
    FS_RETURN_IF_ERROR(Arrive(item));
    return true;
  }
  if (group_next_ == group_.size()) {
    // Gather the next run of records with one trace time. A read error
    // ends the run; the records before it are issued, then the error.
    group_.clear();
    group_next_ = 0;
    if (have_ahead_) {
      group_.push_back(ahead_);
      have_ahead_ = false;
    } else {
      ReplayItem first;
      FS_ASSIGN_OR_RETURN(const bool more, NextItem(&first));
      if (!more) return false;
      group_.push_back(first);
    }
    while (group_.size() < kMaxTieGroup) {
      sim::Result<bool> more = NextItem(&ahead_);
      if (!more.ok() || !*more) break;
      if (ahead_.trace_ns != group_.front().trace_ns) {
        have_ahead_ = true;
        break;
      }
      group_.push_back(ahead_);
    }
  }
  const size_t i = group_next_++;
  *item = group_[i];
  if (i > 0) {
    const auto share = static_cast<int64_t>(static_cast<__int128>(spread) * static_cast<__int128>(i) /
                                            static_cast<__int128>(group_.size()));
    if (__builtin_add_overflow(item->trace_ns, share, &item->trace_ns)) {
      return Fail(LineError(item->line_no, "time out of range once spread"));
    }
    counters_->spread.Inc();
  }
  FS_RETURN_IF_ERROR(Arrive(item));
  return true;
}

sim::Status ReplayStream::Arrive(ReplayItem* item) {
  const int64_t rel = item->trace_ns;
  int64_t scaled = rel;
  if (!unit_scale_) {
    const long double s = static_cast<long double>(rel) * inv_scale_;
    if (!(std::fabs(s) <= static_cast<long double>(kMaxScaledNs))) {
      return Fail(LineError(item->line_no, fmt::format("time {} divided by speedup {} is out of range",
                                                       sim::Ns(rel).ToString(), cfg_.speedup)));
    }
    scaled = std::llround(s);
  } else if (scaled > kMaxScaledNs || scaled < -kMaxScaledNs) {
    return Fail(LineError(item->line_no, "time out of range once looped"));
  }
  last_arrival_ = std::max(last_arrival_, scaled);
  if (!warned_long_ && last_arrival_ > sim::kLongSimulatedSpan.ns() && cfg_.mode == "open") {
    warned_long_ = true;
    LOG(WARNING) << fmt::format(
        "{}:{}: arrives {:.3g} years after the replay start (trace time / speedup {}); the open-loop replay "
        "will span that much simulated time",
        input_.name(), item->line_no, sim::Ns(last_arrival_).sec() / (365.0 * 24 * 3600), cfg_.speedup);
  }
  item->arrival_ns = last_arrival_;
  return sim::Status::Ok();
}

sim::Result<bool> ReplayStream::NextItem(ReplayItem* item) {
  for (;;) {
    if (!status_.ok()) return status_;
    if (ended_) return false;
    if (reader_ == nullptr) {
      if (pass_ >= cfg_.loops || pass_kept_ == 0) {
        ended_ = true;
        return false;
      }
      sim::Status st = StartPass();
      if (!st.ok()) return Fail(std::move(st));
    }
    if (selector_.full()) {
      EndPass();
      continue;
    }
    sim::Result<bool> more = reader_->Next(&rec_);
    if (!more.ok()) return Fail(more.status());
    if (!*more) {
      EndPass();
      continue;
    }
    counters_->records_read.Inc();
    switch (selector_.Select(rec_)) {
      case RecordSelector::Verdict::kKeep:
        break;
      case RecordSelector::Verdict::kOpFiltered:
        counters_->skipped_op.Inc();
        continue;
      case RecordSelector::Verdict::kVolumeFiltered:
        counters_->skipped_volume.Inc();
        continue;
      case RecordSelector::Verdict::kOutsideWindow:
        counters_->skipped_window.Inc();
        continue;
    }

    // Time.
    const int64_t t = selector_.last_time().ns();
    if (pass_ == 0) {
      if (!have_t0_) {
        have_t0_ = true;
        t0_ = t;
        min_t_ = max_t_ = last_t_ = prev_t_ = t;
      }
      if (selector_.kept() > 1 && t == last_t_) counters_->ties.Inc();
      min_t_ = std::min(min_t_, t);
      max_t_ = std::max(max_t_, t);
      prev_t_ = last_t_;
      last_t_ = t;
    }
    int64_t rel = 0;
    if (__builtin_sub_overflow(t, t0_, &rel) || __builtin_add_overflow(rel, loop_offset_, &rel)) {
      return Fail(LineError(rec_.line_no, "time out of range once looped"));
    }
    // Out of order: earlier than a record already issued in this loop.
    if (selector_.kept() == 1) {
      max_rel_ = rel;
    } else if (rel < max_rel_) {
      counters_->out_of_order.Inc();
      max_early_ = std::max(max_early_, max_rel_ - rel);
    } else {
      max_rel_ = rel;
    }
    item->trace_ns = rel;
    item->line_no = rec_.line_no;
    item->op = rec_.op;
    item->fua = (rec_.flags & BlockTraceRecord::kFlagFua) != 0;

    // Address.
    if (rec_.op == ssd::BlockOp::kFlush) {
      item->offset = 0;
      item->length = 0;
      return true;
    }
    const int region = map_->RegionOf(rec_.volume);
    if (region < 0) {
      return Fail(LineError(rec_.line_no, fmt::format("volume {} was not seen by the pre-pass (did the file change "
                                                      "during the run?)",
                                                      rec_.volume)));
    }
    AddressMap::Placed placed;
    if (!map_->Map(region, rec_.offset_bytes, rec_.length_bytes, &placed, &counters_->fit)) {
      const AddressMap::Region& r = map_->regions()[static_cast<size_t>(region)];
      const std::string where =
          map_->regions().size() > 1 ? fmt::format("the {} bytes given to volume {}", r.size, r.volume)
                                     : fmt::format("the device's {} bytes", r.size);
      uint64_t end = 0;
      if (__builtin_add_overflow(placed.offset, placed.length, &end)) end = UINT64_MAX;
      return Fail(LineError(rec_.line_no,
                            fmt::format("request beyond the device (fit: error): bytes [{}, {}) exceed {}; to fold "
                                        "the trace onto the device choose workload.trace.fit: wrap, scale or compact",
                                        placed.offset, end, where)));
    }
    item->offset = placed.offset;
    item->length = placed.length;
    return true;
  }
}

}  // namespace host
