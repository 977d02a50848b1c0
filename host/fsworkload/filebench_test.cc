#include "host/fsworkload/filebench_workload.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/filebench_personalities.h"
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/fsworkload_test_util.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using testing::Rig;

FilebenchConfig Cfg(std::string personality, std::string variant = "stock") {
  FilebenchConfig c = sim::MakeDefault<FilebenchConfig>();
  c.personality = std::move(personality);
  c.variant = std::move(variant);
  return c;
}

std::unique_ptr<FilebenchWorkload> Make(const FilebenchConfig& c, Rig& rig, uint64_t seed = 1) {
  auto w = FilebenchWorkload::Create(c, rig.Env(seed), "workload.filebench");
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(w).value() : nullptr;
}

// Flowop name -> count, for the flowops of thread group `group`.
std::map<std::string, uint64_t> Counts(const FilebenchWorkload& w, const Rig& rig, size_t process = 0) {
  std::map<std::string, uint64_t> out;
  for (const FlowopDef& f : w.script().processes[process].threads[0].flowops) out[f.name] = rig.OpCount(f.name);
  return out;
}

// Every flowop of a loop ran the same number of times, give or take one
// unfinished pass per thread.
void ExpectOnePassEach(const std::map<std::string, uint64_t>& counts, uint64_t threads,
                       const std::set<std::string>& except = {}) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [name, n] : counts) {
    if (except.count(name)) continue;
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_GT(lo, 0u);
  EXPECT_LE(hi - lo, threads) << "lo " << lo << " hi " << hi;
}

double MeanBytes(const Rig& rig, const std::string& op) {
  return rig.Stat("workload.op." + op + ".bytes") / rig.Stat("workload.op." + op + ".count");
}

TEST(FilebenchRunTest, VarmailOpMix) {
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.nfiles = 300;
  c.nthreads = 4;
  c.run_time = sim::Ms(100);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  const auto n = Counts(*w, rig);
  ASSERT_EQ(n.size(), 13u);
  ExpectOnePassEach(n, 4, {"deletefile1"});
  EXPECT_LE(n.at("deletefile1"), n.at("createfile2"));  // files open elsewhere are left alone
  EXPECT_GT(n.at("deletefile1"), n.at("createfile2") * 9 / 10);
  EXPECT_GT(n.at("createfile2"), 1000u);
  // Two fsyncs per pass; every deletefile is one unlink.
  EXPECT_EQ(rig.Stat("workload.fsyncs"), n.at("fsyncfile2") + n.at("fsyncfile3"));
  EXPECT_EQ(rig.Stat("workload.fs.unlink.calls"), n.at("deletefile1"));
  // createfile stats its directory once; opens = creates + 2 opens.
  EXPECT_EQ(rig.Stat("workload.fs.stat.calls"), n.at("createfile2"));
  EXPECT_EQ(rig.Stat("workload.fs.open.calls"), n.at("createfile2") + n.at("openfile3") + n.at("openfile4"));
  // appendfilerand: uniform in [0, 16 KiB): mean about 8 KiB.
  EXPECT_NEAR(MeanBytes(rig, "appendfilerand2"), 8192, 600);
  EXPECT_NEAR(MeanBytes(rig, "appendfilerand3"), 8192, 600);
  // Every flowop here is an IO flowop for filebench's count.
  uint64_t sum = 0;
  for (const auto& [name, count] : n) sum += count;
  EXPECT_EQ(w->fb_ops(), sum);
  EXPECT_EQ(rig.Stat("workload.ops"), sum);
  EXPECT_NEAR(w->measured_seconds(), 0.1, 0.001);
  EXPECT_EQ(rig.memfs.open_fd_count(), 0u);
}

TEST(FilebenchRunTest, FileserverOpsPerLoop) {
  Rig rig;
  FilebenchConfig c = Cfg("fileserver");
  c.nfiles = 400;
  c.nthreads = 5;
  c.run_time = sim::Ms(100);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  const auto n = Counts(*w, rig);
  ASSERT_EQ(n.size(), 11u);
  ExpectOnePassEach(n, 5, {"deletefile1"});
  // Whole-file writes write the drawn sizes: gamma with mean 128 KiB.
  EXPECT_NEAR(MeanBytes(rig, "wrtfile1"), 131072, 131072 * 0.25);
  EXPECT_NEAR(MeanBytes(rig, "appendfilerand1"), 8192, 800);
  EXPECT_EQ(rig.Stat("workload.fs.stat.calls"), n.at("statfile1") + n.at("createfile1"));
  EXPECT_EQ(rig.Stat("workload.fs.close.calls"), n.at("closefile1") + n.at("closefile2") + n.at("closefile3"));
  // Files written whole are read whole (plus appends), so reads exceed writes of wrtfile1.
  EXPECT_GT(rig.Stat("workload.op.readfile1.bytes"), 0);
}

