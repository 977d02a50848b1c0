// IoManager: request pool, merged writes, reads, trims, merged cache
// flushes, completions feeding the Image (see io_manager.h).
#include "fs/f2fs/io_manager.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

IoManager::IoManager(const Deps& d)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      dev_(d.device),
      image_(d.image),
      sm_(d.sm),
      dq_(d.dq),
      cache_(d.cache),
      host_(d.host),
      discard_write_waits_(d.discard_write_waits),
      ordered_(d.ordered),
      blocks_per_page_(d.blocks_per_page),
      cp_io_wq_(d.events),
      io_wq_(d.events),
      wb_wq_(d.events) {
  if (sm_->regions() > 1) {
    region_reads_.assign(sm_->regions(), 0);
    region_writes_done_.assign(sm_->regions(), 0);
  }
  in_order_ = dev_ && (dev_->layout().fixed != nullptr || dev_->layout().zoned != nullptr);
  if (const ssd::Zoned* z = dev_ ? dev_->layout().zoned : nullptr) {
    const uint64_t page = dev_->layout().page_size;
    zone_area_block_ = z->conventional_pages() * page / kBlockSize;
    zone_blocks_ = z->zone_pages() * page / kBlockSize;
  }
}

void IoManager::Kill() {
  dead_ = true;
  wb_wq_.Kill();
  io_wq_.Kill();
  cp_io_wq_.Kill();
}

void IoManager::StartFlush() {
  flush_inflight_ = true;
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kFlush;
  r->offset = 0;
  r->length = 0;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = Io::kMeta;
  r->flush_marker = image_->FlushBegin();
  ++ios_in_flight_;
  stats_.flushes.Inc();
  dev_->Submit(r);
}


IoReq* IoManager::AllocReq() {
  if (!free_reqs_) {
    all_reqs_.push_back(std::make_unique<IoReq>());
    return all_reqs_.back().get();
  }
  IoReq* r = free_reqs_;
  free_reqs_ = r->next_free;
  return r;
}

void IoManager::FreeReq(IoReq* r) {
  r->write_ids.clear();
  r->pages.clear();
  r->inos.clear();
  r->node_seqs.clear();
  r->plain_seq = 0;
  r->ordered_seq = 0;
  r->held.clear();
  r->batch = nullptr;
  r->fua = false;
  r->discard_cmd = false;
  r->next_free = free_reqs_;
  free_reqs_ = r;
}

void WriteBatcher::Add(BlockAddr a, BlockPtr content, Page* page, Nid ino, uint64_t node_seq) {
  // A write never crosses into another zone of a zoned device (the device
  // refuses it whole: Zone Boundary Error).
  if (!contents_.empty() && (a.v != start_.v + contents_.size() ||
                             (contents_.size() + 1) * kBlockSize > io_->max_io() || io_->StartsZone(a))) {
    Flush();
  }
  if (contents_.empty()) {
    start_ = a;
    first_event_ = io_->events()->events_processed();
  }
  DCHECK(!io_->in_order() || io_->events()->events_processed() == first_event_)
      << "a writer waited holding blocks " << start_.v << "+" << contents_.size() << " (call BeforeWait)";
  contents_.push_back(std::move(content));
  pages_.push_back(page);
  inos_.push_back(ino.v);
  seqs_.push_back(node_seq);
}

void WriteBatcher::Flush() {
  if (contents_.empty()) return;
  DCHECK(!io_->in_order() || io_->events()->events_processed() == first_event_)
      << "a writer waited holding blocks " << start_.v << "+" << contents_.size() << " (call BeforeWait)";
  if (io_->blocks_per_page() > 1) io_->PadToFlashPage(start_, contents_, pages_, inos_, seqs_);
  io_->SubmitWrite(start_, contents_, pages_, gc_ ? Io::kGcData : kind_, batch_, fua_, &inos_, &seqs_);
  contents_.clear();
  pages_.clear();
  inos_.clear();
  seqs_.clear();
}

void IoManager::CountByRegion(BlockAddr start, uint32_t n, int64_t delta, std::vector<uint64_t>& counts) const {
  for (uint32_t i = 0; i < n; ++i) {
    const BlockAddr a{start.v + i};
    if (!layout_.InMain(a)) continue;
    counts[sm_->RegionOf(layout_.SegOf(a))] += static_cast<uint64_t>(delta);
  }
}

