#include "fs/f2fs/segment_manager.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

SegmentManager::SegmentManager(const Layout& layout, const AllocationPolicy* policy)
    : layout_(layout),
      policy_(policy),
      sit_(layout.segment_count_main),
      free_(layout.segment_count_main, 0),
      curseg_of_(layout.segment_count_main, kNoLog),
      sit_dirty_(layout.segment_count_main, 0),
      ssa_dirty_(layout.segment_count_main, 0),
      ssa_(layout.main_blocks()) {
  CHECK(policy_ != nullptr);
  regions_ = policy_->regions();
  CHECK(regions_ >= 1 && regions_ * kNumLogs < kNoLog) << "regions " << regions_;
  cur_.resize(size_t{regions_} * kNumLogs);
  stripe_blocks_ = policy_->StripeBlocks();
  CHECK(stripe_blocks_ >= 1 && stripe_blocks_ <= kBlocksPerSeg);
  if (regions_ > 1) {
    region_of_sec_.resize(layout.section_count);
    region_allocated_.assign(regions_, 0);
    region_free_sections_.assign(regions_, 0);
    for (uint32_t sec = 0; sec < layout.section_count; ++sec) {
      region_of_sec_[sec] = policy_->RegionOfSection(sec);
      CHECK_LT(region_of_sec_[sec], regions_);
    }
  }
}

void SegmentManager::LoadSit(SegNo s, const RawSitEntry& e) {
  SegEntry& se = sit_[s.v];
  total_valid_ -= se.valid;
  se.valid = e.valid;
  se.type = e.type;
  se.mtime_ns = e.mtime_ns;
  se.cur_map = e.map;
  se.ckpt_map = e.map;
  se.ckpt_valid = e.valid;
  CHECK_EQ(se.cur_map.count(), se.valid) << "SIT entry of segment " << s.v << " inconsistent";
  total_valid_ += se.valid;
}

void SegmentManager::SetCurseg(LogType t, uint32_t region, const CurSegState& c) {
  CHECK_LT(region, regions_);
  CurSeg& cs = cur_[LogIndex(t, region)];
  if (cs.segno != kNullSegNo) curseg_of_[cs.segno.v] = kNoLog;
  cs.segno = c.segno;
  cs.next_blkoff = c.blkoff;
  cs.ssr = c.ssr;
  if (c.segno != kNullSegNo) {
    CHECK_LT(c.segno.v, sit_.size());
    curseg_of_[c.segno.v] = static_cast<uint16_t>(LogIndex(t, region));
  }
}

void SegmentManager::SetStripe(LogType t, StripeCursor c) {
  CHECK_LT(c.region, regions_);
  CHECK_LE(c.left, stripe_blocks_);
  stripe_[static_cast<int>(t)] = c;
}

void SegmentManager::FinishLoad() {
  free_segments_ = 0;
  free_sections_ = 0;
  prefree_ = 0;
  for (uint32_t s = 0; s < sit_.size(); ++s) {
    const bool f = sit_[s].valid == 0 && curseg_of_[s] == kNoLog;
    free_[s] = f;
    if (f) ++free_segments_;
  }
  std::fill(region_free_sections_.begin(), region_free_sections_.end(), 0);
  for (uint32_t sec = 0; sec < layout_.section_count; ++sec)
    if (SectionFree(sec)) {
      ++free_sections_;
      if (!region_free_sections_.empty()) ++region_free_sections_[region_of_sec_[sec]];
    }
  for (uint32_t r = 1; r < regions_; ++r)
    for (int l = 0; l < kNumPersistentLogs; ++l)
      if (!LogActive(static_cast<LogType>(l), r)) MoveLog(static_cast<LogType>(l), r, /*need_ssr=*/false);
}

bool SegmentManager::SectionFree(uint32_t sec) const {
  for (uint32_t i = 0; i < layout_.segs_per_sec; ++i)
    if (!free_[sec * layout_.segs_per_sec + i]) return false;
  return true;
}

void SegmentManager::SetFree(SegNo s, bool f) {
  if (static_cast<bool>(free_[s.v]) == f) return;
  const uint32_t sec = layout_.SecOf(s);
  const bool sec_before = SectionFree(sec);
  free_[s.v] = f;
  if (f) ++free_segments_; else --free_segments_;
  const bool sec_after = SectionFree(sec);
  if (sec_before != sec_after) {
    if (sec_after) ++free_sections_; else --free_sections_;
    if (!region_free_sections_.empty()) {
      uint32_t& rf = region_free_sections_[region_of_sec_[sec]];
      if (sec_after) ++rf; else --rf;
    }
  }
}

