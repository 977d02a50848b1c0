#include "app/sweep.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/cli_test_util.h"

namespace app {
namespace {

using app::testing::Slurp;

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("sweep_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // A stats.json as the results writer lays it out.
  void Point(const std::string& folder, double iops, uint64_t erases, bool complete = true) {
    fs::create_directories(dir_ / folder);
    std::ofstream(dir_ / folder / "stats.json") << R"({
  "flashstack_version": "0.1.0",
  "experiment": "x",
  "sweep": "ftl.op=7%",
  "seed": 1,
  "complete": )" << (complete ? "true" : "false")
                                                << R"(,
  "config": {"name": "x"},
  "stats": {
    "ftl.erases": {"type": "counter", "unit": "blocks", "desc": "Erases, \"all\"", "value": )"
                                                << erases << R"(},
    "ftl.gc_copies": {"type": "counter", "unit": "pages", "desc": "", "value": 7},
    "ftl.write_amplification": {"type": "formula", "unit": "ratio", "desc": "", "value": null},
    "workload.iops": {"type": "formula", "unit": "IO/s", "desc": "", "value": )"
                                                << iops << R"(},
    "workload.write.lat": {"type": "histogram", "unit": "ns", "desc": "", "count": 3, "min": 10, "max": 30,
      "mean": 20, "p50": 20, "p90": 30, "p99": 30, "p999": 30, "p9999": 30, "buckets": [[10, 10, 1], [20, 20, 1]]},
    "workload.read.lat": {"type": "histogram", "unit": "ns", "desc": "", "count": 0, "min": 0, "max": 0,
      "mean": 0, "p50": 0, "p90": 0, "p99": 0, "p999": 0, "p9999": 0, "buckets": []}
  }
}
)";
  }
  fs::path dir_;
};

TEST_F(SweepTest, ParsesStatisticLists) {
  auto s = ParseSweepStats("workload.iops, ftl.gc_*,workload.iops");
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(*s, ElementsAre("workload.iops", "ftl.gc_*"));
  for (const char* bad : {"", "a,,b", "a,", " "}) {
    auto r = ParseSweepStats(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), sim::Status::Code::kInvalidInput);
    EXPECT_THAT(r.status().message(), HasSubstr("--sweep_stats: empty statistic name"));
  }
}

TEST_F(SweepTest, TableHasKeysCompletenessAndChosenValues) {
  Point("000-ftl.op=7pct", 1500.5, 11);
  Point("001-ftl.op=28pct", 2000, 3, /*complete=*/false);
  std::vector<SweepRow> rows = {{0, "000-ftl.op=7pct", {{"ftl.op", "7%"}}},
                                {1, "001-ftl.op=28pct", {{"ftl.op", "28%"}}},
                                {2, "002-ftl.op=50pct", {{"ftl.op", "50%"}}}};  // no results: no line
  ASSERT_TRUE(WriteSweepCsv(dir_.string(), rows, {"workload.iops", "workload.write.lat.p99", "ftl.gc_*",
                                                  "ftl.write_amplification", "workload.write.lat"},
                            true)
                  .ok());
  EXPECT_EQ(Slurp(dir_ / "sweep.csv"),
            "point,folder,ftl.op,complete,workload.iops,workload.write.lat.p99,ftl.gc_copies,"
            "ftl.write_amplification,workload.write.lat\n"
            "0,000-ftl.op=7pct,7%,true,1500.5,30,7,,20\n"
            "1,001-ftl.op=28pct,28%,false,2000,30,7,,20\n");
}

TEST_F(SweepTest, GlobsSpanFieldsAndDefaultsSkipWhatNoPointHas) {
  Point("000", 1, 2);
  const std::vector<SweepRow> rows = {{0, "000", {}}};
  ASSERT_TRUE(WriteSweepCsv(dir_.string(), rows, {"workload.w*.p9*"}, true).ok());
  EXPECT_EQ(Slurp(dir_ / "sweep.csv"),
            "point,folder,complete,workload.write.lat.p90,workload.write.lat.p99,workload.write.lat.p999,"
            "workload.write.lat.p9999\n0,000,true,30,30,30,30\n");
  // The default list names block and file workloads' statistics alike; a
  // point has some of them.
  // An empty histogram (no reads) has empty cells, not latencies of 0.
  ASSERT_TRUE(WriteSweepCsv(dir_.string(), rows, DefaultSweepStats(), false).ok());
  EXPECT_EQ(Slurp(dir_ / "sweep.csv"),
            "point,folder,complete,workload.iops,workload.read.lat.p50,workload.read.lat.p99,"
            "workload.write.lat.p50,workload.write.lat.p99,ftl.write_amplification\n0,000,true,1,,,20,30,\n");
  ASSERT_TRUE(WriteSweepCsv(dir_.string(), rows, {"workload.read.lat.count", "workload.read.lat"}, true).ok());
  EXPECT_EQ(Slurp(dir_ / "sweep.csv"), "point,folder,complete,workload.read.lat.count,workload.read.lat\n0,000,true,0,\n");
}

