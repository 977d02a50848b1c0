#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/fsworkload_test_util.h"
#include "host/fsworkload/mobigen_replay.h"
#include "host/fsworkload/mobigen_trace.h"
#include "sim/rng.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::Rig;

const std::string kTwitter = std::string(FLASHSTACK_SHARED_DIR) + "/traces/mobibench/mobigen.out.twitter";

// ---------------------------------------------------------------------------
// Parser

TEST(MobigenParseTest, ParsesEveryCallForm) {
  const std::string text =
      "0 0 open /data/data O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE 36\n"
      "0 5 write 36 4\n"
      "0 9 pwrite 36 4096 512\n"
      "1 2 open \"/system/fonts/My Font.ttf\" O_RDONLY|O_LARGEFILE 40\n"
      "1 3 read 40 100\n"
      "1 4 pread 40 643072 30\n"
      "\n"
      "1 6 fstat64 40 0\n"
      "1 7 fsync 40 0\n"
      "1 8 fdatasync 40 0\n"
      "1 9 close 40 0\n"
      "3 1 stat64 \"/a/b\" 0\n"
      "3 2 lstat64 \"/a/c\" 0\n"
      "3 3 access \"/a/d\" -1\n"
      "3 4 unlink \"/a/e\" 0\n"
      "3 5 mkdir \"/a/f\" 0\n";
  sim::Result<MobigenTrace> t = ParseMobigen(text, "t.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->lines, 16u);
  EXPECT_EQ(t->records.size(), 15u);
  EXPECT_EQ(t->skipped, 1u);
  EXPECT_EQ(t->tids, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(t->unknown(), 1u);
  EXPECT_EQ(t->unknown_counts.at("mkdir"), 1u);
  const MobigenRecord& open0 = t->records[0];
  EXPECT_EQ(open0.call, MobigenCall::kOpen);
  EXPECT_FALSE(open0.quoted);
  EXPECT_FALSE(open0.rdonly);
  EXPECT_EQ(open0.flags, fs::kWrOnly | fs::kCreat | fs::kTrunc);
  EXPECT_EQ(open0.fd, 36);
  EXPECT_EQ(t->paths[open0.name], "/data/data");
  const MobigenRecord& open1 = t->records[3];
  EXPECT_TRUE(open1.quoted);
  EXPECT_TRUE(open1.rdonly);
  EXPECT_EQ(t->paths[open1.name], "/system/fonts/My Font.ttf");
  EXPECT_EQ(t->records[2].offset, 4096u);
  EXPECT_EQ(t->records[2].bytes, 512);
  EXPECT_EQ(t->records[5].offset, 643072u);
  EXPECT_EQ(t->records[12].ret, -1);
  EXPECT_EQ(t->thread_records[2].size(), 5u);
  EXPECT_EQ(t->count(MobigenCall::kPread), 1u);
  EXPECT_EQ(t->first_us, 0);
  EXPECT_EQ(t->last_us, 9);
}

TEST(MobigenParseTest, MalformedLinesNameFileAndLine) {
  struct Case {
    std::string line;
    std::string problem;
  };
  const Case cases[] = {
      {"0 1 write 3", "write takes 2 arguments"},
      {"0 1 write x 4", "bad descriptor"},
      {"0 1 write 3 4 5", "write takes 2 arguments"},
      {"x 1 read 3 4", "bad thread id"},
      {"0 -5 read 3 4", "bad timestamp"},
      {"0 1", "expected '<tid> <t_us> <call>"},
      {"0 1 open \"/a b O_RDONLY 3", "unbalanced quote"},
      {"0 1 open /a O_BOGUS 3", "unknown open flag 'O_BOGUS'"},
      {"0 1 pread 3 -1 4", "bad offset"},
      {"0 1 fsync 3 zero", "bad result"},
      {"0 1 open \"\" O_RDONLY 3", "empty path"},
      {"0 1 w@rd 3", "bad call name"},
  };
  for (const Case& c : cases) {
    sim::Result<MobigenTrace> t = ParseMobigen("0 0 close 1 0\n" + c.line + "\n", "trace.txt");
    ASSERT_FALSE(t.ok()) << c.line;
    EXPECT_THAT(t.status().message(), StartsWith("trace.txt:2: ")) << c.line;
    EXPECT_THAT(t.status().message(), HasSubstr(c.problem)) << c.line;
  }
  sim::Result<MobigenTrace> back = ParseMobigen("0 10 close 1 0\n0 9 close 2 0\n", "b");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("b:2: time goes backwards in thread 0"));
}

TEST(MobigenParseTest, SkipModeCountsMalformedLines) {
  MobigenParseOptions opt;
  opt.skip_malformed = true;
  sim::Result<MobigenTrace> t =
      ParseMobigen("0 0 close 1 0\ngarbage\n0 1 write 1\n\n0 2 fsync 1 0\n0 3 frobnicate 1\n", "s", opt);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->lines, 6u);
  EXPECT_EQ(t->records.size(), 3u);
  EXPECT_EQ(t->malformed, 2u);
  EXPECT_EQ(t->skipped, 3u);
  EXPECT_EQ(t->records.size() + t->skipped, t->lines);
  ASSERT_EQ(t->errors.size(), 2u);
  EXPECT_THAT(t->errors[0], StartsWith("s:2: "));
  EXPECT_THAT(t->errors[1], StartsWith("s:3: "));
}

