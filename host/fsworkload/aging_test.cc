// The git-aging trace reader (errors with file:line, randomized input) and
// the aging workload on the in-memory file system: the replayed tree, the
// clean copy, the grep walk, the read-stream figures and the errors.
#include "host/fsworkload/aging_workload.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/fsworkload_test_util.h"
#include "sim/rng.h"
#include "ssd/block_device.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using testing::Rig;

const std::string kHeader = std::string(kAgingTraceMagic) + "\n";

std::string TempTrace(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("aging_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

sim::Status ParseError(const std::string& body) {
  return ParseAgingTrace(kHeader + body, "t.trace").status();
}

TEST(AgingTraceTest, ParsesOperationsPullsAndEscapes) {
  auto t = ParseAgingTrace(kHeader +
                               "# source: x\n"
                               "pull 0 abc\n"
                               "mkdir d\n"
                               "write d/with%20space 10\n"
                               "\n"
                               "pull 1 def\n"
                               "append d/with%20space 5\n"
                               "rename d/with%20space d/pct%25\n"
                               "unlink d/pct%25\n"
                               "rmdir d\n",
                           "t.trace");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->pulls.size(), 2u);
  EXPECT_EQ(t->pulls[0].commit, "abc");
  EXPECT_EQ(t->pulls[0].first, 0u);
  EXPECT_EQ(t->pulls[0].end, 2u);
  EXPECT_EQ(t->pulls[1].first, 2u);
  EXPECT_EQ(t->pulls[1].end, 6u);
  ASSERT_EQ(t->records.size(), 6u);
  EXPECT_EQ(t->paths[t->records[1].path], "d/with space");
  EXPECT_EQ(t->records[1].bytes, 10u);
  EXPECT_EQ(t->records[1].line, 5u);
  EXPECT_EQ(t->paths[t->records[3].path2], "d/pct%");
  EXPECT_EQ(t->counts[static_cast<size_t>(AgingOp::kWrite)], 1u);
  EXPECT_EQ(t->counts[static_cast<size_t>(AgingOp::kRename)], 1u);
}

TEST(AgingTraceTest, MalformedLinesNameFileAndLine) {
  struct Case {
    std::string body, want;
  };
  const std::vector<Case> cases = {
      {"pull 0 a\nfrob x\n", "t.trace:3: unknown operation 'frob'"},
      {"pull 0 a\nwrite x 12z\n", "t.trace:3: bad byte count '12z'"},
      {"pull 0 a\nwrite x 99999999999999999999\n", "t.trace:3: bad byte count"},
      {"pull 0 a\nwrite x%2 1\n", "t.trace:3: bad escape"},
      {"pull 0 a\nwrite x%zz 1\n", "t.trace:3: bad escape"},
      {"pull 0 a\nwrite x%00 1\n", "t.trace:3: NUL in path"},
      {"mkdir x\n", "t.trace:2: mkdir before the first pull"},
      {"pull 0 a\nwrite x\n", "t.trace:3: write takes 2 fields, got 1"},
      {"pull 0 a\nunlink\n", "t.trace:3: unlink takes 1 field, got 0"},
      {"pull 0 a\nrename a\n", "t.trace:3: rename takes 2 fields"},
      {"pull 0 a\nmkdir a b\n", "t.trace:3: mkdir takes 1 field, got 2"},
      {"pull 0 a\nmkdir  a\n", "t.trace:3: empty field"},
      {"pull 0 a\nmkdir a/../b\n", "t.trace:3: bad path"},
      {"pull 0 a\nmkdir /a\n", "t.trace:3: bad path"},
      {"pull 0 a\npull 2 b\n", "t.trace:3: pull 2 out of order: expected pull 1"},
      {"pull x a\n", "t.trace:2: bad pull number 'x'"},
      {"pull 0\n", "t.trace:2: pull takes 2 fields"},
      {"# only comments\n", "t.trace: no pull in the trace"},
  };
  for (const Case& c : cases) {
    const sim::Status st = ParseError(c.body);
    EXPECT_FALSE(st.ok()) << c.body;
    EXPECT_THAT(st.message(), HasSubstr(c.want)) << c.body;
  }
  EXPECT_THAT(ParseAgingTrace("pull 0 a\n", "t.trace").status().message(),
              HasSubstr("t.trace:1: not a git-aging trace"));
  EXPECT_THAT(ParseAgingTrace("", "t.trace").status().message(), HasSubstr("t.trace:1: not a git-aging trace"));
  auto missing = ReadAgingTraceFile("/nonexistent/aging.trace");
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/aging.trace: cannot read the trace file"));
}

// Randomized input: mutated and random lines after the header never crash
// the reader; each is accepted or an InvalidInput naming the source and a line.
TEST(AgingTraceTest, RandomizedInputIsParsedOrRejectedWithALine) {
  sim::Rng rng(4, "aging-fuzz");
  const std::vector<std::string> seeds = {"pull 0 abc", "mkdir a/b", "write a/b%20c 100", "append x 3",
                                          "unlink a", "rename a b", "rmdir a", "# c", ""};
  const std::string alphabet = "pullmkdirwteapndsx0123456789 %/.\t\r#\x01\x7f\xff";
  size_t accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = kHeader + "pull 0 a\n";
    const int lines = 1 + static_cast<int>(rng.Uniform(8));
    for (int l = 0; l < lines; ++l) {
      std::string line = seeds[rng.Uniform(seeds.size())];
      const int edits = static_cast<int>(rng.Uniform(4));
      for (int e = 0; e < edits; ++e) {
        const size_t pos = line.empty() ? 0 : rng.Uniform(line.size() + 1);
        switch (rng.Uniform(3)) {
          case 0: line.insert(pos, 1, alphabet[rng.Uniform(alphabet.size())]); break;
          case 1:
            if (!line.empty() && pos < line.size()) line.erase(pos, 1);
            break;
          default:
            if (!line.empty() && pos < line.size()) line[pos] = alphabet[rng.Uniform(alphabet.size())];
        }
      }
      text += line + "\n";
    }
    auto t = ParseAgingTrace(text, "fuzz.trace");
    if (t.ok()) {
      ++accepted;
      for (const AgingRecord& r : t->records) {
        ASSERT_LT(r.path, t->paths.size());
        ASSERT_FALSE(t->paths[r.path].empty());
      }
      continue;
    }
    EXPECT_EQ(t.status().code(), sim::Status::Code::kInvalidInput);
    EXPECT_THAT(t.status().message(), ::testing::StartsWith("fuzz.trace:")) << t.status().message();
  }
  EXPECT_GT(accepted, 100u);  // the mutations leave many lines valid
}

