// The kernel's block allocation (Linux 5.15 fs/f2fs/segment.c,
// allocate_segment_by_default): temperature logs, SSR under space pressure,
// otherwise the next free segment of the section or the next free section.
#include <algorithm>
#include <array>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

uint32_t SecsFor(uint64_t pages, uint32_t blocks_per_sec) {
  return static_cast<uint32_t>((pages + blocks_per_sec - 1) / blocks_per_sec);
}

class DefaultAllocationPolicy final : public AllocationPolicy {
 public:
  explicit DefaultAllocationPolicy(const AllocationPolicyContext& ctx)
      : active_logs_(ctx.cfg->active_logs), atgc_(ctx.cfg->atgc), lfs_(ctx.cfg->mode == "lfs"), layout_(*ctx.layout),
        stripe_blocks_(ctx.device != nullptr && ctx.device->zoned != nullptr
                           ? std::max<uint32_t>(1, ctx.device->page_size / kBlockSize)
                           : kBlocksPerSeg) {}

  // On a zoned device, which takes whole flash pages: a write ending inside
  // a page pads the rest (SegmentManager::PadStripe), so the next one
  // starts at the zone's write pointer.
  uint32_t StripeBlocks() const override { return stripe_blocks_; }

  // __get_segment_type_{2,4,6}.
  LogType DataLog(const DataPlacement& p) const override { return KernelDataLog(p, active_logs_, atgc_); }
  LogType NodeLog(const NodePlacement& p) const override { return KernelNodeLog(p, active_logs_); }

  // f2fs_need_SSR.
  bool NeedSsr(const SegmentManager& sm, const SpacePressure& p) const override {
    if (lfs_) return false;
    const uint32_t bps = layout_.blocks_per_sec();
    const uint32_t node_secs = SecsFor(p.dirty_node_pages, bps);
    const uint32_t dent_secs = SecsFor(p.dirty_dentry_pages, bps);
    const uint32_t rsvd = layout_.reserved_sections();
    return sm.free_sections() <= node_secs + 2 * dent_secs + rsvd + rsvd;
  }

  // allocate_segment_by_default: a log whose section still has a free next
  // segment continues there, else SSR when space is short. The warm node
  // log (the roll-forward chain) uses SSR like the others: the kernel keeps
  // it on free segments only without CP_CRC_RECOVERY_FLAG, which every
  // checkpoint sets (update_ckpt_flags; recovery then trusts a node only
  // when its cp_ver matches, and a slot SSR reuses was free at the last
  // checkpoint, so it never holds a node of the current one).
  SegmentChoice NextSegment(const SegmentManager& sm, LogType t, uint32_t /*region: one*/,
                            bool need_ssr) const override {
    const SegmentManager::CurSeg& c = sm.curseg(t);
    if (need_ssr) {
      const bool next_in_section_free = c.segno != kNullSegNo && !c.ssr && NextInSectionFree(sm, c.segno);
      if (!next_in_section_free) {
        const SegNo s = SsrSegment(sm, t);
        if (s != kNullSegNo) return SegmentChoice{s, true};
      }
    }
    return SegmentChoice{NewSegment(sm, t), false};
  }

 private:
  // On a zoned volume only the first usable_segs_per_sec segments of a
  // section lie within its zone's capacity (f2fs_usable_segs_in_sec).
  bool NextInSectionFree(const SegmentManager& sm, SegNo cur) const {
    const uint32_t sps = layout_.segs_per_sec;
    if (sps <= 1) return false;
    const uint32_t s = cur.v + 1;
    return s % sps != 0 && s % sps < layout_.usable_segs_per_sec && s < sm.main_segments() && sm.IsFree(SegNo{s});
  }

  // new_curseg / get_new_segment: the next segment of the current section
  // if free, else the first free section from the current one on whose zone
  // no other log writes (any free section if every zone is busy).
  SegNo NewSegment(const SegmentManager& sm, LogType t) const {
    const SegNo old = sm.curseg(t).segno;
    if (old != kNullSegNo && !sm.new_section_requested() && NextInSectionFree(sm, old)) return SegNo{old.v + 1};
    const uint32_t sps = layout_.segs_per_sec;
    const uint32_t nsec = layout_.section_count;
    const uint32_t hint = old != kNullSegNo ? layout_.SecOf(old) : 0;
    uint32_t fallback = UINT32_MAX;
    for (uint32_t i = 0; i < nsec; ++i) {
      const uint32_t sec = (hint + i) % nsec;
      if (!sm.SectionFree(sec)) continue;
      bool zone_busy = false;
      if (layout_.secs_per_zone > 1) {
        for (int l = 0; l < kNumLogs; ++l) {
          const SegNo other = sm.curseg(static_cast<LogType>(l)).segno;
          if (l == static_cast<int>(t) || other == kNullSegNo) continue;
          if (layout_.ZoneOfSec(layout_.SecOf(other)) == layout_.ZoneOfSec(sec)) zone_busy = true;
        }
      }
      if (zone_busy) {
        if (fallback == UINT32_MAX) fallback = sec;
        continue;
      }
      return SegNo{sec * sps};
    }
    return fallback != UINT32_MAX ? SegNo{fallback * sps} : kNullSegNo;
  }

  // get_ssr_segment: a dirty segment last written by the same log (then the
  // other temperatures of the same class) with the fewest checkpointed
  // valid blocks; kNullSegNo if none has a free slot. The ATGC log is none
  // of the three data temperatures (the kernel's CURSEG_ALL_DATA_ATGC), so
  // after its own segments it tries all three: up to four candidates.
  SegNo SsrSegment(const SegmentManager& sm, LogType t) const {
    std::array<LogType, 3> order;
    if (IsNodeLog(t)) order = {LogType::kHotNode, LogType::kWarmNode, LogType::kColdNode};
    else order = {LogType::kHotData, LogType::kWarmData, LogType::kColdData};
    std::array<LogType, 4> tries = {t, t, t, t};
    int n = 1;
    for (LogType o : order)
      if (o != t) tries[n++] = o;
    for (int k = 0; k < n; ++k) {
      const uint8_t want = static_cast<uint8_t>(tries[k]);
      uint32_t best = UINT32_MAX, best_cost = UINT32_MAX;
      for (uint32_t s = 0; s < sm.main_segments(); ++s) {
        const SegNo seg{s};
        const SegmentManager::SegEntry& e = sm.seg(seg);
        if (sm.IsFree(seg) || sm.IsCurseg(seg) || e.valid == 0 || e.type != want) continue;
        if (sm.SsrFreeSlots(seg) == 0) continue;
        if (e.ckpt_valid < best_cost) {
          best_cost = e.ckpt_valid;
          best = s;
        }
      }
      if (best != UINT32_MAX) return SegNo{best};
    }
    return kNullSegNo;
  }

  const uint32_t active_logs_;
  const bool atgc_;
  const bool lfs_;
  const Layout layout_;
  const uint32_t stripe_blocks_;
};

}  // namespace

const sim::Registrar<AllocationPolicyInfo> kRegistered{{
    "default",
    "the kernel's: temperature logs by active_logs, SSR when free sections run short (not in lfs mode), "
    "else the next free segment of the section or the next free section",
    [](const AllocationPolicyContext& ctx) -> sim::Result<std::unique_ptr<AllocationPolicy>> {
      return std::unique_ptr<AllocationPolicy>(std::make_unique<DefaultAllocationPolicy>(ctx));
    },
    {}}};

}  // namespace fs::f2fs
