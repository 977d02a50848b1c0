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
}

FlowsDriver::~FlowsDriver() {
  for (auto& e : starts_) {
    if (e->scheduled()) events_->Deschedule(e.get());
  }
}

void FlowsDriver::Start() {
  for (Flow& f : flows_) {
    if (f.start == sim::SimTime::Zero()) {
      f.driver->Start();
      continue;
    }
    starts_.push_back(std::make_unique<StartEvent>(f.driver.get()));
    events_->Schedule(starts_.back().get(), events_->now() + f.start);
  }
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
  for (const char* op : {"read", "write", "trim"}) {
    const sim::Histogram* h = st.FindHistogram(fmt::format("flows.{}.{}.lat", name, op));
    if (h == nullptr) continue;
    sum += h->mean() * static_cast<double>(h->count());
    n += h->count();
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
                 "Mean end-to-end latency of the flow's data I/Os when it runs alone on the device");
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
    out += BlockWorkloadSummary(st, prefix, "flow " + f.name);
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
