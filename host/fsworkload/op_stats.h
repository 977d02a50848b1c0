// OpStats: statistics of a workload's named operations (a filebench
// flowop, a replayed syscall, a postmark transaction part).
//
// Ops are declared up front (Add) and recorded by id on the hot path (no
// string lookups). Each op has a count, an error count, bytes and a latency
// histogram, registered as "<group>.<name>.{count,errors,bytes,lat}".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/stats.h"
#include "sim/time.h"

namespace host {

class OpStats {
 public:
  struct Op {
    std::string name;
    sim::Counter count;
    sim::Counter errors;
    sim::Counter bytes;
    sim::Histogram lat;  // ns
  };

  // Ops are registered under `g` as they are added.
  explicit OpStats(sim::StatGroup g) : group_(std::move(g)) {}
  OpStats(const OpStats&) = delete;
  OpStats& operator=(const OpStats&) = delete;

  // Declares op `name` (an existing name returns its id). Names must be
  // valid stat name components. REQUIRES: before statistics sampling starts.
  uint32_t Add(std::string_view name);
  void Record(uint32_t id, sim::SimTime latency, uint64_t bytes, bool ok) {
    Op& op = *ops_[id];
    op.count.Inc();
    if (!ok) op.errors.Inc();
    op.bytes.Inc(bytes);
    op.lat.Record(latency.ns());
    ++total_;
  }

  size_t size() const { return ops_.size(); }
  const Op& op(uint32_t id) const { return *ops_[id]; }
  // nullptr if no op of that name was declared.
  const Op* Find(std::string_view name) const;
  uint64_t total() const { return total_; }

 private:
  sim::StatGroup group_;
  std::vector<std::unique_ptr<Op>> ops_;  // stable addresses (registered)
  uint64_t total_ = 0;
};

}  // namespace host