TEST(FilebenchRunTest, WebserverReadsTenFilesPerLogAppend) {
  Rig rig;
  FilebenchConfig c = Cfg("webserver");
  c.nfiles = 100;
  c.nthreads = 10;
  c.run_time = sim::Ms(50);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  const auto n = Counts(*w, rig);
  ASSERT_EQ(n.size(), 31u);
  ExpectOnePassEach(n, 10);
  // The log file grew by every append.
  std::string log;
  w->fileset(1).FilePath(0, &log);
  fs::testing::SyncFs s(&rig.q, &rig.memfs);
  const uint64_t initial = w->fileset(1).file(0).size;
  EXPECT_EQ(s.Stat(log).value.size, initial + static_cast<uint64_t>(rig.Stat("workload.op.appendlog.bytes")));
  // One write per append, except appendfilerand's rare 0-byte draws (no I/O).
  const double writes = rig.Stat("workload.fs.write.calls") + rig.Stat("workload.fs.pwrite.calls");
  EXPECT_LE(writes, n.at("appendlog"));
  EXPECT_GE(writes, n.at("appendlog") - 5.0);
}

TEST(FilebenchRunTest, WebproxyAndOpsLimitWithoutEvents) {
  Rig rig;
  FilebenchConfig c = Cfg("webproxy");
  c.nfiles = 300;
  c.nthreads = 8;
  c.run_time = sim::Ms(50);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  auto n = Counts(*w, rig);
  EXPECT_EQ(n.at("limit"), 0u);  // no event generator: opslimit does nothing
  n.erase("limit");
  ExpectOnePassEach(n, 8, {"deletefile1"});
  EXPECT_EQ(rig.Stat("workload.fsyncs"), 0);
}

TEST(FilebenchRunTest, EventRateThrottlesOpsLimit) {
  Rig rig;
  FilebenchConfig c = Cfg("webproxy");
  c.nfiles = 300;
  c.nthreads = 1;
  c.eventrate = 2000;
  c.run_time = sim::Ms(200);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok());
  // One event per op: about 2000 ops/s x 0.2 s.
  EXPECT_NEAR(static_cast<double>(w->fb_ops()), 400, 40);
  EXPECT_GT(rig.OpCount("limit"), 15u);
}

TEST(FilebenchRunTest, OltpSemaphoresAndAio) {
  Rig rig;
  FilebenchConfig c = Cfg("oltp");
  c.nfiles = 4;
  c.filesize = sim::MiB(1);
  c.set = {"nshadows=8", "ndbwriters=2", "logfilesize=1m", "usermode=2000"};
  c.run_time = sim::Ms(100);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  EXPECT_EQ(w->thread_count(), 11u);
  const uint64_t reads = rig.OpCount("shadowread");
  const uint64_t dbw = rig.OpCount("dbwrite-a");
  const uint64_t lgw = rig.OpCount("lg-write");
  EXPECT_GT(reads, 1000u);
  EXPECT_GT(dbw, 0u);
  EXPECT_GT(lgw, 0u);
  // Shadows post one event per read to every semblock; a log write needs
  // 3200 posts and a DB write round 1000, so posts bound the writers.
  EXPECT_LE(lgw, reads / 3200 + 2);
  EXPECT_LE(dbw, (reads / 1000 + 2) * 100 * 2);
  // Random 2 KiB reads and dsync (O_SYNC) writes through aio.
  EXPECT_EQ(rig.Stat("workload.fs.pread.calls"), reads);
  EXPECT_EQ(rig.Stat("workload.fs.pwrite.calls"), dbw + lgw);
  // The summary counts them beside the fsync calls (there are none).
  EXPECT_EQ(rig.Stat("workload.sync_writes"), dbw + lgw);
  EXPECT_THAT(FsWorkloadSummary(rig.reg), ::testing::HasSubstr("0 fsyncs, " + std::to_string(dbw + lgw) +
                                                                    " O_SYNC writes"));
  const sim::Histogram* lat = rig.reg.FindHistogram("workload.op.dbwrite-a.lat");
  ASSERT_NE(lat, nullptr);
  EXPECT_GE(lat->min(), (sim::Us(2) + sim::Us(20)).ns());  // write + fsync latency of O_SYNC
  EXPECT_EQ(rig.Stat("workload.op.shadowread.bytes"), reads * 2048.0);
  // Data files and the log were preallocated with their drawn sizes.
  EXPECT_EQ(w->fileset(0).existing_files(), 4u);
  EXPECT_GE(rig.memfs.used_bytes(), w->fileset(0).total_bytes() + w->fileset(1).total_bytes());
}

