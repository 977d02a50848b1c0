#include "sim/event_queue.h"

#include <cmath>
#include <memory>
#include <set>
#include <algorithm>
#include <atomic>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace sim {
namespace {

class Recorder {
 public:
  std::vector<int> order;
};

class TaggedEvent final : public Event {
 public:
  TaggedEvent(Recorder* r, int tag, Priority p = Priority::kDefault) : Event(p), r_(r), tag_(tag) {}
  void Process() override { r_->order.push_back(tag_); }

 private:
  Recorder* r_;
  int tag_;
};

TEST(EventQueueTest, OrdersByTimeThenPriorityThenInsertion) {
  EventQueue q;
  Recorder r;
  TaggedEvent a(&r, 1), b(&r, 2), c(&r, 3, Priority::kCompletion), d(&r, 4), e(&r, 5, Priority::kStats);
  q.Schedule(&a, Ns(10));
  q.Schedule(&e, Ns(5));
  q.Schedule(&b, Ns(5));
  q.Schedule(&c, Ns(5));
  q.Schedule(&d, Ns(5));
  EXPECT_EQ(q.Run(), 5u);
  EXPECT_EQ(r.order, (std::vector<int>{3, 2, 4, 5, 1}));
  EXPECT_EQ(q.now(), Ns(10));
}

TEST(EventQueueTest, DescheduleAndReschedule) {
  EventQueue q;
  Recorder r;
  TaggedEvent a(&r, 1), b(&r, 2), c(&r, 3);
  q.Schedule(&a, Ns(10));
  q.Schedule(&b, Ns(20));
  q.Schedule(&c, Ns(30));
  q.Deschedule(&b);
  EXPECT_FALSE(b.scheduled());
  q.Reschedule(&c, Ns(5));
  EXPECT_EQ(c.when(), Ns(5));
  q.Run();
  EXPECT_EQ(r.order, (std::vector<int>{3, 1}));
}

TEST(EventQueueTest, RunUntilStopsAtLimitAndAdvancesClock) {
  EventQueue q;
  Recorder r;
  TaggedEvent a(&r, 1), b(&r, 2);
  q.Schedule(&a, Ns(10));
  q.Schedule(&b, Ns(100));
  EXPECT_EQ(q.Run(Ns(50)), 1u);
  EXPECT_EQ(q.now(), Ns(50));
  EXPECT_TRUE(b.scheduled());
  q.Run();
  EXPECT_EQ(q.now(), Ns(100));
}

TEST(EventQueueTest, SelfReschedulingEventAndStop) {
  EventQueue q;
  int fired = 0;
  FunctionEvent* self = nullptr;
  FunctionEvent ev([&] {
    ++fired;
    if (fired == 7) q.Stop();
    q.ScheduleIn(self, Us(1));
  });
  self = &ev;
  q.Schedule(&ev, Ns(0));
  q.Run();
  EXPECT_EQ(fired, 7);
  EXPECT_EQ(q.now(), Us(6));
  q.Deschedule(&ev);
}

// An interrupt flag set while events run (as a signal handler would) ends
// Run() within kInterruptPoll events and leaves the rest pending; a flag
// already set stops Run() before the first event.
TEST(EventQueueTest, InterruptFlagStopsRunWithinAPollPeriod) {
  EventQueue q;
  std::atomic<int> flag{0};
  q.SetInterrupt(&flag);
  uint64_t fired = 0;
  FunctionEvent* self = nullptr;
  FunctionEvent ev([&] {
    ++fired;
    if (fired == 5000) flag.store(2);
    q.ScheduleIn(self, Us(1));
  });
  self = &ev;
  q.Schedule(&ev, Ns(0));
  q.Run();
  EXPECT_TRUE(q.interrupted());
  EXPECT_GE(fired, 5000u);
  EXPECT_LE(fired, 5000u + EventQueue::kInterruptPoll);
  EXPECT_TRUE(ev.scheduled());
  const uint64_t before = fired;
  q.Run();  // still set: returns at once
  EXPECT_EQ(fired, before);
  flag.store(0);
  q.SetInterrupt(nullptr);
  q.Run(q.now() + Us(10));
  EXPECT_GT(fired, before);
  q.Deschedule(&ev);
}

// A poll hook runs at the start of Run() and once every kInterruptPoll
// events, whatever simulated time passes between them, and is no event: the
// count and the clock are the model's alone.
TEST(EventQueueTest, PollHookRunsPerEventsNotPerSimulatedTime) {
  EventQueue q;
  uint64_t fired = 0;
  std::vector<uint64_t> polled_at;  // events processed when the hook ran
  q.SetPollHook([&] { polled_at.push_back(q.events_processed()); });
  FunctionEvent* self = nullptr;
  FunctionEvent ev([&] {
    if (++fired < 3000) q.ScheduleIn(self, Sec(1000));  // long idle gaps
  });
  self = &ev;
  q.Schedule(&ev, Ns(0));
  EXPECT_EQ(q.Run(), 3000u);
  EXPECT_EQ(q.events_processed(), 3000u);
  ASSERT_EQ(polled_at.size(), 3u);  // 0, 1024, 2048
  for (size_t i = 0; i < polled_at.size(); ++i) EXPECT_EQ(polled_at[i], i * EventQueue::kInterruptPoll);
  q.SetPollHook(nullptr);
  q.Schedule(&ev, q.now());
  q.Run();
  EXPECT_EQ(polled_at.size(), 3u);
}

TEST(EventQueueTest, RandomizedMatchesReferenceOrder) {
  // Random schedule/deschedule against a brute-force model of the ordering.
  Rng rng(42, "test");
  EventQueue q;
  Recorder r;
  std::vector<std::unique_ptr<TaggedEvent>> evs;
  struct Ref {
    int64_t t;
    int prio;
    uint64_t seq;
    int tag;
    bool live;
  };
  std::vector<Ref> ref;
  uint64_t seq = 0;
  for (int i = 0; i < 2000; ++i) {
    const Priority p = rng.Bernoulli(0.5) ? Priority::kDefault : Priority::kCompletion;
    evs.push_back(std::make_unique<TaggedEvent>(&r, i, p));
    const int64_t t = static_cast<int64_t>(rng.Uniform(100));
    q.Schedule(evs.back().get(), Ns(t));
    ref.push_back({t, static_cast<int>(p), seq++, i, true});
    if (rng.Bernoulli(0.2)) {
      const int victim = static_cast<int>(rng.Uniform(evs.size()));
      if (evs[victim]->scheduled()) {
        q.Deschedule(evs[victim].get());
        ref[victim].live = false;
      }
    }
  }
  q.Run();
  std::vector<Ref> live;
  for (const auto& x : ref) if (x.live) live.push_back(x);
  std::sort(live.begin(), live.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.t, a.prio, a.seq) < std::tie(b.t, b.prio, b.seq);
  });
  ASSERT_EQ(r.order.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) EXPECT_EQ(r.order[i], live[i].tag) << i;
}

