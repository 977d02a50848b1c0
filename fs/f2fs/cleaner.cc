#include "fs/f2fs/cleaner.h"

#include <algorithm>

#include "fs/f2fs/parafs_2d_allocation_policy.h"

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
      timer_(q),
      join_wq_(q),
      workers_(q) {
  per_region_ = sm->regions() > 1 && cfg.allocation == "parafs_2d" &&
                cfg.impl_configs.Get<Parafs2dConfig>("parafs_2d").gc_threads == "per_region";
  if (per_region_) {
    last_victim_fg_r_.assign(sm->regions(), 0);
    last_victim_bg_r_.assign(sm->regions(), 0);
    for (uint32_t r = 0; r < sm->regions(); ++r) region_timers_.push_back(std::make_unique<vfs::DaemonTimer>(q));
  }
}

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

uint32_t Cleaner::TakeBgVictim(uint32_t region) {
  size_t best = bg_victim_list_.size();
  for (size_t i = 0; i < bg_victim_list_.size(); ++i) {
    const uint32_t sec = bg_victim_list_[i];
    if (!sm_->IsGcCandidate(sec)) continue;
    if (region != kAnyRegion && sm_->RegionOfSection(sec) != region) continue;
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
  if (per_region_) co_return co_await GcRegions(foreground, from_thread);
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
    MigrationStarts();
    co_await host_->MigrateSection(sec, fg);
    --migrating_;
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
  if (!per_region_) {
    co_await ThreadLoop(&timer_, kAnyRegion);
    co_return;
  }
  threads_running_ = sm_->regions();
  for (uint32_t r = 0; r < sm_->regions(); ++r) workers_.Spawn(RegionThread(r));
  while (threads_running_ > 0 && !host_->Dead()) co_await join_wq_.Wait();
}

sim::Task<void> Cleaner::RegionThread(uint32_t region) {
  co_await ThreadLoop(region_timers_[region].get(), region);
  if (--threads_running_ == 0) join_wq_.NotifyAll();
}

sim::Task<void> Cleaner::ThreadLoop(vfs::DaemonTimer* timer, uint32_t region) {
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
  // One thread runs the host's background balance (region 0's when each
  // region has its own).
  const bool balances = region == kAnyRegion || region == 0;
  while (!host_->Stopping() && !host_->Dead()) {
    co_await timer->Sleep(wait);
    if (host_->Stopping() || host_->Dead()) break;
    RefreshBgVictims();
    if (!host_->IsIdle(cfg_.gc.idle_interval)) {
      increase();
      if (balances) co_await host_->BackgroundBalance();
      continue;
    }
    if (HasEnoughInvalidBlocks()) decrease(); else increase();
    const uint32_t victims = region == kAnyRegion ? co_await Gc(/*foreground=*/false, /*from_thread=*/true)
                                                  : co_await GcRegionBackground(region);
    if (victims == 0) wait = no_gc;
    if (balances && !host_->Dead()) co_await host_->BackgroundBalance();
  }
}

// ---- Per-region cleaning (ParaFS's multi-threaded GC).

// The manager: a foreground call short of space runs passes of concurrent
// per-region cleaning, each followed by a checkpoint.
sim::Task<uint32_t> Cleaner::GcRegions(bool foreground, bool from_thread) {
  co_await lock_.LockExclusive();
  vfs::ExclusiveLock gl(&lock_);
  if (host_->Dead()) co_return 0;
  RefreshBgVictims();
  if (!host_->HasNotEnoughFreeSecs(0)) co_return 0;  // background cleaning is the region threads'
  if (foreground) stats_->fg_calls.Inc(); else stats_->bg_calls.Inc();
  if (sm_->prefree_segments() > 0) co_await host_->CheckpointForCleaning();
  const uint32_t regions = sm_->regions();
  uint32_t victims = 0;
  for (uint32_t pass = 0; pass < layout_.section_count && !host_->Dead() && host_->HasNotEnoughFreeSecs(0); ++pass) {
    // Each region's share of what the host needs (the foreground threshold
    // per region): shares that add up to more than the need end the
    // shortage once every region has its own.
    const uint32_t share = (host_->NeededFreeSecs() + 1 + regions - 1) / regions;
    uint32_t pass_victims = 0;
    std::vector<uint32_t> short_regions;
    for (uint32_t r = 0; r < regions; ++r)
      if (sm_->free_sections(r) < share) short_regions.push_back(r);
    // Short overall with every region at its share cannot happen (the
    // shares add up to more than the need); clean everywhere if it does.
    if (short_regions.empty())
      for (uint32_t r = 0; r < regions; ++r) short_regions.push_back(r);
    stats_->region_passes.Inc();
    tasks_running_ = static_cast<uint32_t>(short_regions.size());
    pass_emptied_ = 0;
    for (uint32_t r : short_regions)
      workers_.Spawn(CleanRegion(r, std::max(share, sm_->free_sections(r) + 1), &pass_victims));
    while (tasks_running_ > 0 && !host_->Dead()) co_await join_wq_.Wait();
    if (host_->Dead()) break;
    victims += pass_victims;
    if (pass_victims == 0) break;
    if (sm_->prefree_segments() > 0) co_await host_->CheckpointForCleaning();
  }
  co_return victims;
}

// One region's cleaning task of a foreground pass: victims of the region
// until it has `share` free sections counting those it emptied, or the
// sections the pass emptied end the host's shortage.
sim::Task<void> Cleaner::CleanRegion(uint32_t region, uint32_t share, uint32_t* victims) {
  uint32_t emptied = 0;
  while (!host_->Dead() && sm_->free_sections(region) + emptied < share && host_->HasNotEnoughFreeSecs(pass_emptied_)) {
    uint32_t sec = TakeBgVictim(region);
    if (sec == kNoSection) {
      VictimContext ctx;
      ctx.sm = sm_;
      ctx.now = q_->now();
      ctx.max_search = 0;
      ctx.last_victim = &last_victim_fg_r_[region];
      ctx.region = region;
      sec = fg_policy_->Select(ctx);
    }
    if (sec == kNoSection) break;
    ++*victims;
    stats_->victims_fg.Inc();
    MigrationStarts();
    co_await host_->MigrateSection(sec, /*foreground=*/true);
    --migrating_;
    if (sm_->SectionValid(sec) == 0) {
      stats_->sections_freed.Inc();
      ++emptied;
      ++pass_emptied_;
    }
    // The logs write the moved blocks into free sections of every region:
    // the manager's checkpoint frees the emptied ones before they run out.
    if (sm_->free_sections() < 2 * sm_->regions()) break;
  }
  if (--tasks_running_ == 0) join_wq_.NotifyAll();
}

// One background victim of `region` (or the foreground passes when the
// host lacks space).
sim::Task<uint32_t> Cleaner::GcRegionBackground(uint32_t region) {
  if (host_->HasNotEnoughFreeSecs(0)) co_return co_await GcRegions(/*foreground=*/false, /*from_thread=*/true);
  co_await lock_.LockShared();
  vfs::SharedLock gl(&lock_);
  if (host_->Dead() || host_->HasNotEnoughFreeSecs(0)) co_return 0;
  stats_->bg_calls.Inc();
  VictimContext ctx;
  ctx.sm = sm_;
  ctx.now = q_->now();
  ctx.max_search = cfg_.gc.max_victim_search;
  ctx.last_victim = &last_victim_bg_r_[region];
  ctx.skip = &bg_victims_;
  ctx.region = region;
  const uint32_t sec = bg_policy_->Select(ctx);
  if (sec == kNoSection) co_return 0;
  stats_->victims_bg.Inc();
  bg_victims_[sec] = 1;  // no other thread takes it while it moves
  MigrationStarts();
  co_await host_->MigrateSection(sec, /*foreground=*/false);
  --migrating_;
  if (sm_->SectionValid(sec) == 0) {
    bg_victims_[sec] = 0;
    stats_->sections_freed.Inc();
  } else {
    bg_victim_list_.push_back(sec);  // emptied once the moved pages are written
  }
  co_return 1;
}

}  // namespace fs::f2fs
