#include "host/replay/trace_replay_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "host/trace/field_parse.h"

namespace host {

namespace {

constexpr double kMinSpeedup = 1e-6;
constexpr double kMaxSpeedup = 1e6;
constexpr uint32_t kMaxIodepth = 65536;
constexpr uint32_t kMaxBacklog = 1u << 20;
constexpr uint32_t kMaxLoops = 1000000;

}  // namespace

void TraceReplayConfig::Describe(sim::Schema<TraceReplayConfig>& s) {
  s.Param("path", &TraceReplayConfig::path, "",
          "Trace file (plain or gzip/bzip2/xz/zstd); a relative path is relative to the config file");
  s.Section("reader", &TraceReplayConfig::reader, "How the trace file is parsed");
  s.Choice("mode", &TraceReplayConfig::mode, "open", {"open", "closed"},
           "open: issue each record at its (scaled) trace time; closed: as fast as possible at iodepth");
  s.Param("speedup", &TraceReplayConfig::speedup, "1",
          "Open loop: how many times faster than recorded; a record at trace time t is issued at t / speedup "
          "(2 = twice as fast, 0.5 = half as fast)")
      .Range(kMinSpeedup, kMaxSpeedup);
  s.Retired("time_scale",
            "renamed to 'speedup', with the same meaning (2 = twice as fast as recorded); write speedup: <N>");
  s.Param("iodepth", &TraceReplayConfig::iodepth, "32",
          "Requests outstanding at the device: kept full in closed loop, the cap in open loop")
      .Range(1, kMaxIodepth);
  s.Param("max_backlog", &TraceReplayConfig::max_backlog, "1024",
          "Open loop: arrivals waiting host-side for a free slot; when full, reading the trace pauses")
      .Range(1, kMaxBacklog);
  s.Param("volumes", &TraceReplayConfig::volumes, "[]",
          "Volume ids to replay (\"3\", or \"8,16\" for a major,minor device); empty = all");
  s.Choice("volume_layout", &TraceReplayConfig::volume_layout, "overlay", {"overlay", "split"},
           "overlay: every volume maps onto the whole device; split: each kept volume gets capacity/N of "
           "it, side by side");
  s.Choice("fit", &TraceReplayConfig::fit, "error", {"error", "wrap", "scale", "compact"},
           "Fitting trace addresses to the device: error (the default) refuses a request beyond the device, "
           "naming its line; wrap (offset mod capacity), scale (proportional) and compact (the used extents "
           "packed) fold the trace onto it, counted in workload.fit.*");
  s.Param("trace_span", &TraceReplayConfig::trace_span, "0",
          "fit: scale: trace address space mapped onto the device; 0 = highest request end (pre-pass)");
  s.Param("compact_granularity", &TraceReplayConfig::compact_granularity, "1MiB",
          "fit: compact: extent size at which used space is tracked and packed")
      .Min(1);
  s.Param("align", &TraceReplayConfig::align, "0",
          "Requests are widened to this alignment (offset down, end up); 0 = the device sector size");
  s.Param("skip_records", &TraceReplayConfig::skip_records, "0",
          "Drop this many records (after the volume/op filters and time window) before replaying");
  s.Param("max_records", &TraceReplayConfig::max_records, "0", "Replay at most this many records per loop; 0 = all");
  s.Param("start_time", &TraceReplayConfig::start_time, "0s",
          "Replay records from this trace time on (relative to the trace's first record)");
  s.Param("end_time", &TraceReplayConfig::end_time, "0s", "Replay records before this trace time; 0 = no end");
  s.Param("spread_ties", &TraceReplayConfig::spread_ties, "0s",
          "Open loop: records sharing one timestamp (a coarse clock) are issued evenly across this span after it "
          "(set it to the clock's step, e.g. 1s); 0 = issue them together");
  s.Param("loops", &TraceReplayConfig::loops, "1",
          "Replay the selected records this many times; each loop continues in time after the previous")
      .Range(1, kMaxLoops);
  s.Param("include_trims", &TraceReplayConfig::include_trims, "true", "Replay trim/discard records");
  s.Param("include_flushes", &TraceReplayConfig::include_flushes, "true", "Replay cache-flush records");
  s.Choice("zoned", &TraceReplayConfig::zoned, "refuse", {"refuse", "remap"},
           "On a zoned device (ftl.kind: zns): refuse = replay as recorded, and refuse before the run a trace "
           "with a write the zones would not take (not at the write pointer, past the capacity, beyond the "
           "active limit), naming its file:line; remap = every write becomes a Zone Append to an open zone "
           "through a host page map that later reads and trims follow (no cleaning: zones are reused once "
           "nothing in them is mapped)");
}

sim::Status TraceReplayConfig::Validate(uint64_t capacity, uint32_t sector_size, std::string_view path) const {
  const sim::KeyErrors err(path);
  CHECK_GT(sector_size, 0u);
  if (this->path.empty()) return err("path", "no trace file given");
  if (!reader.format.empty()) {
    sim::Result<const TraceFormat*> f = BuiltinFormats().Find(reader.format);
    if (!f.ok()) return err("reader.format", f.status().message());
  }
  if (zoned != "refuse" && zoned != "remap") {
    return err("zoned", fmt::format("'{}' is not one of: refuse, remap", zoned));
  }
  if (mode != "open" && mode != "closed") {
    return err("mode", fmt::format("'{}' is not one of: open, closed", mode));
  }
  if (!std::isfinite(speedup) || speedup < kMinSpeedup || speedup > kMaxSpeedup) {
    return err("speedup", fmt::format("{} is outside {}..{} (must be > 0)", speedup, kMinSpeedup, kMaxSpeedup));
  }
  if (iodepth < 1 || iodepth > kMaxIodepth) {
    return err("iodepth", fmt::format("{} is outside 1..{}", iodepth, kMaxIodepth));
  }
  if (max_backlog < 1 || max_backlog > kMaxBacklog) {
    return err("max_backlog", fmt::format("{} is outside 1..{}", max_backlog, kMaxBacklog));
  }
  std::vector<uint32_t> ids;
  for (const std::string& v : volumes) {
    sim::Result<uint32_t> id = ParseVolumeId(v);
    if (!id.ok()) return err("volumes", id.status().message());
    if (std::find(ids.begin(), ids.end(), *id) != ids.end()) {
      return err("volumes", fmt::format("volume '{}' is listed twice", v));
    }
    ids.push_back(*id);
  }
  if (volume_layout != "split" && volume_layout != "overlay") {
    return err("volume_layout", fmt::format("'{}' is not one of: split, overlay", volume_layout));
  }
  if (fit != "wrap" && fit != "scale" && fit != "compact" && fit != "error") {
    return err("fit", fmt::format("'{}' is not one of: wrap, scale, compact, error", fit));
  }
  if (trace_span.value != 0 && fit != "scale") {
    return err("trace_span", fmt::format("is only used with fit: scale (fit is '{}')", fit));
  }
  if (align.value != 0 && align.value % sector_size != 0) {
    return err("align", fmt::format("{} bytes is not a multiple of the device sector size ({} bytes)",
                                    align.value, sector_size));
  }
  const uint64_t a = EffectiveAlign(sector_size);
  if (a > capacity) {
    return err("align", fmt::format("{} bytes is larger than the device ({} bytes)", a, capacity));
  }
  if (fit == "compact" && (compact_granularity.value == 0 || compact_granularity.value % a != 0)) {
    return err("compact_granularity",
               fmt::format("{} bytes is not a positive multiple of the alignment ({} bytes)",
                           compact_granularity.value, a));
  }
  if (trace_span.value != 0 && trace_span.value % a != 0) {
    return err("trace_span", fmt::format("{} bytes is not a multiple of the alignment ({} bytes)",
                                         trace_span.value, a));
  }
  if (volume_layout == "split" && !ids.empty() && capacity / ids.size() / a == 0) {
    return err("volumes", fmt::format("{} volumes side by side leave less than the alignment ({} bytes) each on "
                                      "a {}-byte device",
                                      ids.size(), a, capacity));
  }
  if (start_time < sim::SimTime::Zero()) {
    return err("start_time", fmt::format("{} is negative", start_time.ToString()));
  }
  if (end_time < sim::SimTime::Zero()) return err("end_time", fmt::format("{} is negative", end_time.ToString()));
  if (end_time != sim::SimTime::Zero() && end_time <= start_time) {
    return err("end_time", fmt::format("{} is not after start_time ({})", end_time.ToString(),
                                       start_time.ToString()));
  }
  if (spread_ties < sim::SimTime::Zero()) {
    return err("spread_ties", fmt::format("{} is negative", spread_ties.ToString()));
  }
  if (loops < 1 || loops > kMaxLoops) return err("loops", fmt::format("{} is outside 1..{}", loops, kMaxLoops));
  return sim::Status::Ok();
}

sim::Result<uint32_t> ParseVolumeId(std::string_view text) {
  std::string error;
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) {
    uint32_t v = 0;
    if (!ParseU32(text, "volume id", &v, &error)) {
      return sim::Status::InvalidInput(fmt::format("bad volume id '{}': {}", Excerpt(text), error));
    }
    return v;
  }
  uint32_t major = 0, minor = 0;
  if (!ParseU32(text.substr(0, comma), "major", &major, &error) ||
      !ParseU32(text.substr(comma + 1), "minor", &minor, &error)) {
    return sim::Status::InvalidInput(fmt::format("bad device number '{}': {}", Excerpt(text), error));
  }
  if (major > kMaxDevMajor || minor > kMaxDevMinor) {
    return sim::Status::InvalidInput(fmt::format("device number '{}' out of range (major <= {}, minor <= {})",
                                                 Excerpt(text), kMaxDevMajor, kMaxDevMinor));
  }
  return MakeDevVolume(major, minor);
}

std::string ResolveTracePath(std::string_view path, std::string_view base_dir) {
  std::filesystem::path p{std::string(path)};
  if (p.is_absolute() || base_dir.empty()) return std::string(path);
  return (std::filesystem::path(std::string(base_dir)) / p).string();
}

}  // namespace host
