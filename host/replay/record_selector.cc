#include "host/replay/record_selector.h"

#include <algorithm>

namespace host {

RecordSelector::RecordSelector(const TraceReplayConfig& cfg, std::vector<uint32_t> keep)
    : keep_(std::move(keep)),
      include_trims_(cfg.include_trims),
      include_flushes_(cfg.include_flushes),
      start_time_(cfg.start_time),
      end_time_(cfg.end_time),
      skip_records_(cfg.skip_records),
      max_records_(cfg.max_records) {
  std::sort(keep_.begin(), keep_.end());
}

void RecordSelector::StartPass() {
  passed_ = 0;
  kept_ = 0;
  last_time_ = sim::SimTime::Zero();
}

bool RecordSelector::KeepVolume(uint32_t volume) const {
  return keep_.empty() || std::binary_search(keep_.begin(), keep_.end(), volume);
}

RecordSelector::Verdict RecordSelector::Select(const BlockTraceRecord& rec) {
  // The carried time advances on every record, filtered or not, so a
  // time-less record inherits the time of the record just before it in the file.
  if (rec.valid_time) last_time_ = rec.time;
  if ((rec.op == ssd::BlockOp::kTrim && !include_trims_) || (rec.op == ssd::BlockOp::kFlush && !include_flushes_)) {
    return Verdict::kOpFiltered;
  }
  if (!KeepVolume(rec.volume)) return Verdict::kVolumeFiltered;
  // Without a start (0) nothing is before the window, not even a record
  // earlier than the file's first (a negative relative time).
  if (start_time_ != sim::SimTime::Zero() && last_time_ < start_time_) return Verdict::kOutsideWindow;
  if (end_time_ != sim::SimTime::Zero() && last_time_ >= end_time_) return Verdict::kOutsideWindow;
  if (full()) return Verdict::kOutsideWindow;
  if (passed_++ < skip_records_) return Verdict::kOutsideWindow;
  ++kept_;
  return Verdict::kKeep;
}

}  // namespace host
