#include "host/workload/fio_jobfile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/rng.h"

namespace host {
namespace {

FioConfig Base() {
  FioConfig c = sim::MakeDefault<FioConfig>();
  c.total_ios = 1000;
  return c;
}

TEST(FioJobFileTest, GlobalOptionsReachEveryLaterJobAndJobsOverrideThem) {
  const std::string text =
      "; two jobs\n"
      "[global]\n"
      "ioengine=libaio\n"
      "direct=1\n"
      "bs=4k\n"
      "iodepth=8   # inline comment\n"
      "\n"
      "[reader]\n"
      "rw=randread\n"
      "startdelay=5ms\n"
      "[writer]\n"
      "rw=randwrite\n"
      "bs=64K\n"
      "numjobs=2\n"
      "rate_iops=1000\n";
  auto jobs = ParseFioJobFile(text, "t.fio", Base());
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2u);
  const FioJob& r = (*jobs)[0];
  EXPECT_EQ(r.name, "reader");
  EXPECT_EQ(r.line, 8);
  EXPECT_EQ(r.cfg.rw, "randread");
  EXPECT_EQ(r.cfg.bs.value, 4096u);
  EXPECT_EQ(r.cfg.iodepth, 8u);
  EXPECT_EQ(r.startdelay, sim::Ms(5));
  EXPECT_EQ(r.cfg.total_ios, 1000u);  // from the base (YAML) section
  const FioJob& w = (*jobs)[1];
  EXPECT_EQ(w.cfg.rw, "randwrite");
  EXPECT_EQ(w.cfg.bs.value, 65536u);
  EXPECT_EQ(w.cfg.numjobs, 2u);
  EXPECT_EQ(w.cfg.rate_iops, 1000);
  EXPECT_EQ(w.startdelay, sim::SimTime::Zero());
}

// fio's zoned-block-device options (zbd.c) reach workload.fio's zone keys.
TEST(FioJobFileTest, TranslatesZoneOptions) {
  const std::string text =
      "[zbd]\n"
      "rw=randwrite\n"
      "zonemode=zbd\n"
      "max_open_zones=4\n"
      "zone_reset_threshold=0.7\n"
      "zone_reset_frequency=0.25\n"
      "read_beyond_wp=1\n";
  auto jobs = ParseFioJobFile(text, "t.fio", Base());
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  const FioConfig& c = (*jobs)[0].cfg;
  EXPECT_EQ(c.zonemode, "zbd");
  EXPECT_EQ(c.max_open_zones, 4u);
  EXPECT_DOUBLE_EQ(c.zone_reset_threshold.value, 0.7);
  EXPECT_DOUBLE_EQ(c.zone_reset_frequency.value, 0.25);
  EXPECT_TRUE(c.read_beyond_wp);
  auto bad = ParseFioJobFile("[z]\nzonemode=strided\n", "t.fio", Base());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.fio:2"), std::string::npos) << bad.status().message();
}

TEST(FioJobFileTest, TranslatesMixesSplitsDistributionsAndBounds) {
  const std::string text =
      "[JESD219]\n"
      "rw=randrw\nrwmixwrite=60\n"
      "bssplit=512/4:4k/67:8k/29\n"
      "blockalign=4k\n"
      "random_distribution=zoned:50/5:30/15:20/80\n"
      "size=1g\n"
      "ioengine=psync\niodepth=32\n"
      "runtime=2\n";
  auto jobs = ParseFioJobFile(text, "j.fio", Base());
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  const FioConfig& c = (*jobs)[0].cfg;
  EXPECT_DOUBLE_EQ(c.rwmixread.value, 0.4);
  EXPECT_EQ(c.bssplit, (std::vector<std::string>{"512/4%", "4096/67%", "8192/29%"}));
  EXPECT_EQ(c.distribution, "zoned");
  auto zones = sim::GetKey(sim::SchemaOf<FioConfig>(), &c, "zoned.zones");
  ASSERT_TRUE(zones.ok());
  EXPECT_EQ(*zones, "[50%/5%, 30%/15%, 20%/80%]");
  EXPECT_EQ(c.iodepth, 1u);  // a sync engine keeps one I/O in flight
  EXPECT_EQ(c.runtime, sim::Sec(2));
  EXPECT_EQ(c.io_size.value, uint64_t{1} << 30);  // not time_based: size bytes per clone
  auto tb = ParseFioJobFile("[a]\nsize=1g\ntime_based\nruntime=1\n", "t.fio", Base());
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ((*tb)[0].cfg.io_size.value, 0u);
}

// stonewall (and wait_for_previous) waits for every earlier job, wait_for
// for one; startdelay still counts from the start.
TEST(FioJobFileTest, StonewallAndWaitForOrderTheJobs) {
  auto jobs = ParseFioJobFile(
      "[global]\nrw=randread\n[a]\n[b]\nstartdelay=5ms\n[c]\nstonewall\n[d]\nwait_for=b\n[e]\nwait_for_previous\n"
      "wait_for=a\n[f]\nstonewall=0\n",
      "t.fio", Base());
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 6u);
  using V = std::vector<std::string>;
  EXPECT_EQ((*jobs)[0].after, V{});
  EXPECT_EQ((*jobs)[1].after, V{});
  EXPECT_EQ((*jobs)[1].startdelay, sim::Ms(5));
  EXPECT_EQ((*jobs)[2].after, (V{"a", "b"}));
  EXPECT_EQ((*jobs)[3].after, V{"b"});
  EXPECT_EQ((*jobs)[4].after, (V{"a", "b", "c", "d"}));
  EXPECT_EQ((*jobs)[5].after, V{});
}