// Mutated copies of real lines: the parser never crashes or hangs, every
// line is accounted for, and every error names the file and the line.
TEST(MobigenParseTest, FuzzedLinesAreAccountedFor) {
  sim::Result<MobigenTrace> base = ReadMobigenFile(kTwitter);
  ASSERT_TRUE(base.ok()) << base.status().message();
  std::string text;
  {
    std::ifstream in(kTwitter);
    std::string line;
    for (int i = 0; i < 600 && std::getline(in, line); ++i) text += line + "\n";
  }
  std::vector<std::string> lines;
  for (size_t p = 0; p < text.size();) {
    const size_t e = text.find('\n', p);
    lines.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  sim::Rng rng(3, "mobigen.fuzz");
  const char kAlphabet[] = " \t\"|0123456789-xO_RDWR\x01\xff\r";
  for (int round = 0; round < 300; ++round) {
    std::string doc;
    for (int i = 0; i < 40; ++i) {
      std::string l = lines[rng.Uniform(lines.size())];
      const uint64_t edits = rng.Uniform(4);
      for (uint64_t k = 0; k < edits; ++k) {
        const uint64_t what = rng.Uniform(5);
        const size_t at = l.empty() ? 0 : rng.Uniform(l.size());
        if (what == 0 && !l.empty()) {
          l.erase(at, 1);
        } else if (what == 1) {
          l.insert(at, 1, kAlphabet[rng.Uniform(sizeof(kAlphabet) - 1)]);
        } else if (what == 2 && !l.empty()) {
          l[at] = kAlphabet[rng.Uniform(sizeof(kAlphabet) - 1)];
        } else if (what == 3) {
          l = l.substr(0, at);
        } else {
          l.insert(at, "99999999999999999999999");
        }
      }
      doc += l + "\n";
    }
    for (bool skip : {false, true}) {
      MobigenParseOptions opt;
      opt.skip_malformed = skip;
      sim::Result<MobigenTrace> t = ParseMobigen(doc, "fuzz.txt", opt);
      if (!t.ok()) {
        ASSERT_FALSE(skip);
        EXPECT_THAT(t.status().message(), StartsWith("fuzz.txt:"));
        continue;
      }
      EXPECT_EQ(t->records.size() + t->skipped, t->lines);
      EXPECT_EQ(t->lines, 40u);
      for (const std::string& e : t->errors) EXPECT_THAT(e, StartsWith("fuzz.txt:"));
    }
  }
}

TEST(MobigenParseTest, TwitterTraceCounts) {
  sim::Result<MobigenTrace> t = ReadMobigenFile(kTwitter);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->lines, 16307u);
  EXPECT_EQ(t->records.size(), 16307u);
  EXPECT_EQ(t->skipped, 0u);
  EXPECT_EQ(t->unknown(), 0u);
  EXPECT_EQ(t->tids.size(), 127u);
  EXPECT_EQ(t->tids.back(), 129);
  const std::map<MobigenCall, uint64_t> want = {
      {MobigenCall::kWrite, 4076}, {MobigenCall::kPread, 3461}, {MobigenCall::kRead, 2683},
      {MobigenCall::kPwrite, 1953}, {MobigenCall::kClose, 1060}, {MobigenCall::kFstat, 1029},
      {MobigenCall::kStat, 732},    {MobigenCall::kAccess, 717}, {MobigenCall::kFsync, 297},
      {MobigenCall::kOpen, 273},    {MobigenCall::kUnlink, 13},  {MobigenCall::kLstat, 13},
  };
  for (const auto& [c, n] : want) EXPECT_EQ(t->count(c), n) << MobigenCallName(c);
  EXPECT_NEAR(static_cast<double>(t->last_us - t->first_us) / 1e6, 117.9, 0.5);
}

