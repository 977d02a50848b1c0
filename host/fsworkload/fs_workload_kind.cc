#include "host/fsworkload/fs_workload_kind.h"

#include <fmt/format.h>

#include "host/fsworkload/metered_fs.h"

namespace host {

std::string FsWorkloadSummary(const sim::StatsRegistry& st) {
  std::string out = fmt::format(
      "workload   {} ops in {} simulated: {} ops/s, read {}, written {}, {} fsyncs{}\n",
      static_cast<uint64_t>(st.Value("workload.ops")), sim::Sec(st.Value("workload.measured_time")).ToString(),
      sim::HumanNumber(st.Value("workload.ops_per_sec"), ""), sim::HumanNumber(st.Value("workload.bytes_read"), "B"),
      sim::HumanNumber(st.Value("workload.bytes_written"), "B"), static_cast<uint64_t>(st.Value("workload.fsyncs")),
      st.Value("workload.sync_writes") > 0
          ? fmt::format(", {} O_SYNC writes", static_cast<uint64_t>(st.Value("workload.sync_writes")))
          : "");
  for (int c = 0; c < MeteredFs::kNumCalls; ++c) {
    const std::string_view name = MeteredFs::CallName(static_cast<MeteredFs::Call>(c));
    const sim::Histogram* h = st.FindHistogram(fmt::format("workload.fs.{}.lat", name));
    if (h == nullptr || h->count() == 0) continue;
    out += fmt::format("  {:<9} n={} {}\n", name, h->count(), sim::LatencySummary(*h));
  }
  return out;
}

}  // namespace host