void SegmentManager::MarkSitDirty(SegNo s) {
  if (!sit_dirty_[s.v]) {
    sit_dirty_[s.v] = 1;
    dirty_sit_list_.push_back(s);
  }
}

BlockAddr SegmentManager::NextAddr(LogType t) const {
  const CurSeg& c = curseg(t);
  CHECK(c.segno != kNullSegNo) << "log " << LogTypeName(t) << " not active";
  return BlockAddr{layout_.SegStart(c.segno).v + c.next_blkoff};
}

uint32_t SegmentManager::NextFreeSlot(SegNo s, uint32_t from) const {
  const SegEntry& e = sit_[s.v];
  for (uint32_t i = from; i < kBlocksPerSeg; ++i)
    if (!e.cur_map.test(i) && !e.ckpt_map.test(i)) return i;
  return kBlocksPerSeg;
}

uint32_t SegmentManager::SsrFreeSlots(SegNo s) const {
  const SegEntry& e = sit_[s.v];
  return kBlocksPerSeg - static_cast<uint32_t>((e.cur_map | e.ckpt_map).count());
}

void SegmentManager::UpdateValid(BlockAddr a, int delta, sim::SimTime now) {
  CHECK(layout_.InMain(a)) << "block " << a.v << " outside the main area";
  const SegNo s = layout_.SegOf(a);
  const uint32_t off = layout_.OffInSeg(a);
  SegEntry& e = sit_[s.v];
  const bool pre_before = IsPrefree(s);
  if (delta > 0) {
    CHECK(!e.cur_map.test(off)) << "block " << a.v << " allocated twice";
    e.cur_map.set(off);
    ++e.valid;
    if (!e.ckpt_map.test(off)) {
      e.ckpt_map.set(off);
      ++e.ckpt_valid;
    }
    ++total_valid_;
    e.mtime_ns = (e.mtime_ns * (e.valid - 1) + now.ns()) / e.valid;
    if (free_[s.v]) SetFree(s, false);
  } else {
    CHECK(e.cur_map.test(off)) << "invalidating block " << a.v << " that is not valid";
    e.cur_map.reset(off);
    --e.valid;
    --total_valid_;
  }
  const bool pre_after = IsPrefree(s);
  if (pre_before != pre_after) {
    if (pre_after) ++prefree_; else --prefree_;
  }
  MarkSitDirty(s);
}

void SegmentManager::LeaveSegment(SegNo s) {
  // The caller already cleared curseg_of_[s].
  if (IsPrefree(s)) ++prefree_;
  MarkSitDirty(s);
}

void SegmentManager::MoveLog(LogType t, uint32_t region, bool need_ssr) {
  const SegmentChoice c = policy_->NextSegment(*this, t, region, need_ssr);
  if (c.ssr) OpenSsrSegment(t, region, c.segno);
  else OpenFreeSegment(t, region, c.segno);
}

void SegmentManager::OpenFreeSegment(LogType t, uint32_t region, SegNo next) {
  CHECK(next != kNullSegNo) << "no free section left for log " << LogTypeName(t)
                            << " (free segments " << free_segments_ << ", prefree " << prefree_ << ")";
  CHECK(free_[next.v]) << "allocation policy chose segment " << next.v << ", which is not free";
  CurSeg& c = cur_[LogIndex(t, region)];
  const SegNo old = c.segno;
  if (old != kNullSegNo) curseg_of_[old.v] = kNoLog;
  SetFree(next, false);
  curseg_of_[next.v] = static_cast<uint16_t>(LogIndex(t, region));
  sit_[next.v].type = static_cast<uint8_t>(t);
  MarkSitDirty(next);
  c.segno = next;
  c.next_blkoff = 0;
  c.ssr = false;
  if (old != kNullSegNo) LeaveSegment(old);
}

void SegmentManager::OpenSsrSegment(LogType t, uint32_t region, SegNo next) {
  CHECK(!free_[next.v] && !IsCurseg(next) && sit_[next.v].valid > 0 && SsrFreeSlots(next) > 0)
      << "allocation policy chose segment " << next.v << " for SSR, which is not a dirty segment with free slots";
  CurSeg& c = cur_[LogIndex(t, region)];
  const SegNo old = c.segno;
  if (old != kNullSegNo) curseg_of_[old.v] = kNoLog;
  curseg_of_[next.v] = static_cast<uint16_t>(LogIndex(t, region));
  sit_[next.v].type = static_cast<uint8_t>(t);
  MarkSitDirty(next);
  c.segno = next;
  c.ssr = true;
  c.next_blkoff = NextFreeSlot(c.segno, 0);
  if (old != kNullSegNo) LeaveSegment(old);
}