// ---------------------------------------------------------------------------
// Replay

MobigenConfig ReplayCfg() {
  MobigenConfig c = sim::MakeDefault<MobigenConfig>();
  c.trace = kTwitter;
  return c;
}

TEST(MobigenReplayTest, TwitterReplaysEveryLine) {
  Rig rig;
  auto w = MobigenReplay::Create(ReplayCfg(), rig.Env(), "workload.mobigen");
  ASSERT_TRUE(w.ok()) << w.status().message();
  MobigenReplay& r = **w;
  ASSERT_TRUE(rig.Run(r));
  EXPECT_TRUE(r.run_status().ok());
  const MobigenTrace& t = r.trace();
  // Every line executed: executed + unknown + skipped = lines.
  EXPECT_EQ(r.executed_total() + t.unknown() + t.skipped + r.unmapped_skipped(), t.lines);
  EXPECT_EQ(r.executed_total(), 16307u);
  for (size_t c = 0; c + 1 < kNumMobigenCalls; ++c) {
    const auto call = static_cast<MobigenCall>(c);
    EXPECT_EQ(r.executed(call), t.count(call)) << MobigenCallName(call);
    EXPECT_EQ(rig.OpCount(std::string(MobigenCallName(call))), t.count(call));
  }
  EXPECT_EQ(rig.Stat("workload.mobigen.lines"), 16307);
  EXPECT_EQ(rig.Stat("workload.mobigen.executed"), 16307);
  EXPECT_EQ(rig.Stat("workload.fsyncs"), 297);
  // Writes carry the trace's bytes (5.1 MB); timed replay spans the trace.
  EXPECT_EQ(rig.Stat("workload.bytes_written"), 151476 + 4995080);
  // The trace's read byte counts sum to 615631 + 10878400; 194 reads
  // failed in the original run (-1) and ask for nothing here.
  uint64_t failed_reads = 0;
  for (const MobigenRecord& rec : t.records) {
    if ((rec.call == MobigenCall::kRead || rec.call == MobigenCall::kPread) && rec.bytes < 0) ++failed_reads;
  }
  EXPECT_EQ(failed_reads, 194u);
  EXPECT_EQ(static_cast<int64_t>(rig.Stat("workload.mobigen.read_bytes_requested")),
            615631 + 10878400 + static_cast<int64_t>(failed_reads));
  EXPECT_GE(r.measured_seconds(), 117.0);
  EXPECT_LE(r.measured_seconds(), 119.0);
  EXPECT_GT(r.implicit_opens(), 0u);
  // Prepared: the quoted read-only paths exist, so their opens succeed.
  EXPECT_EQ(rig.Stat("workload.op.open.errors"), 0);
  EXPECT_EQ(rig.memfs.open_fd_count(), 0u);  // the teardown closed everything
}

TEST(MobigenReplayTest, ReplayIsDeterministic) {
  std::string first;
  for (int run = 0; run < 2; ++run) {
    Rig rig;
    MobigenConfig c = ReplayCfg();
    c.timing = "afap";
    auto w = MobigenReplay::Create(c, rig.Env(), "workload.mobigen");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(rig.Run(**w));
    if (run == 0) {
      first = rig.Json();
    } else {
      EXPECT_EQ(rig.Json(), first);
    }
  }
}