void IoManager::PadToFlashPage(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages,
                          std::vector<uint32_t>& inos, std::vector<uint64_t>& seqs) {
  const BlockAddr last{start.v + static_cast<uint32_t>(contents.size()) - 1};
  if (!EndsInsideFlashPage(last)) return;
  const BlockAddr end{last.v + 1};
  LogType t;
  uint32_t region;
  if (!sm_->LogOf(layout_.SegOf(last), &t, &region) || sm_->stripe(t).region != region ||
      sm_->NextAddr(t) != end) {
    stats_.unpadded_page_ends.Inc();
    return;
  }
  const auto [first, n] = sm_->PadStripe(t);
  if (n == 0) {  // the log is not page-aligned (it started inside a page)
    stats_.unpadded_page_ends.Inc();
    return;
  }
  CHECK(first == end) << "padding starts at " << first.v << ", the batch ends at " << end.v;
  static const BlockPtr kZero = std::make_shared<DataBlock>();
  for (uint32_t i = 0; i < n; ++i) {
    contents.push_back(kZero);
    pages.push_back(nullptr);
    inos.push_back(0);
    seqs.push_back(0);
  }
  stats_.pad_blocks.Inc(n);
  // A node written last chained to the padded slot (its footer took
  // NextAddr when it was allocated): re-chain it past the padding.
  const size_t k = contents.size() - n - 1;
  if (!contents[k] || contents[k]->type != BlockData::Type::kNode) return;
  if (pages[k] == nullptr) {
    // A master node (no page): its copy carries the new link.
    const auto& mn = static_cast<const NodeBlock&>(*contents[k]);
    if (!mn.master || mn.footer.next_blkaddr != end) return;
    auto copy = std::make_shared<NodeBlock>(mn);
    copy->footer.next_blkaddr = sm_->NextAddr(t);
    contents[k] = std::move(copy);
    return;
  }
  auto* np = static_cast<NodePage*>(pages[k]);
  if (np->blk != contents[k] || np->blk->footer.next_blkaddr != end) return;
  NodeCache::Mut(np).footer.next_blkaddr = sm_->NextAddr(t);
  contents[k] = np->blk;
}

void IoManager::SubmitWrite(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages, Io kind,
                       IoBatch* batch, bool fua, const std::vector<uint32_t>* inos,
                       const std::vector<uint64_t>* node_seqs) {
  if (dead_) return;
  IoReq* r = AllocReq();
  const uint32_t n = static_cast<uint32_t>(contents.size());
  r->op = ssd::BlockOp::kWrite;
  r->offset = uint64_t{start.v} * kBlockSize;
  r->length = uint64_t{n} * kBlockSize;
  r->fua = fua;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = kind;
  r->batch = batch;
  r->pages.assign(pages.begin(), pages.end());
  if (inos) {
    for (uint32_t ino : *inos)
      if (ino) r->inos.push_back(ino);
  }
  if (node_seqs) {
    for (uint64_t q : *node_seqs)
      if (q) r->node_seqs.push_back(q);
  }
  if (batch) ++batch->pending;
  ++writes_in_flight_;
  if (CpGuaranteed(kind)) {
    ++cp_writes_in_flight_;
  } else {
    r->plain_seq = ++plain_write_seq_;
    plain_writes_.emplace(r->plain_seq, r);
  }
  if (ordered_ && (kind == Io::kData || kind == Io::kGcData)) {
    r->ordered_seq = ++ordered_write_seq_;
    ordered_writes_.insert(r->ordered_seq);
    bool submitted = false;
    for (Page* p : pages) {
      auto it = p ? ordered_unsubmitted_.find(p) : ordered_unsubmitted_.end();
      if (it == ordered_unsubmitted_.end()) continue;
      ordered_unsubmitted_seqs_.erase(ordered_unsubmitted_seqs_.find(it->second));
      ordered_unsubmitted_.erase(it);
      submitted = true;
    }
    if (submitted && io_wq_.has_waiters()) io_wq_.NotifyAll();
  }
  ++ios_in_flight_;
  stats_.blocks_written[static_cast<int>(kind)].Inc(n);
  if (fua) stats_.fua_writes.Inc();
  // f2fs_wait_discard_bio: a block an issued discard still covers is
  // written only after the discard completed (pending ones were punched
  // when the block was allocated).
  if (dq_->issued_commands() > 0 && dq_->IssuedOverlaps(start, n)) {
    r->held.assign(contents.begin(), contents.end());
    held_writes_.push_back(r);
    discard_write_waits_->Inc();
    return;
  }
  SendWrite(r, contents);
}

void IoManager::SendWrite(IoReq* r, const std::vector<BlockPtr>& contents) {
  const BlockAddr start{static_cast<uint32_t>(r->offset / kBlockSize)};
  for (size_t i = 0; i < contents.size(); ++i)
    r->write_ids.push_back(image_->Submit(BlockAddr{start.v + static_cast<uint32_t>(i)}, contents[i]));
  dev_->Submit(r);
}

