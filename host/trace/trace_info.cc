#include "host/trace/trace_info.h"

#include <bit>
#include <numeric>

#include <fmt/format.h>

namespace host {
namespace {

// "6.1 MB" style (decimal units), exact below 1000 bytes.
std::string HumanBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1000 && u + 1 < std::size(kUnits)) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

// Bucket label "4KiB" for 2^k bytes.
std::string PowerLabel(int k) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return fmt::format("{}{}", uint64_t{1} << (k % 10), kUnits[k / 10]);
}

}  // namespace

sim::Result<TraceInfo> Summarize(BlockTraceReader* reader, uint64_t max_records) {
  TraceInfo info;
  BlockTraceRecord rec;
  int64_t prev_ns = 0;
  int64_t step_ns = 0;
  for (uint64_t n = 0; n < max_records; ++n) {
    FS_ASSIGN_OR_RETURN(bool more, reader->Next(&rec));
    if (!more) break;
    TraceInfo::OpTotals& t = info.ops[static_cast<size_t>(rec.op)];
    ++t.count;
    t.bytes += rec.length_bytes;
    if (rec.valid_time) {
      const int64_t t = rec.time.ns();
      if (info.timed_records > 0) {
        if (t == prev_ns) {
          ++info.same_time;
        } else {
          // |gap| fits: record times are within int64 of the first record.
          const int64_t gap = t > prev_ns ? t - prev_ns : prev_ns - t;
          step_ns = std::gcd(step_ns, gap);
        }
      }
      prev_ns = t;
      ++info.timed_records;
      if (!info.has_time || rec.time < info.first_time) info.first_time = rec.time;
      if (!info.has_time || rec.time > info.last_time) info.last_time = rec.time;
      info.has_time = true;
    }
    if (rec.op != BlockTraceRecord::Op::kFlush) {
      ++info.size_histogram[std::bit_width(rec.length_bytes) - 1];
      info.min_offset = std::min(info.min_offset, rec.offset_bytes);
      info.max_end = std::max(info.max_end, rec.offset_bytes + rec.length_bytes);
    }
    ++info.volumes[rec.volume];
  }
  info.time_step = sim::Ns(step_ns);
  info.time_unit = reader->time_unit();
  info.path = reader->path();
  info.format = std::string(reader->format());
  info.volumes_are_devices = reader->trace_format().volume_is_device_number;
  info.compression = std::string(CompressionName(reader->compression()));
  info.stats = reader->stats();
  return info;
}

std::vector<std::string> TraceWarnings(const TraceInfo& info, bool ties_spread) {
  std::vector<std::string> out;
  if (!info.has_time) return out;
  const double seconds = info.duration().sec();
  const uint64_t n = info.timed_records;
  uint64_t bytes = 0;
  for (const TraceInfo::OpTotals& t : info.ops) bytes += t.bytes;
  const std::string unit = info.time_unit.ToString();
  if (n >= kMinRecordsForRate && seconds > 0) {
    const double iops = static_cast<double>(n - 1) / seconds;
    const double bps = static_cast<double>(bytes) / seconds;
    if (iops > kImplausibleIops || bps > kImplausibleBytesPerSec) {
      out.push_back(fmt::format(
          "{} records in {} imply {:.3g} requests/s and {}/s, beyond what one device serves: the time field is "
          "read in units of {}; if the trace counts in a larger unit, set it (trace-info --set time_unit=1s, "
          "workload.trace.reader.time_unit in a run)",
          n, info.duration().ToString(), iops, HumanBytes(static_cast<uint64_t>(bps)), unit));
    }
  }
  constexpr double kYear = 365.0 * 24 * 3600;
  if (seconds > kYear) {
    out.push_back(fmt::format(
        "the trace spans {:.3g} years with its time field read in units of {}; if the trace counts in a smaller "
        "unit, set it (trace-info --set time_unit=..., workload.trace.reader.time_unit in a run)",
        seconds / kYear, unit));
  }
  if (!ties_spread && n >= kMinRecordsForRate && info.same_time * 2 >= n) {
    const std::string step = info.time_step > sim::SimTime::Zero() ? info.time_step.ToString() : unit;
    out.push_back(fmt::format(
        "{} of {} records have the same time as the record before{}: a coarse clock; an open-loop replay issues "
        "each group of equal times at once, unless workload.trace.spread_ties spreads it (e.g. spread_ties: {})",
        info.same_time, n,
        info.time_step > sim::SimTime::Zero() ? fmt::format(" and times advance in steps of {}", step)
                                              : std::string(" (all of them share one time)"),
        step));
  }
  return out;
}

