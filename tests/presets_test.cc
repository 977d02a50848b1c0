// The shipped configs stay valid, and device presets reproduce the figures
// they were derived from.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "app/commands.h"
#include "app/experiment.h"
#include "host/fsworkload/filebench_personalities.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/sqlite/mobibench.h"
#include "sim/config.h"

namespace app {
namespace {

namespace fs = std::filesystem;

std::string TempYaml(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("presets_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

TEST(PresetsTest, EveryShippedConfigValidates) {
  const fs::path root = fs::path(FLASHSTACK_SOURCE_DIR) / "configs";
  int checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".yaml") continue;
    std::string path = e.path().string();
    // Presets are fragments: wrap them in a minimal experiment.
    const std::string dir = e.path().parent_path().filename().string();
    if (dir == "parts") continue;  // fragments of the configs beside them, checked through those
    if (e.path().filename() == "expected.yaml") continue;  // a reproduction set's figures (tools/repro.py)
    if (dir == "devices") {
      path = TempYaml(e.path().stem().string() + "_wrapped.yaml",
                      "include: " + path + "\nworkload:\n  fio:\n    total_ios: 10\n");
    } else if (dir == "f2fs" || dir == "ext4" || dir == "stacks") {
      path = TempYaml(dir + "_" + e.path().stem().string() + "_wrapped.yaml",
                      "include: " + path + "\nworkload:\n  kind: fio_files\n  fio_files:\n    total_ios: 10\n");
    } else if (dir == "filebench" || dir == "mobibench") {
      path = TempYaml(dir + "_" + e.path().stem().string() + "_wrapped.yaml",
                      "include: " + path + "\nfs:\n  kind: memfs\n");
    }
    std::ostringstream out;
    const sim::Status st = CmdCheck(path, CommandOptions{}, out);
    EXPECT_TRUE(st.ok()) << e.path() << ": " << st.message();
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// Runs `yaml` (which may include presets) and returns the workload's
// bandwidth in bytes per simulated second.
double Bandwidth(const std::string& yaml, const std::vector<std::string>& overrides) {
  const std::string path = TempYaml("bw.yaml", yaml);
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, overrides);
  EXPECT_TRUE(runs.ok()) << runs.status().message();
  ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  EXPECT_TRUE(ValidateExperiment(cfg).ok()) << ValidateExperiment(cfg).message();
  auto exp = Experiment::Create(cfg);
  EXPECT_TRUE(exp.ok()) << exp.status().message();
  exp.value()->Run(false);
  return exp.value()->stats().Value("workload.bw");
}

TEST(PresetsTest, ParafsDeviceMatchesItsPerChannelBandwidths) {
  // The ParaFS testbed table: 6.55 MB/s write and 49.84 MB/s read per
  // channel, 34 channels. A smaller block count keeps the test fast.
  const std::string base = "include: " + std::string(FLASHSTACK_SOURCE_DIR) +
                           "/configs/devices/parafs.yaml\n"
                           "device:\n  geometry:\n    blocks_per_plane: 256\n  ssd:\n    queue_depth: 1024\n"
                           "workload:\n  fio:\n    bs: 8KiB\n    iodepth: 1024\n    total_ios: 30000\n"
                           "    ramp_time: 20ms\n";
  const double write = Bandwidth(base, {"workload.fio.rw=randwrite"});
  EXPECT_NEAR(write / 34, 6.55e6, 0.02 * 6.55e6);
  const double read = Bandwidth(base, {"workload.fio.rw=randread", "ftl.precondition.enabled=true"});
  EXPECT_NEAR(read / 34, 49.84e6, 0.05 * 49.84e6);
}

// Runs the experiment at `path` (with overrides) and returns its stats'
// value of `stat`.
// Loads, checks, builds and runs `path` with `overrides`; null (after a
// failed expectation) if any step fails.
std::unique_ptr<Experiment> RunExperiment(const std::string& path, const std::vector<std::string>& overrides) {
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, overrides);
  EXPECT_TRUE(runs.ok()) << path << ": " << runs.status().message();
  if (!runs.ok()) return nullptr;
  ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  const sim::Status valid = ValidateExperiment(cfg);
  EXPECT_TRUE(valid.ok()) << path << ": " << valid.message();
  if (!valid.ok()) return nullptr;
  auto exp = Experiment::Create(cfg);
  EXPECT_TRUE(exp.ok()) << path << ": " << exp.status().message();
  if (!exp.ok()) return nullptr;
  exp.value()->Run(false);
  EXPECT_TRUE(exp.value()->status().ok()) << path << ": " << exp.value()->status().message();
  return std::move(exp).value();
}

double RunAndGet(const std::string& path, const std::vector<std::string>& overrides, const std::string& stat) {
  std::unique_ptr<Experiment> exp = RunExperiment(path, overrides);
  return exp ? exp->stats().Value(stat) : -1;
}

// The S-FTL example fills the cut-down ParaFS device once, sequentially: no
// refused write, no erase, no FTL copy, every channel programming at its
// 6.55 MB/s; the page-mapped FTL on the same device is no faster.
TEST(PresetsTest, SftlSequentialFillRunsAtTheChannelBandwidth) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/examples/sftl_seq.yaml";
  std::unique_ptr<Experiment> exp = RunExperiment(path, {});
  ASSERT_TRUE(exp);
  const sim::StatsRegistry& st = exp->stats();
  EXPECT_EQ(st.Value("ssd.errors"), 0);
  EXPECT_EQ(st.Value("ftl.host_writes"), 8 * 62 * 256);
  EXPECT_EQ(st.Value("ftl.erases"), 0);
  EXPECT_EQ(st.Value("ftl.gc_copies"), 0);
  EXPECT_NEAR(st.Value("workload.bw") / 8, 6.55e6, 0.02 * 6.55e6);
  EXPECT_EQ(exp->Summary().find("requests failed"), std::string::npos);
  const double page_bw = RunAndGet(path, {"ftl.kind=page", "ftl.op=15%", "workload.fio.total_ios=431"}, "workload.bw");
  EXPECT_NEAR(page_bw / 8, 6.55e6, 0.02 * 6.55e6);
}

// Random writes break the S-FTL's in-order contract: refused on the
// request, counted, and reported in the summary; the run itself completes.
TEST(PresetsTest, SftlRefusesRandomWritesOnTheRequest) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/examples/sftl_seq.yaml";
  std::unique_ptr<Experiment> exp =
      RunExperiment(path, {"workload.fio.rw=randwrite", "workload.fio.bs=8KiB", "workload.fio.total_ios=500"});
  ASSERT_TRUE(exp);
  const sim::StatsRegistry& st = exp->stats();
  const double refused = st.Value("ftl.write_errors.out_of_order") + st.Value("ftl.write_errors.overwrite");
  EXPECT_GT(refused, 400);
  EXPECT_EQ(st.Value("ssd.error_pages"), refused);
  EXPECT_EQ(st.Value("ftl.host_writes") + refused, 500);
  EXPECT_NE(exp->Summary().find("requests failed"), std::string::npos);
  // Refused writes are no completed work: the workload and the device count
  // only the writes that were done, and the summary says so first.
  const double failed = st.Value("ssd.errors");
  EXPECT_EQ(failed, refused);  // one 8 KiB page per request
  EXPECT_EQ(exp->FailedRequests(), static_cast<uint64_t>(failed));
  EXPECT_EQ(st.Value("workload.failed_ios"), failed);
  EXPECT_EQ(st.Value("workload.ios_total"), 500 - failed);
  EXPECT_EQ(st.Value("workload.write.ios"), 500 - failed);
  EXPECT_EQ(st.Value("workload.write.bytes"), (500 - failed) * 8192);
  EXPECT_EQ(exp->stats().FindHistogram("workload.write.lat")->count(), 500 - failed);
  EXPECT_EQ(st.Value("ssd.ops.write"), 500 - failed);
  EXPECT_EQ(st.Value("ssd.bytes.write"), (500 - failed) * 8192);
  EXPECT_EQ(exp->Summary().rfind("FAILED I/O: the device refused ", 0), 0u) << exp->Summary();
}

