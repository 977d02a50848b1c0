#include "app/experiment.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/experiment_test_util.h"
#include "sim/config.h"
#include "sim/time.h"

namespace app {
namespace {

using testing::Make;

// A workload that uses file-system transactions is refused before the run
// on a file system that has none (memfs, F2FS-J), naming the key that asks
// for them; without them, or on F2FS, it is accepted.
TEST(ExperimentTest, TransactionsNeedAFileSystemThatOffersThem) {
  auto validate = [](const std::string& config, const std::vector<std::string>& overrides) {
    auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(),
                                    std::string(FLASHSTACK_SOURCE_DIR) + "/" + config, overrides);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    ExperimentConfig cfg;
    EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
    return ValidateExperiment(cfg);
  };
  const std::string tx = "configs/mobibench/exf2fs/multi_db_fs_tx.yaml";
  const std::string tb = "configs/txbench/throughput_volume_set.yaml";
  EXPECT_TRUE(validate(tx, {}).ok());
  EXPECT_TRUE(validate(tb, {}).ok());
  EXPECT_EQ(validate(tx, {"fs.kind=memfs"}).message(),
            "workload.mobibench.vfs.fs_transactions: needs file-system transactions, which fs.kind memfs does not "
            "offer");
  EXPECT_EQ(validate(tb, {"fs.f2fs.durability=journal"}).message(),
            "workload.txbench.mode: needs file-system transactions, which fs.kind f2fs does not offer "
            "(fs.f2fs.durability: journal (F2FS-J) has none)");
  EXPECT_TRUE(validate(tb, {"fs.f2fs.durability=journal", "workload.txbench.mode=fsync"}).ok());
  EXPECT_TRUE(validate(tx, {"fs.kind=memfs", "workload.mobibench.vfs.fs_transactions=false",
                            "workload.mobibench.journal_mode=delete"})
                  .ok());
}

// A run stopped by run.max_time leaves simulated threads suspended in the
// workload, the file system and SQLite (mid-transaction, on fibers).
// Destroying the experiment destroys them all, before what they use; under
// the sanitizers nothing may be left (LeakSanitizer) or touched afterwards.
TEST(ExperimentTest, RunsCutShortByMaxTimeTearDownCleanly) {
  struct Case {
    const char* config;
    int max_time_ms;  // well before the workload's own end
  };
  for (const Case& c : {Case{"configs/examples/varmail_f2fs.yaml", 30}, Case{"configs/filebench/oltp.yaml", 30},
                        Case{"configs/mobibench/insert_wal.yaml", 100},
                        Case{"configs/mobibench/threads_shared_wal.yaml", 100},
                        Case{"configs/ycsb/workloada.yaml", 100}}) {
    std::vector<std::string> overrides = {"run.max_time=" + std::to_string(c.max_time_ms) + "ms"};
    if (std::string(c.config).find("ycsb") != std::string::npos) {
      overrides.push_back(std::string("workload.ycsb.properties=") + FLASHSTACK_SOURCE_DIR +
                          "/configs/ycsb/workloads/workloada");
      overrides.push_back("workload.ycsb.threadcount=3");
    }
    std::unique_ptr<Experiment> e = Make(c.config, overrides);
    ASSERT_NE(e, nullptr) << c.config;
    const RunReport r = e->Run(false);
    EXPECT_GT(r.host_ios, 0u) << c.config;
    EXPECT_GE(r.sim_time, sim::Ms(c.max_time_ms)) << c.config;  // stopped by the limit
    EXPECT_TRUE(e->status().ok()) << c.config << ": " << e->status().message();
    e.reset();
  }
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// run.max_memory is checked against EstimateMemory before anything is
// built, so the estimate must cover what building the stack takes.
// Regression: found by the randomized-input driver, F2FS on a 1 TiB device
// took 9 GiB while the estimate (then the FTL's tables only) said 0.9 GiB.
// series.csv's per-interval columns agree with the run's totals: the
// per-interval counts of a latency histogram add up to its count and its
// per-interval percentiles lie within its range (empty exactly where the
// interval recorded nothing); GC copies, erases and F2FS cleaning moves per
// interval add up to their counters; per-interval write amplification is
// at least 1 at the device.
TEST(ExperimentTest, SeriesIntervalColumnsAddUpToTheRunsTotals) {
  struct Case {
    const char* config;
    std::vector<std::string> overrides;
    std::vector<std::string> must_have;  // columns the stack must write
  };
  const std::vector<Case> cases = {
      {"configs/examples/tiny.yaml",
       {"workload.fio.total_ios=6000", "run.rate_window=run"},
       {"workload.read.lat.p99", "workload.write.lat.count", "ftl.write_amplification", "ftl.gc_copies",
        "ftl.erases"}},
      {"configs/examples/varmail_f2fs.yaml",
       {"run.max_time=400ms", "run.rate_window=run"},
       {"workload.fs.write.lat.p50", "workload.fs.fsync.lat.p99", "fs.write_amplification", "fs.gc.moved",
        "ftl.write_amplification"}},
      {"configs/examples/replay_msr.yaml",
       {"run.max_time=10s", "run.rate_window=run", std::string("workload.trace.path=") + FLASHSTACK_SOURCE_DIR +
                                  "/traces/examples/server.msr.csv"},
       {"workload.read.lat.p50", "workload.write.lat.p99"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.config);
    std::unique_ptr<Experiment> e = Make(c.config, c.overrides);
    ASSERT_NE(e, nullptr);
    e->Run(false);
    ASSERT_TRUE(e->status().ok()) << e->status().message();
    const sim::StatsRegistry& st = e->stats();
    std::ostringstream out;
    st.WriteSeriesCsv(out);
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
    std::vector<std::vector<double>> rows;
    while (std::getline(in, line)) {
      std::vector<double> row;
      size_t start = 0;
      while (true) {
        const size_t comma = line.find(',', start);
        const std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        row.push_back(cell.empty() ? std::nan("") : std::stod(cell));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      ASSERT_EQ(row.size(), header.size()) << line;
      rows.push_back(std::move(row));
    }
    ASSERT_GT(rows.size(), 5u);
    auto column = [&](const std::string& name) -> int {
      const auto it = std::find(header.begin(), header.end(), name);
      return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    auto sum = [&](int col) {
      double s = 0;
      for (const auto& r : rows) s += std::isnan(r[col]) ? 0 : r[col];
      return s;
    };
    for (const std::string& m : c.must_have) EXPECT_GE(column(m), 0) << m;
    int histograms = 0;
    for (size_t col = 0; col < header.size(); ++col) {
      const std::string& name = header[col];
      if (!name.ends_with(".count")) continue;
      const std::string base = name.substr(0, name.size() - 6);
      const sim::Histogram* h = st.FindHistogram(base);
      if (h == nullptr) continue;
      ++histograms;
      EXPECT_EQ(sum(static_cast<int>(col)), static_cast<double>(h->count())) << base;
      for (const char* q : {".p50", ".p99"}) {
        const int qc = column(base + q);
        ASSERT_GE(qc, 0) << base << q;
        for (const auto& r : rows) {
          EXPECT_EQ(std::isnan(r[qc]), r[col] == 0) << base << q;
          if (std::isnan(r[qc])) continue;
          EXPECT_GE(r[qc], static_cast<double>(h->min())) << base << q;
          EXPECT_LE(r[qc], static_cast<double>(h->max())) << base << q;
        }
      }
    }
    EXPECT_GE(histograms, 2);
    for (const auto& [series, total] : std::vector<std::pair<std::string, double>>{
             {"ftl.gc_copies", st.Value("ftl.gc_copies")},
             {"ftl.erases", st.Value("ftl.erases")},
             {"fs.gc.moved", st.Value("fs.gc.moved_bg") + st.Value("fs.gc.moved_fg")}}) {
      if (const int col = column(series); col >= 0) {
        EXPECT_EQ(sum(col), total) << series;
      }
    }
    if (const int wa = column("ftl.write_amplification"); wa >= 0) {
      int shown = 0;
      for (const auto& r : rows) {
        if (std::isnan(r[wa])) continue;
        ++shown;
        EXPECT_GE(r[wa], 1.0);
      }
      EXPECT_GT(shown, 0);
    }
  }
}

// The device's and the host's rates cover the workload's measured phase,
// not the drain after it (run.rate_window: measured, the default): a
// filebench run of 300 ms inside a 2 s run reports its device bandwidth and
// utilizations over those 300 ms, its series end there, and the whole-run
// window is still one key away.
TEST(ExperimentTest, RatesCoverTheMeasuredPhaseNotTheDrain) {
  const std::vector<std::string> base = {"workload.filebench.run_time=300ms", "run.max_time=2s"};
  std::unique_ptr<Experiment> m = Make("configs/examples/varmail_f2fs.yaml", base);
  std::vector<std::string> whole_over = base;
  whole_over.push_back("run.rate_window=run");
  std::unique_ptr<Experiment> w = Make("configs/examples/varmail_f2fs.yaml", whole_over);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(w, nullptr);
  m->Run(false);
  w->Run(false);
  const sim::StatsRegistry& a = m->stats();
  const sim::StatsRegistry& b = w->stats();
  // The same run: the window changes what the rates divide, nothing else.
  EXPECT_EQ(a.Value("ssd.ops.write"), b.Value("ssd.ops.write"));
  const double start = a.Value("run.measured_start"), end = a.Value("run.measured_end");
  const double run_end = a.Value("run.end");
  EXPECT_GT(start, 0.0);  // after mount and the fileset's creation
  EXPECT_NEAR(end - start, a.Value("workload.measured_time"), 1e-9);
  EXPECT_NEAR(end - start, 0.3, 0.01);
  EXPECT_GT(run_end, 2.0);  // max_time counts from the run's start, after the mount
  EXPECT_GT(run_end, end + 1.0);
  // The whole-run window: bytes / 2 s exactly.
  const double bytes = b.Value("ssd.bytes.write");
  ASSERT_GT(bytes, 0.0);
  EXPECT_NEAR(b.Value("ssd.write_bandwidth"), bytes / run_end, 1e-6 * bytes);
  // The measured window: no more than the bytes written, over 0.3 s, so far
  // above the whole-run figure the drain diluted.
  EXPECT_LE(a.Value("ssd.write_bandwidth") * (end - start), bytes * (1 + 1e-9));
  EXPECT_GT(a.Value("ssd.write_bandwidth"), 2 * b.Value("ssd.write_bandwidth"));
  EXPECT_GT(a.Value("flash.die_utilization"), 2 * b.Value("flash.die_utilization"));
  EXPECT_GT(a.Value("host.cpu.utilization"), 2 * b.Value("host.cpu.utilization"));
  EXPECT_LE(a.Value("flash.die_utilization_max"), 1.0);
  EXPECT_GE(a.Value("flash.die_utilization_max"), a.Value("flash.die_utilization"));
  // The series end with the phase; the summary names the window.
  auto last_row_time = [](const sim::StatsRegistry& st) {
    std::ostringstream out;
    st.WriteSeriesCsv(out);
    std::string csv = out.str();
    csv.pop_back();
    return std::stod(csv.substr(csv.rfind('\n') + 1));
  };
  EXPECT_NEAR(last_row_time(a), end, 1e-9);
  EXPECT_NEAR(last_row_time(b), run_end, 1e-9);
  EXPECT_NE(m->Summary().find("over the measured phase"), std::string::npos) << m->Summary();
  EXPECT_NE(w->Summary().find("over the whole run"), std::string::npos) << w->Summary();
}

// A run shorter than a GC cycle measures GC in whole victims; the victims'
// own figure (ftl.victim_write_amplification) is the steady state's, and the
// summary says so. A long run's WA agrees with it.
TEST(ExperimentTest, ShortRunsAfterPreconditioningReportTheVictimsWriteAmplification) {
  auto run = [](uint64_t ios) {
    std::unique_ptr<Experiment> e = Make("configs/examples/tiny.yaml",
                                         {"workload.fio.rw=randwrite", fmt::format("workload.fio.total_ios={}", ios)});
    EXPECT_NE(e, nullptr);
    if (e != nullptr) e->Run(false);
    return e;
  };
  std::unique_ptr<Experiment> shortrun = run(300), longrun = run(60000);
  ASSERT_NE(shortrun, nullptr);
  ASSERT_NE(longrun, nullptr);
  const sim::StatsRegistry& a = shortrun->stats();
  const sim::StatsRegistry& b = longrun->stats();
  EXPECT_EQ(a.Value("ftl.gc_cycle_pages"), 8 * 64);  // 8 planes x 64-page blocks
  ASSERT_GT(a.Value("ftl.gc_runs_bg") + a.Value("ftl.gc_runs_fg"), 0);
  const double steady = b.Value("ftl.write_amplification");
  ASSERT_GT(steady, 1.2);
  EXPECT_NEAR(b.Value("ftl.victim_write_amplification"), steady, 0.05 * steady);
  EXPECT_NEAR(a.Value("ftl.victim_write_amplification"), steady, 0.35 * steady);
  EXPECT_NE(shortrun->Summary().find("short run: 300 host pages"), std::string::npos) << shortrun->Summary();
  EXPECT_EQ(longrun->Summary().find("short run"), std::string::npos) << longrun->Summary();
}

TEST(ExperimentTest, MemoryEstimateCoversWhatBuildingTheStackTakes) {
  const std::vector<std::string> big = {"device.geometry.blocks_per_plane=2048"};  // 64 GiB raw
  const std::string config = "configs/examples/varmail_f2fs.yaml";
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), std::string(FLASHSTACK_SOURCE_DIR) + "/" +
                                                                          config, big);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ExperimentConfig cfg;
  ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  const MemoryEstimate m = EstimateMemory(cfg);
  EXPECT_GT(m.fs, m.ftl);  // 32 bytes per 4 KiB block against a few per 8 KiB page
  const uint64_t before = ResidentBytes();
  std::unique_ptr<Experiment> e = Make(config, big);
  ASSERT_NE(e, nullptr);
  const double taken = static_cast<double>(ResidentBytes() - before);
  EXPECT_GE(static_cast<double>(m.total()), 0.85 * taken) << "estimated " << m.total() << ", took " << taken;
  EXPECT_LE(static_cast<double>(m.total()), 1.5 * taken) << "estimated " << m.total() << ", took " << taken;
}

}  // namespace
}  // namespace app
