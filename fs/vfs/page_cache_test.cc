// Conformance of the shared page cache and writeback (fs/vfs/page_cache.h)
// against a fake owner: LRU eviction under the limit, what is never
// evicted, zombies, dirty accounting, throttling and the flusher pass.
#include "fs/vfs/page_cache.h"

#include <map>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "sim/task.h"

namespace fs::vfs {
namespace {

using sim::SimTime;

struct TestPage : CachedPage {
  explicit TestPage(int i, std::vector<int>* d) : id(i), destroyed(d) {}
  ~TestPage() override { destroyed->push_back(id); }
  int id;
  std::vector<int>* destroyed;
};

// Owns pages by id, like a file system's per-file page map.
class FakeOwner : public PageCache::Owner {
 public:
  explicit FakeOwner(uint64_t limit) : cache(this, limit) {}
  ~FakeOwner() { pages.clear(); }
  TestPage* New(int id) {
    cache.Admit();
    auto p = std::make_unique<TestPage>(id, &destroyed);
    TestPage* raw = p.get();
    pages[id] = std::move(p);
    cache.MaybeLru(raw);
    return raw;
  }
  void Drop(int id) {
    auto it = pages.find(id);
    std::unique_ptr<CachedPage> owned = std::move(it->second);
    pages.erase(it);
    cache.Detach(std::move(owned));
  }
  std::unique_ptr<CachedPage> Evict(CachedPage* p) override {
    const int id = static_cast<TestPage*>(p)->id;
    evicted.push_back(id);
    auto it = pages.find(id);
    std::unique_ptr<CachedPage> owned = std::move(it->second);
    pages.erase(it);
    return owned;
  }
  std::vector<int> evicted, destroyed;  // before `pages`, whose pages report here when destroyed
  std::map<int, std::unique_ptr<TestPage>> pages;
  PageCache cache;
};

TEST(PageCacheTest, EvictsLeastRecentlyUsedPastTheLimit) {
  FakeOwner o(3);
  TestPage* p1 = o.New(1);
  o.New(2);
  o.New(3);
  o.cache.Touch(p1);  // 2 is now the oldest
  o.New(4);
  EXPECT_EQ(o.evicted, (std::vector<int>{2}));
  EXPECT_EQ(o.destroyed, (std::vector<int>{2}));
  EXPECT_EQ(o.cache.pages(), 3u);
  o.New(5);
  EXPECT_EQ(o.evicted, (std::vector<int>{2, 3}));
  EXPECT_EQ(o.cache.pages(), 3u);
}

TEST(PageCacheTest, DirtyPinnedAndWrittenPagesAreNotEvicted) {
  FakeOwner o(2);
  TestPage* d = o.New(1);
  d->dirty = true;
  o.cache.LruRemove(d);
  TestPage* pinned = o.New(2);
  o.cache.Pin(pinned);
  TestPage* wb = o.New(3);
  ++wb->writeback;
  o.cache.LruRemove(wb);
  // Nothing evictable: the cache grows past its limit rather than lose them.
  EXPECT_TRUE(o.evicted.empty());
  EXPECT_EQ(o.cache.pages(), 3u);
  // Once evictable they go, oldest first by when they became evictable.
  o.cache.WritebackDone(wb);  // 3 joins the LRU
  o.cache.Unpin(pinned);      // then 2
  o.New(4);
  EXPECT_EQ(o.evicted, (std::vector<int>{3, 2}));
  EXPECT_EQ(o.cache.pages(), 2u);  // the dirty page and the new one
  d->dirty = false;
  o.cache.MaybeLru(d);
  o.cache.EvictAll();
  EXPECT_EQ(o.cache.pages(), 0u);
  EXPECT_EQ(o.evicted, (std::vector<int>{3, 2, 4, 1}));
}

TEST(PageCacheTest, DetachedPagesLiveUntilUnpinnedAndWritten) {
  FakeOwner o(10);
  TestPage* a = o.New(1);
  TestPage* b = o.New(2);
  o.New(3);
  o.cache.Pin(a);
  o.cache.Pin(a);
  ++b->writeback;
  o.cache.LruRemove(b);
  o.Drop(1);
  o.Drop(2);
  o.Drop(3);
  EXPECT_EQ(o.destroyed, (std::vector<int>{3}));  // only the idle page at once
  EXPECT_EQ(o.cache.pages(), 0u);
  EXPECT_TRUE(a->zombie);
  o.cache.Unpin(a);
  EXPECT_EQ(o.destroyed, (std::vector<int>{3}));
  o.cache.Unpin(a);
  EXPECT_EQ(o.destroyed, (std::vector<int>{3, 1}));
  o.cache.WritebackDone(b);
  EXPECT_EQ(o.destroyed, (std::vector<int>{3, 1, 2}));
  EXPECT_TRUE(o.evicted.empty());
}

// ---- Writeback.

struct FakeFile {
  WritebackState wb;
  uint64_t dirty = 0;
};

class FakeFs : public WritebackHost {
 public:
  FakeFs(sim::EventQueue* q, const PageCacheConfig& cfg, const PageCache* cache) : q_(q), wb(q, cfg, cache) {}
  void Dirty(uint64_t id) {
    ++files[id].dirty;
    wb.FileDataDirtied(id, &files[id].wb);
  }
  void Clean(uint64_t id) {
    --files[id].dirty;
    wb.FileDataCleaned(&files[id].wb, files[id].dirty);
  }
  WritebackState* FindWritebackState(uint64_t id, uint64_t* dirty) override {
    auto it = files.find(id);
    if (it == files.end()) return nullptr;
    *dirty = it->second.dirty;
    return &it->second.wb;
  }
  sim::Task<bool> WritebackFile(uint64_t id, uint64_t max_pages) override {
    written.push_back({id, q_->now()});
    co_await sim::Delay(q_, sim::Us(100));
    uint64_t n = std::min(max_pages, files[id].dirty);
    while (n-- > 0) Clean(id);
    co_return files[id].dirty > 0 && files[id].wb.on_list;
  }
  bool FlusherStop() const override { return stop; }
  bool FlusherAbort() const override { return false; }
  sim::Task<void> AfterWritebackPass() override {
    ++passes;
    co_return;
  }
  sim::EventQueue* q_;
  std::map<uint64_t, FakeFile> files;
  std::vector<std::pair<uint64_t, SimTime>> written;
  int passes = 0;
  bool stop = false;
  Writeback wb;
};

PageCacheConfig Cfg() {
  PageCacheConfig c;
  c.memory = sim::Bytes{100 * 4096};
  c.dirty_background_ratio = sim::Ratio{0.10};
  c.dirty_ratio = sim::Ratio{0.20};
  c.dirty_expire = sim::Sec(30);
  c.writeback_interval = sim::Sec(5);
  return c;
}

struct NullOwner : PageCache::Owner {
  std::unique_ptr<CachedPage> Evict(CachedPage*) override { return nullptr; }
};

TEST(WritebackTest, FlusherWritesExpiredFilesOldestFirst) {
  sim::EventQueue q;
  const PageCacheConfig cfg = Cfg();
  NullOwner owner;
  PageCache cache(&owner, 100);
  FakeFs fs(&q, cfg, &cache);
  fs.Dirty(7);  // t=0
  fs.Dirty(7);
  sim::Spawn(&q, [](FakeFs* fs, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Sec(12));
    fs->Dirty(3);  // t=12: expires at 42
  }(&fs, &q));
  OwnedThread flusher;  // destroyed before `fs`: the flusher sleeps past the end of the run
  flusher.Start(&q, fs.wb.Run(&fs));
  sim::Spawn(&q, [](FakeFs* fs, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Sec(61));
    fs->stop = true;
  }(&fs, &q));
  q.Run(sim::Sec(70));
  // Below the background ratio nothing is written before it expires: file 7
  // at the wake-up at 30 s, file 3 at the first past 42 s (the interval runs
  // from the end of a pass, and the pass at 30 s took 100 us).
  ASSERT_EQ(fs.written.size(), 2u);
  EXPECT_EQ(fs.written[0].first, 7u);
  EXPECT_EQ(fs.written[0].second, sim::Sec(30));
  EXPECT_EQ(fs.written[1].first, 3u);
  EXPECT_EQ(fs.written[1].second, sim::Sec(45) + sim::Us(100));
  EXPECT_EQ(fs.wb.dirty_pages(), 0u);
  EXPECT_FALSE(fs.files[7].wb.on_list);
  EXPECT_GE(fs.passes, 9);
}