TEST(FilebenchRunTest, RunCutShortCanBeDestroyed) {
  Rig rig;
  FilebenchConfig c = Cfg("oltp");
  c.nfiles = 2;
  c.filesize = sim::MiB(1);
  c.set = {"nshadows=4", "ndbwriters=2", "logfilesize=1m"};
  auto w = Make(c, rig);
  w->Start();
  rig.q.Run(sim::Ms(30));  // threads wait in semaphores and aio
  EXPECT_FALSE(w->done());
  rig.q.Clear();
  w.reset();
}

TEST(FilebenchRunTest, CreatefilesFillsTheFileset) {
  Rig rig;
  FilebenchConfig c = Cfg("createfiles");
  c.nfiles = 500;
  c.nthreads = 4;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  EXPECT_TRUE(w->out_of_entries());  // quit firstdone
  EXPECT_EQ(rig.OpCount("createfile1"), 500u);
  // The run ends when the first thread finds no file to create; the others
  // stop at their next flowop (quit firstdone), maybe before their close.
  EXPECT_GE(rig.OpCount("closefile1"), 500u - 3);
  EXPECT_EQ(w->fileset(0).existing_files(), 500u);
  // Whole files are written with their drawn sizes (all below iosize).
  EXPECT_EQ(rig.Stat("workload.op.writefile1.bytes"), static_cast<double>(w->fileset(0).total_bytes()));
  // No prealloc: directories were made by createfile, after a failed stat.
  EXPECT_GT(rig.Stat("workload.fs.mkdir.calls"), 0);
  EXPECT_GT(rig.Stat("workload.fs.stat.errors"), 0);
}

TEST(FilebenchRunTest, DeletefilesStopsAtCount) {
  Rig rig;
  FilebenchConfig c = Cfg("deletefiles");
  c.nfiles = 2000;
  c.ops = 300;  // $count for finishoncount
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok());
  EXPECT_TRUE(w->finished());
  EXPECT_GE(rig.OpCount("deletefile1"), 300u);
  EXPECT_LT(rig.OpCount("deletefile1"), 300u + 16);
  EXPECT_EQ(rig.Stat("workload.fs.unlink.calls"), rig.OpCount("deletefile1"));
  EXPECT_EQ(w->fileset(0).existing_files(), 2000 - rig.OpCount("deletefile1"));
}

TEST(FilebenchRunTest, MakedirsAndRemovedirs) {
  {
    Rig rig;
    FilebenchConfig c = Cfg("makedirs");
    c.nfiles = 300;  // $ndirs
    c.nthreads = 4;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    EXPECT_EQ(w->fileset(0).leafdir_count(), 300u);
    EXPECT_EQ(w->fileset(0).existing_leafdirs(), 300u);
    EXPECT_EQ(rig.OpCount("mkdir1"), 300u);
    EXPECT_EQ(rig.Stat("workload.op.mkdir1.errors"), 0);
  }
  {
    Rig rig;
    FilebenchConfig c = Cfg("removedirs");
    c.nfiles = 300;
    c.nthreads = 4;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    EXPECT_EQ(w->fileset(0).existing_leafdirs(), 0u);
    EXPECT_EQ(rig.OpCount("dirremover"), 300u);
    EXPECT_EQ(rig.Stat("workload.fs.rmdir.calls"), 300);
    EXPECT_EQ(rig.Stat("workload.fs.rmdir.errors"), 0);
  }
}

TEST(FilebenchRunTest, CopyfilesCopiesEveryFile) {
  Rig rig;
  FilebenchConfig c = Cfg("copyfiles");
  c.nfiles = 100;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok());
  EXPECT_EQ(rig.OpCount("writefile2"), 100u);
  EXPECT_EQ(w->fileset(1).existing_files(), 100u);
  // writefile2 uses the source's size (srcfd=1).
  EXPECT_EQ(rig.Stat("workload.op.writefile2.bytes"), static_cast<double>(w->fileset(0).total_bytes()));
  // The 101st pass reads source file 0 again before its create finds no
  // destination left.
  EXPECT_EQ(rig.OpCount("readfile1"), 101u);
  EXPECT_EQ(rig.Stat("workload.op.readfile1.bytes"),
            static_cast<double>(w->fileset(0).total_bytes() + w->fileset(0).file(0).size));
}

