#include "fs/f2fs/cleaner.h"

#include <algorithm>

namespace fs::f2fs {

sim::Result<std::unique_ptr<Cleaner>> Cleaner::Create(sim::EventQueue* q, const F2fsConfig& cfg,
                                                      const Layout& layout, const SegmentManager* sm,
                                                      CleanerHost* host, CleanerStats* stats) {
  std::unique_ptr<Cleaner> c(new Cleaner(q, cfg, layout, sm, host, stats));
  FS_ASSIGN_OR_RETURN(c->bg_policy_, MakeVictimPolicy(cfg.gc.bg_policy, cfg.gc));
  FS_ASSIGN_OR_RETURN(c->fg_policy_, MakeVictimPolicy(cfg.gc.fg_policy, cfg.gc));
  return c;
}

Cleaner::Cleaner(sim::EventQueue* q, const F2fsConfig& cfg, const Layout& layout, const SegmentManager* sm,
                 CleanerHost* host, CleanerStats* stats)
    : q_(q),
      cfg_(cfg),
      layout_(layout),
      sm_(sm),
      host_(host),
      stats_(stats),
      bg_victims_(layout.section_count, 0),
      lock_(q),
      timer_(q) {}

void Cleaner::RefreshBgVictims() {
  size_t keep = 0;
  for (uint32_t sec : bg_victim_list_) {
    if (sm_->SectionValid(sec) == 0) {
      bg_victims_[sec] = 0;
      stats_->sections_freed.Inc();
    } else {
      bg_victim_list_[keep++] = sec;
    }
  }
  bg_victim_list_.resize(keep);
}

uint32_t Cleaner::TakeBgVictim() {
  size_t best = bg_victim_list_.size();
  for (size_t i = 0; i < bg_victim_list_.size(); ++i) {
    const uint32_t sec = bg_victim_list_[i];
    if (!sm_->IsGcCandidate(sec)) continue;
    if (best == bg_victim_list_.size() || sec < bg_victim_list_[best]) best = i;
  }
  if (best == bg_victim_list_.size()) return kNoSection;
  const uint32_t sec = bg_victim_list_[best];
  bg_victims_[sec] = 0;
  bg_victim_list_.erase(bg_victim_list_.begin() + static_cast<std::ptrdiff_t>(best));
  return sec;
}

bool Cleaner::HasEnoughInvalidBlocks() const {
  const uint64_t user = layout_.user_block_count;
  const uint64_t written = std::min(user, host_->ValidBlocks());
  const uint64_t invalid_user = user - written;
  const uint64_t limit_invalid = user * 40 / 100;
  const uint64_t free_segs = sm_->free_segments();
  const uint64_t free_user =
      free_segs > layout_.overprov_segments ? (free_segs - layout_.overprov_segments) * kBlocksPerSeg : 0;
  const uint64_t limit_free = (user - written) * 40 / 100;
  return invalid_user > limit_invalid && free_user < limit_free;
}

// f2fs_gc (Linux 5.15): a call starts as background cleaning; if space is
// short on entry, a checkpoint first turns prefree sections free, and only
// if space is still short does the call switch to foreground cleaning,
// for the rest of the call. Foreground rounds then continue until the
// sections they emptied (prefree until the next checkpoint) make up the
// shortfall; no checkpoint is written in between.
sim::Task<uint32_t> Cleaner::Gc(bool foreground, bool from_thread) {
  co_await lock_.LockExclusive();
  vfs::ExclusiveLock gl(&lock_);
  if (host_->Dead()) co_return 0;
  if (foreground) stats_->fg_calls.Inc(); else stats_->bg_calls.Inc();
  uint32_t sec_freed = 0, victims = 0;
  bool fg = false;
  RefreshBgVictims();
  const uint32_t max_rounds = layout_.section_count;
  for (uint32_t round = 0; round < max_rounds && !host_->Dead(); ++round) {
    if (!fg && host_->HasNotEnoughFreeSecs(0)) {
      if (sm_->prefree_segments() > 0) co_await host_->CheckpointForCleaning();
      if (host_->Dead()) break;
      if (host_->HasNotEnoughFreeSecs(0)) fg = true;
    }
    if (!fg && foreground && !from_thread) break;  // a caller with enough space (-EINVAL)
    uint32_t sec = fg ? TakeBgVictim() : kNoSection;
    if (sec == kNoSection) {
      VictimContext ctx;
      ctx.sm = sm_;
      ctx.now = q_->now();
      ctx.max_search = fg ? 0 : cfg_.gc.max_victim_search;
      ctx.last_victim = fg ? &last_victim_fg_ : &last_victim_bg_;
      if (!fg) ctx.skip = &bg_victims_;
      sec = (fg ? fg_policy_ : bg_policy_)->Select(ctx);
    }
    if (sec == kNoSection) break;
    ++victims;
    if (fg) stats_->victims_fg.Inc(); else stats_->victims_bg.Inc();
    co_await host_->MigrateSection(sec, fg);
    if (sm_->SectionValid(sec) == 0) {
      stats_->sections_freed.Inc();
      if (fg) ++sec_freed;  // only foreground rounds count toward the shortfall
    } else if (!fg && !bg_victims_[sec]) {
      bg_victims_[sec] = 1;  // emptied once the moved pages are written
      bg_victim_list_.push_back(sec);
    }
    if (!host_->HasNotEnoughFreeSecs(sec_freed)) break;
    // ParaFS's coordinated cleaning (regions): a manager checkpoints after
    // cleaning, so the sections emptied so far become free (and are
    // trimmed for the device to erase) before the logs of the regions run
    // out (fewer free sections than two a region); the kernel's F2FS waits
    // for the end of the call.
    if (fg && sm_->regions() > 1 && sm_->prefree_segments() > 0 && sm_->free_sections() < 2 * sm_->regions()) {
      co_await host_->CheckpointForCleaning();
      sec_freed = 0;
      if (!host_->HasNotEnoughFreeSecs(0)) break;
    }
  }
  co_return victims;
}

sim::Task<void> Cleaner::Thread() {
  const sim::SimTime min = cfg_.gc.min_sleep, max = cfg_.gc.max_sleep, no_gc = cfg_.gc.no_gc_sleep;
  sim::SimTime wait = min;
  auto increase = [&] {
    if (wait == no_gc) return;
    wait = wait + min > max ? max : wait + min;
  };
  auto decrease = [&] {
    if (wait == no_gc) wait = max;
    wait = wait - min <= min ? min : wait - min;
  };
  while (!host_->Stopping() && !host_->Dead()) {
    co_await timer_.Sleep(wait);
    if (host_->Stopping() || host_->Dead()) break;
    RefreshBgVictims();
    if (!host_->IsIdle(cfg_.gc.idle_interval)) {
      increase();
      co_await host_->BackgroundBalance();
      continue;
    }
    if (HasEnoughInvalidBlocks()) decrease(); else increase();
    const uint32_t victims = co_await Gc(/*foreground=*/false, /*from_thread=*/true);
    if (victims == 0) wait = no_gc;
    if (!host_->Dead()) co_await host_->BackgroundBalance();
  }
}

}  // namespace fs::f2fs
