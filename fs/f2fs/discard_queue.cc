#include "fs/f2fs/discard_queue.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

void DiscardQueue::InsertPending(uint32_t start, uint32_t len) {
  Cmd c;
  c.len = len;
  c.seq = next_seq_++;
  tree_.emplace(start, c);
  pend_.insert(KeyOf(start, c));
  pending_blocks_ += len;
}

void DiscardQueue::Add(BlockAddr start, uint32_t len) {
  CHECK_GT(len, 0u);
  const uint64_t end = uint64_t{start.v} + len;
  uint64_t pos = start.v;
  while (pos < end) {
    // Skip a command covering `pos` (issued or pending: its blocks are
    // covered already); else add the gap up to the next command, in pieces
    // of at most max_blocks.
    auto it = tree_.upper_bound(static_cast<uint32_t>(pos));
    if (it != tree_.begin()) {
      auto prev = std::prev(it);
      const uint64_t prev_end = uint64_t{prev->first} + prev->second.len;
      if (prev_end > pos) {
        pos = prev_end;
        continue;
      }
    }
    const uint64_t gap_end = it == tree_.end() ? end : std::min<uint64_t>(end, it->first);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(gap_end - pos, opt_.max_blocks));
    AddPiece(static_cast<uint32_t>(pos), n);
    pos += n;
  }
}

void DiscardQueue::AddPiece(uint32_t start, uint32_t len) {
  if (!opt_.merge) {
    InsertPending(start, len);
    return;
  }
  auto next = tree_.lower_bound(start);
  auto prev = next == tree_.begin() ? tree_.end() : std::prev(next);
  const bool back = prev != tree_.end() && !prev->second.issued && prev->first + prev->second.len == start &&
                    uint64_t{prev->second.len} + len <= opt_.max_blocks;
  uint32_t m_start = start, m_len = len;
  if (back) {
    pend_.erase(KeyOf(prev->first, prev->second));
    pending_blocks_ -= prev->second.len;
    m_start = prev->first;
    m_len += prev->second.len;
    tree_.erase(prev);
    stats_->merged.Inc();
  }
  const bool front = next != tree_.end() && !next->second.issued && next->first == start + len &&
                     uint64_t{next->second.len} + m_len <= opt_.max_blocks;
  if (front) {
    pend_.erase(KeyOf(next->first, next->second));
    pending_blocks_ -= next->second.len;
    m_len += next->second.len;
    tree_.erase(next);
    stats_->merged.Inc();
  }
  // A merged command moves to the tail of its (new) length class, as the
  // kernel's __relocate_discard_cmd does.
  InsertPending(m_start, m_len);
}

uint64_t DiscardQueue::Punch(uint32_t start, uint32_t end) {
  uint64_t removed = 0;
  auto it = tree_.upper_bound(start);
  if (it != tree_.begin()) --it;
  while (it != tree_.end() && it->first < end) {
    const uint32_t c_start = it->first;
    const uint32_t c_end = c_start + it->second.len;
    if (c_end <= start || it->second.issued) {
      ++it;
      continue;
    }
    const uint32_t lo = std::max(start, c_start), hi = std::min(end, c_end);
    pend_.erase(KeyOf(c_start, it->second));
    pending_blocks_ -= it->second.len;
    it = tree_.erase(it);
    removed += hi - lo;
    // What is left on either side is a command of its own, relocated.
    if (lo > c_start) InsertPending(c_start, lo - c_start);
    if (hi < c_end) InsertPending(hi, c_end - hi);
    it = tree_.lower_bound(hi);
  }
  return removed;
}

void DiscardQueue::OnBlocksAllocated(BlockAddr first, uint32_t n) {
  if (pend_.empty()) return;
  stats_->punched.Inc(Punch(first.v, first.v + n));
}

void DiscardQueue::DropPending(BlockAddr start, uint32_t n) {
  if (pend_.empty()) return;
  stats_->dropped_blocks.Inc(Punch(start.v, start.v + n));
}