// A small trace exercising the replay rules.
std::shared_ptr<const MobigenTrace> Small(const std::string& text) {
  sim::Result<MobigenTrace> t = ParseMobigen(text, "small");
  CHECK(t.ok()) << t.status().message();
  return std::make_shared<const MobigenTrace>(std::move(t).value());
}

const char kSmall[] =
    "0 0 open data/data O_RDWR|O_CREAT|O_LARGEFILE 10\n"
    "0 100 pwrite 10 8192 4096\n"
    "0 200 pread 10 8192 4096\n"
    "0 300 pread 10 100000 4096\n"
    "0 400 open \"/system/fonts/a.ttf\" O_RDONLY|O_LARGEFILE 11\n"
    "0 500 read 11 1000\n"
    "0 600 read 11 1000\n"
    "0 700 close 11 0\n"
    "0 800 stat64 \"/system/fonts/b.ttf\" 0\n"
    "0 900 fsync 10 0\n"
    "1 50 write 12 7\n"
    "1 60 close 12 0\n"
    "1 950 open data/data O_WRONLY|O_CREAT|O_TRUNC 10\n"
    "1 960 ioctl 10 5\n";

TEST(MobigenReplayTest, ReplayRulesOnASmallTrace) {
  Rig rig;
  MobigenConfig c = ReplayCfg();
  MobigenReplay r(Small(kSmall), c, rig.Env());
  ASSERT_TRUE(rig.Run(r));
  fs::testing::SyncFs s(&rig.q, &rig.memfs);
  // Unquoted opens became temp files of their thread; the quoted path was
  // prepared with the 2000 bytes the trace reads from it.
  EXPECT_EQ(s.Readdir("/mobigen").value,
            (std::vector<std::string>{"implicit_1_12_0.dat", "temp_0_0.dat", "temp_1_0.dat"}));
  EXPECT_EQ(s.Stat("/mobigen/temp_0_0.dat").value.size, 12288u);
  EXPECT_EQ(s.Stat("/system/fonts/a.ttf").value.size, 2000u);
  EXPECT_TRUE(s.Stat("/system/fonts/b.ttf").ok());
  EXPECT_EQ(r.prepared(), (std::vector<std::string>{"/mobigen/", "/system/", "/system/fonts/",
                                                    "/system/fonts/a.ttf", "/system/fonts/b.ttf"}));
  // fd 12 was used without an open: an implicit file; thread 1's open of fd
  // 10 replaced thread 0's (one descriptor table): an implicit close.
  EXPECT_EQ(r.implicit_opens(), 1u);
  EXPECT_EQ(r.implicit_closes(), 1u);
  // The pread past EOF returned nothing.
  EXPECT_EQ(r.short_reads(), 1u);
  EXPECT_EQ(rig.Stat("workload.op.pread.bytes"), 4096);
  EXPECT_EQ(rig.Stat("workload.op.read.bytes"), 2000);
  EXPECT_EQ(rig.Stat("workload.mobigen.unknown"), 1);
  EXPECT_EQ(rig.Stat("workload.mobigen.unknown.ioctl"), 1);
  EXPECT_EQ(r.executed_total(), 13u);
  EXPECT_EQ(r.executed_total() + r.trace().unknown() + r.trace().skipped, r.trace().lines);
  // Timed: the last executed line (the unknown one is not waited for) ran at
  // 950 us: an open (2 us) and the implicit close of fd 10 (1 us).
  EXPECT_EQ(r.end_time() - r.start_time(), sim::Us(950) + sim::Us(3));
  EXPECT_EQ(rig.memfs.open_fd_count(), 0u);
}

