// TraceReplayConfig: how a block trace is replayed against a device (the
// `workload.trace` section of an experiment).
//
//   workload:
//     kind: trace
//     trace:
//       path: ../traces/hm_0.csv.gz     # relative to the config file
//       reader: {format: msr, on_error: skip}
//       mode: open                      # open | closed
//       speedup: 2                      # open loop: twice as fast as recorded
//       iodepth: 64
//       volumes: ["0"]                  # keep disk 0 only
//       fit: scale                      # error (default) | wrap | scale | compact
//
// Pipeline of one trace record (see TraceReplayer for timing):
//  1. Operation filter: trims and flushes are dropped unless include_trims /
//     include_flushes.
//  2. Volume filter: only the volumes listed in `volumes` (all if empty).
//     A volume id is the trace's own number ("3") or a device number
//     "major,minor" ("8,16") for blkparse/FIU traces.
//  3. Time window: records with trace time in [start_time, end_time)
//     (end_time 0 = no end). Trace time is relative to the file's first
//     record; a record without a time takes the time of the record before.
//     Without a window (start_time and end_time 0) no record is dropped for
//     its time, not even one earlier than the file's first record.
//  4. Count window: of the records that passed 1-3, the first skip_records
//     are dropped and at most max_records (0 = all) are replayed; reading
//     stops once max_records were taken.
//  The records that pass form the "slice"; `loops` replays the slice N
//  times, each loop's times shifted after the previous loop's (see
//  TraceReplayer).
//  5. Alignment: offset rounded down and end rounded up to `align`
//     (0 = the device's sector size, the least the device accepts).
//  6. Volume layout: "overlay" (default) maps every volume onto the whole
//     device, as MQSim does with a multi-device trace; with "split" each kept
//     volume gets its own region of capacity / N bytes (rounded down to
//     align), in the order of `volumes`, or by increasing id when `volumes`
//     is empty (which needs a pre-pass over the trace to find them).
//  7. Fit into the region (R bytes):
//     - wrap:    offset mod R; a request that would then cross the region end
//                wraps as a whole to the region start.
//     - scale:   offset * R / span, aligned down, where span is trace_span or,
//                if 0, the highest request end of the volume found by a
//                pre-pass over the slice; spans <= R are not scaled (identity).
//                Lengths are kept; a request that would cross the region end
//                is moved back to end exactly there. With a configured span,
//                offsets beyond it wrap modulo the span first (counted).
//     - compact: a pre-pass records which compact_granularity-sized extents
//                of each volume the slice touches (merged runs, in bounded
//                memory: at most 1 Mi runs, else an error asking for a
//                coarser granularity); used extents are then packed in address
//                order, removing the holes. If the packed space is still
//                larger than R, offsets wrap as in "wrap" (counted).
//     - error (the default): a request ending beyond R is an InvalidInput
//                "path:line: request beyond ...: <the line>"; `check` finds
//                it among the records it reads (TraceFitCheckedRecords).
//     A request longer than R is clamped to R bytes at the region start
//     (counted); other requests keep their aligned length and are passed to
//     the device whole (the device splits them).
//  8. Zoned device (ftl.kind: zns): `zoned` refuse (default) replays the
//     requests as they are, after a check of the whole stream that refuses
//     a trace whose writes the zones would not take; remap turns writes into
//     Zone Appends through a host page map (host/replay/zone_replay.h).
//  Flushes carry no address and skip steps 5-7. Of the record flags only FUA
//  is replayed (BlockRequest::fua); preflush, sync and metadata are not.
//
// Time order (open loop). Records are issued in file order. A record whose
// time is earlier than a record before it (an unsorted trace, per-CPU
// blkparse output, a record before the file's first) is issued at once,
// together with the latest record before it, and counted (out_of_order);
// it is never dropped. Consecutive records with the same time (a coarse
// clock, e.g. whole seconds) are issued together unless spread_ties > 0:
// then the n records of one time t are issued at t + i * spread_ties / n
// (i = 0..n-1, before speedup), evenly across one tick of the clock; runs
// of more than kMaxTieGroup records are spread in parts of that many. The
// replay's summary reports both, and warns about a coarse clock left
// unspread.
//
// Relative `path`s are resolved against the directory of the config file by
// the caller (TraceReplayer::Create's base_dir).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/trace/block_trace_reader.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host {

struct TraceReplayConfig {
  // In-class values equal the declared defaults (a test keeps them in step).
  std::string path;
  BlockTraceOptions reader;
  std::string mode = "open";
  double speedup = 1.0;
  uint32_t iodepth = 32;
  uint32_t max_backlog = 1024;
  std::vector<std::string> volumes;
  std::string volume_layout = "overlay";
  std::string fit = "error";
  sim::Bytes trace_span{0};
  sim::Bytes compact_granularity{1 << 20};
  sim::Bytes align{0};
  uint64_t skip_records = 0;
  uint64_t max_records = 0;
  sim::SimTime start_time;
  sim::SimTime end_time;
  sim::SimTime spread_ties;
  uint32_t loops = 1;
  bool include_trims = true;
  bool include_flushes = true;
  std::string zoned = "refuse";

  static void Describe(sim::Schema<TraceReplayConfig>& s);

  // Cross-field checks against a device of `capacity` bytes and
  // `sector_size`-byte sectors. Errors are InvalidInput "<path>.<key>:
  // problem" ("<key>: problem" when `path` is empty), e.g.
  // "workload.trace.speedup: 0 is outside ...".
  sim::Status Validate(uint64_t capacity, uint32_t sector_size, std::string_view path = "") const;

  bool open_loop() const { return mode == "open"; }
  // The alignment in effect on a device with `sector_size`-byte sectors.
  uint64_t EffectiveAlign(uint32_t sector_size) const { return align.value ? align.value : sector_size; }
};

// Records of one time buffered at most by spread_ties.
inline constexpr size_t kMaxTieGroup = size_t{1} << 20;

// Parses a volume id: a decimal number < 2^32, or "major,minor" (a Linux
// device number as blkparse and FIU traces name it, see MakeDevVolume).
sim::Result<uint32_t> ParseVolumeId(std::string_view text);

// `path` unchanged if absolute or `base_dir` is empty; else base_dir/path.
std::string ResolveTracePath(std::string_view path, std::string_view base_dir);

}  // namespace host