void IoManager::ReleaseHeldWrites() {
  for (size_t i = 0; i < held_writes_.size();) {
    IoReq* r = held_writes_[i];
    const BlockAddr start{static_cast<uint32_t>(r->offset / kBlockSize)};
    if (dq_->IssuedOverlaps(start, static_cast<uint32_t>(r->length / kBlockSize))) {
      ++i;
      continue;
    }
    held_writes_.erase(held_writes_.begin() + static_cast<std::ptrdiff_t>(i));
    std::vector<BlockPtr> contents;
    contents.swap(r->held);
    SendWrite(r, contents);
  }
}

void IoManager::SubmitRead(BlockAddr start, uint32_t count, Io kind, IoBatch* batch) {
  if (dead_) return;
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kRead;
  r->offset = uint64_t{start.v} * kBlockSize;
  r->length = uint64_t{count} * kBlockSize;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = kind;
  r->batch = batch;
  if (batch) ++batch->pending;
  ++ios_in_flight_;
  ++reads_in_flight_;
  if (!region_reads_.empty()) CountByRegion(start, count, +1, region_reads_);
  stats_.blocks_read[static_cast<int>(kind)].Inc(count);
  dev_->Submit(r);
}

void IoManager::SubmitTrim(BlockAddr start, uint32_t count, bool discard_cmd) {
  if (dead_) return;
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kTrim;
  r->offset = uint64_t{start.v} * kBlockSize;
  r->length = uint64_t{count} * kBlockSize;
  if (StartsZone(start) && count == zone_blocks_) {
    r->op = ssd::BlockOp::kZoneMgmt;
    r->zone_action = ssd::ZoneAction::kReset;
    r->length = 0;
    stats_.zone_resets.Inc();
  }
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = Io::kMeta;
  r->discard_cmd = discard_cmd;
  r->trim_blocks = count;
  r->trim_first_id = image_->SubmitTrim(start, count);
  ++ios_in_flight_;
  ++trims_in_flight_;
  stats_.discards.Inc();
  stats_.discard_blocks.Inc(count);
  dev_->Submit(r);
}

void IoManager::SubmitZoneFinish(BlockAddr zone_start) {
  if (dead_) return;
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kZoneMgmt;
  r->zone_action = ssd::ZoneAction::kFinish;
  r->offset = uint64_t{zone_start.v} * kBlockSize;
  r->length = 0;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = Io::kMeta;
  r->trim_blocks = 0;
  ++ios_in_flight_;
  stats_.zone_finishes.Inc();
  dev_->Submit(r);
}

sim::Task<void> IoManager::WaitBatch(IoBatch& b) {
  if (b.pending == 0) co_return;
  b.waiting = true;
  co_await b.done;
}

sim::Task<void> IoManager::ReadBlocks(const std::vector<BlockAddr>& addrs, Io kind) {
  if (addrs.empty()) co_return;
  IoBatch b(q_);
  const uint32_t max_blocks = static_cast<uint32_t>(cfg_.max_io.value / kBlockSize);
  size_t i = 0;
  while (i < addrs.size()) {
    size_t j = i + 1;
    while (j < addrs.size() && addrs[j].v == addrs[j - 1].v + 1 && j - i < max_blocks) ++j;
    SubmitRead(addrs[i], static_cast<uint32_t>(j - i), kind, &b);
    i = j;
  }
  co_await WaitBatch(b);
}

sim::Task<void> IoManager::ReadBlock(BlockAddr a, Io kind) {
  const std::vector<BlockAddr> v(1, a);
  co_await ReadBlocks(v, kind);
}

sim::Task<void> IoManager::IssueFlush() {
  sim::Completion<bool> c(q_);
  if (dead_) co_return;
  if (!flush_inflight_) {
    flush_waiters_cur_.push_back(&c);
    StartFlush();
  } else {
    flush_waiters_next_.push_back(&c);
  }
  co_await c;
}

sim::Task<void> IoManager::WaitWarmNodeWritesUpTo(uint64_t mine) {
  while (!dead_ && !warm_node_inflight_.empty() && *warm_node_inflight_.begin() <= mine) co_await wb_wq_.Wait();
}

sim::Task<void> IoManager::WaitAllWrites() {
  while (writes_in_flight_ > 0 && !dead_) co_await io_wq_.Wait();
}

