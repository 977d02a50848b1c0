#include "sim/event_queue.h"

#include <algorithm>
#include <bit>

#include <glog/logging.h>

namespace sim {

namespace {
constexpr uint32_t kArity = 4;
}

Event::~Event() { CHECK(!scheduled()) << "event '" << Name() << "' destroyed while scheduled"; }

void Event::set_priority(Priority p) {
  CHECK(!scheduled()) << "priority change of a scheduled event";
  priority_ = p;
}

void Event::set_daemon(bool d) {
  CHECK(!scheduled()) << "daemon change of a scheduled event";
  daemon_ = d;
}

void EventQueue::Schedule(Event* e, SimTime when) {
  CHECK(!e->scheduled()) << "event '" << e->Name() << "' scheduled twice";
  CHECK(when >= now_) << "event '" << e->Name() << "' scheduled in the past: " << when.ns() << " < "
                      << now_.ns();
  e->when_ = when;
  const uint64_t key = (static_cast<uint64_t>(static_cast<int>(e->priority_) + 128) << 56) | seq_++;
  if (!e->daemon_) {
    ++live_;
    if (when == now_ && LanePush(e, key)) return;
  }
  if (hole_) {
    // Replace-top: one sift-down instead of removing the hole and sifting up.
    hole_ = false;
    heap_[0] = Entry{static_cast<uint64_t>(when.ns()), key, e};
    e->heap_index_ = 0;
    SiftDown(0);
    return;
  }
  const uint32_t i = static_cast<uint32_t>(heap_.size());
  CHECK_LT(i, kInLane);
  heap_.push_back(Entry{static_cast<uint64_t>(when.ns()), key, e});
  e->heap_index_ = i;
  SiftUp(i);
}

void EventQueue::Reschedule(Event* e, SimTime when) {
  if (e->scheduled()) Deschedule(e);
  Schedule(e, when);
}

void EventQueue::Deschedule(Event* e) {
  CHECK(e->scheduled()) << "deschedule of unscheduled event '" << e->Name() << "'";
  if (e->heap_index_ & kInLane) {
    LaneRemove(e);
  } else {
    FillHole();
    RemoveAt(e->heap_index_);
  }
}

// ---------------------------------------------------------------- lanes

bool EventQueue::LanePush(Event* e, uint64_t key) {
  const uint32_t li = static_cast<uint32_t>(key >> 56);
  Lane& l = lanes_[li];
  if (l.size == l.ring.size() && !GrowLane(li)) return false;
  const uint32_t slot = (l.head + l.size) & static_cast<uint32_t>(l.ring.size() - 1);
  l.ring[slot] = LaneEntry{key, e};
  e->heap_index_ = kInLane | (li << kLaneShift) | slot;
  if (l.size++ == 0) {
    lane_mask_[li >> 6] |= uint64_t{1} << (li & 63);
    ++busy_lanes_;
  }
  return true;
}

bool EventQueue::GrowLane(uint32_t li) {
  Lane& l = lanes_[li];
  const size_t cap = std::max<size_t>(16, 2 * l.ring.size());
  if (cap > kMaxLaneSlots) return false;
  std::vector<LaneEntry> bigger(cap);
  const size_t mask = l.ring.size() - 1;
  for (uint32_t k = 0; k < l.size; ++k) {
    const LaneEntry& x = l.ring[(l.head + k) & mask];
    bigger[k] = x;
    if (x.event != nullptr) x.event->heap_index_ = kInLane | (li << kLaneShift) | k;
  }
  l.ring.swap(bigger);
  l.head = 0;
  return true;
}

void EventQueue::TrimLane(uint32_t li) {
  Lane& l = lanes_[li];
  const uint32_t mask = static_cast<uint32_t>(l.ring.size() - 1);
  while (l.size > 0 && l.ring[l.head].event == nullptr) {
    l.head = (l.head + 1) & mask;
    --l.size;
  }
  if (l.size == 0) {
    l.head = 0;
    lane_mask_[li >> 6] &= ~(uint64_t{1} << (li & 63));
    --busy_lanes_;
  }
}

void EventQueue::LaneRemove(Event* e) {
  const uint32_t li = (e->heap_index_ >> kLaneShift) & (kLanes - 1);
  const uint32_t slot = e->heap_index_ & (kMaxLaneSlots - 1);
  Lane& l = lanes_[li];
  DCHECK_EQ(l.ring[slot].event, e);
  l.ring[slot].event = nullptr;
  e->heap_index_ = Event::kNotScheduled;
  --live_;
  if (slot == l.head) TrimLane(li);
}

uint32_t EventQueue::FirstLane() const {
  for (uint32_t w = 0; w < lane_mask_.size(); ++w) {
    if (lane_mask_[w] != 0) return w * 64 + static_cast<uint32_t>(std::countr_zero(lane_mask_[w]));
  }
  LOG(FATAL) << "no busy lane";
  return 0;
}

// ----------------------------------------------------------------- heap

void EventQueue::SiftUp(uint32_t i) {
  Entry x = heap_[i];
  while (i > 0) {
    const uint32_t parent = (i - 1) / kArity;
    if (!Before(x, heap_[parent])) break;
    Place(i, heap_[parent]);
    i = parent;
  }
  Place(i, x);
}

void EventQueue::SiftDown(uint32_t i) const {
  const uint32_t n = static_cast<uint32_t>(heap_.size());
  Entry x = heap_[i];
  for (;;) {
    const uint32_t first = i * kArity + 1;
    uint32_t best;
    if (first + kArity <= n) {
      // Full set of children: tournament with conditional moves.
      const uint32_t a = Before(heap_[first + 1], heap_[first]) ? first + 1 : first;
      const uint32_t b = Before(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
      best = Before(heap_[b], heap_[a]) ? b : a;
    } else {
      if (first >= n) break;
      best = first;
      for (uint32_t c = first + 1; c < n; ++c) best = Before(heap_[c], heap_[best]) ? c : best;
    }
    if (!Before(heap_[best], x)) break;
    Place(i, heap_[best]);
    i = best;
  }
  Place(i, x);
}

void EventQueue::RemoveAt(uint32_t i) {
  Event* e = heap_[i].event;
  e->heap_index_ = Event::kNotScheduled;
  if (!e->daemon_) --live_;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_[i] = last;
  last.event->heap_index_ = i;
  if (i > 0 && Before(last, heap_[(i - 1) / kArity])) {
    SiftUp(i);
  } else {
    SiftDown(i);
  }
}

Event* EventQueue::PopTop() {
  Event* e = heap_[0].event;
  now_ = SimTime::FromNs(static_cast<int64_t>(heap_[0].when));
  e->heap_index_ = Event::kNotScheduled;
  if (!e->daemon_) --live_;
  hole_ = true;
  return e;
}

void EventQueue::RemoveHole() const {
  hole_ = false;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (heap_.empty()) return;
  heap_[0] = last;
  last.event->heap_index_ = 0;
  SiftDown(0);
}

Event* EventQueue::PopNext() {
  FillHole();
  if (busy_lanes_ != 0) {
    const uint32_t li = FirstLane();
    Lane& l = lanes_[li];
    const LaneEntry& head = l.ring[l.head];
    // Heap entries are never earlier than now(); one at now() goes first
    // only with a smaller (priority, seq) key.
    if (heap_.empty() || heap_[0].when != static_cast<uint64_t>(now_.ns()) || head.key < heap_[0].key) {
      Event* e = head.event;
      l.head = (l.head + 1) & static_cast<uint32_t>(l.ring.size() - 1);
      --l.size;
      TrimLane(li);
      e->heap_index_ = Event::kNotScheduled;
      --live_;
      return e;
    }
  }
  return PopTop();
}

void EventQueue::Clear() {
  FillHole();
  for (const Entry& e : heap_) e.event->heap_index_ = Event::kNotScheduled;
  heap_.clear();
  for (Lane& l : lanes_) {
    const size_t mask = l.ring.size() - 1;
    for (uint32_t k = 0; k < l.size; ++k) {
      Event* e = l.ring[(l.head + k) & mask].event;
      if (e != nullptr) e->heap_index_ = Event::kNotScheduled;
    }
    l.head = 0;
    l.size = 0;
  }
  lane_mask_.fill(0);
  busy_lanes_ = 0;
  live_ = 0;
}

bool EventQueue::Step() {
  if (live_ == 0) return false;
  Event* e = PopNext();
  ++processed_;
  e->Process();
  FillHole();
  return true;
}

uint64_t EventQueue::Run(SimTime until) {
  stop_ = false;
  interrupted_ = false;
  const uint64_t start = processed_;
  const int64_t limit = until.ns();
  uint32_t poll = 1;
  while (live_ > 0 && NextWhen() <= limit && !stop_) {
    if (--poll == 0) {
      poll = kInterruptPoll;
      if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed) != 0) {
        interrupted_ = true;
        return processed_ - start;
      }
      if (poll_hook_) poll_hook_();
    }
    Event* e = PopNext();
    ++processed_;
    e->Process();
    FillHole();
  }
  if (!stop_ && until != SimTime::Max() && (live_ == 0 || NextWhen() > limit) && now_ < until) {
    now_ = until;
  }
  return processed_ - start;
}

}  // namespace sim
