#include "fs/f2fs/image.h"

#include <glog/logging.h>

namespace fs::f2fs {

Image::Image(uint64_t blocks) : durable_(blocks), durable_id_(blocks, 0) {}

const BlockPtr& Image::Read(BlockAddr addr) const {
  CHECK_LT(addr.v, durable_.size());
  auto it = newest_.find(addr.v);
  if (it != newest_.end()) return pending_[it->second - base_id_].content;
  return durable_[addr.v];
}

const BlockPtr& Image::ReadDurable(BlockAddr addr) const {
  CHECK_LT(addr.v, durable_.size());
  return durable_[addr.v];
}

uint64_t Image::Submit(BlockAddr addr, BlockPtr content) {
  CHECK_LT(addr.v, durable_.size()) << "write beyond the volume";
  const uint64_t id = next_id_++;
  Pending p;
  p.id = id;
  p.addr = addr;
  p.content = std::move(content);
  pending_.push_back(std::move(p));
  ++live_pending_;
  newest_[addr.v] = id;
  return id;
}

uint64_t Image::SubmitTrim(BlockAddr start, uint32_t count) {
  CHECK_GT(count, 0u);
  CHECK_LE(uint64_t{start.v} + count, durable_.size()) << "trim beyond the volume";
  const uint64_t first = next_id_;
  for (uint32_t i = 0; i < count; ++i) Submit(BlockAddr{start.v + i}, nullptr);
  return first;
}

Image::Pending* Image::Find(uint64_t id) {
  if (id < base_id_ || id >= base_id_ + pending_.size()) return nullptr;
  return &pending_[id - base_id_];
}

void Image::Promote(Pending& p) {
  if (p.done) return;
  p.done = true;
  --live_pending_;
  // A newer write to the same block that is already durable wins.
  if (durable_id_[p.addr.v] < p.id) {
    durable_[p.addr.v] = p.content;
    durable_id_[p.addr.v] = p.id;
    ++durable_writes_;
  }
  auto it = newest_.find(p.addr.v);
  if (it != newest_.end() && it->second == p.id) newest_.erase(it);
}

void Image::Compact() {
  while (!pending_.empty() && pending_.front().done) {
    pending_.pop_front();
    ++base_id_;
  }
}

void Image::Complete(uint64_t id, bool fua) {
  Pending* p = Find(id);
  CHECK(p != nullptr && p->completed_seq == 0 && !p->done) << "completion of an unknown write " << id;
  p->completed_seq = ++completed_seq_;
  if (fua) Promote(*p);
  Compact();
}

void Image::FlushEnd(uint64_t marker) {
  for (Pending& p : pending_) {
    if (!p.done && p.completed_seq != 0 && p.completed_seq <= marker) Promote(p);
  }
  Compact();
}

void Image::Forget(BlockAddr start, uint32_t count) {
  CHECK_LE(uint64_t{start.v} + count, durable_.size()) << "forget beyond the volume";
  static const BlockPtr stale = std::make_shared<const StaleBlock>();
  for (uint64_t a = start.v; a < uint64_t{start.v} + count; ++a) {
    BlockPtr& b = durable_[a];
    if (!b || b->type == BlockData::Type::kStale) continue;
    b = stale;
    ++forgotten_;
  }
}

void Image::WriteDurable(BlockAddr addr, BlockPtr content) {
  CHECK_LT(addr.v, durable_.size());
  CHECK(!newest_.count(addr.v)) << "direct write under a pending write";
  durable_[addr.v] = std::move(content);
}

void Image::PowerCut(const std::function<bool(BlockAddr, bool)>& keep) {
  for (Pending& p : pending_) {
    if (p.done) continue;
    if (keep(p.addr, p.completed_seq != 0)) Promote(p);
  }
  pending_.clear();
  newest_.clear();
  base_id_ = next_id_;
  live_pending_ = 0;
}

}  // namespace fs::f2fs