BlockAddr SegmentManager::Allocate(LogType t, const Summary& sum, sim::SimTime now, bool need_ssr) {
  StripeCursor& st = stripe_[static_cast<int>(t)];
  const uint32_t region = st.region;
  CurSeg& c = cur_[LogIndex(t, region)];
  CHECK(c.segno != kNullSegNo) << "log " << LogTypeName(t) << " not active";
  CHECK_LT(c.next_blkoff, kBlocksPerSeg);
  const SegNo s = c.segno;
  const uint32_t off = c.next_blkoff;
  const BlockAddr a{layout_.SegStart(s).v + off};
  CHECK(!c.ssr || !sit_[s.v].ckpt_map.test(off)) << "SSR would overwrite a checkpointed block";
  ssa_[Index(a)] = sum;
  ssa_dirty_[s.v] = 1;
  UpdateValid(a, +1, now);
  if (observer_) observer_->OnBlocksAllocated(a, 1);
  if (!region_allocated_.empty()) ++region_allocated_[RegionOf(s)];
  c.next_blkoff = c.ssr ? NextFreeSlot(s, off + 1) : off + 1;
  if (c.next_blkoff >= kBlocksPerSeg) MoveLog(t, region, need_ssr);
  if (stripe_blocks_ < kBlocksPerSeg) {
    if (st.left == 0) st.left = static_cast<uint16_t>(stripe_blocks_);
    if (--st.left == 0) AdvanceStripe(t, need_ssr);
  }
  return a;
}

void SegmentManager::AdvanceStripe(LogType t, bool need_ssr) {
  StripeCursor& st = stripe_[static_cast<int>(t)];
  const uint32_t next = policy_->NextRegion(*this, t, st.region);
  CHECK_LT(next, regions_);
  st.region = static_cast<uint16_t>(next);
  st.left = 0;
  if (!LogActive(t, next)) MoveLog(t, next, need_ssr);
}

std::pair<BlockAddr, uint32_t> SegmentManager::PadStripe(LogType t) {
  StripeCursor& st = stripe_[static_cast<int>(t)];
  if (stripe_blocks_ >= kBlocksPerSeg || st.left == 0) return {kNullAddr, 0};
  CurSeg& c = cur_[LogIndex(t, st.region)];
  CHECK(!c.ssr) << "padding an SSR log";
  const BlockAddr first{layout_.SegStart(c.segno).v + c.next_blkoff};
  const uint32_t n = st.left;
  CHECK_LE(c.next_blkoff + n, kBlocksPerSeg) << "a stripe unit crosses a segment";
  if (observer_) observer_->OnBlocksAllocated(first, n);
  if (!region_allocated_.empty()) region_allocated_[RegionOf(c.segno)] += n;
  c.next_blkoff += n;
  if (c.next_blkoff >= kBlocksPerSeg) MoveLog(t, st.region, /*need_ssr=*/false);
  AdvanceStripe(t, /*need_ssr=*/false);
  return {first, n};
}

void SegmentManager::Invalidate(BlockAddr a) { UpdateValid(a, -1, sim::SimTime::Zero()); }

void SegmentManager::MarkValid(BlockAddr a, const Summary& sum, sim::SimTime now) {
  ssa_[Index(a)] = sum;
  ssa_dirty_[layout_.SegOf(a).v] = 1;
  UpdateValid(a, +1, now);
  if (observer_) observer_->OnBlocksAllocated(a, 1);
}

void SegmentManager::RefreshMtime(BlockAddr a, sim::SimTime now) {
  SegEntry& e = sit_[layout_.SegOf(a).v];
  e.mtime_ns = e.mtime_ns == 0 ? now.ns() : (e.mtime_ns * e.valid + now.ns()) / (e.valid + 1);
}

sim::SimTime SegmentManager::SegmentMtime(BlockAddr a) const {
  return sim::SimTime::FromNs(sit_[layout_.SegOf(a).v].mtime_ns);
}

