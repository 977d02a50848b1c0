// FlowsDriver: runs several workloads (flows) on one device as one
// workload driver.
//
// Each flow is a built WorkloadDriver with a start offset: Start() starts
// the flows with offset 0 at once, in flow order, and schedules the others
// (flow order breaks ties of equal start times). The driver has completed
// what its flows completed, is finished when every flow is, and reports the
// first flow's error.
//
// Slowdown and fairness (the figures of MQSim's multi-flow studies,
// Tavakkol et al., FAST'18): a flow's slowdown is
//   S_i = mean latency of its I/Os in the shared run
//         / mean latency of its I/Os when it runs alone on the same device,
// with latency the end-to-end latency (submission to completion) of its
// data I/Os over its measured window, and the run's fairness is
//   F = min_i S_i / max_i S_i
// (1 = every flow slowed alike; towards 0 = one flow bears the
// interference). The alone latencies come from separate runs
// (SetAloneLatency); without them these figures are not registered.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/workload_kind.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host {

class FlowsDriver final : public WorkloadDriver {
 public:
  struct Flow {
    std::string name;
    sim::SimTime start;  // after the run's start
    std::unique_ptr<WorkloadDriver> driver;
    // Flows (indices) that must have finished before this one starts (fio's
    // stonewall / wait_for): it starts at the later of `start` and the
    // last of their ends.
    std::vector<size_t> after = {};
  };
  // REQUIRES: flows non-empty, names unique, `after` acyclic and within
  // range; each flow's workload registered
  // its stats under "flows.<name>." in the registry of `stats`. `stats` is
  // the root group; the figures above go under "flows.".
  FlowsDriver(sim::EventQueue* events, sim::StatGroup stats, std::vector<Flow> flows);
  ~FlowsDriver() override;

  void Start() override;
  void SetDoneCallback(std::function<void()> fn) override { on_done_ = std::move(fn); }
  uint64_t completed() const override;
  uint64_t planned() const override;
  sim::Status status() const override;
  bool finished() const override;
  std::string Summary(const sim::StatsRegistry& st) const override;

  // The mean end-to-end latency (ns) of flow `name`'s data I/Os over its
  // measured window, from the registered histograms "flows.<name>.<op>.lat"
  // (read, write, trim); 0 when it completed none.
  static double MeanLatency(const sim::StatsRegistry& st, const std::string& name);
  // Registers flows.<name>.alone_latency and .slowdown for every flow and
  // flows.fairness, from the alone latencies in flow order (ns). Call once,
  // after the run. REQUIRES: alone_ns.size() == number of flows.
  void SetAloneLatency(const sim::StatsRegistry* st, std::vector<double> alone_ns);

  const std::vector<Flow>& flows() const { return flows_; }

 private:
  class StartEvent;
  // Flow i finished: starts the flows waiting only for it.
  void OnFlowDone(size_t i);
  // Starts flow i now, or schedules its start at run start + its start.
  void StartOrSchedule(size_t i);
  sim::EventQueue* events_;
  sim::SimTime run_start_;
  std::vector<size_t> waiting_;  // per flow: flows of `after` not finished yet
  size_t finished_flows_ = 0;
  std::function<void()> on_done_;
  sim::StatGroup stats_;
  std::vector<Flow> flows_;
  std::vector<std::unique_ptr<StartEvent>> starts_;
  std::vector<double> alone_ns_;
  const sim::StatsRegistry* registry_ = nullptr;
};

}  // namespace host
