// Power cuts at random points of a random workload on the ext4 model: the
// volume mounts (journal replay), fsck is clean, every file fsynced or
// synced and not touched since holds exactly what it held then, and no
// surviving file shows a block it never wrote (ordered mode: no stale
// data). FLASHSTACK_EXT4_CRASH_ITERATIONS sets the number of cuts (the
// suite runs 20), FLASHSTACK_EXT4_CRASH_FIRST the first, and
// FLASHSTACK_EXT4_CRASH_VERBOSE prints each cut's number.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fs/ext4/ext4_test_util.h"

namespace fs::ext4 {
namespace {

using testing::Stack;

constexpr uint32_t kMagic = 0xE4E4C0DEu;

// A page of file `id`: 16-byte records {id, page, version, magic}.
std::vector<uint8_t> PageData(uint32_t id, uint32_t page, uint32_t version) {
  std::vector<uint8_t> v(kBlockSize);
  for (uint32_t o = 0; o < kBlockSize; o += 16) {
    const uint32_t rec[4] = {id, page, version, kMagic};
    std::memcpy(v.data() + o, rec, 16);
  }
  return v;
}

struct RefFile {
  uint32_t id = 0;
  std::vector<uint32_t> versions;  // per page; 0 = hole
};

struct Durable {
  uint32_t id = 0;
  std::vector<uint32_t> versions;
};

Ext4Config CrashConfig() {
  Ext4Config c = testing::TestConfig();
  c.commit_interval = sim::Ms(3);
  c.page_cache.memory = sim::MiB(8);
  c.page_cache.writeback_interval = sim::Ms(2);
  c.page_cache.dirty_expire = sim::Ms(4);
  c.mkfs.journal_size = sim::MiB(4);
  return c;
}

class Driver {
 public:
  Driver(Ext4* fs, sim::EventQueue* q, uint64_t seed) : fs_(fs), q_(q), rng_(seed, "ext4.crash") {}

  sim::Task<void> Run() {
    for (const char* d : {"/a", "/b", "/a/c"}) {
      if ((co_await fs_->Mkdir(d)).ok()) dirs_.push_back(d);
    }
    dirs_.push_back("");
    for (int step = 0; step < 100000; ++step) {
      const uint64_t r = rng_.Uniform(100);
      if (r < 25 || files_.size() < 4) {
        co_await Create();
      } else if (r < 45) {
        co_await Overwrite();
      } else if (r < 60) {
        co_await FsyncOne();
      } else if (r < 70) {
        co_await UnlinkOne();
      } else if (r < 80) {
        co_await RenameOne();
      } else if (r < 85) {
        co_await TruncateOne();
      } else if (r < 87) {
        if ((co_await fs_->Sync()).ok()) {
          durable_.clear();
          for (auto& [p, f] : files_) durable_[p] = Durable{f.id, f.versions};
          gone_.insert(unlinked_.begin(), unlinked_.end());
          unlinked_.clear();
        }
      } else {
        co_await sim::Delay(q_, sim::Us(static_cast<double>(rng_.Uniform(3000))));
      }
    }
  }

  const std::map<std::string, RefFile>& files() const { return files_; }
  const std::map<std::string, Durable>& durable() const { return durable_; }
  const std::set<std::string>& gone() const { return gone_; }
  const std::map<std::string, std::set<uint32_t>>& ids_at() const { return ids_at_; }
  const std::map<uint32_t, uint32_t>& max_version() const { return max_version_; }

 private:
  std::string PickFile() {
    auto it = files_.begin();
    std::advance(it, static_cast<long>(rng_.Uniform(files_.size())));
    return it->first;
  }
  void Touch(const std::string& p) { durable_.erase(p); }

  sim::Task<bool> WritePages(const std::string& p, uint32_t first, uint32_t n) {
    FsResult<Fd> fd = co_await fs_->Open(p, kRdWr);
    if (!fd.ok()) co_return false;
    RefFile& f = files_[p];
    Touch(p);
    for (uint32_t k = first; k < first + n; ++k) {
      const uint32_t v = ++version_;
      const std::vector<uint8_t> d = PageData(f.id, k, v);
      if (!(co_await fs_->Pwrite(fd.value, uint64_t{k} * kBlockSize, d, d.size())).ok()) break;
      if (f.versions.size() <= k) f.versions.resize(k + 1, 0);
      f.versions[k] = v;
      max_version_[f.id] = v;
    }
    co_await fs_->Close(fd.value);
    co_return true;
  }