TEST(FilebenchRunTest, F2fsjVariantsRunToTheirCount) {
  {
    Rig rig;
    FilebenchConfig c = Cfg("varmail", "f2fsj");
    c.nfiles = 500;
    c.ops = 2000;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    EXPECT_TRUE(w->finished());
    EXPECT_GE(w->fb_ops(), 2000u);
    EXPECT_LT(w->fb_ops(), 2000u + 14);
    auto n = Counts(*w, rig);
    n.erase("finish");
    ExpectOnePassEach(n, 1);
    // appendfile writes exactly iosize.
    EXPECT_EQ(MeanBytes(rig, "appendfilerand2"), 16384);
  }
  {
    Rig rig;
    FilebenchConfig c = Cfg("fileserver", "f2fsj");
    c.nfiles = 300;
    c.nthreads = 5;
    c.ops = 3000;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    EXPECT_GE(w->fb_ops(), 3000u);
    EXPECT_LT(w->fb_ops(), 3000u + 5 * 11);
  }
  {
    Rig rig;
    FilebenchConfig c = Cfg("createfiles_empty", "f2fsj");
    c.nfiles = 300;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    EXPECT_TRUE(w->out_of_entries());  // quit alldone: the thread ran out, the run ended
    EXPECT_EQ(rig.OpCount("createfile1"), 300u);
    EXPECT_EQ(rig.memfs.used_bytes(), 0u);
  }
}