TEST(MobigenReplayTest, ReplayerCompatibleOptions) {
  Rig rig;
  MobigenConfig c = ReplayCfg();
  c.unmapped_fd = "skip";
  c.fd_scope = "thread";
  c.prepare = false;
  c.timing = "afap";
  MobigenReplay r(Small(kSmall), c, rig.Env());
  ASSERT_TRUE(rig.Run(r));
  // Without preparation the read-only open fails, so its reads and close
  // are skipped like the replayer does; thread 1's write/close on fd 12 too.
  EXPECT_EQ(rig.Stat("workload.op.open.errors"), 1);
  EXPECT_EQ(r.unmapped_skipped(), 5u);
  EXPECT_EQ(r.implicit_opens(), 0u);
  EXPECT_EQ(r.implicit_closes(), 0u);  // per-thread tables: no clash on fd 10
  EXPECT_EQ(r.executed_total() + r.unmapped_skipped() + r.trace().unknown() + r.trace().skipped, r.trace().lines);
  EXPECT_LT(r.end_time() - r.start_time(), sim::Us(100));
}

// speedup means what it means for block traces: 2 = twice as fast (the
// old time_scale multiplied the times, so 2 was twice as slow).
TEST(MobigenReplayTest, SpeedupCompressesTheReplay) {
  for (double speedup : {0.5, 2.0}) {
    Rig rig;
    MobigenConfig c = ReplayCfg();
    c.speedup = speedup;
    c.open_flags = "trace";
    MobigenReplay r(Small(kSmall), c, rig.Env());
    ASSERT_TRUE(rig.Run(r));
    EXPECT_EQ(r.end_time() - r.start_time(), sim::Us(950 / speedup) + sim::Us(3)) << speedup;
  }
}

// Failed and unknown calls were only in stats.json; the run's summary
// (Report) now names them. Without preparation the read-only open and the
// stat of an existing path fail although they succeeded in the trace; the
// access of a missing path fails as it did in the trace.
TEST(MobigenReplayTest, ReportShowsFailedAndUnknownCalls) {
  Rig rig;
  MobigenConfig c = ReplayCfg();
  c.prepare = false;
  c.timing = "afap";
  const std::string text = std::string(kSmall) + "2 10 access \"/nope\" -1\n";
  MobigenReplay r(Small(text), c, rig.Env());
  ASSERT_TRUE(rig.Run(r));
  EXPECT_EQ(r.failed(), 3u);
  EXPECT_EQ(r.failed_as_recorded(), 1u);
  EXPECT_EQ(rig.Stat("workload.mobigen.failed"), 3);
  EXPECT_EQ(rig.Stat("workload.mobigen.failed_as_recorded"), 1);
  const std::string report = r.Report();
  EXPECT_THAT(report, HasSubstr("small: 15 lines, 14 calls executed, 3 failed, 1 unknown not executed"));
  EXPECT_THAT(report, HasSubstr("failed     open 1, stat64 1, access 1 (1 of 3 failed in the trace too)\n"));
  EXPECT_THAT(report, HasSubstr("unknown    ioctl 1 (not replayed)\n"));
  EXPECT_THAT(report, HasSubstr(fmt::format("short      {} reads returned fewer bytes", r.short_reads())));
  EXPECT_THAT(report, Not(HasSubstr("timing")));  // afap
}

// An empty trace replayed nothing and printed a clean summary; it is an
// error naming the file, as is a trace of nothing but unknown calls.
TEST(MobigenReplayTest, ATraceWithoutCallsIsAnError) {
  Rig rig;
  MobigenConfig c = ReplayCfg();
  const std::string path = ::testing::TempDir() + "/mobigen_empty.txt";
  for (const std::string& text : {std::string(), std::string("\n\n"), std::string("0 1 ioctl 3 0\n")}) {
    std::ofstream(path, std::ios::trunc) << text;
    c.trace = path;
    auto w = MobigenReplay::Create(c, rig.Env(), "workload.mobigen");
    ASSERT_FALSE(w.ok()) << text;
    EXPECT_THAT(w.status().message(), StartsWith("workload.mobigen.trace: " + path + ": no call to replay"));
  }
  EXPECT_THAT(MobigenReplay::Load(c, "workload.mobigen").status().message(),
              HasSubstr("1 unknown call (ioctl 1)"));
  std::remove(path.c_str());
}