AgingConfig Cfg(const std::string& trace) {
  AgingConfig c = sim::MakeDefault<AgingConfig>();
  c.trace = trace;
  return c;
}

std::unique_ptr<AgingWorkload> Make(const AgingConfig& c, Rig& rig) {
  auto w = AgingWorkload::Create(c, rig.Env(), "workload.aging");
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(w).value() : nullptr;
}

// path -> size of every regular file; directories as path -> UINT64_MAX.
std::map<std::string, uint64_t> TreeOf(Rig& rig, const std::string& dir = "/") {
  std::map<std::string, uint64_t> out;
  fs::testing::SyncFs s(&rig.q, &rig.memfs);
  const auto names = s.Readdir(dir);
  for (const std::string& n : names.value) {
    const std::string p = dir == "/" ? "/" + n : dir + "/" + n;
    const auto st = s.Stat(p);
    if (st.value.is_dir) {
      out[p] = UINT64_MAX;
      for (const auto& [k, v] : TreeOf(rig, p)) out[k] = v;
    } else {
      out[p] = st.value.size;
    }
  }
  return out;
}

const char* kSmall =
    "pull 0 c0\n"
    "mkdir .git\n"
    "mkdir .git/objects\n"
    "write .git/objects/ab 120\n"
    "mkdir src\n"
    "mkdir src/lib\n"
    "write src/lib/a.c 70000\n"
    "write src/b%20c.h 300\n"
    "write README 10\n"
    "write .git/index.lock 200\n"
    "rename .git/index.lock .git/index\n"
    "append .git/HEAD.log 90\n"
    "pull 1 c1\n"
    "unlink src/lib/a.c\n"
    "write src/lib/a.c 5000\n"
    "unlink README\n"
    "mkdir doc\n"
    "write doc/x 4096\n"
    "write .git/index.lock 230\n"
    "rename .git/index.lock .git/index\n"
    "append .git/HEAD.log 90\n"
    "pull 2 c2\n"
    "unlink doc/x\n"
    "rmdir doc\n"
    "write .git/index.lock 190\n"
    "rename .git/index.lock .git/index\n"
    "append .git/HEAD.log 91\n";