// ParaFS on the S-FTL under heavy random overwrites (configs/parafs): the
// whole stack keeps the device's contract (no refused request: whole flash
// pages, in order, a block rewritten only after its whole-block trim),
// cleaning runs in the file system and the FTL copies nothing for it
// (coordinated GC: freed sections are trimmed, the S-FTL erases them), and
// every region's channel takes writes. Both dispatchers.
TEST(PresetsTest, ParafsOnTheStaticBlockFtlCleansInTheFileSystemOnly) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/parafs/randwrite/parafs.yaml";
  for (const char* dispatch : {"round_robin", "least_busy"}) {
    SCOPED_TRACE(dispatch);
    // 4 channels, a quarter of the data set: cleaning within seconds.
    std::unique_ptr<Experiment> exp = RunExperiment(
        path, {"device.geometry.channels=4", "ftl.static_block.page_mapped=16MiB", "workload.fio_files.size=32MiB",
               "workload.fio_files.total_ios=60000", std::string("fs.f2fs.parafs_2d.dispatch=") + dispatch});
    ASSERT_TRUE(exp);
    const sim::StatsRegistry& st = exp->stats();
    EXPECT_EQ(st.Value("ssd.errors"), 0);
    EXPECT_GT(st.Value("fs.gc.victims_fg") + st.Value("fs.gc.victims_bg"), 0) << "no cleaning ran";
    EXPECT_GT(st.Value("ftl.trim_erases"), 0) << "no freed section was erased through its trim";
    EXPECT_EQ(st.Value("ftl.gc_copies") - st.Value("ftl.page_mapped.gc_copies"), 0);
  }
}