// Options that cannot be honoured name the file and line.
TEST(FioJobFileTest, UnhonouredOptionsAreErrorsWithFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[a]\nrw=randread\nwait_for=b\n[b]\n", "t.fio:1: wait_for: no earlier job [b]"},
      {"[a]\nwait_for\n", "t.fio:2: wait_for: needs the name"},
      {"[a]\nstonewall=2\n", "t.fio:2: stonewall:"},
      {"[a]\ndirect=0\n", "t.fio:2: direct: buffered I/O"},
      {"[a]\nverify=md5\n", "t.fio:2: verify: option not modelled"},
      {"[a]\nsteadystate=iops:10%\n", "t.fio:2: steadystate: steady-state"},
      {"[a]\nbs=4k,8k\n", "t.fio:2: bs: separate read,write"},
      {"[a]\nrw=randrw:8\n", "t.fio:2: rw:"},
      {"[a]\nioengine=mmap\n", "t.fio:2: ioengine: 'mmap' is not modelled"},
      {"[a]\nrandom_distribution=pareto:0.9\n", "t.fio:2: random_distribution:"},
      {"[a]\niodepth=0\n", "t.fio:2: iodepth:"},
      {"[a]\nbs=4q\n", "t.fio:2: bs: '4q' has an unknown size unit"},
      {"[a]\nloops=3\n", "t.fio:2: loops:"},
      {"rw=read\n[a]\n", "t.fio:1: 'rw=read' before any [section]"},
      {"[global]\nbs=4k\n", "t.fio: no job section"},
      {"[a\n", "t.fio:1: '[a': a section header is [name]"},
  };
  for (const auto& [text, want] : cases) {
    auto jobs = ParseFioJobFile(text, "t.fio", Base());
    ASSERT_FALSE(jobs.ok()) << text;
    EXPECT_EQ(jobs.status().code(), sim::Status::Code::kInvalidInput);
    EXPECT_EQ(jobs.status().message().rfind(want, 0), 0u) << jobs.status().message() << "\nwant prefix: " << want;
  }
}

