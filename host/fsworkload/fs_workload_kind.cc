#include "host/fsworkload/fs_workload_kind.h"

#include <fmt/format.h>

#include "host/fsworkload/metered_fs.h"

namespace host {

std::string FsWorkloadSummary(const sim::StatsRegistry& st, std::string_view prefix, std::string_view label) {
  auto v = [&](std::string_view name) { return st.Value(fmt::format("{}.{}", prefix, name)); };
  std::string out = fmt::format(
      "{:<10} {} ops in {} simulated: {} ops/s, read {}, written {}, {} fsyncs{}\n", label,
      static_cast<uint64_t>(v("ops")), sim::Sec(v("measured_time")).ToString(),
      sim::HumanNumber(v("ops_per_sec"), ""), sim::HumanNumber(v("bytes_read"), "B"),
      sim::HumanNumber(v("bytes_written"), "B"), static_cast<uint64_t>(v("fsyncs")),
      v("sync_writes") > 0 ? fmt::format(", {} O_SYNC writes", static_cast<uint64_t>(v("sync_writes"))) : "");
  for (int c = 0; c < MeteredFs::kNumCalls; ++c) {
    const std::string_view name = MeteredFs::CallName(static_cast<MeteredFs::Call>(c));
    const sim::Histogram* h = st.FindHistogram(fmt::format("{}.fs.{}.lat", prefix, name));
    if (h == nullptr || h->count() == 0) continue;
    out += fmt::format("  {:<9} n={} {}\n", name, h->count(), sim::LatencySummary(*h));
  }
  return out;
}

}  // namespace host