TEST(MobigenReplayTest, CreateReportsTraceErrors) {
  Rig rig;
  MobigenConfig c = ReplayCfg();
  c.trace = "/no/such/trace";
  auto missing = MobigenReplay::Create(c, rig.Env(), "workload.mobigen");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), StartsWith("workload.mobigen.trace: /no/such/trace: cannot read"));
  const std::string path = ::testing::TempDir() + "/mobigen_bad.txt";
  {
    std::ofstream out(path);
    out << "0 0 close 3 0\n0 1 read 3\n0 2 close 4 0\n";
  }
  c.trace = path;
  auto bad = MobigenReplay::Create(c, rig.Env(), "workload.mobigen");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), StartsWith(path + ":2: read takes 2 arguments"));
  c.on_error = "skip";
  auto skipped = MobigenReplay::Create(c, rig.Env(), "workload.mobigen");
  ASSERT_TRUE(skipped.ok()) << skipped.status().message();
  EXPECT_EQ((*skipped)->trace().malformed, 1u);
  EXPECT_EQ(rig.Stat("workload.mobigen.skipped_lines"), 1);
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// Input bounds (regressions: /dev/zero as a trace grew the reader to 17.9 GB;
// time_scale=1e9, now speedup=1e-9, overflowed the simulated clock).

TEST(MobigenParseTest, ALineWithoutEndIsRejectedInBoundedMemory) {
  // What /dev/zero looks like: bytes and no newline.
  const std::string zeros(1 << 20, '\0');
  sim::Result<MobigenTrace> t = ParseMobigen(zeros, "zeros");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), StartsWith("zeros:1: line longer than 65536 bytes: not a MobiGen trace"));
  // Also with skip_malformed: such a line never ends, so it cannot be skipped.
  MobigenParseOptions opt;
  opt.skip_malformed = true;
  opt.max_line_bytes = 100;
  t = ParseMobigen("0 0 close 1 0\n" + std::string(101, 'x') + "\n0 1 close 2 0\n", "long", opt);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), StartsWith("long:2: line longer than 100 bytes"));
  opt.max_line_bytes = 101;
  t = ParseMobigen("0 0 close 1 0\n" + std::string(101, 'x') + "\n0 1 close 2 0\n", "long", opt);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->malformed, 1u);
}

TEST(MobigenParseTest, LineAndByteCountsAreBounded) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += "0 " + std::to_string(i) + " close 1 0\n";
  MobigenParseOptions opt;
  opt.max_lines = 9;
  sim::Result<MobigenTrace> t = ParseMobigen(text, "many", opt);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "many: more than 9 lines; at most 9 are supported");
  opt.max_lines = 10;
  EXPECT_TRUE(ParseMobigen(text, "many", opt).ok());
  opt.max_bytes = text.size() - 1;
  t = ParseMobigen(text, "big", opt);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), StartsWith("big:10: trace larger than"));
}

TEST(MobigenParseTest, DevZeroIsAnErrorNotAnAllocation) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  sim::Result<MobigenTrace> t = ReadMobigenFile("/dev/zero");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), StartsWith("/dev/zero:1: line longer than 65536 bytes"));
}

TEST(MobigenParseTest, ReadsNonRegularFilesAsStreams) {
  // A named pipe (no size, no seeking) fed by a writer thread.
  const std::string fifo = ::testing::TempDir() + "/mobigen_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo);
    for (int i = 0; i < 5000; ++i) out << "0 " << i << " close 1 0\n";
  });
  sim::Result<MobigenTrace> t = ReadMobigenFile(fifo);
  writer.join();
  std::remove(fifo.c_str());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->lines, 5000u);
  EXPECT_EQ(t->count(MobigenCall::kClose), 5000u);
  EXPECT_EQ(t->last_us, 4999);
  // A directory opens but cannot be read.
  t = ReadMobigenFile(::testing::TempDir());
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("cannot read"));
  // The twitter trace streams to the same result as parsing it from memory.
  std::ifstream in(kTwitter, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  sim::Result<MobigenTrace> file = ReadMobigenFile(kTwitter);
  sim::Result<MobigenTrace> mem = ParseMobigen(text, kTwitter);
  ASSERT_TRUE(file.ok() && mem.ok());
  EXPECT_EQ(file->lines, mem->lines);
  EXPECT_EQ(file->records.size(), mem->records.size());
  EXPECT_EQ(file->paths, mem->paths);
}