TEST(WritebackTest, AboveTheBackgroundRatioTheFlusherIsKickedAndWritesAtOnce) {
  sim::EventQueue q;
  const PageCacheConfig cfg = Cfg();
  NullOwner owner;
  PageCache cache(&owner, 100);  // background: above 10 pages
  FakeFs fs(&q, cfg, &cache);
  OwnedThread flusher;  // destroyed before `fs`: the flusher sleeps past the end of the run
  flusher.Start(&q, fs.wb.Run(&fs));
  sim::Spawn(&q, [](FakeFs* fs, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Sec(1));
    for (int i = 0; i < 11; ++i) fs->Dirty(1);
    co_await sim::Delay(q, sim::Sec(1));
    fs->stop = true;
  }(&fs, &q));
  q.Run(sim::Sec(3));
  ASSERT_FALSE(fs.written.empty());
  EXPECT_EQ(fs.written[0].second, sim::Sec(1));  // kicked, not the 5 s wake-up
  EXPECT_EQ(fs.wb.dirty_pages(), 0u);
}

// writeback_interval 0 (vm.dirty_writeback_centisecs = 0): no periodic
// pass, and the run ends (a zero-length sleep would spin at one instant);
// a kick still writes.
TEST(WritebackTest, ZeroIntervalTurnsPeriodicWritebackOff) {
  sim::EventQueue q;
  PageCacheConfig cfg = Cfg();
  cfg.writeback_interval = SimTime::Zero();
  NullOwner owner;
  PageCache cache(&owner, 100);
  FakeFs fs(&q, cfg, &cache);
  OwnedThread flusher;
  flusher.Start(&q, fs.wb.Run(&fs));
  fs.Dirty(4);
  q.Run(sim::Sec(100));
  EXPECT_TRUE(fs.written.empty());  // expired at 30 s, never written
  EXPECT_EQ(q.now(), sim::Sec(100));
  fs.wb.Kick();
  q.Run(sim::Sec(101));
  ASSERT_EQ(fs.written.size(), 1u);
  EXPECT_EQ(fs.written[0].second, sim::Sec(100));
}

