#include "sim/event_queue.h"

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
  const uint32_t i = static_cast<uint32_t>(heap_.size());
  heap_.push_back(Entry{when.ns(), key, e});
  e->heap_index_ = i;
  if (!e->daemon_) ++live_;
  SiftUp(i);
}

void EventQueue::Reschedule(Event* e, SimTime when) {
  if (e->scheduled()) Deschedule(e);
  Schedule(e, when);
}

void EventQueue::Deschedule(Event* e) {
  CHECK(e->scheduled()) << "deschedule of unscheduled event '" << e->Name() << "'";
  RemoveAt(e->heap_index_);
}

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

void EventQueue::SiftDown(uint32_t i) {
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
  now_ = SimTime::FromNs(heap_[0].when);
  RemoveAt(0);
  return e;
}

void EventQueue::Clear() {
  for (const Entry& e : heap_) e.event->heap_index_ = Event::kNotScheduled;
  heap_.clear();
  live_ = 0;
}

bool EventQueue::Step() {
  if (live_ == 0) return false;
  Event* e = PopTop();
  ++processed_;
  e->Process();
  return true;
}

uint64_t EventQueue::Run(SimTime until) {
  stop_ = false;
  const uint64_t start = processed_;
  const int64_t limit = until.ns();
  while (live_ > 0 && heap_[0].when <= limit && !stop_) {
    Event* e = PopTop();
    ++processed_;
    e->Process();
  }
  if (!stop_ && until != SimTime::Max() && (live_ == 0 || heap_[0].when > limit) && now_ < until) {
    now_ = until;
  }
  return processed_ - start;
}

}  // namespace sim