// The headline of the ParaFS comparison on a small device (configs/parafs/
// randwrite on 4 channels, half the data set: 256 MiB of files overwritten
// at random, about 2x the volume written): ParaFS (2-D allocation,
// coordinated GC, per-region cleaning threads) runs faster than F2FS on
// the page FTL, writes fewer flash pages (its cleaning moves fewer pages
// than the FTL's GC copies under F2FS, and the FTL copies nothing) and
// erases fewer blocks.
TEST(PresetsTest, ParafsBeatsF2fsUnderHeavyRandomOverwrites) {
  const std::string dir = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/parafs/randwrite/";
  const std::vector<std::string> small = {"device.geometry.channels=4", "workload.fio_files.size=64MiB",
                                          "workload.fio_files.total_ios=100000"};
  std::unique_ptr<Experiment> f2fs = RunExperiment(dir + "f2fs.yaml", small);
  std::vector<std::string> parafs = small;
  parafs.push_back("ftl.static_block.page_mapped=16MiB");
  parafs.push_back("fs.f2fs.parafs_2d.gc_threads=per_region");
  std::unique_ptr<Experiment> para = RunExperiment(dir + "parafs.yaml", parafs);
  ASSERT_TRUE(f2fs && para);
  const sim::StatsRegistry& f = f2fs->stats();
  const sim::StatsRegistry& p = para->stats();
  EXPECT_GT(f.Value("ftl.gc_copies"), 0) << "F2FS's FTL never cleaned: not heavy traffic";
  EXPECT_GT(p.Value("fs.gc.victims_fg") + p.Value("fs.gc.victims_bg"), 0) << "ParaFS never cleaned";
  EXPECT_GT(p.Value("workload.ops_per_sec"), 1.05 * f.Value("workload.ops_per_sec"));
  const double f_pages = f.Value("ftl.host_writes") + f.Value("ftl.gc_copies");
  const double p_pages = p.Value("ftl.host_writes") + p.Value("ftl.gc_copies");
  EXPECT_LT(p_pages, 0.9 * f_pages) << "ParaFS did not write fewer flash pages";
  EXPECT_EQ(p.Value("ftl.gc_copies") - p.Value("ftl.page_mapped.gc_copies"), 0) << "the S-FTL copied";
  EXPECT_LT(p.Value("ftl.erases"), f.Value("ftl.erases"));
}