sim::Task<void> IoManager::WaitOrderedWrites(uint64_t key) {
  while (!dead_ && !ordered_unsubmitted_seqs_.empty() && *ordered_unsubmitted_seqs_.begin() < key)
    co_await io_wq_.Wait();
  const uint64_t mine = ordered_write_seq_;
  while (!dead_ && !ordered_writes_.empty() && *ordered_writes_.begin() <= mine) co_await io_wq_.Wait();
}

sim::Task<void> IoManager::WaitPlainWrites() {
  const uint64_t mine = plain_write_seq_;
  while (!dead_ && !plain_writes_.empty() && plain_writes_.begin()->first <= mine) co_await io_wq_.Wait();
}

sim::Task<void> IoManager::WaitCheckpointWrites() {
  CHECK(cp_awaited_plain_.empty()) << "two checkpoints waiting at once";
  for (const auto& [seq, r] : plain_writes_) {
    const uint32_t first = static_cast<uint32_t>(r->offset / kBlockSize);
    for (size_t i = 0; i < r->pages.size(); ++i) {
      // Padding (no page) is never valid.
      if (r->pages[i] && !sm_->BlockValid(BlockAddr{first + static_cast<uint32_t>(i)})) {
        cp_awaited_plain_.insert(seq);
        break;
      }
    }
  }
  while (!dead_ && (cp_writes_in_flight_ > 0 || !cp_awaited_plain_.empty())) co_await cp_io_wq_.Wait();
  cp_awaited_plain_.clear();
}

void IoManager::OnBlockComplete(ssd::BlockRequest* req) {
  IoReq* r = static_cast<IoReq*>(req);
  --ios_in_flight_;
  if (dead_) return;
  switch (r->op) {
    case ssd::BlockOp::kWrite: {
      for (uint64_t id : r->write_ids) image_->Complete(id, r->fua);
      for (Page* p : r->pages)
        if (p) cache_->WritebackDone(p);
      for (uint32_t ino : r->inos) host_->FileBlockWritten(ino);
      for (uint64_t q : r->node_seqs) warm_node_inflight_.erase(q);
      if (r->plain_seq) {
        plain_writes_.erase(r->plain_seq);
        cp_awaited_plain_.erase(r->plain_seq);
      } else {
        --cp_writes_in_flight_;
      }
      if (cp_writes_in_flight_ == 0 && cp_awaited_plain_.empty() && cp_io_wq_.has_waiters()) cp_io_wq_.NotifyAll();
      if (!region_writes_done_.empty())
        CountByRegion(BlockAddr{static_cast<uint32_t>(r->offset / kBlockSize)},
                      static_cast<uint32_t>(r->length / kBlockSize), +1, region_writes_done_);
      if (r->ordered_seq) ordered_writes_.erase(r->ordered_seq);
      --writes_in_flight_;
      if ((writes_in_flight_ == 0 || r->plain_seq || r->ordered_seq) && io_wq_.has_waiters()) io_wq_.NotifyAll();
      if (wb_wq_.has_waiters()) wb_wq_.NotifyAll();
      break;
    }
    case ssd::BlockOp::kFlush: {
      image_->FlushEnd(r->flush_marker);
      std::vector<sim::Completion<bool>*> done;
      done.swap(flush_waiters_cur_);
      for (auto* c : done) c->Complete(true);
      flush_inflight_ = false;
      if (!flush_waiters_next_.empty()) {
        flush_waiters_cur_.swap(flush_waiters_next_);
        StartFlush();
      }
      break;
    }
    case ssd::BlockOp::kRead:
      --reads_in_flight_;
      if (!region_reads_.empty())
        CountByRegion(BlockAddr{static_cast<uint32_t>(r->offset / kBlockSize)},
                      static_cast<uint32_t>(r->length / kBlockSize), -1, region_reads_);
      break;
    case ssd::BlockOp::kZoneAppend:
      break;  // never sent
    case ssd::BlockOp::kZoneMgmt:
      if (r->zone_action != ssd::ZoneAction::kReset) break;  // a Zone Finish: nothing to complete
      [[fallthrough]];
    case ssd::BlockOp::kTrim: {
      --trims_in_flight_;
      const uint32_t n = r->trim_blocks;
      for (uint32_t i = 0; i < n; ++i) image_->Complete(r->trim_first_id + i, /*fua=*/false);
      if (r->discard_cmd) {
        dq_->Done(BlockAddr{static_cast<uint32_t>(r->offset / kBlockSize)});
        if (!held_writes_.empty()) ReleaseHeldWrites();
        host_->DiscardDone();
      }
      break;
    }
  }
  IoBatch* b = r->batch;
  FreeReq(r);
  if (b && --b->pending == 0 && b->waiting) b->done.Complete(true);
}

}  // namespace fs::f2fs
