// DiscardManager: the discard thread, the unmount discards and the
// whole-section trims of a fixed-placement device (see discard_manager.h).
#include "fs/f2fs/discard_manager.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

DiscardManager::DiscardManager(const Deps& d)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      dev_(d.device),
      sm_(d.sm),
      dq_(d.dq),
      stats_(d.stats),
      section_trims_(d.section_trims),
      io_(d.io),
      host_(d.host),
      timer_(d.events),
      discard_wq_(d.events) {}

void DiscardManager::Kill() {
  discard_wq_.Kill();
  timer_.Cancel();
}

void DiscardManager::Queue(const std::vector<SegmentManager::DiscardRange>& freed) {
  for (const auto& r : freed) dq_->Add(r.start, r.len);
  WakeThread();
}

uint64_t DiscardManager::ZoneOfSection(uint32_t sec) const {
  const ssd::DeviceLayout& d = dev_->layout();
  const uint64_t byte = uint64_t{layout_.SegStart(SegNo{sec * layout_.segs_per_sec}).v} * kBlockSize;
  return d.zoned->ZoneOf(byte / d.page_size);
}

void DiscardManager::TrimSection(uint32_t sec) {
  io_->SubmitTrim(layout_.SegStart(SegNo{sec * layout_.segs_per_sec}), layout_.blocks_per_sec());
  section_trims_->Inc();
}

void DiscardManager::TrimFreedSections(std::vector<SegmentManager::DiscardRange>* freed) {
  std::vector<SegmentManager::DiscardRange> rest;
  std::vector<uint32_t> trimmed;
  for (const SegmentManager::DiscardRange& r : *freed) {
    const SegNo s = layout_.SegOf(r.start);
    const uint32_t sec = layout_.SecOf(s);
    if (r.len != kBlocksPerSeg || !sm_->SectionFree(sec)) {
      // A sequential zone takes no partial discard: only its whole reset.
      if (!layout_.zoned()) rest.push_back(r);
      continue;
    }
    if (std::find(trimmed.begin(), trimmed.end(), sec) != trimmed.end()) continue;
    trimmed.push_back(sec);
    // What earlier checkpoints queued in the section goes with this trim.
    dq_->DropPending(layout_.SegStart(SegNo{sec * layout_.segs_per_sec}), layout_.blocks_per_sec());
    TrimSection(sec);
  }
  *freed = std::move(rest);
}

void DiscardManager::TrimAllFreeSections() {
  // Sections whose flash blocks the device reports unwritten since their
  // erase need no trim (a large volume would otherwise send one trim per
  // free section at every mount); on a zoned device, those whose zone's
  // write pointer is at its start (check_zone_write_pointer resets the
  // others).
  const ssd::DeviceLayout& d = dev_->layout();
  if (d.zoned != nullptr) {
    for (uint32_t sec = 0; sec < layout_.section_count; ++sec) {
      if (!sm_->SectionFree(sec)) continue;
      const ssd::ZoneInfo z = d.zoned->Report(ZoneOfSection(sec));
      if (z.write_pointer == z.start && z.state == ssd::ZoneState::kEmpty) continue;
      TrimSection(sec);
    }
    return;
  }
  const uint64_t flash_block = uint64_t{d.page_size} * d.pages_per_block;
  const uint64_t sec_bytes = uint64_t{layout_.blocks_per_sec()} * kBlockSize;
  for (uint32_t sec = 0; sec < layout_.section_count; ++sec) {
    if (!sm_->SectionFree(sec)) continue;
    const uint64_t start = uint64_t{layout_.SegStart(SegNo{sec * layout_.segs_per_sec}).v} * kBlockSize;
    bool written = false;
    for (uint64_t b = start / flash_block; b * flash_block < start + sec_bytes && !written; ++b)
      written = d.fixed->WrittenPages(b) != 0;  // -1 (unknown) counts as written
    if (!written) continue;
    TrimSection(sec);
  }
}