TEST(EventQueueDeathTest, SchedulingInThePastIsABug) {
  EventQueue q;
  Recorder r;
  TaggedEvent a(&r, 1), b(&r, 2);
  q.Schedule(&a, Ns(10));
  q.Run();
  EXPECT_DEATH(q.Schedule(&b, Ns(5)), "in the past");
}

TEST(EventQueueDeathTest, DoubleScheduleIsABug) {
  EXPECT_DEATH(
      {
        EventQueue q;
        Recorder r;
        TaggedEvent a(&r, 1);
        q.Schedule(&a, Ns(10));
        q.Schedule(&a, Ns(20));
      },
      "scheduled twice");
}

TEST(TimeTest, SaturatingHelpersClampInsteadOfOverflowing) {
  EXPECT_EQ(sim::SaturatingUs(1.5), sim::Ns(1500));
  EXPECT_EQ(sim::SaturatingUs(-2), sim::Us(-2));
  EXPECT_EQ(sim::SaturatingUs(1e18), sim::SimTime::Max());
  EXPECT_EQ(sim::SaturatingUs(-1e18), sim::SimTime::FromNs(-sim::SimTime::Max().ns()));
  EXPECT_EQ(sim::SaturatingUs(std::nan("")), sim::SimTime::Zero());
  EXPECT_EQ(sim::SaturatingAdd(sim::Sec(1), sim::Sec(2)), sim::Sec(3));
  EXPECT_EQ(sim::SaturatingAdd(sim::SimTime::Max(), sim::Ns(1)), sim::SimTime::Max());
  EXPECT_EQ(sim::SaturatingAdd(sim::SimTime::Max(), sim::Ns(-1)), sim::SimTime::FromNs(sim::SimTime::Max().ns() - 1));
  EXPECT_EQ(sim::SaturatingAdd(sim::SimTime::FromNs(-sim::SimTime::Max().ns()), sim::Ns(-5)),
            sim::SimTime::FromNs(-sim::SimTime::Max().ns()));
  EXPECT_LT(sim::kLongSimulatedSpan, sim::kMaxReplaySpan);
  EXPECT_LT(sim::kMaxReplaySpan, sim::SimTime::Max() / 2);
}

