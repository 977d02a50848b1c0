// RawBlockPassthrough: the file-system layer's raw block path. Block
// workloads (fio-like block jobs, block trace replay) that run at the FS
// layer of a stack submit here instead of to a file system: requests go to
// the device unchanged, with per-operation counts, bytes and latency
// registered under the given stats group (e.g. "fs.raw.*"), so block and
// file experiments report the same layer.
//
// The caller's request is never modified except complete_time; the
// pass-through submits its own wrapper request (from a pool that grows to
// the peak number in flight) and completes the caller's from its completion.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/block_device.h"
#include "sim/stats.h"

namespace fs::f2fs {

class RawBlockPassthrough final : public sim::BlockDevice, private sim::BlockClient {
 public:
  // `device` outlives this object.
  RawBlockPassthrough(sim::BlockDevice* device, const sim::StatGroup& stats);
  ~RawBlockPassthrough() override;

  uint64_t capacity() const override { return dev_->capacity(); }
  uint32_t sector_size() const override { return dev_->sector_size(); }
  uint32_t io_unit() const override { return dev_->io_unit(); }
  void Submit(sim::BlockRequest* req) override;

  uint64_t requests(sim::BlockOp op) const { return count_[static_cast<int>(op)].value(); }
  size_t in_flight() const { return in_flight_; }

 private:
  struct Wrap : sim::BlockRequest {
    sim::BlockRequest* orig = nullptr;
    Wrap* next_free = nullptr;
  };
  void OnBlockComplete(sim::BlockRequest* req) override;

  sim::BlockDevice* dev_;
  std::vector<std::unique_ptr<Wrap>> all_;
  Wrap* free_ = nullptr;
  size_t in_flight_ = 0;
  sim::Counter count_[4];
  sim::Counter bytes_[4];
  sim::Histogram lat_[4];
};

}  // namespace fs::f2fs
