// ReplayStream: the trace as a stream of device-ready requests, in file
// order, over every loop. It owns the reader of the current loop and turns
// each selected record into a ReplayItem: device offset/length (via the
// AddressMap) and the record's arrival time relative to the replay start.
//
// Time. t0 is the trace time of the first replayed record. Loop k (from 0)
// adds k * period to every trace time, with period = (latest - earliest
// trace time of the slice) + the gap between the slice's last two records
// (at least 1 ns), so every time of loop k+1 follows every time of loop k.
// The scaled time of a record is (t + k * period - t0 + spread) / speedup,
// where spread is its share of spread_ties within a run of equal times
// (see trace_replay_config.h); its arrival is the largest scaled time seen
// so far (and at least 0): records arrive in file order, so one earlier
// than its predecessor (an unsorted trace) arrives together with it, and
// one before t0 at the start; both are counted out_of_order.
// Scaled times beyond 2^62 ns are errors; in open loop, the first arrival
// beyond sim::kLongSimulatedSpan (a decade) logs a warning.
//
// Memory: one reader (one line buffer) and no per-record allocation;
// with spread_ties, the records of one time (at most kMaxTieGroup).
// Malformed-line statistics and messages are those of the first loop (every
// loop reads the same file).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/replay/address_map.h"
#include "host/replay/record_selector.h"
#include "host/replay/trace_input.h"
#include "host/replay/trace_replay_config.h"
#include "host/trace/block_trace_reader.h"
#include "ssd/block_device.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace host {

// Counts kept by the stream, registered by the replayer.
struct ReplayStreamCounters {
  sim::Counter records_read;     // records the reader returned, every loop
  sim::Counter skipped_op;       // trims/flushes not replayed
  sim::Counter skipped_volume;   // volumes not in the list
  sim::Counter skipped_window;   // outside the time or count window
  sim::Counter loops_started;
  sim::Counter out_of_order;     // records earlier than a record before them (all loops)
  sim::Counter ties;             // records at the time of the record before (first loop)
  sim::Counter spread;           // records moved by spread_ties (all loops)
  FitCounters fit;
};

// One request ready for the device.
struct ReplayItem {
  ssd::BlockOp op = ssd::BlockOp::kRead;
  bool fua = false;
  uint64_t offset = 0;        // device bytes (0 for a flush)
  uint64_t length = 0;        // device bytes (0 for a flush)
  int64_t arrival_ns = 0;     // open loop: arrival after the replay start, >= 0
  int64_t trace_ns = 0;       // t + k * period - t0 (unscaled)
  uint64_t line_no = 0;
};

class ReplayStream {
 public:
  // `first` is a reader freshly opened on `input` (the caller opened it to
  // fail early); later loops reopen `input`. `map` and `counters` must
  // outlive the stream. REQUIRES: cfg validated.
  ReplayStream(const TraceReplayConfig& cfg, TraceInput input, std::unique_ptr<BlockTraceReader> first,
               const AddressMap* map, ReplayStreamCounters* counters);

  // The next request, or false after the last loop. Errors (every later
  // call returns the same): the reader's (a malformed line in fail mode:
  // "path:line: problem: <line>"), a request beyond the device with fit
  // "error", a volume the pre-pass did not see, a time out of range after
  // scaling or looping.
  sim::Result<bool> Next(ReplayItem* item);

  // Reader statistics of the first loop (live while it runs).
  const BlockTraceStats& reader_stats() const;
  const std::string& path() const { return input_.name(); }
  const std::string& format() const { return format_; }
  uint32_t loop() const { return pass_; }
  // How far before the latest earlier record the most out-of-order record
  // was (trace time, unscaled).
  sim::SimTime max_out_of_order() const { return sim::Ns(max_early_); }
  // Records kept in the first loop (final once it ended).
  uint64_t first_loop_records() const { return pass_ == 0 ? selector_.kept() : pass_kept_; }

 private:
  // The next request with its unscaled trace_ns (arrival not set).
  sim::Result<bool> NextItem(ReplayItem* item);
  // Sets item->arrival_ns from item->trace_ns.
  sim::Status Arrive(ReplayItem* item);
  sim::Status Fail(sim::Status st);
  sim::Status LineError(uint64_t line_no, const std::string& problem) const;
  void EndPass();
  sim::Status StartPass();
  // Copies the first pass's reader statistics before its reader goes.
  void KeepFirstStats();

  const TraceReplayConfig& cfg_;
  TraceInput input_;
  const AddressMap* map_;
  ReplayStreamCounters* counters_;
  RecordSelector selector_;
  std::unique_ptr<BlockTraceReader> reader_;  // null between passes
  std::string format_;
  BlockTraceStats first_stats_;  // copied when the first pass ends or fails
  bool first_stats_kept_ = false;
  uint32_t pass_ = 0;            // current (or next, while reader_ is null) pass
  bool ended_ = false;
  sim::Status status_;
  BlockTraceRecord rec_;

  // Time bookkeeping (ns).
  bool have_t0_ = false;
  int64_t t0_ = 0;
  int64_t loop_offset_ = 0;
  int64_t period_ = 0;
  int64_t min_t_ = 0, max_t_ = 0, last_t_ = 0, prev_t_ = 0;  // first pass
  uint64_t pass_kept_ = 0;
  int64_t last_arrival_ = 0;
  int64_t max_rel_ = 0;           // latest trace time issued in this loop
  int64_t max_early_ = 0;
  // spread_ties: the run of equal times being issued, and the record after it.
  std::vector<ReplayItem> group_;
  size_t group_next_ = 0;
  ReplayItem ahead_;
  bool have_ahead_ = false;
  bool warned_long_ = false;  // an arrival beyond sim::kLongSimulatedSpan was reported
  long double inv_scale_ = 1;
  bool unit_scale_ = true;
};

}  // namespace host
