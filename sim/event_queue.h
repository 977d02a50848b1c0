// The discrete-event engine: events owned by components, one queue, one clock.
//
// Ordering: events run in increasing (time, priority, insertion sequence).
// Equal-time, equal-priority events run in the order they were scheduled, so
// a run is bit-for-bit reproducible. Lower priority values run first.
//
// Ownership: an Event is a member (or pool element) of the component that
// schedules it; the queue stores only pointers, so scheduling never
// allocates once the heap array has grown to the peak number of pending
// events. An event must not be destroyed while scheduled (the destructor
// CHECKs this).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace sim {

// Named priorities for events that share a timestamp. Completions run
// before new work is issued at the same instant; statistics sampling runs
// after everything else.
enum class Priority : int8_t {
  kCompletion = -20,
  kDefault = 0,
  kIssue = 10,
  kStats = 100,
  kProgress = 110,
};

class EventQueue;

class Event {
 public:
  explicit Event(Priority priority = Priority::kDefault) : priority_(priority) {}
  virtual ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Called by the queue at when(). The event is no longer scheduled when
  // Process() runs, so it may schedule itself again.
  virtual void Process() = 0;
  virtual std::string_view Name() const { return "event"; }

  bool scheduled() const { return heap_index_ != kNotScheduled; }
  // REQUIRES: scheduled().
  SimTime when() const { return when_; }
  Priority priority() const { return priority_; }
  // Only while unscheduled.
  void set_priority(Priority p);
  // A daemon event (periodic statistics sampling, progress reports) does
  // not keep the simulation alive: Run() returns once only daemon events
  // are pending, and pending() does not count them. Only while unscheduled.
  void set_daemon(bool d);
  bool daemon() const { return daemon_; }

 private:
  friend class EventQueue;
  static constexpr uint32_t kNotScheduled = UINT32_MAX;
  SimTime when_;
  uint32_t heap_index_ = kNotScheduled;
  Priority priority_;
  bool daemon_ = false;
};

// An event that calls obj->*Method(). The usual way for a component to own
// its events: `MemberEvent<Die, &Die::OnOpDone> done_event_{this};`
template <class T, void (T::*Method)()>
class MemberEvent final : public Event {
 public:
  explicit MemberEvent(T* obj, Priority p = Priority::kDefault) : Event(p), obj_(obj) {}
  void Process() override { (obj_->*Method)(); }

 private:
  T* obj_;
};

// An event calling a std::function. Convenient for setup code and tests;
// prefer MemberEvent on hot paths.
class FunctionEvent final : public Event {
 public:
  explicit FunctionEvent(std::function<void()> fn, Priority p = Priority::kDefault)
      : Event(p), fn_(std::move(fn)) {}
  void Process() override { fn_(); }

 private:
  std::function<void()> fn_;
};

class EventQueue {
 public:
  EventQueue() = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  SimTime now() const { return now_; }

  // REQUIRES: !e->scheduled(), when >= now().
  void Schedule(Event* e, SimTime when);
  void ScheduleIn(Event* e, SimTime delay) { Schedule(e, now_ + delay); }
  // Moves a scheduled event, or schedules an unscheduled one.
  void Reschedule(Event* e, SimTime when);
  // REQUIRES: e->scheduled().
  void Deschedule(Event* e);

  // True when no non-daemon event is pending.
  bool empty() const { return live_ == 0; }
  // Pending non-daemon events.
  size_t pending() const { return live_; }
  // Time of the next event; SimTime::Max() if none.
  SimTime next_time() const { return heap_.empty() ? SimTime::Max() : SimTime::FromNs(heap_[0].when); }

  // Runs events in order until no non-daemon event is left, the next one is
  // later than `until`, or Stop() is called. Afterwards now() is the time of the last
  // event run (or `until` if the queue ran dry before it and until != Max).
  // Returns the number of events processed by this call.
  uint64_t Run(SimTime until = SimTime::Max());
  // Runs exactly one event if there is one. Returns false if empty.
  bool Step();
  // Makes Run() return after the current event.
  void Stop() { stop_ = true; }
  // Unschedules every pending event, daemon or not: the end of a run that
  // stopped with work outstanding, before its components are destroyed.
  void Clear();

  uint64_t events_processed() const { return processed_; }

 private:
  struct Entry {
    int64_t when;
    uint64_t key;  // (priority + 128) << 56 | insertion sequence
    Event* event;
  };
  // Branch-free: the heap's child selection is the engine's hottest loop
  // and its outcome is unpredictable.
  static bool Before(const Entry& a, const Entry& b) {
    return (a.when < b.when) | ((a.when == b.when) & (a.key < b.key));
  }
  void SiftUp(uint32_t i);
  void SiftDown(uint32_t i);
  void RemoveAt(uint32_t i);
  void Place(uint32_t i, const Entry& e) {
    heap_[i] = e;
    e.event->heap_index_ = i;
  }
  Event* PopTop();

  std::vector<Entry> heap_;  // 4-ary min-heap
  SimTime now_;
  uint64_t seq_ = 0;
  uint64_t processed_ = 0;
  size_t live_ = 0;  // scheduled non-daemon events
  bool stop_ = false;
};

}  // namespace sim