// ParaFS's multi-threaded GC against one cleaning thread on a small device
// whose page cache (32 MiB) does not hold the files (128 MiB), so cleaning
// reads its victims from flash: the regions' victims are read on their
// channels at once (fs.gc.max_parallel = 4) and throughput rises.
TEST(PresetsTest, ParafsPerRegionCleaningThreadsHelpWhenVictimsAreRead) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/parafs/randwrite/parafs.yaml";
  const std::vector<std::string> small = {
      "device.geometry.channels=4",      "device.geometry.blocks_per_plane=48", "workload.fio_files.size=32MiB",
      "workload.fio_files.total_ios=50000", "fs.f2fs.page_cache.memory=32MiB", "ftl.static_block.page_mapped=16MiB"};
  std::vector<std::string> mgc = small;
  mgc.push_back("fs.f2fs.parafs_2d.gc_threads=per_region");
  std::unique_ptr<Experiment> one = RunExperiment(path, small);
  std::unique_ptr<Experiment> per_region = RunExperiment(path, mgc);
  ASSERT_TRUE(one && per_region);
  const sim::StatsRegistry& a = one->stats();
  const sim::StatsRegistry& b = per_region->stats();
  EXPECT_GT(a.Value("fs.io.read.gc_data"), 0) << "cleaning never read a victim";
  EXPECT_EQ(a.Value("fs.gc.max_parallel"), 1);
  EXPECT_EQ(b.Value("fs.gc.max_parallel"), 4);
  EXPECT_GT(b.Value("workload.ops_per_sec"), 1.05 * a.Value("workload.ops_per_sec"));
}

// Every stock filebench personality runs as shipped (on F2FS on the small
// SSD), briefly. The F2FS-J variants build filesets of 10^5 files or more
// and take minutes; their scripts are covered by the fsworkload tests.
TEST(PresetsTest, StockFilebenchPersonalitiesRunOnF2fs) {
  const fs::path dir = fs::path(FLASHSTACK_SOURCE_DIR) / "configs/filebench";
  int ran = 0;
  for (const char* name : {"varmail", "fileserver", "webserver", "webproxy", "oltp", "createfiles", "deletefiles",
                           "makedirs", "removedirs", "copyfiles"}) {
    const double ops = RunAndGet((dir / (std::string(name) + ".yaml")).string(),
                                 {"workload.filebench.run_time=50ms"}, "workload.ops");
    EXPECT_GT(ops, 0) << name;
    ++ran;
  }
  EXPECT_EQ(ran, 10);
}

