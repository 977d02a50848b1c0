// AddressMap: where a replayed request lands on the device (steps 5-7 of the
// pipeline in trace_replay_config.h: alignment, volume regions, fit).
//
// A region is the part of the device one volume (split layout) or every
// volume (overlay) is mapped into: [base, base + size), size a positive
// multiple of the alignment. Map() is allocation-free and O(log extents).
//
// Build() runs the pre-pass over the trace when the fit needs facts about
// the whole slice: the highest request end per volume (fit: scale without a
// trace_span), the used extents per volume (fit: compact), or the set of
// volumes (split layout with an empty volume list). The pre-pass applies the
// same RecordSelector as the replay, streams the file once and keeps only
// per-volume summaries: at most kMaxVolumes volumes and kMaxCompactRuns
// runs of used extents in total, beyond which it fails with a message
// naming the key to change.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "host/replay/trace_input.h"
#include "host/replay/trace_replay_config.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace host {

enum class FitMode : uint8_t { kWrap, kScale, kCompact, kError };

// How often the fit changed a request, beyond plain alignment.
struct FitCounters {
  sim::Counter wrapped;      // offset taken modulo the region (or trace_span)
  sim::Counter clamped;      // request longer than its region, cut to it
  sim::Counter moved;        // start moved so that the request ends inside its region
  sim::Counter align_bytes;  // bytes added by widening requests to the alignment
};

class AddressMap {
 public:
  static constexpr size_t kMaxVolumes = 4096;
  static constexpr size_t kMaxCompactRuns = size_t{1} << 20;

  // A run of used extents: extent indexes [first, first + count) of the
  // volume's trace address space, packed to extent `packed` of its region.
  struct Run {
    uint64_t first = 0;
    uint64_t count = 0;
    uint64_t packed = 0;
  };
  struct Region {
    uint32_t volume = 0;  // split layout: the volume mapped here
    uint64_t base = 0;    // device bytes
    uint64_t size = 0;    // bytes, multiple of the alignment, > 0
    uint64_t span = 0;    // fit scale: trace bytes mapped onto `size` (0 = identity)
    std::vector<Run> runs;  // fit compact: sorted by `first`, disjoint
  };

  // Builds the map for a device of `capacity` bytes and `sector_size`-byte
  // sectors, running the pre-pass over `input` if needed. Errors: the
  // reader's (malformed line in fail mode, unreadable file) and the bounds
  // above. REQUIRES: cfg.Validate(capacity, sector_size).ok().
  static sim::Result<AddressMap> Build(const TraceReplayConfig& cfg, uint64_t capacity, uint32_t sector_size,
                                       const TraceInput& input);

  // `volumes`: (volume id, region index) for the split layout; ignored for
  // overlay, where every volume maps to region 0. REQUIRES: regions
  // non-empty, each size a positive multiple of `align`, granularity a
  // positive multiple of `align`.
  AddressMap(FitMode fit, uint64_t align, uint64_t granularity, bool overlay, std::vector<Region> regions,
             std::vector<std::pair<uint32_t, uint32_t>> volumes);

  // Region index of `volume`, or -1 if no region holds it.
  int RegionOf(uint32_t volume) const;

  struct Placed {
    uint64_t offset = 0;  // device bytes, multiple of the alignment
    uint64_t length = 0;  // bytes, multiple of the alignment, > 0
  };
  // Places the data request [offset, offset + length) of a volume mapped to
  // `region`. Returns false only with FitMode::kError when the aligned
  // request ends beyond the region (then *out holds the aligned request,
  // relative to the region). REQUIRES: length > 0, offset + length does not
  // overflow, 0 <= region < regions().size().
  bool Map(int region, uint64_t offset, uint64_t length, Placed* out, FitCounters* counters) const;

  FitMode fit() const { return fit_; }
  uint64_t align() const { return align_; }
  bool overlay() const { return overlay_; }
  const std::vector<Region>& regions() const { return regions_; }

 private:
  uint64_t PackedExtent(const Region& r, uint64_t extent) const;

  FitMode fit_;
  uint64_t align_;
  uint64_t granularity_;
  bool overlay_;
  std::vector<Region> regions_;
  std::vector<std::pair<uint32_t, uint32_t>> volumes_;  // sorted by volume
};

}  // namespace host
