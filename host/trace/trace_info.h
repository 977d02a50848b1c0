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

  bool has_time = false;     // at least one record carried a time
  sim::SimTime first_time;   // earliest and latest record time (relative to
  sim::SimTime last_time;    // the first record; see BlockTraceRecord::time)
  sim::SimTime duration() const { return last_time - first_time; }

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

// Reads `reader` to its end. Returns the reader's error if a line fails in
// fail mode; in skip mode the skipped lines are in info.stats.
sim::Result<TraceInfo> Summarize(BlockTraceReader* reader);

// The human report printed by `flashstack trace-info`: one aligned
// "key  value" line per item, sizes in bytes with a decimal-unit
// rendering, the non-empty size buckets, up to 8 volumes, and the kept
// error messages. Deterministic for a given TraceInfo.
std::string FormatTraceInfo(const TraceInfo& info);

}  // namespace host
