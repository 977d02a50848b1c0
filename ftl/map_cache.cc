#include "ftl/map_cache.h"

#include <glog/logging.h>

namespace ftl {

MapCache::MapCache(uint64_t logical_pages, uint64_t capacity, uint64_t entries_per_page)
    : capacity_(capacity),
      entries_per_page_(entries_per_page),
      pages_((logical_pages + entries_per_page - 1) / entries_per_page) {
  CHECK_GE(capacity, 1u);
  CHECK_LT(capacity, uint64_t{kNone});
  CHECK_GE(entries_per_page, 1u);
  // A cache larger than the table never evicts: size it to the table.
  if (capacity_ > logical_pages) capacity_ = logical_pages;
  entries_.reserve(capacity_);
  slot_of_.assign(logical_pages, kNone);
  page_head_.assign(pages_, kNone);
}

void MapCache::Unlink(uint32_t i) {
  Entry& e = entries_[i];
  (e.prev == kNone ? lru_ : entries_[e.prev].next) = e.next;
  (e.next == kNone ? mru_ : entries_[e.next].prev) = e.prev;
  e.prev = e.next = kNone;
}

void MapCache::PushMru(uint32_t i) {
  Entry& e = entries_[i];
  e.prev = mru_;
  e.next = kNone;
  (mru_ == kNone ? lru_ : entries_[mru_].next) = i;
  mru_ = i;
}

void MapCache::LinkPage(uint32_t i) {
  Entry& e = entries_[i];
  uint32_t& head = page_head_[PageOf(Lpn{e.lpn})];
  e.pprev = kNone;
  e.pnext = head;
  if (head != kNone) entries_[head].pprev = i;
  head = i;
}

void MapCache::UnlinkPage(uint32_t i) {
  Entry& e = entries_[i];
  if (e.pprev == kNone) {
    page_head_[PageOf(Lpn{e.lpn})] = e.pnext;
  } else {
    entries_[e.pprev].pnext = e.pnext;
  }
  if (e.pnext != kNone) entries_[e.pnext].pprev = e.pprev;
  e.pprev = e.pnext = kNone;
}

MapCache::Access MapCache::Touch(Lpn l, bool dirty) {
  Access a;
  const uint32_t s = slot_of_[l.v];
  if (s != kNone) {
    a.hit = true;
    entries_[s].dirty = entries_[s].dirty || dirty;
    if (s != mru_) {
      Unlink(s);
      PushMru(s);
    }
    return a;
  }
  uint32_t i;
  if (size_ < capacity_) {
    i = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
    ++size_;
  } else {
    i = lru_;
    Entry& old = entries_[i];
    if (old.dirty) {
      a.writeback = PageOf(Lpn{old.lpn});
      // The write-back carries every cached entry of the page.
      for (uint32_t j = page_head_[a.writeback]; j != kNone; j = entries_[j].pnext) entries_[j].dirty = false;
    }
    UnlinkPage(i);
    Unlink(i);
    slot_of_[old.lpn] = kNone;
  }
  Entry& e = entries_[i];
  e.lpn = l.v;
  e.dirty = dirty;
  slot_of_[l.v] = i;
  PushMru(i);
  LinkPage(i);
  return a;
}

bool MapCache::MarkDirty(Lpn l) {
  const uint32_t s = slot_of_[l.v];
  if (s == kNone) return false;
  entries_[s].dirty = true;
  return true;
}

uint64_t MapCache::MemoryBytes() const {
  return slot_of_.capacity() * sizeof(uint32_t) + entries_.capacity() * sizeof(Entry) +
         page_head_.capacity() * sizeof(uint32_t);
}

}  // namespace ftl