void SegmentManager::ReserveSegment(SegNo s) {
  if (!free_[s.v]) return;
  SetFree(s, false);
  if (IsPrefree(s)) ++prefree_;
}

void SegmentManager::MoveLogToNewSegment(LogType t, uint32_t region, bool new_section) {
  CHECK(LogActive(t, region));
  ssa_dirty_[curseg(t, region).segno.v] = 1;
  new_section_ = new_section;
  MoveLog(t, region, /*need_ssr=*/false);
  new_section_ = false;
  StripeCursor& st = stripe_[static_cast<int>(t)];
  if (st.region == region) st.left = 0;
}

void SegmentManager::MoveAllLogsToNewSegments() {
  for (uint32_t r = 0; r < regions_; ++r)
    for (int l = 0; l < kNumPersistentLogs; ++l)
      if (LogActive(static_cast<LogType>(l), r)) MoveLogToNewSegment(static_cast<LogType>(l), r);
}

uint32_t SegmentManager::SectionValid(uint32_t sec) const {
  uint32_t v = 0;
  for (uint32_t i = 0; i < layout_.segs_per_sec; ++i) v += sit_[sec * layout_.segs_per_sec + i].valid;
  return v;
}

int64_t SegmentManager::SectionMtime(uint32_t sec) const {
  int64_t sum = 0;
  for (uint32_t i = 0; i < layout_.segs_per_sec; ++i) sum += sit_[sec * layout_.segs_per_sec + i].mtime_ns;
  return sum / layout_.segs_per_sec;
}

bool SegmentManager::IsGcCandidate(uint32_t sec) const {
  bool any_valid = false;
  for (uint32_t i = 0; i < layout_.segs_per_sec; ++i) {
    const uint32_t s = sec * layout_.segs_per_sec + i;
    if (curseg_of_[s] != kNoLog) return false;
    if (sit_[s].valid) any_valid = true;
  }
  return any_valid && SectionValid(sec) < layout_.blocks_per_sec();
}

std::vector<SegNo> SegmentManager::DirtySsaSegments() const {
  std::vector<SegNo> out;
  for (uint32_t s = 0; s < ssa_dirty_.size(); ++s)
    if (ssa_dirty_[s] && (curseg_of_[s] == kNoLog || curseg_of_[s] % kNumLogs >= kNumPersistentLogs))
      out.push_back(SegNo{s});
  return out;
}

RawSitEntry SegmentManager::RawEntry(SegNo s) const {
  const SegEntry& e = sit_[s.v];
  RawSitEntry r;
  r.valid = e.valid;
  r.type = e.type;
  r.map = e.cur_map;
  r.mtime_ns = e.mtime_ns;
  return r;
}

std::vector<Summary> SegmentManager::CursegSummaries(LogType t, uint32_t region) const {
  const CurSeg& c = curseg(t, region);
  if (c.segno == kNullSegNo) return {};
  const size_t base = static_cast<size_t>(c.segno.v) * kBlocksPerSeg;
  return std::vector<Summary>(ssa_.begin() + base, ssa_.begin() + base + kBlocksPerSeg);
}

std::vector<SegmentManager::DiscardRange> SegmentManager::CommitCheckpoint() {
  std::vector<DiscardRange> out;
  for (SegNo s : dirty_sit_list_) {
    SegEntry& e = sit_[s.v];
    if (e.valid != 0 && e.valid != kBlocksPerSeg) {
      const std::bitset<kBlocksPerSeg> freed = e.ckpt_map & ~e.cur_map;
      uint32_t i = 0;
      while (i < kBlocksPerSeg) {
        if (!freed.test(i)) { ++i; continue; }
        uint32_t j = i;
        while (j < kBlocksPerSeg && freed.test(j)) ++j;
        out.push_back({BlockAddr{layout_.SegStart(s).v + i}, j - i});
        i = j;
      }
    }
    e.ckpt_map = e.cur_map;
    e.ckpt_valid = e.valid;
    sit_dirty_[s.v] = 0;
  }
  dirty_sit_list_.clear();
  for (uint32_t s = 0; s < sit_.size(); ++s) {
    if (!IsPrefree(SegNo{s})) continue;
    --prefree_;
    SetFree(SegNo{s}, true);
    sit_[s].ckpt_map.reset();
    sit_[s].ckpt_valid = 0;
    out.push_back({layout_.SegStart(SegNo{s}), kBlocksPerSeg});
  }
  return out;
}

}  // namespace fs::f2fs
