#include "host/flows/flows_driver.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host {

class FlowsDriver::StartEvent final : public sim::Event {
 public:
  explicit StartEvent(WorkloadDriver* d) : d_(d) {}
  void Process() override { d_->Start(); }

 private:
  WorkloadDriver* d_;
};

FlowsDriver::FlowsDriver(sim::EventQueue* events, sim::StatGroup stats, std::vector<Flow> flows)
    : events_(events), stats_(stats), flows_(std::move(flows)) {
  CHECK(!flows_.empty());
  waiting_.resize(flows_.size());
  for (size_t i = 0; i < flows_.size(); ++i) {
    for (size_t j : flows_[i].after) CHECK_LT(j, flows_.size());
    waiting_[i] = flows_[i].after.size();
    flows_[i].driver->SetDoneCallback([this, i] { OnFlowDone(i); });
  }
}

FlowsDriver::~FlowsDriver() {
  for (auto& e : starts_) {
    if (e->scheduled()) events_->Deschedule(e.get());
  }
}

void FlowsDriver::Start() {
  run_start_ = events_->now();
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (waiting_[i] == 0) StartOrSchedule(i);
  }
}

void FlowsDriver::StartOrSchedule(size_t i) {
  Flow& f = flows_[i];
  const sim::SimTime at = std::max(run_start_ + f.start, events_->now());
  if (at == run_start_ && events_->now() == run_start_ && f.after.empty()) {
    f.driver->Start();
    return;
  }
  // Also at `now` for a flow whose last predecessor just finished: it starts
  // from the event loop, not inside the predecessor's completion.
  starts_.push_back(std::make_unique<StartEvent>(f.driver.get()));
  events_->Schedule(starts_.back().get(), at);
}

void FlowsDriver::OnFlowDone(size_t i) {
  ++finished_flows_;
  for (size_t j = 0; j < flows_.size(); ++j) {
    const std::vector<size_t>& after = flows_[j].after;
    if (std::find(after.begin(), after.end(), i) == after.end()) continue;
    CHECK_GT(waiting_[j], 0u);
    if (--waiting_[j] == 0) StartOrSchedule(j);
  }
  if (finished_flows_ == flows_.size() && on_done_) on_done_();
}

uint64_t FlowsDriver::completed() const {
  uint64_t n = 0;
  for (const Flow& f : flows_) n += f.driver->completed();
  return n;
}

uint64_t FlowsDriver::planned() const {
  uint64_t n = 0;
  for (const Flow& f : flows_) {
    if (f.driver->planned() == 0) return 0;
    n += f.driver->planned();
  }
  return n;
}

sim::Status FlowsDriver::status() const {
  for (const Flow& f : flows_) {
    if (sim::Status st = f.driver->status(); !st.ok()) {
      return sim::Status::InvalidInput(fmt::format("flow {}: {}", f.name, st.message()));
    }
  }
  return sim::Status::Ok();
}

bool FlowsDriver::finished() const {
  return std::all_of(flows_.begin(), flows_.end(), [](const Flow& f) { return f.driver->finished(); });
}

double FlowsDriver::MeanLatency(const sim::StatsRegistry& st, const std::string& name) {
  double sum = 0;
  uint64_t n = 0;
  auto add = [&](const sim::Histogram* h) {
    if (h == nullptr) return;
    sum += h->mean() * static_cast<double>(h->count());
    n += h->count();
  };
  for (const char* op : {"read", "write", "trim"}) add(st.FindHistogram(fmt::format("flows.{}.{}.lat", name, op)));
  if (n == 0) {
    // A file workload: its file-system calls ("flows.<name>.fs.<call>.lat";
    // during_checkpoint.lat holds a subset of them).
    const std::string prefix = fmt::format("flows.{}.fs.", name);
    for (const std::string& s : st.Names(prefix)) {
      if (!s.ends_with(".lat") || s == prefix + "during_checkpoint.lat") continue;
      add(st.FindHistogram(s));
    }
  }
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

void FlowsDriver::SetAloneLatency(const sim::StatsRegistry* st, std::vector<double> alone_ns) {
  CHECK_EQ(alone_ns.size(), flows_.size());
  CHECK(alone_ns_.empty()) << "SetAloneLatency called twice";
  alone_ns_ = std::move(alone_ns);
  registry_ = st;
  auto slowdown = [this](size_t i) {
    const double alone = alone_ns_[i];
    const double shared = MeanLatency(*registry_, flows_[i].name);
    return alone > 0 && shared > 0 ? shared / alone : std::numeric_limits<double>::quiet_NaN();
  };
  for (size_t i = 0; i < flows_.size(); ++i) {
    const sim::StatGroup g = stats_.Group("flows").Group(flows_[i].name);
    g.AddFormula([this, i] { return alone_ns_[i]; }, "alone_latency", "ns",
                 "Mean end-to-end latency of the flow's data I/Os (a file workload: of its file-system calls) when it "
                 "runs alone on the device");
    g.AddFormula([slowdown, i] { return slowdown(i); }, "slowdown", "ratio",
                 "Mean latency shared / mean latency alone (1 = no interference)");
  }
  stats_.Group("flows").AddFormula(
      [this, slowdown] {
        double lo = std::numeric_limits<double>::infinity(), hi = 0;
        for (size_t i = 0; i < flows_.size(); ++i) {
          const double s = slowdown(i);
          if (!(s > 0)) return std::numeric_limits<double>::quiet_NaN();
          lo = std::min(lo, s);
          hi = std::max(hi, s);
        }
        return lo / hi;
      },
      "fairness", "ratio", "min slowdown / max slowdown over the flows (1 = fair)");
}

std::string FlowsDriver::Summary(const sim::StatsRegistry& st) const {
  std::string out;
  for (const Flow& f : flows_) {
    const std::string prefix = "flows." + f.name;
    // A block flow's lines here; a file flow's are its workload's own.
    out += st.Has(prefix + ".ios_total") ? BlockWorkloadSummary(st, prefix, "flow " + f.name) : f.driver->Summary(st);
    const std::string dev = "ssd.flow." + f.name;
    if (const sim::Histogram* w = st.FindHistogram(dev + ".queue_wait"); w != nullptr && w->count() > 0) {
      out += fmt::format("  queue wait  n={} {}\n", w->count(), sim::LatencySummary(*w));
    }
    for (const char* op : {"read", "write"}) {
      const sim::Histogram* h = st.FindHistogram(fmt::format("{}.device_latency.{}", dev, op));
      if (h == nullptr || h->count() == 0) continue;
      out += fmt::format("  device {:<5} n={} {}\n", op, h->count(), sim::LatencySummary(*h));
    }
    if (st.Has(prefix + ".slowdown")) {
      out += fmt::format("  slowdown {:.3f} (mean latency {} shared, {} alone)\n", st.Value(prefix + ".slowdown"),
                         sim::Ns(static_cast<int64_t>(MeanLatency(st, f.name))).ToString(),
                         sim::Ns(static_cast<int64_t>(st.Value(prefix + ".alone_latency"))).ToString());
    }
  }
  if (st.Has("flows.fairness")) {
    out += fmt::format("flows      fairness {:.3f} (min slowdown / max slowdown)\n", st.Value("flows.fairness"));
  }
  return out;
}

}  // namespace host