TEST(AgingWorkloadTest, AgedReplayEndsWithTheTracesTreeAndGrepsEveryByte) {
  Rig rig;
  AgingConfig c = Cfg(TempTrace("small.trace", kHeader + kSmall));
  c.grep_every = 2;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  const std::map<std::string, uint64_t> want = {
      {"/.git", UINT64_MAX},           {"/.git/objects", UINT64_MAX}, {"/.git/objects/ab", 120},
      {"/.git/index", 190},            {"/.git/HEAD.log", 271},       {"/src", UINT64_MAX},
      {"/src/lib", UINT64_MAX},        {"/src/lib/a.c", 5000},        {"/src/b c.h", 300},
  };
  EXPECT_EQ(TreeOf(rig), want);
  // Grep tests after pulls 0, 2 (a multiple of grep_every, also the last).
  ASSERT_EQ(w->points().size(), 2u);
  EXPECT_EQ(rig.Stat("workload.aging.grep_points"), 2);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.pulls"), 1);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.files"), 6);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.bytes"), 120 + 70000 + 300 + 10 + 200 + 90);
  EXPECT_EQ(rig.Stat("workload.aging.grep.1.pulls"), 3);
  EXPECT_EQ(rig.Stat("workload.aging.grep.1.files"), 5);
  EXPECT_EQ(rig.Stat("workload.aging.grep.1.bytes"), 120 + 190 + 271 + 5000 + 300);
  EXPECT_EQ(rig.Stat("workload.aging.grep.1.tree_bytes"), 120 + 190 + 271 + 5000 + 300);
  EXPECT_GT(rig.Stat("workload.aging.grep.1.time"), 0);
  EXPECT_GT(rig.Stat("workload.aging.grep.1.s_per_GiB"), 0);
  EXPECT_TRUE(std::isnan(rig.Stat("workload.aging.grep.1.dls")));  // no device
  EXPECT_EQ(rig.Stat("workload.aging.pulls"), 3);
  EXPECT_EQ(rig.Stat("workload.aging.op.write"), 9);
  EXPECT_EQ(rig.Stat("workload.aging.op.rename"), 3);
  EXPECT_EQ(rig.Stat("workload.aging.op.rmdir"), 1);
  EXPECT_EQ(rig.Stat("workload.aging.bytes_written"),
            120 + 70000 + 300 + 10 + 200 + 90 + 5000 + 4096 + 230 + 90 + 190 + 91);
  // Writes go in 64 KiB chunks: 70000 bytes are two calls.
  EXPECT_EQ(rig.Stat("workload.fs.pwrite.calls"), 10);
  EXPECT_THAT(w->Report(), HasSubstr("3 pulls (aged)"));
}

TEST(AgingWorkloadTest, CleanModeCopiesTheTreeOfOnePullInNameOrder) {
  Rig rig;
  AgingConfig c = Cfg(TempTrace("small_clean.trace", kHeader + kSmall));
  c.mode = "clean";
  c.clean_at = 1;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  const std::map<std::string, uint64_t> want = {
      {"/.git", UINT64_MAX},    {"/.git/objects", UINT64_MAX}, {"/.git/objects/ab", 120}, {"/.git/index", 230},
      {"/.git/HEAD.log", 180},  {"/src", UINT64_MAX},          {"/src/lib", UINT64_MAX},  {"/src/lib/a.c", 5000},
      {"/src/b c.h", 300},      {"/doc", UINT64_MAX},          {"/doc/x", 4096},
  };
  EXPECT_EQ(TreeOf(rig), want);
  EXPECT_EQ(rig.Stat("workload.fs.unlink.calls"), 0);  // nothing of the history reaches the file system
  EXPECT_EQ(rig.Stat("workload.fs.rename.calls"), 0);
  EXPECT_EQ(rig.Stat("workload.aging.op.mkdir"), 5);
  EXPECT_EQ(rig.Stat("workload.aging.op.write"), 6);
  ASSERT_EQ(w->points().size(), 1u);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.pulls"), 2);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.files"), 6);
  EXPECT_EQ(rig.Stat("workload.aging.grep.0.bytes"), 120 + 230 + 180 + 5000 + 300 + 4096);
}

