#include "host/replay/zone_replay.h"

#include <algorithm>

#include <fmt/format.h>
#include <glog/logging.h>

#include "host/replay/address_map.h"
#include "host/replay/replay_stream.h"
#include "host/replay/trace_input.h"

namespace host {

sim::Status CheckZonedReplay(const TraceReplayConfig& cfg, const ssd::ZoneLayout& zones, uint32_t page_size,
                             uint32_t sector_size, std::string_view key_path) {
  const uint64_t page = page_size;
  const uint64_t capacity = (zones.conventional_pages + zones.zones * zones.zone_pages) * page;
  const TraceInput input = TraceInput::File(cfg.path);
  FS_ASSIGN_OR_RETURN(AddressMap map, AddressMap::Build(cfg, capacity, sector_size, input));
  sim::Result<std::unique_ptr<BlockTraceReader>> reader = input.Open(cfg.reader);
  if (!reader.ok()) return sim::Status::InvalidInput(fmt::format("{}.path: {}", key_path, reader.status().message()));
  ReplayStreamCounters counters;
  ReplayStream stream(cfg, input, std::move(*reader), &map, &counters);
  const uint64_t first = zones.conventional_pages * page;
  const uint64_t zone = zones.zone_pages * page;
  const uint64_t cap = zones.zone_capacity * page;
  std::vector<uint64_t> wp(zones.zones, 0);  // bytes written into each zone
  uint64_t active = 0;                      // zones with 0 < wp < cap
  auto refuse = [&](const ReplayItem& it, const std::string& why) {
    return sim::Status::InvalidInput(fmt::format(
        "{}.zoned: {}:{}: a write of {} bytes at byte {} {} (zoned: refuse; set {}.zoned: remap to replay the "
        "writes as zone appends)",
        key_path, cfg.path, it.line_no, it.length, it.offset, why, key_path));
  };
  ReplayItem it;
  for (;;) {
    sim::Result<bool> more = stream.Next(&it);
    if (!more.ok()) return sim::Status::InvalidInput(fmt::format("{}.path: {}", key_path, more.status().message()));
    if (!*more) break;
    if (it.op != ssd::BlockOp::kWrite || it.offset + it.length <= first) continue;
    if (it.offset < first) return refuse(it, "reaches from the conventional area into the first zone");
    if (it.offset % page != 0 || it.length % page != 0) {
      return refuse(it, fmt::format("is not whole {}-byte flash pages, which zones take (set {}.align: {})", page,
                                    key_path, page));
    }
    const uint64_t z = (it.offset - first) / zone;
    const uint64_t at = it.offset - first - z * zone;
    if (wp[z] == cap) return refuse(it, fmt::format("goes into zone {}, which is full", z));
    if (at != wp[z]) {
      return refuse(it, fmt::format("is not at the write pointer of zone {} (byte {})", z, first + z * zone + wp[z]));
    }
    if (at + it.length > cap) {
      return refuse(it, fmt::format("crosses the capacity of zone {} (ends at byte {}, capacity ends at byte {})", z,
                                    it.offset + it.length, first + z * zone + cap));
    }
    if (wp[z] == 0) {
      ++active;
      if (zones.max_active > 0 && active > zones.max_active) {
        return refuse(it, fmt::format("opens zone {} while {} zones are active, the device's max active zones",
                                      z, zones.max_active));
      }
    }
    wp[z] += it.length;
    if (wp[z] == cap) --active;
  }
  return sim::Status::Ok();
}

// ---------------------------------------------------------------------------

ZoneRemap::ZoneRemap(const ssd::ZoneLayout& zones, uint64_t logical_pages)
    : z_(zones),
      map_(logical_pages, kUnmapped),
      reserved_(zones.zones, 0),
      live_(zones.zones, 0),
      inflight_(zones.zones, 0) {}

ZoneRemap::Place ZoneRemap::PlaceWrite(uint64_t pages) {
  CHECK_GT(pages, 0u);
  if (cur_ == UINT64_MAX || reserved_[cur_] == z_.zone_capacity) {
    // Move on: the next empty zone, round robin from the current one.
    const uint64_t start = cur_ == UINT64_MAX ? 0 : cur_ + 1;
    cur_ = UINT64_MAX;
    for (uint64_t i = 0; i < z_.zones && cur_ == UINT64_MAX; ++i) {
      if (reserved_[(start + i) % z_.zones] == 0) cur_ = (start + i) % z_.zones;
    }
    if (cur_ == UINT64_MAX) {
      // None empty: a written zone no page is mapped to any more is reset.
      for (uint64_t i = 0; i < z_.zones; ++i) {
        const uint64_t c = (start + i) % z_.zones;
        if (live_[c] == 0 && inflight_[c] == 0) return Place{Place::kReset, c, 0};
      }
      return Place{Place::kNoSpace, 0, 0};
    }
  }
  const uint64_t n = std::min(pages, z_.zone_capacity - reserved_[cur_]);
  reserved_[cur_] += n;
  ++inflight_[cur_];
  return Place{Place::kAppend, cur_, n};
}

void ZoneRemap::AppendDone(uint64_t zone, uint64_t first, uint64_t pages, uint64_t device_page, bool ok) {
  CHECK_GT(inflight_[zone], 0u);
  --inflight_[zone];
  if (!ok) return;
  for (uint64_t i = 0; i < pages; ++i) {
    Unmap(first + i);
    map_[first + i] = device_page + i;
  }
  live_[zone] += pages;
}

void ZoneRemap::ResetDone(uint64_t zone) {
  CHECK_EQ(live_[zone], 0u);
  if (zone == cur_) cur_ = UINT64_MAX;
  reserved_[zone] = 0;
}

void ZoneRemap::Unmap(uint64_t lp) {
  const uint64_t d = map_[lp];
  if (d == kUnmapped) return;
  const uint64_t z = (d - z_.conventional_pages) / z_.zone_pages;
  CHECK_GT(live_[z], 0u);
  --live_[z];
  map_[lp] = kUnmapped;
}

void ZoneRemap::Runs(uint64_t first, uint64_t pages, std::vector<Run>* out) const {
  out->clear();
  for (uint64_t i = 0; i < pages; ++i) {
    const uint64_t d = map_[first + i];
    if (d == kUnmapped) continue;
    if (!out->empty() && out->back().device_page + out->back().pages == d) {
      ++out->back().pages;
    } else {
      out->push_back(Run{d, 1});
    }
  }
}

void ZoneRemap::Trim(uint64_t first, uint64_t pages) {
  for (uint64_t i = 0; i < pages; ++i) Unmap(first + i);
}

}  // namespace host