DiscardQueue::Policy DiscardManager::BackgroundPolicy(sim::SimTime* max_interval) const {
  DiscardQueue::Policy p;
  p.granularity = cfg_.discard.granularity;
  p.max_requests = cfg_.discard.max_requests;
  p.ordered = true;
  *max_interval = cfg_.discard.max_interval;
  // utilization(): valid blocks (data and nodes) per user block, in whole percent.
  const uint64_t util = host_->ValidBlocks() * 100 / std::max<uint64_t>(1, layout_.user_block_count);
  if (static_cast<double>(util) > cfg_.discard.urgent_util.value * 100) {
    p.granularity = 1;
    if (dq_->commands() > 0) *max_interval = cfg_.discard.min_interval;
  }
  return p;
}

bool DiscardManager::IdleForDiscard() const {
  return !host_->InflightIo(/*count_queued_discards=*/false) &&
         q_->now() - host_->LastRequestTime() >= cfg_.discard.idle_interval;
}

sim::SimTime DiscardManager::DiscardIdleWait() const {
  const sim::SimTime at = host_->LastRequestTime() + cfg_.discard.idle_interval;
  return at > q_->now() ? at - q_->now() : sim::SimTime::Zero();
}

void DiscardManager::WakeThread() {
  if (dq_->HasPendingAtLeast(cfg_.discard.granularity) && IdleForDiscard()) timer_.Kick();
}

void DiscardManager::SubmitDiscard(BlockAddr start, uint32_t count) {
  // No block of a command is in use: allocations punched it (the check
  // the old discard thread made on every block is now an invariant).
  for (uint32_t i = 0; i < count; ++i)
    CHECK(!sm_->BlockValid(BlockAddr{start.v + i})) << "discard of valid block " << start.v + i;
  io_->SubmitTrim(start, count, /*discard_cmd=*/true);
}

sim::Task<void> DiscardManager::WaitIssuedDiscards() {
  while (dq_->issued_commands() > 0 && !host_->Dead()) co_await discard_wq_.Wait();
}

sim::Task<void> DiscardManager::Thread() {
  const auto submit = [this](BlockAddr a, uint32_t n) { SubmitDiscard(a, n); };
  const auto stop = [this] { return host_->Stopping() || host_->Dead(); };
  sim::SimTime wait = cfg_.discard.min_interval;
  while (!stop()) {
    sim::SimTime max_interval;
    const DiscardQueue::Policy p = BackgroundPolicy(&max_interval);
    if (dq_->commands() == 0) wait = max_interval;
    co_await timer_.Sleep(wait);
    if (stop()) break;
    co_await WaitIssuedDiscards();  // the previous round's stragglers
    if (stop()) break;
    if (dq_->commands() == 0) continue;
    const DiscardQueue::Round r = dq_->Issue(p, [this] { return IdleForDiscard(); }, submit);
    stats_->rounds.Inc();
    if (r.interrupted) stats_->interrupted_rounds.Inc();
    if (r.issued > 0) {
      co_await WaitIssuedDiscards();
      wait = cfg_.discard.min_interval;
    } else if (r.interrupted) {
      // Not idle: sleep until the idle interval could have passed, or
      // mid_interval when I/O in flight was the reason.
      wait = DiscardIdleWait();
      if (wait == sim::SimTime::Zero()) wait = cfg_.discard.mid_interval;
    } else {
      wait = max_interval;
    }
  }
}

sim::Task<void> DiscardManager::IssueAtUmount() {
  // DPOLICY_UMOUNT: every length, not I/O-aware, max_requests at a time
  // and waited for, until nothing is left or umount_timeout passed; the
  // rest is dropped.
  DiscardQueue::Policy p;
  p.granularity = 1;
  p.max_requests = cfg_.discard.max_requests;
  p.ordered = false;
  const sim::SimTime deadline = q_->now() + cfg_.discard.umount_timeout;
  const auto in_time = [&] { return q_->now() <= deadline; };
  const auto submit = [this](BlockAddr a, uint32_t n) { SubmitDiscard(a, n); };
  while (!host_->Dead()) {
    const DiscardQueue::Round r = dq_->Issue(p, in_time, submit);
    if (r.submitted == 0) break;
    co_await WaitIssuedDiscards();
  }
  dq_->DropAllPending();
  co_await WaitIssuedDiscards();
}

}  // namespace fs::f2fs
