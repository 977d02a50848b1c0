// FixedLatencyDevice: a simple BlockDevice for file-system tests, quick
// experiments and the mount after a power cut (run.power_cut). Requests
// share one transfer resource (FIFO, `bandwidth`), then complete after a
// fixed per-operation latency. A flush completes `flush_latency` after
// every write submitted before it has completed. Nothing is stored: the
// file system's Image holds the content.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "ssd/block_device.h"
#include "sim/time.h"

namespace ssd {

// The write discipline of a flash block on a device of fixed placement (a
// static block-mapped FTL): within [from, capacity) each flash block
// (layout.page_size x layout.pages_per_block bytes) is written in whole
// pages, in order from its start, and written again only after a trim of
// the whole block has erased it. Kept outside the device so it survives power cuts (it is
// flash state); the device records violations instead of failing.
struct SequentialBlocks {
  uint64_t from = 0;
  std::map<uint64_t, uint64_t> write_pointer;  // flash block -> bytes written since its erase
  uint64_t violations = 0;
  uint64_t erases = 0;
  std::string first_violation;
};

struct FixedLatencyDeviceConfig {
  uint64_t capacity = 256ull << 20;
  uint32_t sector_size = 4096;
  sim::SimTime read_latency = sim::Us(50);
  sim::SimTime write_latency = sim::Us(20);
  sim::SimTime flush_latency = sim::Us(100);
  sim::SimTime trim_latency = sim::Us(5);
  double bandwidth_bytes_per_sec = 2e9;
  // What layout() reports (default: no flash structure); `fixed`, if set,
  // must outlive the device.
  DeviceLayout layout;
  bool log_writes = false;  // keep every write request's (offset, length), and every trim's
  SequentialBlocks* sequential = nullptr;  // checks the discipline above (needs layout.pages_per_block)
};

class FixedLatencyDevice final : public BlockDevice {
 public:
  FixedLatencyDevice(sim::EventQueue* q, const FixedLatencyDeviceConfig& cfg);
  ~FixedLatencyDevice() override;
  uint64_t capacity() const override { return cfg_.capacity; }
  uint32_t sector_size() const override { return cfg_.sector_size; }
  uint32_t io_unit() const override { return 4096; }
  uint32_t queues() const override { return 1u << 16; }  // any queue index
  const DeviceLayout& layout() const override { return cfg_.layout; }
  void Submit(BlockRequest* req) override;
  // Trims submitted from now on take `t`.
  void set_trim_latency(sim::SimTime t) { cfg_.trim_latency = t; }

  uint64_t requests(BlockOp op) const { return count_[static_cast<int>(op)]; }
  uint64_t bytes(BlockOp op) const { return bytes_[static_cast<int>(op)]; }
  uint64_t fua_writes() const { return fua_; }
  size_t in_flight() const { return in_flight_; }
  // Write requests in submission order (with cfg.log_writes).
  const std::vector<std::pair<uint64_t, uint64_t>>& write_log() const { return write_log_; }
  // Extra time before a read or write completes (e.g. a request held up
  // behind a busy die), outside the shared transfer resource; a flush does
  // not wait for it (it covers what completed before it, like a real
  // device's). Null: none.
  void set_extra_latency(std::function<sim::SimTime(const BlockRequest&)> f) { extra_latency_ = std::move(f); }
  // Trim requests in submission order (with cfg.log_writes).
  struct Trim {
    sim::SimTime at;  // submitted
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  const std::vector<Trim>& trim_log() const { return trim_log_; }

 private:
  class Done final : public sim::Event {
   public:
    explicit Done(FixedLatencyDevice* d) : sim::Event(sim::Priority::kCompletion), dev(d) {}
    void Process() override;
    FixedLatencyDevice* dev;
    BlockRequest* req = nullptr;
    Done* next_free = nullptr;
  };
  Done* Alloc();
  void CheckSequential(const BlockRequest& req);
  sim::EventQueue* q_;
  FixedLatencyDeviceConfig cfg_;
  sim::SimTime busy_until_;
  sim::SimTime last_write_done_;
  std::vector<Done*> all_;
  std::vector<std::pair<uint64_t, uint64_t>> write_log_;
  std::vector<Trim> trim_log_;
  Done* free_ = nullptr;
  size_t in_flight_ = 0;
  uint64_t count_[4] = {};
  uint64_t bytes_[4] = {};
  uint64_t fua_ = 0;
  std::function<sim::SimTime(const BlockRequest&)> extra_latency_;
};

}  // namespace ssd
