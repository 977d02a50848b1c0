#include "fs/vfs/page_cache.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::vfs {

void PageCacheConfig::Describe(sim::Schema<PageCacheConfig>& s) {
  s.Param("memory", &PageCacheConfig::memory, "1GiB", "Page cache size (data, dentry and node pages)").Min(1 << 20);
  s.Param("dirty_background_ratio", &PageCacheConfig::dirty_background_ratio, "10%",
          "vm.dirty_background_ratio: the flusher starts writeback above this share of the cache");
  s.Param("dirty_ratio", &PageCacheConfig::dirty_ratio, "20%",
          "vm.dirty_ratio: writers are throttled above this share of the cache");
  s.Param("dirty_expire", &PageCacheConfig::dirty_expire, "30s",
          "vm.dirty_expire_centisecs: dirty data older than this is written back");
  s.Param("writeback_interval", &PageCacheConfig::writeback_interval, "5s",
          "vm.dirty_writeback_centisecs: flusher wake-up period (0: no periodic wake-up; the flusher runs only "
          "above dirty_background_ratio)");
  s.Param("readahead", &PageCacheConfig::readahead, "128KiB", "Read-ahead window of sequential reads");
}

// ---- PageCache.

void PageCache::LruAdd(CachedPage* p) {
  CHECK(!p->in_lru);
  p->in_lru = true;
  p->lru_next = nullptr;
  p->lru_prev = lru_tail_;
  if (lru_tail_) lru_tail_->lru_next = p; else lru_head_ = p;
  lru_tail_ = p;
}

void PageCache::LruRemove(CachedPage* p) {
  if (!p->in_lru) return;
  if (p->lru_prev) p->lru_prev->lru_next = p->lru_next; else lru_head_ = p->lru_next;
  if (p->lru_next) p->lru_next->lru_prev = p->lru_prev; else lru_tail_ = p->lru_prev;
  p->lru_prev = p->lru_next = nullptr;
  p->in_lru = false;
}

void PageCache::Touch(CachedPage* p) {
  if (!p->in_lru || p == lru_tail_) return;
  LruRemove(p);
  LruAdd(p);
}

void PageCache::MaybeLru(CachedPage* p) {
  if (!p->dirty && p->writeback == 0 && p->pin == 0 && !p->zombie && !p->in_lru) LruAdd(p);
}

void PageCache::Admit() {
  ++pages_;
  EvictDownTo(limit_);
}

void PageCache::Pin(CachedPage* p) {
  ++p->pin;
  LruRemove(p);
}

void PageCache::Unpin(CachedPage* p) {
  CHECK_GT(p->pin, 0);
  --p->pin;
  if (p->zombie) {
    if (p->pin == 0 && p->writeback == 0) FreeZombie(p);
    return;
  }
  MaybeLru(p);
}

void PageCache::WritebackDone(CachedPage* p) {
  CHECK_GT(p->writeback, 0);
  --p->writeback;
  if (p->writeback > 0) return;
  if (p->zombie) {
    if (p->pin == 0) FreeZombie(p);
    return;
  }
  MaybeLru(p);
}

void PageCache::Detach(std::unique_ptr<CachedPage> owned) {
  CHECK(owned != nullptr);
  LruRemove(owned.get());
  CHECK_GT(pages_, 0u);
  --pages_;
  if (owned->writeback > 0 || owned->pin > 0) {
    owned->zombie = true;
    zombies_.push_back(std::move(owned));
  }
}

void PageCache::FreeZombie(CachedPage* p) {
  auto it = std::find_if(zombies_.begin(), zombies_.end(), [&](const auto& z) { return z.get() == p; });
  CHECK(it != zombies_.end());
  zombies_.erase(it);
}

void PageCache::EvictDownTo(uint64_t limit) {
  while (pages_ > limit && lru_head_) {
    CachedPage* p = lru_head_;
    LruRemove(p);
    CHECK(!p->dirty && p->writeback == 0 && p->pin == 0 && !p->zombie);
    std::unique_ptr<CachedPage> owned = owner_->Evict(p);
    CHECK(owned.get() == p) << "the owner must hand back the page it was asked to evict";
    --pages_;
  }
}

void PageCache::EvictAll() { EvictDownTo(0); }

// ---- Writeback.

void Writeback::FileDataDirtied(uint64_t id, WritebackState* f) {
  ++dirty_;
  if (!f->on_list) {
    f->on_list = true;
    f->dirtied_when = q_->now();
    list_.push_back(id);
  }
  if (static_cast<double>(dirty_) > Limit(cfg_.dirty_background_ratio)) timer_.Kick();
}

void Writeback::FileDataCleaned(WritebackState* f, uint64_t left) {
  CHECK_GT(dirty_, 0u);
  --dirty_;
  if (left == 0) f->on_list = false;
  if (throttled_.has_waiters() && !OverDirtyLimit()) throttled_.NotifyAll();
}

sim::Task<void> Writeback::Run(WritebackHost* host) {
  // A zero interval turns the periodic wake-ups off (as
  // vm.dirty_writeback_centisecs = 0): the flusher then runs only when
  // kicked. The sleep is a daemon event, so it never keeps a run going.
  const sim::SimTime interval =
      cfg_.writeback_interval > sim::SimTime::Zero() ? cfg_.writeback_interval : sim::kLongSimulatedSpan;
  while (!host->FlusherStop()) {
    co_await timer_.Sleep(interval);
    if (host->FlusherStop()) break;
    const double bg = Limit(cfg_.dirty_background_ratio);
    size_t n = list_.size();
    while (n-- > 0 && !list_.empty() && !host->FlusherAbort()) {
      const uint64_t id = list_.front();
      list_.pop_front();
      uint64_t dirty = 0;
      WritebackState* f = host->FindWritebackState(id, &dirty);
      if (!f || !f->on_list) continue;
      if (dirty == 0) {
        f->on_list = false;
        continue;
      }
      const bool expired = f->dirtied_when + cfg_.dirty_expire <= q_->now();
      const bool over = static_cast<double>(dirty_) > bg;
      if (!expired && !over) {
        list_.push_front(id);
        break;
      }
      if (co_await host->WritebackFile(id, kChunk)) list_.push_back(id);
    }
    if (!host->FlusherAbort()) co_await host->AfterWritebackPass();
  }
}

}  // namespace fs::vfs
