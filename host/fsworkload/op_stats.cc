#include "host/fsworkload/op_stats.h"

namespace host {

uint32_t OpStats::Add(std::string_view name) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (ops_[i]->name == name) return static_cast<uint32_t>(i);
  }
  auto op = std::make_unique<Op>();
  op->name = std::string(name);
  const sim::StatGroup g = group_.Group(name);
  g.Add(&op->count, "count", "ops", "Operations completed");
  g.Add(&op->errors, "errors", "ops", "Operations that failed");
  g.Add(&op->bytes, "bytes", "bytes", "Bytes the operation read or wrote");
  g.Add(&op->lat, "lat", "ns", "Latency of the operation");
  ops_.push_back(std::move(op));
  return static_cast<uint32_t>(ops_.size() - 1);
}

const OpStats::Op* OpStats::Find(std::string_view name) const {
  for (const auto& op : ops_) {
    if (op->name == name) return op.get();
  }
  return nullptr;
}

}  // namespace host