TEST(TimeTest, UnitsAndFormatting) {
  EXPECT_EQ(Us(75).ns(), 75000);
  EXPECT_EQ(Ms(3.8).ns(), 3800000);
  EXPECT_EQ(Sec(1).ns(), 1000000000);
  EXPECT_EQ(Us(75).ToString(), "75us");
  EXPECT_EQ(Ms(3.8).ToString(), "3.8ms");
  EXPECT_EQ(Ns(12).ToString(), "12ns");
  // 8 KiB at 333 MB/s = 24600.6 ns, rounded up.
  EXPECT_EQ(TransferTime(8192, 333e6).ns(), 24601);
  EXPECT_EQ(TransferTime(4096, 4096e6).ns(), 1000);
  // A year fits with room to spare.
  EXPECT_LT(Sec(365.0 * 86400 * 100), SimTime::Max());
}

TEST(RngTest, StreamsAreDeterministicAndIndependent) {
  Rng a(7, "ftl"), b(7, "ftl"), c(7, "host"), d(8, "ftl");
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
    EXPECT_NE(x, d.Next());
  }
}

TEST(RngTest, UniformIsUnbiased) {
  Rng r(1, "u");
  std::vector<int> hist(10);
  const int n = 200000;
  for (int i = 0; i < n; ++i) ++hist[r.Uniform(10)];
  for (int h : hist) EXPECT_NEAR(h, n / 10, 5 * std::sqrt(n / 10.0));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.Exponential(3.0);
  EXPECT_NEAR(sum / n, 3.0, 0.05);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = r.UniformRange(-3, 3);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
  }
}

}  // namespace
}  // namespace sim

namespace sim {
namespace {

TEST(EventQueueTest, DaemonEventsDoNotKeepTheRunAlive) {
  EventQueue q;
  int ticks = 0;
  FunctionEvent* self = nullptr;
  FunctionEvent daemon([&] {
    ++ticks;
    q.ScheduleIn(self, Us(10));
  });
  self = &daemon;
  daemon.set_daemon(true);
  int work = 0;
  FunctionEvent job([&] { ++work; });
  q.Schedule(&daemon, Us(10));
  q.Schedule(&job, Us(35));
  EXPECT_EQ(q.pending(), 1u);
  q.Run();
  EXPECT_EQ(work, 1);
  EXPECT_EQ(ticks, 3);  // 10, 20, 30 us; the 40 us tick is left pending
  EXPECT_EQ(q.now(), Us(35));
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(daemon.scheduled());
  q.Deschedule(&daemon);
}

}  // namespace
}  // namespace sim

namespace sim {
namespace {

TEST(EventQueueTest, ClearUnschedulesEverything) {
  EventQueue q;
  FunctionEvent a([] {}), b([] {});
  b.set_daemon(true);
  q.Schedule(&a, Ns(5));
  q.Schedule(&b, Ns(6));
  q.Clear();
  EXPECT_FALSE(a.scheduled());
  EXPECT_FALSE(b.scheduled());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.Run(), 0u);
}

}  // namespace
}  // namespace sim