TEST(FilebenchRunTest, SameSeedSameRunOtherSeedOtherRun) {
  std::string runs[3];
  for (int i = 0; i < 3; ++i) {
    Rig rig;
    FilebenchConfig c = Cfg("fileserver");
    c.nfiles = 200;
    c.nthreads = 3;
    c.run_time = sim::Ms(20);
    auto w = Make(c, rig, i < 2 ? 7 : 8);
    ASSERT_TRUE(rig.Run(*w));
    runs[i] = rig.Json();
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_NE(runs[0], runs[2]);
}

TEST(FilebenchRunTest, ThinkTimePacesThreads) {
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.nfiles = 50;
  c.nthreads = 1;
  c.think_time = sim::Ms(1);
  c.run_time = sim::Ms(20);
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  EXPECT_GE(rig.OpCount("createfile2"), 18u);
  EXPECT_LE(rig.OpCount("createfile2"), 20u);
}

TEST(FilebenchRunTest, PreallocCreatesThePercentage) {
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.nfiles = 2000;
  c.nthreads = 1;
  c.ops = 1;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  // 80% of 2000 files, give or take; one op (a delete) ran since.
  EXPECT_NEAR(static_cast<double>(w->fileset(0).existing_files()), 1600, 60);
  fs::testing::SyncFs s(&rig.q, &rig.memfs);
  std::string p;
  uint64_t on_disk = 0, bytes = 0;
  for (size_t i = 0; i < w->fileset(0).file_count(); ++i) {
    w->fileset(0).FilePath(i, &p);
    fs::FsResult<fs::FileStat> st = s.Stat(p);
    if (!st.ok()) continue;
    ++on_disk;
    bytes += st.value.size;
    EXPECT_EQ(st.value.size, w->fileset(0).file(i).size);
  }
  EXPECT_EQ(on_disk, w->fileset(0).existing_files());
  // Setup calls are not measured.
  EXPECT_EQ(rig.Stat("workload.fs.open.calls"), 0);
  EXPECT_LT(rig.Stat("workload.fs_calls"), 3);
}

TEST(FilebenchRunTest, SizeGammaZeroGivesFixedSizes) {
  Rig rig;
  FilebenchConfig c = Cfg("varmail", "f2fsj");
  c.nfiles = 100;
  c.ops = 1;
  c.size_gamma = 0;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  for (size_t i = 0; i < w->fileset(0).file_count(); ++i) EXPECT_EQ(w->fileset(0).file(i).size, 16384u);
  EXPECT_EQ(w->fileset(0).def().size_gamma, 0);
}

TEST(FilebenchRunTest, TimeoutModeReportsRunningOutOfFiles) {
  const std::string path = ::testing::TempDir() + "/fb_out_of_files.f";
  {
    std::ofstream out(path);
    out << "set $dir=/t\n"
           "define fileset name=few,path=$dir,size=4k,entries=10,dirwidth=10,prealloc\n"
           "define process name=p\n{\n  thread name=t\n  {\n    flowop deletefile name=del,filesetname=few\n  }\n}\n"
           "run 10\n";
  }
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.script = path;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  EXPECT_EQ(rig.OpCount("del"), 10u);
  ASSERT_FALSE(w->run_status().ok());
  EXPECT_THAT(w->run_status().message(), HasSubstr("flowop 'del' could not obtain a file"));
  std::remove(path.c_str());
}

TEST(FilebenchRunTest, ThreadsThatDoNothingAreReported) {
  const std::string path = ::testing::TempDir() + "/fb_idle.f";
  {
    std::ofstream out(path);
    out << "set $dir=/t\n"
           "define process name=p\n{\n  thread name=idle\n  {\n    flowop eventlimit name=wait\n  }\n}\n"
           "run 10\n";
  }
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.script = path;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_FALSE(w->run_status().ok());
  EXPECT_THAT(w->run_status().message(), HasSubstr("thread 'idle' makes no progress"));
  std::remove(path.c_str());
}

// Control flowops are recorded as operations but call nothing and take no
// time: a thread of only those must be reported, not spun millions of
// times at one simulated instant (found by the randomized-input driver).
TEST(FilebenchRunTest, ThreadsOfOnlyControlFlowopsAreReported) {
  const std::string path = ::testing::TempDir() + "/fb_control.f";
  {
    std::ofstream out(path);
    out << "set $dir=/t\nset $count=16000000\nset mode quit alldone\n"
           "define process name=p\n{\n  thread name=ctl\n  {\n    flowop opslimit name=limit\n"
           "    flowop finishoncount name=finish,value=$count\n  }\n}\nrun 10\n";
  }
  Rig rig;
  FilebenchConfig c = Cfg("varmail");
  c.script = path;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_FALSE(w->run_status().ok());
  EXPECT_THAT(w->run_status().message(), HasSubstr("thread 'ctl' makes no progress"));
  std::remove(path.c_str());
}

TEST(FilebenchConfigTest, ErrorsNameTheKey) {
  struct Case {
    std::function<void(FilebenchConfig&)> edit;
    std::string message;
  };
  const Case cases[] = {
      {[](FilebenchConfig& c) { c.personality = "oltp"; c.nthreads = 4; },
       "workload.filebench.nthreads: <oltp stock> sets no nthreads variable"},
      {[](FilebenchConfig& c) { c.personality = "nope"; }, "workload.filebench.personality: unknown personality 'nope'"},
      {[](FilebenchConfig& c) { c.personality = "createfiles_empty"; },
       "personality 'createfiles_empty' has no 'stock' variant"},
      {[](FilebenchConfig& c) { c.set = {"novalue"}; }, "workload.filebench.set: expected \"name=value\""},
      {[](FilebenchConfig& c) { c.set = {"frobs=3"}; }, "sets no variable $frobs"},
      {[](FilebenchConfig& c) { c.script = "/no/such/file.f"; },
       "workload.filebench.script: cannot read filebench script '/no/such/file.f'"},
      // An endless file is refused at a bound, not read whole.
      {[](FilebenchConfig& c) { c.script = "/dev/zero"; },
       "workload.filebench.script: filebench script '/dev/zero' is larger than 1048576 bytes"},
      {[](FilebenchConfig& c) { c.set = {"nfiles=lots"}; }, "<varmail stock>:9: bad number for 'entries': lots"},
  };
  for (const Case& k : cases) {
    FilebenchConfig c = Cfg("varmail");
    k.edit(c);
    sim::Result<FilebenchScript> s = FilebenchWorkload::BuildScript(c, "workload.filebench");
    ASSERT_FALSE(s.ok()) << k.message;
    EXPECT_THAT(s.status().message(), HasSubstr(k.message));
  }
  // Project units are accepted in `set`.
  FilebenchConfig c = Cfg("varmail");
  c.set = {"meanappendsize=32KiB", "$nthreads=2"};
  sim::Result<FilebenchScript> s = FilebenchWorkload::BuildScript(c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->processes[0].threads[0].flowops[2].iosize, 32768u);
  EXPECT_EQ(s->TotalThreads(), 2u);
}

TEST(FilebenchConfigTest, DefaultsMatchTheStruct) {
  const FilebenchConfig d = sim::MakeDefault<FilebenchConfig>();
  const FilebenchConfig s;
  EXPECT_EQ(d.personality, s.personality);
  EXPECT_EQ(d.variant, s.variant);
  EXPECT_EQ(d.hog_cost, s.hog_cost);
  EXPECT_EQ(d.nfiles, 0u);
  EXPECT_EQ(d.run_time, sim::SimTime::Zero());
}

// The preset files in configs/filebench are tested through the app's
// schema (tests/presets_test.cc): they include a whole stack.

}  // namespace
}  // namespace host