// Every Mobibench preset runs as shipped on F2FS; WAL syncs less per
// transaction than DELETE.
TEST(PresetsTest, MobibenchPresetsRunOnF2fs) {
  const fs::path dir = fs::path(FLASHSTACK_SOURCE_DIR) / "configs/mobibench";
  std::set<std::string> modes;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    EXPECT_GT(RunAndGet(e.path().string(), {}, "workload.txns"), 0) << e.path();
    auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), e.path().string(), {});
    ASSERT_TRUE(runs.ok());
    ExperimentConfig cfg;
    ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
    modes.insert(cfg.workload.kinds.Get<host::sqlite::MobibenchConfig>("mobibench").journal_mode);
  }
  for (const char* m : {"delete", "truncate", "persist", "wal", "off"}) EXPECT_EQ(modes.count(m), 1u) << m;
  const double wal = RunAndGet((dir / "insert_wal.yaml").string(), {}, "workload.fsyncs_per_txn");
  const double del = RunAndGet((dir / "insert_delete.yaml").string(), {}, "workload.fsyncs_per_txn");
  EXPECT_LT(wal, del);
  // exF2FS: the multi-database insert commits through file-system
  // transactions, one per SQLite transaction, and syncs nothing itself.
  std::unique_ptr<Experiment> tx = RunExperiment((dir / "exf2fs" / "multi_db_fs_tx.yaml").string(), {});
  ASSERT_TRUE(tx);
  EXPECT_EQ(tx->stats().Value("workload.fsyncs_per_txn"), 0.0);
  EXPECT_GT(tx->stats().Value("workload.txns"), 0.0);
  EXPECT_GE(tx->stats().Value("workload.vfs.tx.commits"), tx->stats().Value("workload.txns"));
  EXPECT_EQ(tx->stats().Value("workload.vfs.tx.aborts"), 0.0);
  EXPECT_EQ(tx->stats().Value("fs.tx.commits"), tx->stats().Value("workload.vfs.tx.commits"));
}

// The transaction microbenchmarks on F2FS (shortened): a transaction of one
// file costs one flush and one FUA write (its commit record written with
// REQ_PREFLUSH | REQ_FUA) like F2FS's atomic write, one block more (the
// master node); fsync mode one flush. multi_aw commits once, over every
// thread's file.
TEST(PresetsTest, TxbenchPresetsRunOnF2fs) {
  const fs::path dir = fs::path(FLASHSTACK_SOURCE_DIR) / "configs/txbench";
  std::map<std::string, double> flushes, fua, bytes;
  for (const char* m : {"set", "atomic", "fsync"}) {
    std::unique_ptr<Experiment> e = RunExperiment((dir / (std::string("throughput_volume_") + m + ".yaml")).string(),
                                                  {"workload.txbench.transactions=300"});
    ASSERT_TRUE(e) << m;
    EXPECT_EQ(e->stats().Value("workload.txbench.txns"), 300) << m;
    flushes[m] = e->stats().Value("ssd.ops.flush");
    fua[m] = e->stats().Value("ssd.ops.fua");
    bytes[m] = e->stats().Value("ssd.bytes.write");
  }
  EXPECT_NEAR(flushes["set"], 300, 10);
  EXPECT_NEAR(flushes["atomic"], 300, 10);
  EXPECT_NEAR(flushes["fsync"], 300, 10);
  EXPECT_NEAR(fua["set"], 300, 10);
  EXPECT_NEAR(fua["atomic"], 300, 10);
  EXPECT_NEAR(bytes["set"] - bytes["atomic"], 300 * 4096, 300 * 4096 * 0.2);
  std::unique_ptr<Experiment> maw = RunExperiment(
      (dir / "multi_aw.yaml").string(),
      {"workload.txbench.threads=4", "workload.txbench.files=4", "workload.txbench.writes=256"});
  ASSERT_TRUE(maw);
  EXPECT_EQ(maw->stats().Value("workload.txbench.txns"), 1);
  EXPECT_EQ(maw->stats().Value("fs.tx.commits"), 1);
  EXPECT_EQ(maw->stats().Value("workload.fs.pwrite.calls"), 4 * 256);
  EXPECT_GE(maw->stats().Value("fs.tx.pages"), 4 * 256);
}

