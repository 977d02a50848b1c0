// The page cache and writeback every file-system model shares: cached pages
// on an LRU under a memory limit (PageCache), and the accounting of dirty
// file data with writer throttling and a flusher pass (Writeback) — Linux's
// mm/filemap.c, mm/page-writeback.c and fs/fs-writeback.c at the level the
// models need. A file system keeps its pages in its own structures (per
// file, per node) and its own page types derived from CachedPage; what it
// writes and how is its own (the Writeback calls back for each file).
//
// PageCache contract:
// - A page is counted from Admit() until it is given back by Detach() or
//   taken by eviction. It sits on the LRU exactly while it is evictable:
//   clean, no write in flight (`writeback`), not pinned, not detached.
//   Callers that change `dirty` or `writeback` call MaybeLru (or LruRemove)
//   as the functions below say; Pin/Unpin and WritebackDone keep the LRU
//   right themselves.
// - Admit() evicts least-recently-used pages while the count is above the
//   limit: the owner's Evict hands the page back (unlinked from its
//   structures) and the cache destroys it. Only pages on the LRU are
//   evicted, so a dirty, pinned or in-flight page never is (the cache may
//   then stay above its limit).
// - Detach(): the owner gives a page up (truncate, unlink, node freed). A
//   page still pinned or under writeback becomes a zombie, kept until the
//   last Unpin/WritebackDone; otherwise it is destroyed at once.
// - Deterministic: eviction order is LRU order, which is the order of
//   Touch/MaybeLru calls.
//
// Writeback contract (file data only; directory and metadata pages are the
// file system's):
// - FileDataDirtied/FileDataCleaned count dirty file-data pages, in the
//   order the file system dirties and cleans them. The first dirty page of
//   a file puts it on the flusher list (oldest first) and stamps when it
//   was dirtied; a file whose last dirty page is cleaned leaves the list
//   (stale list entries are skipped).
// - Above dirty_background_ratio of the cache limit the flusher is kicked;
//   Throttle() makes a writer wait while dirty pages are above dirty_ratio
//   (balance_dirty_pages), woken as pages are cleaned.
// - Run() is the flusher thread: every writeback_interval (or when kicked;
//   only when kicked if the interval is 0) it walks the list once, writing back (WritebackHost::WritebackFile)
//   each file whose data expired (dirty_expire) or while the total is above
//   the background ratio, then calls the host's AfterWritebackPass.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "fs/vfs/sync_primitives.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/task.h"
#include "sim/time.h"
#include "sim/units.h"

namespace fs::vfs {

// Linux page cache and writeback (vm.dirty_* sysctls).
struct PageCacheConfig {
  sim::Bytes memory;  // page cache limit (every cached page of the file system)
  sim::Ratio dirty_background_ratio;
  sim::Ratio dirty_ratio;
  sim::SimTime dirty_expire;
  sim::SimTime writeback_interval;
  sim::Bytes readahead;
  static void Describe(sim::Schema<PageCacheConfig>& s);
};

// The state every cached page shares; a file system derives its page types.
struct CachedPage {
  virtual ~CachedPage() = default;
  bool dirty = false;
  bool zombie = false;  // detached from its owner, freed when writeback ends
  bool in_lru = false;
  uint16_t writeback = 0;  // writes of the page in flight
  uint16_t pin = 0;
  CachedPage* lru_prev = nullptr;
  CachedPage* lru_next = nullptr;
};

class PageCache {
 public:
  class Owner {
   public:
    // Unlinks the evictable page `p` from the owner's structures and
    // returns it (the cache destroys it).
    virtual std::unique_ptr<CachedPage> Evict(CachedPage* p) = 0;

   protected:
    ~Owner() = default;
  };

  // `limit_pages`: the most pages kept while others are evictable.
  PageCache(Owner* owner, uint64_t limit_pages) : owner_(owner), limit_(limit_pages) {}
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // Makes room for a new page and counts it: evicts past the limit. Call
  // before creating the page, then MaybeLru(page) once it is in the
  // owner's structures.
  void Admit();
  // A cache hit: most recently used.
  void Touch(CachedPage* p);
  // Puts `p` on the LRU if it is evictable and not there yet.
  void MaybeLru(CachedPage* p);
  void LruRemove(CachedPage* p);
  void Pin(CachedPage* p);
  void Unpin(CachedPage* p);  // frees a zombie once unpinned and written
  // One write of `p` completed.
  void WritebackDone(CachedPage* p);
  // The owner gives the page up (see the contract).
  void Detach(std::unique_ptr<CachedPage> owned);
  // Evicts every evictable page (drop_caches).
  void EvictAll();