TEST(AgingWorkloadTest, ConfigAndTraceErrorsNameTheKeyOrTheLine) {
  const std::string trace = TempTrace("errors.trace", kHeader + kSmall);
  AgingConfig c = Cfg("");
  EXPECT_THAT(AgingWorkload::Load(c, "workload.aging").status().message(),
              HasSubstr("workload.aging.trace: no trace file given"));
  c = Cfg(trace);
  c.pulls = 4;
  EXPECT_THAT(AgingWorkload::Load(c, "workload.aging").status().message(),
              HasSubstr("workload.aging.pulls: 4 but the trace"));
  c = Cfg(trace);
  c.mode = "clean";
  c.clean_at = 3;
  EXPECT_THAT(AgingWorkload::Load(c, "workload.aging").status().message(),
              HasSubstr("workload.aging.clean_at: pull 3 is beyond the 3 pulls replayed"));
  c = Cfg(trace);
  c.clean_at = 1;
  EXPECT_THAT(AgingWorkload::Load(c, "workload.aging").status().message(),
              HasSubstr("workload.aging.clean_at: 1 is for mode: clean only"));
  c = Cfg("/nonexistent.trace");
  EXPECT_THAT(AgingWorkload::Load(c, "workload.aging").status().message(),
              HasSubstr("workload.aging.trace: /nonexistent.trace: cannot read the trace file"));
}

// An operation the trace makes impossible stops the run with the line, in
// both modes, before any file-system call of it.
TEST(AgingWorkloadTest, ImpossibleOperationStopsTheRunNamingTheLine) {
  for (const char* mode : {"aged", "clean"}) {
    Rig rig;
    AgingConfig c = Cfg(TempTrace("impossible.trace", kHeader + "pull 0 a\nmkdir d\nwrite d/f 1\nrmdir d\n"));
    c.mode = mode;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    EXPECT_EQ(w->run_status().code(), sim::Status::Code::kInvalidInput) << mode;
    EXPECT_THAT(w->run_status().message(), HasSubstr("impossible.trace:5: rmdir 'd': directory not empty"));
    EXPECT_EQ(rig.Stat("workload.fs.rmdir.calls"), 0);
  }
  Rig rig;
  auto w = Make(Cfg(TempTrace("missing.trace", kHeader + "pull 0 a\nunlink nothere\n")), rig);
  ASSERT_TRUE(rig.Run(*w));
  EXPECT_THAT(w->run_status().message(), HasSubstr("missing.trace:3: unlink 'nothere': no such file"));
}

// A full file system (ENOSPC) stops the run with an IoError naming the line.
TEST(AgingWorkloadTest, EnospcStopsTheRunWithAClearStatus) {
  fs::MemFsConfig mc = sim::MakeDefault<fs::MemFsConfig>();
  mc.capacity = sim::Bytes{64 * 1024};
  Rig rig(mc);
  auto w = Make(Cfg(TempTrace("big.trace", kHeader + "pull 0 a\nwrite small 100\nwrite big 1000000\n")), rig);
  ASSERT_TRUE(rig.Run(*w));
  EXPECT_EQ(w->run_status().code(), sim::Status::Code::kIoError);
  EXPECT_THAT(w->run_status().message(), HasSubstr("big.trace:4: write"));
  EXPECT_THAT(w->run_status().message(), HasSubstr("ENOSPC"));
}