std::string FormatTraceInfo(const TraceInfo& info) {
  std::string out;
  auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("{:<12}{}\n", key, value);
  };
  const BlockTraceStats& s = info.stats;
  line("trace", info.path);
  line("format", info.compression == "none" ? info.format : fmt::format("{} ({})", info.format, info.compression));
  line("lines", fmt::format("{} ({} records, {} ignored, {} skipped as malformed, {} zero-length dropped)",
                            s.lines, s.records, s.ignored, s.skipped, s.zero_length_dropped));
  if (info.has_time) {
    line("duration", fmt::format("{} ({} ns); time went backwards {} time{}", info.duration().ToString(),
                                 info.duration().ns(), s.time_backwards, s.time_backwards == 1 ? "" : "s"));
    line("time", fmt::format("field unit {}; {} of {} timed records at the time of the record before; step {}",
                             info.time_unit.ToString(), info.same_time, info.timed_records,
                             info.time_step > sim::SimTime::Zero() ? info.time_step.ToString() : "none"));
  } else {
    line("duration", "no timestamps");
  }
  static constexpr std::pair<BlockTraceRecord::Op, const char*> kOps[] = {
      {BlockTraceRecord::Op::kRead, "reads"},
      {BlockTraceRecord::Op::kWrite, "writes"},
      {BlockTraceRecord::Op::kTrim, "trims"},
      {BlockTraceRecord::Op::kFlush, "flushes"}};
  for (const auto& [op, key] : kOps) {
    const TraceInfo::OpTotals& t = info.op(op);
    const std::string requests = fmt::format("{} request{}", t.count, t.count == 1 ? "" : "s");
    if (op == BlockTraceRecord::Op::kFlush) {
      line(key, requests);
    } else {
      line(key, fmt::format("{}, {} bytes ({}){}", requests, t.bytes, HumanBytes(t.bytes),
                            t.count ? fmt::format(", mean {}", HumanBytes(t.bytes / t.count)) : ""));
    }
  }
  if (info.max_end > 0) {
    line("offsets", fmt::format("min {}, max end {} ({}), span {}", info.min_offset, info.max_end,
                                HumanBytes(info.max_end), HumanBytes(info.span())));
  }
  std::string sizes;
  for (int k = 0; k < TraceInfo::kSizeBuckets; ++k) {
    if (info.size_histogram[k] == 0) continue;
    if (!sizes.empty()) sizes += "  ";
    sizes += fmt::format("{}: {}", PowerLabel(k), info.size_histogram[k]);
  }
  if (!sizes.empty()) line("sizes", sizes + "  (bucket = size rounded down to a power of two)");
  std::string vols;
  constexpr size_t kMaxVolumesShown = 8;
  size_t shown = 0;
  for (const auto& [id, count] : info.volumes) {
    if (shown++ == kMaxVolumesShown) {
      vols += ", ...";
      break;
    }
    const std::string name = info.volumes_are_devices ? fmt::format("{},{}", id >> 20, id & kMaxDevMinor)
                                                      : fmt::format("{}", id);
    vols += fmt::format("{}{} ({})", vols.empty() ? "" : ", ", name, count);
  }
  line("volumes", fmt::format("{}{}{}", info.volumes.size(), info.volumes.empty() ? "" : ": ", vols));
  for (const std::string& e : s.first_errors) line("skipped", e);
  for (const std::string& w : TraceWarnings(info)) line("warning", w);
  return out;
}

}  // namespace host