  uint64_t pages() const { return pages_; }
  uint64_t limit() const { return limit_; }

 private:
  void LruAdd(CachedPage* p);
  void EvictDownTo(uint64_t limit);
  void FreeZombie(CachedPage* p);

  Owner* owner_;
  const uint64_t limit_;
  uint64_t pages_ = 0;
  CachedPage* lru_head_ = nullptr;  // least recently used
  CachedPage* lru_tail_ = nullptr;
  std::vector<std::unique_ptr<CachedPage>> zombies_;
};

// A file's place on the flusher list, kept in the file system's inode.
struct WritebackState {
  bool on_list = false;
  sim::SimTime dirtied_when;  // when its oldest dirty data was dirtied
};

class WritebackHost {
 public:
  // The writeback state of file `id` and its dirty data pages; null if the
  // file is gone.
  virtual WritebackState* FindWritebackState(uint64_t id, uint64_t* dirty_pages) = 0;
  // Writes back up to `max_pages` dirty pages of file `id`, not waiting for
  // them; the file stays valid until it returns. Returns whether it still
  // has dirty pages and is on the list.
  virtual sim::Task<bool> WritebackFile(uint64_t id, uint64_t max_pages) = 0;
  // The flusher starts no further pass (power cut, unmount).
  virtual bool FlusherStop() const = 0;
  // The flusher abandons the pass it is in (power cut).
  virtual bool FlusherAbort() const = 0;
  // After each pass not abandoned (e.g. the file system's background
  // balancing).
  virtual sim::Task<void> AfterWritebackPass() = 0;

 protected:
  ~WritebackHost() = default;
};

class Writeback {
 public:
  // Pages written back per file per pass (MAX_WRITEBACK_PAGES-like).
  static constexpr uint64_t kChunk = 1024;

  Writeback(sim::EventQueue* q, const PageCacheConfig& cfg, const PageCache* cache)
      : q_(q), cfg_(cfg), cache_(cache), throttled_(q), timer_(q) {}

  // A page of file `id` became dirty (the file's state `f`).
  void FileDataDirtied(uint64_t id, WritebackState* f);
  // A dirty page of the file was cleaned (written or dropped); `left`: the
  // file's dirty pages now.
  void FileDataCleaned(WritebackState* f, uint64_t left);
  // Dirty file data is above dirty_ratio: a writer would be throttled.
  bool OverDirtyLimit() const { return static_cast<double>(dirty_) > Limit(cfg_.dirty_ratio); }
  // balance_dirty_pages: waits while dirty data is above dirty_ratio,
  // kicking the flusher; returns at once once `stopped()` is true.
  template <typename StoppedFn>
  sim::Task<void> Throttle(StoppedFn stopped);
  // The flusher thread's loop; returns once the host stops.
  sim::Task<void> Run(WritebackHost* host);
  // Wakes the flusher now.
  void Kick() { timer_.Kick(); }
  // Power cut: nothing is woken or scheduled from now on.
  void Kill() {
    throttled_.Kill();
    timer_.Cancel();
  }

  uint64_t dirty_pages() const { return dirty_; }

 private:
  double Limit(sim::Ratio r) const { return static_cast<double>(cache_->limit()) * r.value; }

  sim::EventQueue* q_;
  const PageCacheConfig& cfg_;
  const PageCache* cache_;
  uint64_t dirty_ = 0;
  std::deque<uint64_t> list_;  // files with dirty data, in dirtying order (may hold stale entries)
  WaitQueue throttled_;        // writers throttled by dirty_ratio
  DaemonTimer timer_;
};

template <typename StoppedFn>
sim::Task<void> Writeback::Throttle(StoppedFn stopped) {
  while (OverDirtyLimit() && !stopped()) {
    timer_.Kick();
    co_await throttled_.Wait();
  }
}

}  // namespace fs::vfs