TEST(MobigenParseTest, TimestampsAreBounded) {
  const std::string max = std::to_string(kMaxMobigenTimestampUs);
  EXPECT_TRUE(ParseMobigen("0 0 close 1 0\n0 " + max + " close 1 0\n", "t").ok());
  sim::Result<MobigenTrace> t = ParseMobigen("0 0 close 1 0\n0 " + max + "1 close 1 0\n", "t");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), StartsWith("t:2: timestamp 40000000000000001 us is beyond"));
}

TEST(MobigenReplayTest, SpeedupIsBoundedAtParse) {
  const sim::ParamDecl* decl = sim::SchemaOf<MobigenConfig>().FindParam("speedup");
  ASSERT_NE(decl, nullptr);
  EXPECT_TRUE(sim::ParseParamValue(*decl, "1e-6").ok());
  EXPECT_TRUE(sim::ParseParamValue(*decl, "1e6").ok());
  EXPECT_FALSE(sim::ParseParamValue(*decl, "0").ok());
  EXPECT_FALSE(sim::ParseParamValue(*decl, "1e-9").ok());
  EXPECT_FALSE(sim::ParseParamValue(*decl, "1e9").ok());
  EXPECT_FALSE(sim::ParseParamValue(*decl, "-1").ok());
  EXPECT_EQ(sim::SchemaOf<MobigenConfig>().FindParam("time_scale"), nullptr);
}

TEST(MobigenReplayTest, CreateRejectsSpansBeyondTheClock) {
  MobigenConfig c = ReplayCfg();
  const std::string path = ::testing::TempDir() + "/mobigen_span.txt";
  auto create = [&](int64_t last_us, double speedup) {
    std::ofstream(path) << "0 0 close 3 0\n0 " << last_us << " close 4 0\n";
    c.trace = path;
    c.speedup = speedup;
    Rig rig;
    return MobigenReplay::Create(c, rig.Env(), "workload.mobigen").status();
  };
  // 4e15 us (127 years): the trace itself is too long for a timed replay.
  sim::Status st = create(kMaxMobigenTimestampUs, 1.0);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), StartsWith("workload.mobigen.trace: the trace's timestamps span"));
  // 11.6 days slowed down 1e6 times: the speedup is.
  st = create(1'000'000'000'000, 1e-6);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), StartsWith("workload.mobigen.speedup: "));
  // 31.7 years: allowed (with a warning); as fast as possible ignores times.
  EXPECT_TRUE(create(1'000'000'000'000'000, 1.0).ok());
  c.timing = "afap";
  EXPECT_TRUE(create(kMaxMobigenTimestampUs, 1e6).ok());
  std::remove(path.c_str());
}

TEST(MobigenReplayTest, HugeScaledTimesSaturateInsteadOfOverflowing) {
  // The constructor takes a parsed trace without Create's span check: due
  // times clamp at kMaxReplaySpan instead of overflowing the clock.
  Rig rig;
  MobigenConfig c = ReplayCfg();
  c.speedup = kMinMobigenSpeedup;
  sim::Result<MobigenTrace> t =
      ParseMobigen("0 0 close 3 0\n0 " + std::to_string(kMaxMobigenTimestampUs) + " close 4 0\n", "huge");
  ASSERT_TRUE(t.ok()) << t.status().message();
  MobigenReplay r(std::make_shared<const MobigenTrace>(std::move(t).value()), c, rig.Env());
  ASSERT_TRUE(rig.Run(r, sim::SimTime::Max()));
  EXPECT_GE(r.end_time() - r.start_time(), sim::kMaxReplaySpan);
  EXPECT_LT(r.end_time() - r.start_time(), sim::kMaxReplaySpan + sim::Sec(1));
}

}  // namespace
}  // namespace host