namespace sim {
namespace {

// Events scheduled at now() take a fast path (per-priority FIFOs beside the
// heap); their order against heap entries due at the same instant, against
// each other and under Deschedule must be exactly (time, priority, seq).
// Handlers here schedule follow-ups, half of them at the current instant,
// with mixed priorities, and deschedule random pending events; every event
// run must be the minimum of a brute-force reference set.
class SameInstantModel {
 public:
  using Key = std::tuple<int64_t, int, uint64_t, int>;  // (time, priority, seq, tag)

  void Add(int64_t delay) {
    static constexpr Priority kPrios[] = {Priority::kCompletion, Priority::kDefault, Priority::kIssue};
    const Priority p = kPrios[rng_.Uniform(3)];
    evs_.push_back(std::make_unique<Ev>(this, static_cast<int>(evs_.size()), p));
    const int64_t t = q_.now().ns() + delay;
    q_.Schedule(evs_.back().get(), Ns(t));
    keys_.emplace_back(t, static_cast<int>(p), seq_++, evs_.back()->tag);
    ref_.insert(keys_.back());
  }
  Rng& rng() { return rng_; }
  EventQueue& q() { return q_; }
  bool mismatch() const { return mismatch_; }
  int run() const { return run_; }
  size_t pending_in_reference() const { return ref_.size(); }

 private:
  struct Ev final : public Event {
    Ev(SameInstantModel* m, int t, Priority p) : Event(p), model(m), tag(t) {}
    void Process() override { model->Ran(tag); }
    SameInstantModel* model;
    int tag;
  };

  void Ran(int tag) {
    ++run_;
    if (ref_.empty() || std::get<3>(*ref_.begin()) != tag) mismatch_ = true;
    ref_.erase(keys_[tag]);
    if (evs_.size() < 20000) {
      const int n = static_cast<int>(rng_.Uniform(3));
      for (int i = 0; i < n; ++i) Add(rng_.Bernoulli(0.5) ? 0 : static_cast<int64_t>(rng_.Uniform(4)));
    }
    if (rng_.Bernoulli(0.1)) {
      Ev* v = evs_[rng_.Uniform(evs_.size())].get();
      if (v->scheduled()) {
        q_.Deschedule(v);
        ref_.erase(keys_[v->tag]);
      }
    }
  }

  EventQueue q_;
  Rng rng_{7, "test.same_instant"};
  std::vector<std::unique_ptr<Ev>> evs_;
  std::set<Key> ref_;
  std::vector<Key> keys_;
  uint64_t seq_ = 0;
  int run_ = 0;
  bool mismatch_ = false;
};

TEST(EventQueueTest, SameInstantSchedulingFromHandlersMatchesReferenceOrder) {
  SameInstantModel m;
  for (int i = 0; i < 50; ++i) m.Add(static_cast<int64_t>(m.rng().Uniform(3)));
  m.q().Run();
  EXPECT_FALSE(m.mismatch());
  EXPECT_EQ(m.pending_in_reference(), 0u);
  EXPECT_GT(m.run(), 10000);
  EXPECT_TRUE(m.q().empty());
}

TEST(EventQueueTest, ClearAndDescheduleReachSameInstantEvents) {
  EventQueue q;
  int ran = 0;
  FunctionEvent a([&] { ++ran; }), b([&] { ++ran; }), c([&] { ++ran; }, Priority::kIssue);
  q.Schedule(&a, q.now());
  q.Schedule(&b, q.now());
  q.Schedule(&c, q.now());
  EXPECT_EQ(q.next_time(), q.now());
  q.Deschedule(&a);  // the head of its FIFO
  EXPECT_FALSE(a.scheduled());
  EXPECT_EQ(q.pending(), 2u);
  EXPECT_TRUE(q.Step());
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(b.scheduled());
  q.Clear();
  EXPECT_FALSE(c.scheduled());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_time(), SimTime::Max());
  EXPECT_EQ(q.Run(), 0u);
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace sim
