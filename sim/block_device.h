// BlockDevice: the interface between block users (file system, block
// workloads, trace replay) and a storage device (the simulated SSD).
//
// Requests are asynchronous on the simulation clock: Submit() queues the
// request and returns; when it completes the device sets `complete_time`
// and calls client->OnBlockComplete(req) from an event. The request object
// is owned by the caller and must stay alive and unmodified until then.
#pragma once

#include <cstdint>

#include "sim/time.h"
#include "sim/units.h"

namespace sim {

enum class BlockOp : uint8_t { kRead, kWrite, kTrim, kFlush };

class BlockClient;

struct BlockRequest {
  BlockOp op = BlockOp::kRead;
  uint64_t offset = 0;   // bytes; multiple of the device's sector size
  uint64_t length = 0;   // bytes; multiple of the sector size; 0 for kFlush
  bool fua = false;      // writes: durable on completion (bypasses the write buffer)
  uint32_t queue = 0;    // submission queue index (< queue count), e.g. per job/thread
  BlockClient* client = nullptr;
  uint64_t tag = 0;      // caller's own value, untouched by the device
  SimTime submit_time;   // set by the device at Submit()
  SimTime complete_time; // set by the device before OnBlockComplete()
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
  // REQUIRES: offset/length aligned to sector_size(), offset+length <= capacity().
  virtual void Submit(BlockRequest* req) = 0;
};

}  // namespace sim