uint64_t DiscardQueue::DropAllPending() {
  const uint64_t blocks = pending_blocks_;
  for (auto it = tree_.begin(); it != tree_.end();) {
    if (it->second.issued) {
      ++it;
    } else {
      it = tree_.erase(it);
    }
  }
  pend_.clear();
  pending_blocks_ = 0;
  stats_->dropped_blocks.Inc(blocks);
  return blocks;
}

bool DiscardQueue::IssuedOverlaps(BlockAddr start, uint32_t n) const {
  if (pend_.size() == tree_.size()) return false;  // nothing issued
  const uint32_t end = start.v + n;
  auto it = tree_.upper_bound(start.v);
  if (it != tree_.begin()) --it;
  for (; it != tree_.end() && it->first < end; ++it) {
    if (it->second.issued && it->first + it->second.len > start.v) return true;
  }
  return false;
}

bool DiscardQueue::HasPendingAtLeast(uint32_t len) const {
  return !pend_.empty() && pend_.begin()->cls >= std::min(len, kClasses);
}

void DiscardQueue::Submit(std::map<uint32_t, Cmd>::iterator it,
                          const std::function<void(BlockAddr, uint32_t)>& submit) {
  CHECK(!it->second.issued);
  pend_.erase(KeyOf(it->first, it->second));
  pending_blocks_ -= it->second.len;
  it->second.issued = true;
  stats_->commands.Inc();
  stats_->blocks.Inc(it->second.len);
  submit(BlockAddr{it->first}, it->second.len);
}

DiscardQueue::Round DiscardQueue::Issue(const Policy& p, const std::function<bool()>& may_issue,
                                        const std::function<void(BlockAddr, uint32_t)>& submit) {
  Round r;
  // Length classes, largest first, down to the granularity — or, with an
  // ordered policy whose granularity allows it, down to the classes of
  // max_ordered blocks, where the ordered walk takes over (whether or not
  // a command of those lengths is pending).
  const bool ordered = p.ordered && opt_.max_ordered > 0 && p.granularity <= opt_.max_ordered;
  const uint32_t floor = ordered ? opt_.max_ordered + 1 : std::max<uint32_t>(p.granularity, 1);
  while (!pend_.empty()) {
    const PendKey k = *pend_.begin();
    if (k.cls < floor) break;
    if (!may_issue()) {
      r.interrupted = true;
      return r;
    }
    Submit(tree_.find(k.start), submit);
    ++r.issued;
    ++r.submitted;
    if (r.issued >= p.max_requests) return r;
  }
  if (!ordered) return r;
  // __issue_discard_cmd_orderly counts from zero and its result is the round's.
  const Round o = IssueOrderly(p, may_issue, submit);
  return Round{o.issued, r.submitted + o.submitted, o.interrupted};
}

DiscardQueue::Round DiscardQueue::IssueOrderly(const Policy& p, const std::function<bool()>& may_issue,
                                               const std::function<void(BlockAddr, uint32_t)>& submit) {
  Round r;
  // The command holding next_pos, else the first after it.
  auto it = tree_.upper_bound(next_pos_);
  if (it != tree_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.len > next_pos_) it = prev;
  }
  while (it != tree_.end()) {
    if (it->second.issued) {
      ++it;
      continue;
    }
    if (!may_issue()) {
      r.interrupted = true;
      return r;
    }
    next_pos_ = it->first + it->second.len;
    auto cur = it++;
    Submit(cur, submit);
    ++r.issued;
    ++r.submitted;
    if (r.issued >= p.max_requests) return r;
  }
  next_pos_ = 0;  // the walk ran off the end: the next one starts over
  return r;
}

void DiscardQueue::Done(BlockAddr start) {
  auto it = tree_.find(start.v);
  CHECK(it != tree_.end() && it->second.issued) << "completion of an unknown discard at " << start.v;
  tree_.erase(it);
}

}  // namespace fs::f2fs