TEST(WritebackTest, WritersWaitAboveTheDirtyRatioUntilPagesAreCleaned) {
  sim::EventQueue q;
  const PageCacheConfig cfg = Cfg();
  NullOwner owner;
  PageCache cache(&owner, 100);  // throttled above 20 dirty pages
  FakeFs fs(&q, cfg, &cache);
  for (int i = 0; i < 21; ++i) fs.Dirty(1);
  EXPECT_TRUE(fs.wb.OverDirtyLimit());
  SimTime released = SimTime::Max();
  sim::Spawn(&q, [](FakeFs* fs, sim::EventQueue* q, SimTime* released) -> sim::Task<void> {
    co_await fs->wb.Throttle([fs] { return fs->stop; });
    *released = q->now();
  }(&fs, &q, &released));
  sim::Spawn(&q, [](FakeFs* fs, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Sec(2));
    fs->Clean(1);  // 20 left: at the limit, no longer above it
  }(&fs, &q));
  q.Run(sim::Sec(1));
  EXPECT_EQ(released, SimTime::Max());  // still throttled (no flusher runs here)
  q.Run(sim::Sec(3));
  EXPECT_EQ(released, sim::Sec(2));
  EXPECT_FALSE(fs.wb.OverDirtyLimit());
}

TEST(WritebackTest, CleaningTheLastDirtyPageTakesTheFileOffTheList) {
  sim::EventQueue q;
  const PageCacheConfig cfg = Cfg();
  NullOwner owner;
  PageCache cache(&owner, 100);
  FakeFs fs(&q, cfg, &cache);
  fs.Dirty(5);
  const SimTime first = fs.files[5].wb.dirtied_when;
  fs.Dirty(5);
  EXPECT_TRUE(fs.files[5].wb.on_list);
  fs.Clean(5);
  EXPECT_TRUE(fs.files[5].wb.on_list);
  fs.Clean(5);
  EXPECT_FALSE(fs.files[5].wb.on_list);
  EXPECT_EQ(fs.wb.dirty_pages(), 0u);
  EXPECT_EQ(first, SimTime());
}

}  // namespace
}  // namespace fs::vfs