// Every YCSB preset runs as shipped on F2FS: every operation done, the mix
// of the workload's proportions, every read finds its record, the table
// ends with recordcount + inserts rows; workload A syncs on every update,
// workload C (read only) writes nothing.
TEST(PresetsTest, YcsbPresetsRunOnF2fs) {
  const fs::path dir = fs::path(FLASHSTACK_SOURCE_DIR) / "configs/ycsb";
  int ran = 0;
  for (const char* w : {"a", "b", "c", "d", "e", "f"}) {
    const std::string name = std::string("workload") + w;
    SCOPED_TRACE(name);
    // As `run` resolves it: the property file beside the config.
    std::unique_ptr<Experiment> exp = RunExperiment(
        (dir / (name + ".yaml")).string(),
        {"workload.ycsb.properties=" + (dir / "workloads" / name).string(), "workload.ycsb.count_rows=true"});
    ASSERT_TRUE(exp);
    const sim::StatsRegistry& st = exp->stats();
    const auto count = [&](const char* op) {
      const sim::Histogram* h = st.FindHistogram(std::string("workload.") + op + ".lat");
      return h ? static_cast<double>(h->count()) : -1.0;
    };
    EXPECT_EQ(st.Value("workload.ops"), 1000);
    EXPECT_EQ(st.Value("workload.load.records"), 1000);
    EXPECT_GT(st.Value("workload.ops_per_s"), 0);
    EXPECT_EQ(st.Value("workload.read.not_found"), 0);
    EXPECT_EQ(st.Value("workload.errors"), 0);
    EXPECT_EQ(st.Value("workload.rows"), 1000 + count("insert"));
    EXPECT_EQ(st.Value("ssd.errors"), 0);
    if (name == "workloada") {
      EXPECT_NEAR(count("read"), 500, 80);
      EXPECT_EQ(count("read") + count("update"), 1000);
      EXPECT_GT(st.Value("workload.fsyncs_per_op"), 1.5);
    }
    if (name == "workloadc") {
      EXPECT_EQ(count("read"), 1000);
      EXPECT_EQ(st.Value("workload.bytes_written"), 0);
      EXPECT_EQ(st.Value("workload.fsyncs"), 0);
    }
    if (name == "workloadd" || name == "workloade") {
      EXPECT_NEAR(count("insert"), 50, 35);
    }
    ++ran;
  }
  EXPECT_EQ(ran, 6);
}

// Every built-in filebench personality and variant has its preset, and the
// preset builds that personality's script.
TEST(PresetsTest, EveryFilebenchPersonalityHasAPreset) {
  const std::string dir = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/filebench/";
  int seen = 0;
  for (const host::Personality& p : host::BuiltinPersonalities()) {
    const std::string file = dir + std::string(p.name) + (p.variant == "stock" ? "" : "_f2fsj") + ".yaml";
    SCOPED_TRACE(file);
    auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), file, {});
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    ASSERT_EQ(runs.value().size(), 1u);
    ExperimentConfig cfg;
    ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
    EXPECT_EQ(cfg.workload.kind, "filebench");
    EXPECT_EQ(cfg.workload.kinds.Get<host::FilebenchConfig>("filebench").personality, p.name);
    EXPECT_EQ(cfg.workload.kinds.Get<host::FilebenchConfig>("filebench").variant, p.variant);
    auto script = host::FilebenchWorkload::BuildScript(cfg.workload.kinds.Get<host::FilebenchConfig>("filebench"), "workload.filebench");
    EXPECT_TRUE(script.ok()) << script.status().message();
    ++seen;
  }
  EXPECT_EQ(seen, 22);
}