// DropCaches: the default is EOPNOTSUPP, and the grep test refuses to run
// on such a file system; MeteredFs passes the call through.
TEST(AgingWorkloadTest, AFileSystemThatCannotDropCachesIsAClearError) {
  Rig rig;
  testing::RecordingFs no_drop(&rig.memfs);
  EXPECT_EQ(static_cast<fs::FileSystem&>(no_drop).DropCaches().err, fs::Errno::kNotSup);
  MeteredFs metered(&rig.q, &rig.memfs);
  EXPECT_TRUE(metered.DropCaches().ok());
  MeteredFs metered_no(&rig.q, &no_drop);
  EXPECT_EQ(metered_no.DropCaches().err, fs::Errno::kNotSup);

  FsWorkloadEnv env = rig.Env();
  env.fs = &no_drop;
  auto w = AgingWorkload::Create(Cfg(TempTrace("nodrop.trace", kHeader + "pull 0 a\nwrite f 10\n")), env);
  ASSERT_TRUE(w.ok());
  (*w)->Start();
  rig.q.Run(sim::Sec(10));
  ASSERT_TRUE((*w)->done());
  EXPECT_EQ((*w)->run_status().code(), sim::Status::Code::kUnsupported);
  EXPECT_THAT((*w)->run_status().message(), HasSubstr("cannot drop its caches"));
}

// A device stand-in that places 4 KiB unit u in flash block u / 64 (256 KiB
// blocks) on channel (u / 64) % 4; units at or above 1 GiB are unmapped.
class PlacedDevice final : public ssd::BlockDevice {
 public:
  uint64_t capacity() const override { return uint64_t{4} << 30; }
  uint32_t sector_size() const override { return 512; }
  uint32_t io_unit() const override { return 4096; }
  uint32_t queues() const override { return 1; }
  const ssd::DeviceLayout& layout() const override { return layout_; }
  void Submit(ssd::BlockRequest*) override {}
  bool Locate(uint64_t offset, ssd::FlashPlace* out) const override {
    if (offset >= (uint64_t{1} << 30)) return false;
    const uint64_t block = offset / 4096 / 64;
    *out = ssd::FlashPlace{static_cast<uint32_t>(block % 4), 0, 0, 0, block};
    return true;
  }

 private:
  ssd::DeviceLayout layout_;
};

TEST(ReadStreamTest, LayoutScoreAndFootprintFollowTheDefinitions) {
  PlacedDevice dev;
  // One sequential 2 MiB stream in 128 KiB requests: no discontiguity, DLS 1;
  // each 1 MiB window spans 4 blocks of 256 KiB on 4 channels.
  ReadStream seq(&dev);
  for (uint64_t off = 0; off < (2u << 20); off += 128 * 1024) seq.Add(off, 128 * 1024);
  seq.Finish();
  EXPECT_EQ(seq.requests(), 16u);
  EXPECT_EQ(seq.blocks(), 512u);
  EXPECT_EQ(seq.discontiguities(), 0u);
  EXPECT_DOUBLE_EQ(seq.Dls(), 1.0);
  EXPECT_DOUBLE_EQ(seq.FlashBlocksPerMiB(), 4.0);
  EXPECT_DOUBLE_EQ(seq.ChannelsPerMiB(), 4.0);
  EXPECT_EQ(seq.windows(), 2u);
  // 4 KiB reads at a 1 MiB stride: every request after the first is a
  // discontiguity (3 of 4 blocks); each unit is its own block, all on one channel.
  ReadStream scattered(&dev);
  for (uint64_t i = 0; i < 4; ++i) scattered.Add(i * (1u << 20), 4096);
  scattered.Finish();
  EXPECT_EQ(scattered.discontiguities(), 3u);
  EXPECT_DOUBLE_EQ(scattered.Dls(), 1.0 - 3.0 / 4.0);
  EXPECT_EQ(scattered.windows(), 1u);
  EXPECT_DOUBLE_EQ(scattered.FlashBlocksPerMiB(), 4.0);
  EXPECT_DOUBLE_EQ(scattered.ChannelsPerMiB(), 1.0);
  // Unmapped units are counted and left out of the footprint.
  ReadStream unmapped(&dev);
  unmapped.Add(uint64_t{1} << 30, 8192);
  unmapped.Finish();
  EXPECT_EQ(unmapped.unlocated(), 2u);
  EXPECT_EQ(unmapped.located(), 0u);
  EXPECT_DOUBLE_EQ(unmapped.FlashBlocksPerMiB(), 0.0);
  // Nothing read: no score.
  ReadStream none(&dev);
  none.Finish();
  EXPECT_TRUE(std::isnan(none.Dls()));
}

}  // namespace
}  // namespace host
