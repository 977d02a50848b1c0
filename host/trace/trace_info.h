// TraceInfo: a one-pass summary of a block trace, for `flashstack
// trace-info FILE` and for checking a trace before replaying it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "host/trace/block_trace_reader.h"
#include "sim/status.h"
#include "sim/time.h"

namespace host {

struct TraceInfo {
  struct OpTotals {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  // Request sizes in power-of-two buckets: bucket k counts lengths in
  // [2^k, 2^(k+1)) bytes. Flushes are not counted.
  static constexpr int kSizeBuckets = 64;

  std::string path;
  std::string format;
  std::string compression;
  BlockTraceStats stats;  // lines, records, ignored, skipped, ... at the end

  sim::SimTime time_unit;    // one unit of the trace's time field, as read
  bool has_time = false;     // at least one record carried a time
  sim::SimTime first_time;   // earliest and latest record time (relative to
  sim::SimTime last_time;    // the first record; see BlockTraceRecord::time)
  sim::SimTime duration() const { return last_time - first_time; }
  uint64_t timed_records = 0;  // records that carried a time
  // Timed records with the same time as the timed record before them: most
  // records in a trace with a coarse clock (whole seconds).
  uint64_t same_time = 0;
  // Greatest common divisor of the gaps between consecutive record times
  // (the clock's apparent step); zero if no two times differ.
  sim::SimTime time_step;

  std::array<OpTotals, 4> ops;  // indexed by BlockTraceRecord::Op
  const OpTotals& op(BlockTraceRecord::Op o) const { return ops[static_cast<size_t>(o)]; }

  std::array<uint64_t, kSizeBuckets> size_histogram{};

  // Byte range touched by reads, writes and trims (any volume); valid when
  // a data request was seen (min_offset <= max_end).
  uint64_t min_offset = UINT64_MAX;
  uint64_t max_end = 0;
  uint64_t span() const { return max_end > min_offset ? max_end - min_offset : 0; }

  std::map<uint32_t, uint64_t> volumes;  // volume id -> records
  bool volumes_are_devices = false;      // ids are MakeDevVolume(major, minor)
};

// Reads `reader` to its end, or its first `max_records` records. Returns
// the reader's error if a line fails in fail mode; in skip mode the skipped
// lines are in info.stats.
sim::Result<TraceInfo> Summarize(BlockTraceReader* reader, uint64_t max_records = UINT64_MAX);

// Signs that the time field is misread or too coarse to replay as is, one
// sentence each, in this order:
//  - an implied request rate beyond any single device (more than
//    kImplausibleIops requests/s or kImplausibleBytesPerSec bytes/s, over at
//    least kMinRecordsForRate records): the time unit is likely too small;
//  - a span beyond a year: the time unit is likely too large;
//  - at least half of the (at least kMinRecordsForRate) timed records share
//    the time of the record before: a coarse clock, which an open-loop
//    replay issues in bursts unless workload.trace.spread_ties is set
//    (not reported when `ties_spread`, i.e. it is set).
inline constexpr double kImplausibleIops = 2e6;
inline constexpr double kImplausibleBytesPerSec = 20e9;
inline constexpr uint64_t kMinRecordsForRate = 16;
std::vector<std::string> TraceWarnings(const TraceInfo& info, bool ties_spread = false);

// The human report printed by `flashstack trace-info`: one aligned
// "key  value" line per item, sizes in bytes with a decimal-unit
// rendering, the non-empty size buckets, up to 8 volumes, the kept
// error messages and one "warning" line per TraceWarnings() entry.
// Deterministic for a given TraceInfo.
std::string FormatTraceInfo(const TraceInfo& info);

}  // namespace host
