// RecordSelector: which records of a trace are replayed (steps 1-4 of the
// pipeline in trace_replay_config.h), applied in file order, one pass at a
// time. The same selector logic runs in the address pre-pass and in every
// loop of the replay, so both see exactly the same slice.
#pragma once

#include <cstdint>
#include <vector>

#include "host/replay/trace_replay_config.h"
#include "host/trace/block_record.h"
#include "sim/time.h"

namespace host {

class RecordSelector {
 public:
  enum class Verdict : uint8_t {
    kKeep,
    kOpFiltered,      // a trim or flush that is not replayed
    kVolumeFiltered,  // a volume not in the list
    kOutsideWindow,   // outside [start_time, end_time) or among the first skip_records
                      // (with start_time 0, no record is before the window)
  };

  // `keep`: volume ids to replay; empty = all. REQUIRES: cfg validated.
  RecordSelector(const TraceReplayConfig& cfg, std::vector<uint32_t> keep);

  // Starts a pass over the trace: resets the count window and the time
  // carried to records without a time.
  void StartPass();
  // Judges the next record of the pass. Allocation-free.
  Verdict Select(const BlockTraceRecord& rec);
  // True once max_records records were kept in this pass: reading may stop.
  bool full() const { return max_records_ != 0 && kept_ == max_records_; }
  // Trace time of the record last judged: its own, or for a record without
  // a time the last time seen before it in this pass (0 at the start).
  sim::SimTime last_time() const { return last_time_; }
  uint64_t kept() const { return kept_; }

 private:
  bool KeepVolume(uint32_t volume) const;

  std::vector<uint32_t> keep_;  // sorted
  bool include_trims_;
  bool include_flushes_;
  sim::SimTime start_time_;
  sim::SimTime end_time_;  // Zero = no end
  uint64_t skip_records_;
  uint64_t max_records_;
  uint64_t passed_ = 0;  // records that passed steps 1-3 in this pass
  uint64_t kept_ = 0;
  sim::SimTime last_time_;
};

}  // namespace host
