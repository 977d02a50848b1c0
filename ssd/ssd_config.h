// Configuration of the SSD's host interface (NVMe-style queues, PCIe link,
// request splitting, DRAM write buffer). YAML section device.ssd.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config.h"
#include "flash/geometry.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace ssd {

// Largest supported sizes: buffer slots are 32-bit indices and each costs
// about 60 bytes of simulator memory; the command contexts (queues x
// queue_depth) are allocated up front.
inline constexpr uint64_t kMaxWriteBufferSlots = uint64_t{1} << 24;
inline constexpr uint64_t kMaxCommandContexts = uint64_t{1} << 20;

struct WriteBufferConfig {
  // DRAM write buffer capacity; 0 disables the buffer (writes complete when
  // programmed). Rounded down to whole flash pages.
  sim::Bytes size;
  // Background destaging runs while the occupied fraction of the buffer is
  // at least this; 100% = flush on full (destage only when no slot is free).
  sim::Ratio destage_threshold;
  // Buffered pages being programmed at once (destages in flight); 0 = 4 x
  // the device's planes (enough to keep every plane programming with cache
  // program and multi-plane).
  uint32_t max_destage_inflight;

  static void Describe(sim::Schema<WriteBufferConfig>& s);
};

// NVMe command arbitration (NVM Express Base Specification 2.0, section
// 3.4.4 "Command Arbitration"): how the controller picks the submission
// queue it fetches the next commands from. It acts only when the
// controller holds a bounded number of commands (max_outstanding > 0);
// with no bound every command a queue admits is fetched at once and no
// queue ever waits for another.
struct ArbitrationConfig {
  // rr: round robin over every queue, priority classes ignored. wrr:
  // weighted round robin with urgent priority class: urgent queues are
  // served strictly first (round robin among them); high, medium and low
  // share the rest by weight (each round, up to <class>_weight commands of
  // each class), round robin among the queues of a class.
  std::string policy;
  // Arbitration Burst: the most commands taken from one queue at one
  // arbitration decision (fewer when fewer are queued or fewer controller
  // slots are free).
  uint32_t burst;
  uint32_t high_weight;    // commands of the high class per WRR round
  uint32_t medium_weight;  // ... medium class
  uint32_t low_weight;     // ... low class
  // Commands the controller holds at once (fetched from their submission
  // queues and not yet completed); 0 = no bound (arbitration never waits).
  uint32_t max_outstanding;

  static void Describe(sim::Schema<ArbitrationConfig>& s);
};

struct SsdConfig {
  uint32_t queues;          // submission queues
  uint32_t queue_depth;     // commands admitted per queue at once
  sim::Bandwidth pcie_rate; // per direction (the link is full duplex)
  // Fixed controller time per request (command fetch, decode, completion
  // posting), spent before the request reaches the FTL. It does not occupy
  // the link.
  sim::SimTime request_overhead;
  sim::Bytes sector_size;   // 512 or 4096
  // A write covering part of a page first reads the page through the FTL
  // (read-modify-write); off: the page is programmed without that read.
  bool partial_page_rmw;
  WriteBufferConfig write_buffer;
  ArbitrationConfig arbitration;

  static void Describe(sim::Schema<SsdConfig>& s);
  // Cross-key checks (key paths relative to the ssd section), including
  // queues x queue_depth <= kMaxCommandContexts and at most
  // kMaxWriteBufferSlots pages of write buffer.
  sim::Status Validate(const flash::Geometry& geometry) const;
};

}  // namespace ssd
