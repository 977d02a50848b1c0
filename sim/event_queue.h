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

#include <array>
#include <atomic>
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
  SimTime next_time() const {
    if (busy_lanes_ != 0) return now_;
    FillHole();
    return heap_.empty() ? SimTime::Max() : SimTime::FromNs(static_cast<int64_t>(heap_[0].when));
  }

  // Runs events in order until no non-daemon event is left, the next one is
  // later than `until`, or Stop() is called. Afterwards now() is the time of the last
  // event run (or `until` if the queue ran dry before it and until != Max).
  // Returns the number of events processed by this call.
  uint64_t Run(SimTime until = SimTime::Max());
  // Runs exactly one event if there is one. Returns false if empty.
  bool Step();
  // Makes Run() return after the current event.
  void Stop() { stop_ = true; }
  // Makes Run() poll `*flag` (at its start and every kInterruptPoll events)
  // and return, leaving the rest pending, once it is non-zero; interrupted()
  // tells whether the last Run() ended so. The flag is written from outside the
  // simulation (a signal handler); nullptr stops polling.
  static constexpr uint32_t kInterruptPoll = 1024;
  void SetInterrupt(const std::atomic<int>* flag) { interrupt_ = flag; }
  bool interrupted() const { return interrupted_; }
  // Makes Run() call `hook` at its start and every kInterruptPoll events,
  // before the next event: a watcher outside the model (a progress line
  // reading the wall clock) without an event of its own, so it neither
  // steps through idle simulated time nor counts as an event. The hook
  // must not schedule events or change the model. An empty one removes it.
  void SetPollHook(std::function<void()> hook) { poll_hook_ = std::move(hook); }
  // Unschedules every pending event, daemon or not: the end of a run that
  // stopped with work outstanding, before its components are destroyed.
  void Clear();

  uint64_t events_processed() const { return processed_; }

 private:
  // Heap entry. `when` is stored unsigned (times are never negative: an
  // event is scheduled at or after now(), which starts at zero) so that
  // (when, key) compares as one 128-bit integer: two instructions on x86-64
  // instead of a compare-and-combine per field.
  struct Entry {
    uint64_t when;
    uint64_t key;  // (priority + 128) << 56 | insertion sequence
    Event* event;
  };
  // Branch-free: the heap's child selection is the engine's hottest loop
  // and its outcome is unpredictable.
  static bool Before(const Entry& a, const Entry& b) {
    using U128 = unsigned __int128;
    return ((U128{a.when} << 64) | a.key) < ((U128{b.when} << 64) | b.key);
  }

  // Events due at now(): a device model schedules many (dispatch at the
  // current instant, zero-length bus phases, zero controller overheads).
  // They skip the heap and wait in one FIFO per priority ("lane"): all have
  // the same time, and within a priority later insertions have larger
  // sequence numbers, so each lane is already in (time, priority, seq)
  // order and the next event is the smaller of the heap top and the head of
  // the lowest non-empty lane. Lanes only ever hold events at now(): time
  // advances only by popping a later heap entry, which cannot happen while
  // a lane (holding earlier events) is non-empty. Daemon events stay in the
  // heap so that Run(until) may move the clock while they are pending.
  struct LaneEntry {
    uint64_t key;  // as Entry::key
    Event* event;  // nullptr: descheduled (a tombstone, skipped)
  };
  struct Lane {
    std::vector<LaneEntry> ring;  // power-of-two capacity
    uint32_t head = 0;
    uint32_t size = 0;  // entries from head, tombstones included; the head is never one
  };
  static constexpr int kLanes = 256;  // one per Priority value
  // heap_index_ of an event in a lane: kInLane | lane << kLaneShift | slot.
  static constexpr uint32_t kInLane = 1u << 31;
  static constexpr int kLaneShift = 22;
  static constexpr uint32_t kMaxLaneSlots = 1u << kLaneShift;  // beyond it, events go to the heap

  void SiftUp(uint32_t i);
  void SiftDown(uint32_t i) const;
  void RemoveAt(uint32_t i);
  void Place(uint32_t i, const Entry& e) const {
    heap_[i] = e;
    e.event->heap_index_ = i;
  }
  Event* PopTop();
  // Run() pops the heap top lazily: the root slot stays as a hole while the
  // event runs, and a Schedule() into the heap from Process() (an event
  // rescheduling itself, the common case) fills it with one sift-down
  // instead of a remove plus an insert. Every other heap access fills the
  // hole first. The order of events is unchanged: keys are unique.
  void FillHole() const {
    if (hole_) RemoveHole();
  }
  void RemoveHole() const;
  // Appends to the lane of e's priority; false if the lane cannot grow.
  bool LanePush(Event* e, uint64_t key);
  bool GrowLane(uint32_t lane);
  // Drops tombstones at the lane's head; marks the lane empty when drained.
  void TrimLane(uint32_t lane);
  void LaneRemove(Event* e);
  // Lowest non-empty lane. REQUIRES: busy_lanes_ > 0.
  uint32_t FirstLane() const;
  // Removes and returns the next event in (time, priority, seq) order.
  // REQUIRES: an event is pending.
  Event* PopNext();
  // Time of the next event. REQUIRES: an event is pending.
  int64_t NextWhen() const {
    if (busy_lanes_ != 0) return now_.ns();
    FillHole();
    return static_cast<int64_t>(heap_[0].when);
  }

  // 4-ary min-heap. Mutable for FillHole() in const accessors.
  mutable std::vector<Entry> heap_;
  mutable bool hole_ = false;  // heap_[0] is a popped entry awaiting removal
  std::array<Lane, kLanes> lanes_;
  std::array<uint64_t, kLanes / 64> lane_mask_{};  // bit per non-empty lane
  uint32_t busy_lanes_ = 0;
  SimTime now_;
  uint64_t seq_ = 0;
  uint64_t processed_ = 0;
  size_t live_ = 0;  // scheduled non-daemon events
  bool stop_ = false;
  const std::atomic<int>* interrupt_ = nullptr;
  bool interrupted_ = false;
  std::function<void()> poll_hook_;
};

}  // namespace sim