// The real job files shipped with fio (../shared/traces/workloads/fio): the
// ones within the model read; the others name the line they cannot honour.
TEST(FioJobFileTest, RealFioJobFiles) {
  // The shared folder beside the repository, or where FLASHSTACK_SHARED_DIR points.
  const char* env = std::getenv("FLASHSTACK_SHARED_DIR");
  const std::filesystem::path dir =
      std::filesystem::path(env != nullptr ? env : FLASHSTACK_SHARED_DIR) / "traces/workloads/fio";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared traces at " << dir;
  struct Case {
    const char* file;
    const char* error_prefix;  // nullptr: reads
    size_t jobs;
  };
  const Case cases[] = {
      {"jesd219.fio", nullptr, 1},
      {"iometer-file-access-server.fio", nullptr, 1},
      {"fsx.fio", "loops", 0},
      {"fio-rand-RW.fio", "direct", 0},
      {"ssd-test.fio", "directory", 0},
      {"ssd-steadystate.fio", nullptr, 2},
      {"steadystate.fio", "ss", 0},
      {"example_latency_steadystate.fio", "steadystate", 0},
  };
  for (const Case& c : cases) {
    auto jobs = ReadFioJobFile((dir / c.file).string(), Base());
    if (c.error_prefix == nullptr) {
      ASSERT_TRUE(jobs.ok()) << c.file << ": " << jobs.status().message();
      EXPECT_EQ(jobs->size(), c.jobs) << c.file;
      continue;
    }
    ASSERT_FALSE(jobs.ok()) << c.file;
    const std::string msg = jobs.status().message();
    const std::string where = (dir / c.file).string() + ":";
    EXPECT_EQ(msg.rfind(where, 0), 0u) << msg;
    EXPECT_NE(msg.find(std::string(": ") + c.error_prefix), std::string::npos) << msg;
  }
  // The steady-state file's random phase waits for the sequential fill.
  auto steady = ReadFioJobFile((dir / "ssd-steadystate.fio").string(), Base());
  ASSERT_TRUE(steady.ok());
  EXPECT_TRUE((*steady)[0].after.empty());
  EXPECT_EQ((*steady)[1].after, std::vector<std::string>{"sequential-fill"});
  auto jesd = ReadFioJobFile((dir / "jesd219.fio").string(), Base());
  ASSERT_TRUE(jesd.ok());
  EXPECT_EQ((*jesd)[0].cfg.iodepth, 256u);
  EXPECT_EQ((*jesd)[0].cfg.numjobs, 4u);
  EXPECT_EQ((*jesd)[0].cfg.bssplit.size(), 12u);
}

// Randomized input: lines built from real option names, plausible and
// broken values, headers, comments and junk. The parser never crashes;
// it accepts, or refuses with "<file>:<line>: " naming a line of the input
// (or "<file>: no job section").
TEST(FioJobFileTest, RandomizedInputIsAcceptedOrRefusedWithALine) {
  const std::vector<std::string> keys = {"rw", "bs", "bssplit", "iodepth", "numjobs", "size", "offset", "runtime",
                                         "time_based", "startdelay", "rate", "rate_iops", "rwmixread", "rwmixwrite",
                                         "random_distribution", "ioengine", "direct", "blockalign", "fsync",
                                         "io_size", "loops", "stonewall", "name", "filename", "verify", "ss", ""};
  const std::vector<std::string> values = {"4k", "randread", "randrw", "0", "1", "100", "101", "18446744073709551616",
                                           "4k/50:8k/50", "4k/:8k/20", "zipf:1.2", "zoned:50/5:50/95", "zoned:x",
                                           "libaio", "psync", "5ms", "2m", "-1", "", "1,2", "1g", "50%", "150%",
                                           "9999999999999t", "4k/", "/", ":", "zipf:", "\t", "\xff\xfe"};
  sim::Rng rng(7, "fio_jobfile_fuzz");
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng.Uniform(12));
    for (int l = 0; l < lines; ++l) {
      switch (rng.Uniform(8)) {
        case 0: text += "[job" + std::to_string(rng.Uniform(3)) + "]"; break;
        case 1: text += rng.Bernoulli(0.5) ? "[global]" : "# comment"; break;
        case 2: text += keys[rng.Uniform(keys.size())]; break;
        case 3: {
          std::string junk;
          for (uint64_t i = 0, n = rng.Uniform(10); i < n; ++i) junk += static_cast<char>(1 + rng.Uniform(255));
          text += junk;
          break;
        }
        default:
          text += keys[rng.Uniform(keys.size())] + "=" + values[rng.Uniform(values.size())];
      }
      text += "\n";
    }
    auto jobs = ParseFioJobFile(text, "f.fio", Base());
    if (jobs.ok()) {
      ++accepted;
      EXPECT_FALSE(jobs->empty());
      continue;
    }
    ++refused;
    const std::string msg = jobs.status().message();
    ASSERT_EQ(msg.rfind("f.fio", 0), 0u) << msg;
    if (msg.rfind("f.fio: no job section", 0) == 0) continue;
    ASSERT_EQ(msg.rfind("f.fio:", 0), 0u) << msg;
    const int line = std::atoi(msg.c_str() + 6);
    EXPECT_GE(line, 1) << msg;
    EXPECT_LE(line, lines + 1) << msg << "\n" << text;
  }
  EXPECT_GT(accepted, 30);
  EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace host
