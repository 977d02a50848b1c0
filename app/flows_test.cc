// Multi-flow runs through the command line: per-flow figures in every
// result file, determinism, arbitration protecting an urgent flow, fio job
// files, and the errors of flow configurations.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/cli_test_util.h"

namespace {

using app::testing::Cli;
using app::testing::Outcome;
using app::testing::Slurp;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// The number after "\"<stat>\": {" ... "\"<field>\": " in a stats.json text.
double StatField(const std::string& json, const std::string& stat, const std::string& field) {
  const size_t at = json.find("\"" + stat + "\": {");
  if (at == std::string::npos) return -1;
  const size_t f = json.find("\"" + field + "\": ", at);
  if (f == std::string::npos) return -1;
  return std::stod(json.substr(f + field.size() + 4));
}

std::string Src(const std::string& rel) { return std::string(FLASHSTACK_SOURCE_DIR) + "/" + rel; }

class FlowsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("flows_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

constexpr const char* kRr = "000-device.flash.scheduler=fifo_device.ssd.arbitration.policy=rr";
constexpr const char* kWrr = "001-device.flash.scheduler=fifo_device.ssd.arbitration.policy=wrr";
constexpr const char* kRrReadFirst = "002-device.flash.scheduler=read_priority_device.ssd.arbitration.policy=rr";
constexpr const char* kWrrReadFirst = "003-device.flash.scheduler=read_priority_device.ssd.arbitration.policy=wrr";

// The shipped interference example: two flows, each figure per flow in
// stats.json, summary.txt, series.csv and sweep.csv; the same seed gives
// byte-identical results; weighted round robin with the reader urgent
// shortens the reader's queue wait and latency against round robin.
TEST_F(FlowsCliTest, InterferenceExampleReportsEachFlowAndProtectsTheUrgentFlow) {
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  const std::string cfg = Src("configs/examples/interference.yaml");
  const Outcome ra = Cli("run " + cfg + " --quiet --out " + a);
  ASSERT_EQ(ra.code, 0) << ra.out;
  ASSERT_EQ(Cli("run " + cfg + " --quiet --out " + b).code, 0);
  for (const char* point : {kRr, kWrr, kRrReadFirst, kWrrReadFirst}) {
    const std::string sa = Slurp(fs::path(a) / point / "stats.json");
    EXPECT_TRUE(sa == Slurp(fs::path(b) / point / "stats.json")) << point;
    EXPECT_TRUE(Slurp(fs::path(a) / point / "series.csv") == Slurp(fs::path(b) / point / "series.csv")) << point;
    for (const char* s : {"flows.reader.iops", "flows.writer.bw", "flows.reader.read.lat", "flows.writer.write.lat",
                          "ssd.flow.reader.queue_wait", "ssd.flow.reader.device_latency.read",
                          "ssd.flow.writer.latency.write", "flows.reader.slowdown", "flows.reader.alone_latency",
                          "flows.fairness"}) {
      EXPECT_THAT(sa, HasSubstr(std::string("\"") + s + "\"")) << point;
    }
    const double slowdown = StatField(sa, "flows.reader.slowdown", "value");
    EXPECT_GT(slowdown, 1.0) << point;  // a writer beside it slows the reader
    const double fairness = StatField(sa, "flows.fairness", "value");
    EXPECT_GT(fairness, 0.0);
    EXPECT_LE(fairness, 1.0);
    const std::string summary = Slurp(fs::path(a) / point / "summary.txt");
    EXPECT_THAT(summary, HasSubstr("flow reader"));
    EXPECT_THAT(summary, HasSubstr("flow writer"));
    EXPECT_THAT(summary, HasSubstr("  slowdown "));
    EXPECT_THAT(summary, HasSubstr("fairness "));
    const std::string series = Slurp(fs::path(a) / point / "series.csv");
    const std::string header = series.substr(0, series.find('\n'));
    EXPECT_THAT(header, HasSubstr("flows.reader.iops"));
    EXPECT_THAT(header, HasSubstr("ssd.flow.reader.queue_wait.p99"));
    EXPECT_THAT(header, HasSubstr("ssd.flow.writer.device_latency.write.p50"));
  }
  const std::string sweep = Slurp(fs::path(a) / "sweep.csv");
  EXPECT_THAT(sweep, HasSubstr("flows.reader.iops"));
  EXPECT_THAT(sweep, HasSubstr("flows.reader.slowdown"));
  EXPECT_THAT(sweep, HasSubstr("flows.fairness"));

  const std::string rr = Slurp(fs::path(a) / kRr / "stats.json");
  const std::string wrr = Slurp(fs::path(a) / kWrr / "stats.json");
  const double wait_rr = StatField(rr, "ssd.flow.reader.queue_wait", "mean");
  const double wait_wrr = StatField(wrr, "ssd.flow.reader.queue_wait", "mean");
  EXPECT_LT(wait_wrr, 0.5 * wait_rr);
  EXPECT_LT(StatField(wrr, "flows.reader.read.lat", "mean"), StatField(rr, "flows.reader.read.lat", "mean"));
  EXPECT_LT(StatField(wrr, "flows.reader.slowdown", "value"), StatField(rr, "flows.reader.slowdown", "value"));
  EXPECT_GT(StatField(wrr, "flows.reader.iops", "value"), StatField(rr, "flows.reader.iops", "value"));
  // With reads first at the dies the controller queue is most of the
  // reader's latency, and the urgent class removes most of it.
  const std::string rr2 = Slurp(fs::path(a) / kRrReadFirst / "stats.json");
  const std::string wrr2 = Slurp(fs::path(a) / kWrrReadFirst / "stats.json");
  EXPECT_LT(StatField(wrr2, "ssd.flow.reader.queue_wait", "mean"),
            0.2 * StatField(rr2, "ssd.flow.reader.queue_wait", "mean"));
  EXPECT_LT(StatField(wrr2, "flows.reader.slowdown", "value"), 0.5 * StatField(rr2, "flows.reader.slowdown", "value"));
  EXPECT_GT(StatField(wrr2, "flows.fairness", "value"), StatField(rr2, "flows.fairness", "value"));

  // The resolved configuration (with its flows) reruns to the same results.
  const std::string c = (dir_ / "c").string();
  ASSERT_EQ(Cli("run " + (fs::path(a) / kWrr / "config.yaml").string() + " --quiet --out " + c).code, 0);
  // (The sweep label in the header differs; the statistics do not.)
  const std::string again = Slurp(fs::path(c) / "stats.json");
  const std::string key = "\"stats\": {";
  ASSERT_NE(again.find(key), std::string::npos);
  EXPECT_TRUE(again.substr(again.find(key)) == wrr.substr(wrr.find(key)));
}

TEST_F(FlowsCliTest, SingleWorkloadRunsHaveNoFlowFigures) {
  const std::string a = (dir_ / "a").string();
  ASSERT_EQ(Cli("run " + Src("configs/examples/tiny.yaml") + " --quiet --out " + a).code, 0);
  const std::string s = Slurp(fs::path(a) / "stats.json");
  EXPECT_THAT(s, Not(HasSubstr("\"flows.")));
  EXPECT_THAT(s, Not(HasSubstr("\"ssd.flow.")));
}

TEST_F(FlowsCliTest, FioJobFileRunsEachJobAsAFlow) {
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  const Outcome o = Cli("run " + Src("configs/examples/fio_jobfile.yaml") + " --quiet --out " + a);
  ASSERT_EQ(o.code, 0) << o.out;
  ASSERT_EQ(Cli("run " + Src("configs/examples/fio_jobfile.yaml") + " --quiet --out " + b).code, 0);
  const std::string s = Slurp(fs::path(a) / "stats.json");
  EXPECT_TRUE(s == Slurp(fs::path(b) / "stats.json"));
  EXPECT_GT(StatField(s, "flows.reader.read.lat", "count"), 0);
  EXPECT_GT(StatField(s, "flows.writer.write.lat", "count"), 0);
  EXPECT_EQ(StatField(s, "flows.reader.write.lat", "count"), 0);
  EXPECT_GT(StatField(s, "ssd.flow.writer.ops.write", "value"), 0);
  // The writer starts 10 ms in (startdelay): none of its I/Os completes before.
  EXPECT_GT(StatField(s, "flows.writer.write.lat", "min"), 0);

  // A job file with an option the model cannot honour: exit 2, file:line.
  const std::string job = Write("bad.fio", "[global]\nbs=4k\n\n[r]\nrw=randread\ndirect=0\n");
  const std::string cfg = Write("bad.yaml", "include: " + Src("configs/examples/tiny.yaml") +
                                                "\nworkload:\n  fio:\n    jobfile: bad.fio\n");
  const Outcome bad = Cli("run " + cfg + " --quiet --out " + (dir_ / "bad").string());
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr(job + ":6: direct: buffered I/O"));
}

// fio's stonewall: the second job starts when the first finished, so the
// run lasts as long as both one after the other; without it they overlap.
// A flow's `after` does the same in YAML; cycles and unknown names are
// refused.
TEST_F(FlowsCliTest, StonewalledJobsRunOneAfterTheOther) {
  auto run = [&](const std::string& name, const std::string& mid) {
    Write(name + ".fio", "[global]\nrw=randwrite\nbs=4k\niodepth=4\nio_size=4m\n[fill]\n[steady]\n" + mid +
                             "rw=randread\n");
    const std::string cfg = Write(name + ".yaml", "include: " + Src("configs/examples/tiny.yaml") +
                                                      "\ndevice.ssd.queues: 2\nworkload:\n  fio:\n    jobfile: " +
                                                      name + ".fio\n");
    const std::string out = (dir_ / name).string();
    const Outcome o = Cli("run " + cfg + " --quiet --out " + out);
    EXPECT_EQ(o.code, 0) << o.out;
    return Slurp(fs::path(out) / "stats.json");
  };
  const std::string serial = run("serial", "stonewall\n"), overlap = run("overlap", "");
  for (const std::string* s : {&serial, &overlap}) {
    EXPECT_EQ(StatField(*s, "flows.fill.write.lat", "count"), 1024);
    EXPECT_EQ(StatField(*s, "flows.steady.read.lat", "count"), 1024);
  }
  const double fill = StatField(serial, "flows.fill.measured_time", "value");
  const double steady = StatField(serial, "flows.steady.measured_time", "value");
  const double phase = StatField(serial, "run.measured_end", "value") - StatField(serial, "run.measured_start", "value");
  EXPECT_NEAR(phase, fill + steady, 1e-6);
  const double ophase =
      StatField(overlap, "run.measured_end", "value") - StatField(overlap, "run.measured_start", "value");
  EXPECT_LT(ophase, StatField(overlap, "flows.fill.measured_time", "value") +
                        StatField(overlap, "flows.steady.measured_time", "value") - 1e-4);

  const std::string base = "include: " + Src("configs/examples/tiny.yaml") + "\ndevice.ssd.queues: 2\n";
  const std::pair<std::string, std::string> bad[] = {
      {"workload:\n  flows:\n    a: {after: [b], fio: {total_ios: 10}}\n    b: {after: [a], fio: {total_ios: 10}}\n",
       "workload.flows.a.after: flows wait for each other in a cycle"},
      {"workload:\n  flows:\n    a: {after: [x], fio: {total_ios: 10}}\n", "workload.flows.a.after: no flow named 'x'"},
  };
  int i = 0;
  for (const auto& [yaml, want] : bad) {
    const Outcome o = Cli("check " + Write("bad" + std::to_string(i++) + ".yaml", base + yaml));
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_THAT(o.out, HasSubstr(want));
  }
}

// A trace flow beside a fio flow; the trace path is relative to the config
// file that names it, as for workload.trace.path.
TEST_F(FlowsCliTest, TraceFlowBesideAFioFlow) {
  std::string trace;
  for (int i = 0; i < 200; ++i) {
    trace += std::to_string(128166372003061629LL + 1000LL * i) + ",web,0," + (i % 3 == 0 ? "Write" : "Read") + "," +
             std::to_string(4096 * ((i * 37) % 500)) + ",4096,100\n";
  }
  Write("t.msr.csv", trace);
  const std::string cfg = Write("flows.yaml", "include: " + Src("configs/examples/tiny.yaml") +
                                                  "\ndevice.ssd.queues: 3\n"
                                                  "workload:\n  flows:\n"
                                                  "    replay:\n      kind: trace\n      queues: 2\n"
                                                  "      trace: {path: t.msr.csv, reader: {format: msr}}\n"
                                                  "    reader:\n      kind: fio\n      queue: 2\n"
                                                  "      fio: {rw: randread, iodepth: 2, total_ios: 300}\n");
  const std::string a = (dir_ / "a").string();
  const Outcome o = Cli("run " + cfg + " --quiet --out " + a);
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string s = Slurp(fs::path(a) / "stats.json");
  EXPECT_EQ(StatField(s, "flows.replay.ios_total", "value"), 200);
  EXPECT_EQ(StatField(s, "ssd.flow.replay.ops.write", "value") + StatField(s, "ssd.flow.replay.ops.read", "value"),
            200);
  EXPECT_EQ(StatField(s, "ssd.flow.reader.ops.read", "value"), 300);
  EXPECT_EQ(StatField(s, "ssd.ops.read", "value") + StatField(s, "ssd.ops.write", "value"), 500);
}

// File workloads as flows: two on one file system, in directories of their
// own, beside a raw block flow on the partition past the volume. Each flow's
// figures are its own (its file-system calls, its CPU time; the raw flow's
// device requests on its queue), the file system's requests are nobody's
// flow, the same seed gives byte-identical results, and each flow's slowdown
// comes from its run alone.
TEST_F(FlowsCliTest, FileWorkloadsShareAFileSystemBesideARawFlow) {
  const std::string cfg = Src("configs/examples/shared_fs_flows.yaml");
  const std::string quick = " --set workload.flows.mail.filebench.run_time=150ms"
                            " --set workload.flows.logger.fio_files.runtime=150ms"
                            " --set workload.flows.raw.fio.runtime=150ms --quiet";
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  const Outcome o = Cli("run " + cfg + quick + " --out " + a);
  ASSERT_EQ(o.code, 0) << o.out;
  ASSERT_EQ(Cli("run " + cfg + quick + " --out " + b).code, 0);
  const std::string s = Slurp(fs::path(a) / "stats.json");
  EXPECT_EQ(s, Slurp(fs::path(b) / "stats.json"));
  // Each file flow's own calls and CPU time.
  EXPECT_GT(StatField(s, "flows.mail.ops", "value"), 100);
  EXPECT_GT(StatField(s, "flows.mail.fs.fsync.lat", "count"), 10);
  EXPECT_GT(StatField(s, "flows.logger.fsyncs", "value"), 10);
  EXPECT_EQ(StatField(s, "flows.logger.fs.unlink.lat", "count"), 0);  // varmail's deletes are mail's
  EXPECT_GT(StatField(s, "host.cpu.owner.flows.mail.time", "value"), 0);
  EXPECT_GT(StatField(s, "host.cpu.owner.flows.logger.time", "value"), 0);
  // The raw flow's requests are on its own queue; the device saw more (the
  // file system's).
  const double raw = StatField(s, "ssd.flow.raw.ops.write", "value");
  EXPECT_GT(raw, 100);
  EXPECT_EQ(raw, StatField(s, "flows.raw.ios_total", "value"));
  EXPECT_GT(StatField(s, "ssd.ops.write", "value"), raw + 100);
  for (const char* f : {"mail", "logger", "raw"}) {
    const double slowdown = StatField(s, std::string("flows.") + f + ".slowdown", "value");
    EXPECT_GT(slowdown, 0.5) << f;
    EXPECT_LT(slowdown, 100) << f;
  }
  EXPECT_GT(StatField(s, "flows.fairness", "value"), 0);
  const std::string summary = Slurp(fs::path(a) / "summary.txt");
  EXPECT_THAT(summary, HasSubstr("flow mail"));
  EXPECT_THAT(summary, HasSubstr("flow logger"));
  EXPECT_THAT(summary, HasSubstr("flow raw"));
}

TEST_F(FlowsCliTest, FlowConfigurationErrorsAreExitCode2) {
  const std::string base = "include: " + Src("configs/examples/tiny.yaml") + "\n";
  struct Case {
    std::string yaml;
    std::string want;
  };
  const Case cases[] = {
      {"workload:\n  flows:\n    a: {queue: 1, fio: {total_ios: 10}}\n    b: {queue: 0, queues: 2, fio: {total_ios: 10}}\n"
       "device.ssd.queues: 2\n",
       "workload.flows.b.queue: submission queue 1 is also a's"},
      {"workload:\n  flows:\n    a: {fio: {total_ios: 10}}\n    b: {fio: {total_ios: 10}}\n",
       "workload.flows.b.queues: the flow needs submission queues 1..1, but the device has 1"},
      {"workload:\n  flows:\n    a: {kind: postmark}\n",
       "workload.flows.a.kind: 'postmark' is a file workload: it needs a file system"},
      {"workload:\n  flows:\n    a: {queue_depth: 100, fio: {total_ios: 10}}\n",
       "workload.flows.a.queue_depth: 100 exceeds device.ssd.queue_depth 64"},
      {"workload:\n  flows:\n    a: {fio: {total_ios: 10, bs: 1000}}\n", "workload.flows.a.fio.bs:"},
      {"workload:\n  flows:\n    a: {priority: top}\n", "workload.flows.a.priority:"},
      {"workload:\n  alone_runs: true\n", "workload.alone_runs: needs workload.flows"},
      {"device.ssd.arbitration.policy: fair\n", "device.ssd.arbitration.policy:"},
  };
  // Beside a file system (the shipped shared-file-system example).
  const std::string fsbase = "include: " + Src("configs/examples/shared_fs_flows.yaml") + "\n";
  const Case fs_cases[] = {
      {"workload.flows.logger.fio_files.directory: /mail\n",
       "workload.flows.mail.filebench.dir: its files under '/mail/"},
      {"workload.flows.logger.fio_files.directory: /mail/bigfileset/logs\n", "meet flow logger's under '/mail/"},
      {"workload.flows.logger.priority: urgent\n",
       "workload.flows.logger: a file workload issues no device requests of its own"},
      {"workload.flows.logger.kind: mobigen\n", "workload.flows.logger.kind: 'mobigen' may use any path"},
      {"workload.flows.raw.fio.offset: 1GiB\n",
       "workload.flows.raw.fio.offset: the flow's range starts at byte 1073741824, inside the file system's volume"},
      {"fs.volume: 0\n", "fs.volume: the file system takes the whole device"},
      {"workload.flows.raw.queue: 0\n", "workload.flows.raw.queue: submission queue 0 is the file system's"},
      {"workload.flows.raw.kind: trace\n", "workload.flows.raw.kind: beside a file system (fs.kind: f2fs) a block flow must be fio"},
  };
  int i = 0;
  for (const Case& c : fs_cases) {
    const std::string cfg = Write("f" + std::to_string(i++) + ".yaml", fsbase + c.yaml);
    const Outcome o = Cli("check " + cfg);
    EXPECT_EQ(o.code, 2) << c.yaml << o.out;
    EXPECT_THAT(o.out, HasSubstr(c.want)) << c.yaml;
  }
  for (const Case& c : cases) {
    const std::string cfg = Write("c" + std::to_string(i++) + ".yaml", base + c.yaml);
    const Outcome o = Cli("check " + cfg);
    EXPECT_EQ(o.code, 2) << c.yaml << o.out;
    EXPECT_THAT(o.out, HasSubstr(c.want)) << c.yaml;
  }
}

TEST_F(FlowsCliTest, ExplainListsFlowAndArbitrationKeys) {
  const Outcome o = Cli("explain workload.flows");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_THAT(o.out, HasSubstr("workload.flows.<name>.priority"));
  EXPECT_THAT(o.out, HasSubstr("workload.flows.<name>.fio.iodepth"));
  const Outcome a = Cli("explain device.ssd.arbitration");
  EXPECT_THAT(a.out, HasSubstr("device.ssd.arbitration.max_outstanding"));
  EXPECT_THAT(a.out, HasSubstr("device.ssd.arbitration.burst"));
}

}  // namespace
