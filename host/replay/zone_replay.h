// Trace replay on a zoned device (ftl.kind: zns; workload.trace.zoned).
//
// A block trace recorded on a conventional device writes anywhere; a ZNS
// device takes writes into a zone only at the zone's write pointer. The
// replay makes the choice explicit:
//  - refuse (default): `check` and `run` replay the whole selected stream
//    (every loop) against a model of the zones before the run starts
//    (CheckZonedReplay) and stop at the first write the device would refuse,
//    naming the record's file:line and the zone's write pointer. A trace
//    that writes its zones sequentially (e.g. one recorded on a ZNS device)
//    replays unchanged.
//  - remap: a host-side translation layer (ZoneRemap) turns every write into
//    a Zone Append to an open zone and keeps a page map, so a later read or
//    trim of the same address goes where the data was written (a read of
//    pages never written touches no flash; the device is not asked). It does
//    no cleaning: a zone is reset and reused only once none of its pages is
//    still mapped; when no zone is empty or reusable the replay stops with
//    an error. Writes into the conventional area (ftl.zns.conventional) are
//    remapped too: the whole LBA space is the trace's.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "host/replay/trace_replay_config.h"
#include "ssd/device_layout.h"
#include "sim/status.h"

namespace host {

// The refuse-mode check of the selected records of cfg.path (every loop)
// against `zones` (`page_size`-byte pages, `sector_size`-byte sectors):
// each write into the zone area must be whole pages, start at its zone's
// write pointer, stay within the zone's capacity and keep the active zones
// within the device's limit. Error: InvalidInput "<key_path>.zoned:
// <path>:<line>: ..." for the first write that would fail, or the
// stream's own error. REQUIRES: cfg validated for the device.
sim::Status CheckZonedReplay(const TraceReplayConfig& cfg, const ssd::ZoneLayout& zones, uint32_t page_size,
                             uint32_t sector_size, std::string_view key_path);

// The remap mode's translation layer: logical pages (the replay's device
// offsets / page size) -> device pages in zones, and the zones' use.
class ZoneRemap {
 public:
  static constexpr uint64_t kUnmapped = UINT64_MAX;
  struct Run {
    uint64_t device_page = 0;
    uint64_t pages = 0;
  };
  // Where the next part of a write goes: an append of `pages` pages (at
  // most those asked, as many as the zone has left) to `zone`, reserved; a
  // reset of `zone` to send first (then ask again once it completed); or
  // nowhere: no zone is empty or free of live data (kNoSpace). Appends fill
  // one zone at a time, to its capacity, so a zone left behind is Full.
  struct Place {
    enum Kind { kAppend, kReset, kNoSpace } kind = kNoSpace;
    uint64_t zone = 0;
    uint64_t pages = 0;
  };

  ZoneRemap(const ssd::ZoneLayout& zones, uint64_t logical_pages);

  // REQUIRES: pages > 0.
  Place PlaceWrite(uint64_t pages);
  // The append of logical pages [first, first + pages) to `zone` completed
  // at `device_page` (ok) or failed (!ok: its pages stay unused until the
  // zone is reset).
  void AppendDone(uint64_t zone, uint64_t first, uint64_t pages, uint64_t device_page, bool ok);
  void ResetDone(uint64_t zone);
  // Mapped runs of logical pages [first, first + pages), in order; unmapped
  // pages are left out.
  void Runs(uint64_t first, uint64_t pages, std::vector<Run>* out) const;
  // Unmaps logical pages [first, first + pages).
  void Trim(uint64_t first, uint64_t pages);

  uint64_t live_pages(uint64_t zone) const { return live_[zone]; }

 private:
  void Unmap(uint64_t lp);
  ssd::ZoneLayout z_;
  std::vector<uint64_t> map_;       // logical page -> device page
  std::vector<uint64_t> reserved_;  // pages of each zone handed to appends since its reset
  std::vector<uint64_t> live_;      // mapped pages in each zone
  std::vector<uint32_t> inflight_;  // appends in flight per zone
  uint64_t cur_ = UINT64_MAX;       // the zone appends go to
};

}  // namespace host