// Seed 001: on a device that is not the bottleneck, the per-file dirty node
// list visits fewer node pages per fsync than the kernel's scan and lowers
// fsync latency, in the shipped experiment config.
TEST(PresetsTest, Seed001DirtyNodeListLowersFsyncLatency) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/f2fs/seed001_fsync_nodelist.yaml";
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, {});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs.value().size(), 2u);
  double lat[2], visited[2];
  for (int i = 0; i < 2; ++i) {
    ExperimentConfig cfg;
    ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[i], &cfg).ok());
    ASSERT_TRUE(ValidateExperiment(cfg).ok()) << ValidateExperiment(cfg).message();
    auto exp = Experiment::Create(cfg);
    ASSERT_TRUE(exp.ok()) << exp.status().message();
    exp.value()->Run(false);
    ASSERT_TRUE(exp.value()->status().ok()) << exp.value()->status().message();
    const sim::Histogram* h = exp.value()->stats().FindHistogram("fs.fsync.lat_total");
    const sim::Histogram* v = exp.value()->stats().FindHistogram("fs.fsync.nodes_visited");
    ASSERT_NE(h, nullptr);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(h->count(), 512u);  // 4 jobs x 4096 writes / 32
    lat[i] = h->mean();
    visited[i] = v->mean();
  }
  EXPECT_EQ(runs.value()[0].sweep_label, "fs.f2fs.fsync_node_lookup=scan");
  EXPECT_LT(visited[1], 0.5 * visited[0]);
  EXPECT_LT(lat[1], 0.9 * lat[0]);
}

// The ext4 model runs every kind of file workload from its shipped presets
// (`--set fs.kind=ext4`, shortened): every stock filebench personality,
// fio on files, PostMark, a MobiGen trace, Mobibench and YCSB on real
// SQLite, and the git-history aging workload; the fsync-heavy ones commit
// the journal.
TEST(PresetsTest, Ext4RunsEveryFileWorkloadPreset) {
  const fs::path c = fs::path(FLASHSTACK_SOURCE_DIR) / "configs";
  for (const char* name : {"varmail", "fileserver", "webserver", "webproxy", "oltp", "createfiles", "deletefiles",
                           "makedirs", "removedirs", "copyfiles"}) {
    std::unique_ptr<Experiment> e = RunExperiment((c / "filebench" / (std::string(name) + ".yaml")).string(),
                                                  {"fs.kind=ext4", "workload.filebench.run_time=50ms"});
    ASSERT_TRUE(e) << name;
    EXPECT_GT(e->stats().Value("workload.ops"), 0) << name;
    EXPECT_TRUE(e->stats().Has("fs.journal.commits")) << name;
  }
  struct Case {
    const char* path;
    std::vector<std::string> sets;
    const char* stat;
  };
  const std::vector<Case> cases = {
      {"repro/seed001/fio.yaml", {"fs.kind=ext4", "workload.fio_files.total_ios=3000"}, "workload.ops"},
      {"parafs/postmark/f2fs.yaml",
       {"fs.kind=ext4", "workload.postmark.number=500", "workload.postmark.transactions=500"},
       "workload.ops"},
      {"examples/mobigen_app.yaml",
       {"fs.kind=ext4", "device.geometry.blocks_per_plane=128",
        "workload.mobigen.trace=" + (c.parent_path() / "traces/examples/app_session.mobigen").string()},
       "workload.ops"},
      {"mobibench/insert_persist.yaml", {"fs.kind=ext4", "workload.mobibench.transactions=200"}, "workload.txns"},
      {"mobibench/insert_wal.yaml", {"fs.kind=ext4", "workload.mobibench.transactions=200"}, "workload.txns"},
      {"ycsb/workloada.yaml",
       {"fs.kind=ext4", "workload.ycsb.recordcount=2000", "workload.ycsb.operationcount=500",
        "workload.ycsb.properties=" + (c / "ycsb/workloads/workloada").string()},
       "workload.ops"},
      {"aging/ext4_mqsim.yaml",
       {"workload.aging.pulls=30", "workload.aging.grep_every=10",
        "workload.aging.trace=" + (c.parent_path() / "traces/aging/flashstack_200.trace").string()}, "workload.aging.grep_points"},
  };
  for (const Case& k : cases) {
    std::unique_ptr<Experiment> e = RunExperiment((c / k.path).string(), k.sets);
    ASSERT_TRUE(e) << k.path;
    EXPECT_GT(e->stats().Value(k.stat), 0) << k.path;
    EXPECT_GT(e->stats().Value("fs.journal.commits"), 0) << k.path;
  }
}

}  // namespace
}  // namespace app