  sim::Task<void> Create() {
    const std::string p = fmt::format("{}/f{}", dirs_[rng_.Uniform(dirs_.size())], next_name_++);
    FsResult<Fd> fd = co_await fs_->Open(p, kCreat | kExcl | kRdWr);
    if (!fd.ok()) co_return;
    co_await fs_->Close(fd.value);
    RefFile f;
    f.id = ++next_id_;
    files_[p] = f;
    ids_at_[p].insert(f.id);
    gone_.erase(p);
    co_await WritePages(p, 0, static_cast<uint32_t>(1 + rng_.Uniform(rng_.Bernoulli(0.1) ? 64 : 6)));
  }
  sim::Task<void> Overwrite() {
    const std::string p = PickFile();
    const uint32_t pages = static_cast<uint32_t>(files_[p].versions.size());
    const uint32_t first = static_cast<uint32_t>(rng_.Uniform(pages + 2));
    co_await WritePages(p, first, static_cast<uint32_t>(1 + rng_.Uniform(4)));
  }
  sim::Task<void> FsyncOne() {
    const std::string p = PickFile();
    FsResult<Fd> fd = co_await fs_->Open(p, kRdWr);
    if (!fd.ok()) co_return;
    const RefFile snapshot = files_[p];
    const bool ok = rng_.Bernoulli(0.3) ? (co_await fs_->Fdatasync(fd.value)).ok() : (co_await fs_->Fsync(fd.value)).ok();
    co_await fs_->Close(fd.value);
    // Nothing else touched it meanwhile (one driver thread).
    if (ok && files_.count(p) && files_[p].id == snapshot.id && files_[p].versions == snapshot.versions)
      durable_[p] = Durable{snapshot.id, snapshot.versions};
  }
  sim::Task<void> UnlinkOne() {
    const std::string p = PickFile();
    if (!(co_await fs_->Unlink(p)).ok()) co_return;
    files_.erase(p);
    Touch(p);
    unlinked_.insert(p);
  }
  sim::Task<void> RenameOne() {
    const std::string from = PickFile();
    const std::string to = rng_.Bernoulli(0.5) ? PickFile()
                                               : fmt::format("{}/r{}", dirs_[rng_.Uniform(dirs_.size())], next_name_++);
    if (from == to) co_return;
    if (!(co_await fs_->Rename(from, to)).ok()) co_return;
    RefFile f = files_[from];
    files_.erase(from);
    files_[to] = f;
    Touch(from);
    Touch(to);
    unlinked_.insert(from);
    ids_at_[to].insert(f.id);
    gone_.erase(to);
  }
  sim::Task<void> TruncateOne() {
    const std::string p = PickFile();
    RefFile& f = files_[p];
    const uint32_t keep = static_cast<uint32_t>(rng_.Uniform(f.versions.size() + 1));
    if (!(co_await fs_->Truncate(p, uint64_t{keep} * kBlockSize)).ok()) co_return;
    f.versions.resize(keep);
    Touch(p);
  }

