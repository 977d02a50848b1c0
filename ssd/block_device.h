// BlockDevice: the interface between block users (file system, block
// workloads, trace replay) and a storage device (the simulated SSD).
//
// Requests are asynchronous on the simulation clock: Submit() queues the
// request and returns; when it completes the device sets `complete_time`
// and calls client->OnBlockComplete(req) from an event. The request object
// is owned by the caller and must stay alive and unmodified until then.
//
// Placement hints travel down with a request: a stream (temperature) id and
// an explicit target channel for a file system that places data itself.
// A device may ignore them (the page-mapped FTL uses the stream only with
// ftl.hot_cold); a device with fixed placement (DeviceLayout::fixed)
// decides the channel by address and ignores `channel`.
#pragma once

#include <cstdint>

#include "sim/time.h"
#include "sim/units.h"
#include "ssd/device_layout.h"

namespace ssd {

enum class BlockOp : uint8_t { kRead, kWrite, kTrim, kFlush };

// How soon the written data is expected to change (F2FS's hot/warm/cold
// logs, a stream id of NVMe streams).
enum class StreamHint : uint8_t { kNone, kHot, kWarm, kCold };

class BlockClient;

struct BlockRequest {
  BlockOp op = BlockOp::kRead;
  uint64_t offset = 0;   // bytes; multiple of the device's sector size
  uint64_t length = 0;   // bytes; multiple of the sector size; 0 for kFlush
  bool fua = false;      // writes: durable on completion (bypasses the write buffer)
  uint32_t queue = 0;    // submission queue index (< queues()), e.g. per job/thread
  StreamHint stream = StreamHint::kNone;  // writes: placement hint
  int32_t channel = -1;  // writes: target channel (< layout().channels), -1 = the device decides
  BlockClient* client = nullptr;
  uint64_t tag = 0;      // caller's own value, untouched by the device
  sim::SimTime submit_time;   // set by the device at Submit()
  sim::SimTime complete_time; // set by the device before OnBlockComplete()
};

class BlockClient {
 public:
  virtual ~BlockClient() = default;
  virtual void OnBlockComplete(BlockRequest* req) = 0;
};

class BlockDevice {
 public:
  virtual ~BlockDevice() = default;
  // Exported capacity in bytes (the logical space after over-provisioning).
  virtual uint64_t capacity() const = 0;
  // Smallest addressable unit (512 or 4096).
  virtual uint32_t sector_size() const = 0;
  // Preferred I/O unit: the flash page size for the SSD.
  virtual uint32_t io_unit() const = 0;
  // Submission queues a user may spread requests over (BlockRequest::queue).
  virtual uint32_t queues() const = 0;
  // The flash layout behind the device (see ssd/device_layout.h).
  virtual const DeviceLayout& layout() const = 0;
  // REQUIRES: offset/length aligned to sector_size(), offset+length <= capacity(),
  // queue < queues(), channel == -1 or < layout().channels.
  virtual void Submit(BlockRequest* req) = 0;
};

}  // namespace ssd