TEST_F(SweepTest, ChosenStatisticNoPointHasIsBadInputAfterWritingTheRest) {
  Point("000", 1, 2);
  const sim::Status st = WriteSweepCsv(dir_.string(), {{0, "000", {}}}, {"ftl.erases", "ftl.nope", "x.*"}, true);
  EXPECT_EQ(st.code(), sim::Status::Code::kInvalidInput);
  EXPECT_THAT(st.message(), HasSubstr("no point has a statistic named ftl.nope, x.*"));
  EXPECT_EQ(Slurp(dir_ / "sweep.csv"), "point,folder,complete,ftl.erases\n0,000,true,2\n");
}

TEST_F(SweepTest, MalformedStatsFileIsBadInput) {
  fs::create_directories(dir_ / "000");
  std::ofstream(dir_ / "000" / "stats.json") << "{\"stats\": [1, 2";
  const sim::Status st = WriteSweepCsv(dir_.string(), {{0, "000", {}}}, DefaultSweepStats(), false);
  EXPECT_EQ(st.code(), sim::Status::Code::kInvalidInput);
  EXPECT_THAT(st.message(), HasSubstr("000/stats.json: not a stats.json flashstack wrote"));
}

// Points run in child processes: each runs once, outcomes (and errors with
// their code and message) reach on_done in the parent, and after a failure
// no further point starts.
TEST_F(SweepTest, PointsRunInChildProcessesAndReportTheirOutcome) {
  const fs::path d = dir_;
  auto run = [d](size_t i) {
    std::ofstream(d / std::to_string(i)) << getpid();
    PointOutcome o;
    if (i == 3) o.status = sim::Status::InvalidInput("point 3: bad trace line");
    if (i == 2) o.interrupted = true;
    return o;
  };
  std::set<size_t> seen;
  std::vector<std::pair<size_t, PointOutcome>> outcomes;
  const sim::Status st = RunPoints({0, 1, 2, 3}, 2, nullptr, run, [&](size_t i, const PointOutcome& o) {
    seen.insert(i);
    outcomes.emplace_back(i, o);
  });
  EXPECT_EQ(seen, (std::set<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(st.code(), sim::Status::Code::kInvalidInput);
  EXPECT_EQ(st.message(), "point 3: bad trace line");
  for (const auto& [i, o] : outcomes) {
    EXPECT_EQ(o.interrupted, i == 2) << i;
    EXPECT_EQ(o.status.ok(), i != 3) << i;
    EXPECT_NE(Slurp(d / std::to_string(i)), std::to_string(getpid())) << "point " << i << " ran in this process";
  }

  // One job at a time: a failure stops the sweep before the next point.
  fs::remove_all(d);
  fs::create_directories(d);
  seen.clear();
  const sim::Status one = RunPoints({3, 0, 1}, 1, nullptr, run, [&](size_t i, const PointOutcome&) { seen.insert(i); });
  EXPECT_EQ(one.message(), "point 3: bad trace line");
  EXPECT_EQ(seen, (std::set<size_t>{3}));
  EXPECT_FALSE(fs::exists(d / "0"));
}

TEST_F(SweepTest, ChildThatEndsWithoutReportingIsAnError) {
  auto run = [](size_t i) -> PointOutcome {
    if (i == 1) _exit(7);  // ends without reporting
    return {};
  };
  const sim::Status st = RunPoints({0, 1}, 2, nullptr, run, [](size_t, const PointOutcome&) {});
  EXPECT_EQ(st.code(), sim::Status::Code::kIoError);
  EXPECT_THAT(st.message(), HasSubstr("point 1: its process ended without reporting (exit status 7)"));
}

TEST_F(SweepTest, InterruptStopsStartingPoints) {
  std::atomic<int> flag{0};
  std::vector<size_t> done;
  auto run = [](size_t) { return PointOutcome{}; };
  const sim::Status st = RunPoints({0, 1, 2, 3}, 2, &flag, run, [&](size_t i, const PointOutcome&) {
    done.push_back(i);
    flag.store(SIGURG);  // passed on to the running child, whose default action ignores it
  });
  EXPECT_TRUE(st.ok());
  // The two started before the flag was set finish; none starts after.
  EXPECT_EQ(done.size(), 2u);
}

}  // namespace
}  // namespace app