  Ext4* fs_;
  sim::EventQueue* q_;
  sim::Rng rng_;
  std::vector<std::string> dirs_;
  std::map<std::string, RefFile> files_;
  std::map<std::string, Durable> durable_;
  std::set<std::string> unlinked_, gone_;
  std::map<std::string, std::set<uint32_t>> ids_at_;
  std::map<uint32_t, uint32_t> max_version_;
  uint32_t next_id_ = 0, next_name_ = 0, version_ = 0;
};

sim::Task<std::string> Verify(Ext4* fs, const Driver& d) {
  // Durable files hold exactly what they held.
  for (const auto& [p, want] : d.durable()) {
    FsResult<Fd> fd = co_await fs->Open(p, kRdOnly);
    if (!fd.ok()) co_return fmt::format("durable {} missing", p);
    FsResult<FileStat> st = co_await fs->Fstat(fd.value);
    if (st.value.size != want.versions.size() * uint64_t{kBlockSize})
      co_return fmt::format("durable {}: size {} want {}", p, st.value.size, want.versions.size() * kBlockSize);
    std::vector<uint8_t> buf(kBlockSize);
    for (uint32_t k = 0; k < want.versions.size(); ++k) {
      co_await fs->Pread(fd.value, uint64_t{k} * kBlockSize, buf);
      const std::vector<uint8_t> exp =
          want.versions[k] == 0 ? std::vector<uint8_t>(kBlockSize, 0) : PageData(want.id, k, want.versions[k]);
      if (buf != exp) co_return fmt::format("durable {}: page {} differs", p, k);
    }
    co_await fs->Close(fd.value);
  }
  // Every surviving file shows only zeros or its own pages.
  std::vector<std::string> todo{"/"};
  while (!todo.empty()) {
    const std::string dir = todo.back();
    todo.pop_back();
    FsResult<std::vector<std::string>> l = co_await fs->Readdir(dir);
    if (!l.ok()) co_return "readdir " + dir;
    for (const std::string& n : l.value) {
      const std::string p = dir == "/" ? "/" + n : dir + "/" + n;
      FsResult<FileStat> st = co_await fs->Stat(p);
      if (!st.ok()) co_return "stat " + p;
      if (st.value.is_dir) {
        todo.push_back(p);
        continue;
      }
      if (d.gone().count(p)) co_return fmt::format("{} was gone at a sync but is back", p);
      auto ids = d.ids_at().find(p);
      if (ids == d.ids_at().end()) co_return fmt::format("{}: a name never created", p);
      FsResult<Fd> fd = co_await fs->Open(p, kRdOnly);
      std::vector<uint8_t> buf(kBlockSize);
      for (uint64_t k = 0; k * kBlockSize < st.value.size; ++k) {
        FsResult<uint64_t> r = co_await fs->Pread(fd.value, k * kBlockSize, buf);
        buf.resize(r.value);
        buf.resize(kBlockSize, 0);
        if (std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0; })) continue;
        uint32_t rec[4];
        std::memcpy(rec, buf.data(), 16);
        if (rec[3] != kMagic || rec[1] != k || !ids->second.count(rec[0]))
          co_return fmt::format("{}: page {} holds data it never wrote (id {}, page {})", p, k, rec[0], rec[1]);
        if (buf != PageData(rec[0], rec[1], rec[2])) co_return fmt::format("{}: page {} torn", p, k);
      }
      co_await fs->Close(fd.value);
    }
  }
  co_return "";
}

int Iterations() {
  const char* e = std::getenv("FLASHSTACK_EXT4_CRASH_ITERATIONS");
  return e ? std::atoi(e) : 20;
}

TEST(Ext4CrashTest, RandomPowerCutsKeepEverythingDurableAndExposeNoStaleData) {
  const int iterations = Iterations();
  // FLASHSTACK_EXT4_CRASH_FIRST reruns from a given cut (reproduction).
  const char* first = std::getenv("FLASHSTACK_EXT4_CRASH_FIRST");
  uint64_t replayed = 0;
  for (int it = first ? std::atoi(first) : 0; it < iterations; ++it) {
    if (std::getenv("FLASHSTACK_EXT4_CRASH_VERBOSE")) fprintf(stderr, "cut %d\n", it);
    Stack s(128ull << 20, CrashConfig());
    s.FormatAndMount();
    sim::Rng rng(static_cast<uint64_t>(it) + 1, "ext4.crash.cut");
    Driver d(s.fs_ptr(), &s.q(), static_cast<uint64_t>(it) * 7919 + 3);
    sim::ThreadGroup g(&s.q());
    g.Spawn(d.Run());
    const uint64_t events = 2000 + rng.Uniform(400000);
    for (uint64_t e = 0; e < events && s.q().Step(); ++e) {
    }
    const uint64_t commits = s.fs().commits();
    g.DestroyAll();
    s.RandomPowerCut(rng);
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << "cut " << it << ": " << st.message();
    st = s.fs().Check();
    ASSERT_TRUE(st.ok()) << "cut " << it << " after " << events << " events, " << commits << " commits: " << st.message();
    replayed += static_cast<uint64_t>(s.stats().Value("fs.blocks_written.meta"));
    const std::string err = s.Run(Verify(s.fs_ptr(), d));
    ASSERT_TRUE(err.empty()) << "cut " << it << " after " << events << " events: " << err;
    // The recovered volume keeps working and survives a clean remount.
    ASSERT_TRUE(s.Run(s.fs().Mkdir("/after")).ok());
    s.Remount();
    s.ExpectCheck();
  }
  EXPECT_GT(replayed, 0u) << "no cut replayed any journal";
}

}  // namespace
}  // namespace fs::ext4
