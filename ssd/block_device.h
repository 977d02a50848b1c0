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
//
// Errors: a request the device refuses in whole or in part still completes
// through OnBlockComplete, with `status` other than kOk. Only a device with
// fixed placement (the static block-mapped FTL) or a zoned device refuses
// requests. A zoned device (layout().zoned) refuses, whole, a write into a
// zone not at its write pointer, crossing its capacity, into a full, read-only
// or offline zone, or beyond the open/active limits (ftl/zoned.h; kZoneError
// with zone_error set); nothing of it is written. A static block-mapped FTL: writes
// must program whole flash pages (layout().page_size), each the next
// unwritten page of its logical block, in submission order; a refused page
// is not written (the request's other pages may be).
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"
#include "sim/units.h"
#include "ssd/device_layout.h"

namespace ssd {

// kZoneAppend and kZoneMgmt only on a zoned device (layout().zoned set):
// - kZoneAppend: a write of `length` bytes into the zone starting at
//   `offset`; the device writes at the zone's write pointer and returns the
//   byte offset it wrote at in `result_offset` (NVMe Zone Append).
// - kZoneMgmt: Zone Management Send `zone_action` on the zone starting at
//   `offset` (length 0): open, close, finish, reset (erases the zone's
//   blocks; completes when the erases have), offline.
// Zone reports need no request: layout().zoned->Report(z) (no time passes).
enum class BlockOp : uint8_t { kRead, kWrite, kTrim, kFlush, kZoneAppend, kZoneMgmt };

// How soon the written data is expected to change (F2FS's hot/warm/cold
// logs, a stream id of NVMe streams).
enum class StreamHint : uint8_t { kNone, kHot, kWarm, kCold };

// Outcome of a request; the first refused page's reason when several are.
enum class IoStatus : uint8_t {
  kOk,
  kWriteOutOfOrder,  // a page written before the earlier pages of its block
  kOverwrite,        // a page written again without its block being trimmed (erased)
  kPartialPage,      // a write covering only part of a flash page
  kZoneError,        // a zoned device refused it: BlockRequest::zone_error says why
};
inline const char* IoStatusName(IoStatus s) {
  switch (s) {
    case IoStatus::kOk: return "ok";
    case IoStatus::kWriteOutOfOrder: return "write out of order";
    case IoStatus::kOverwrite: return "overwrite without erase";
    case IoStatus::kPartialPage: return "partial-page write";
    case IoStatus::kZoneError: return "zone error";
  }
  return "?";
}

// NVMe submission-queue priority class (QPRIO of Create I/O Submission
// Queue), used by weighted round robin arbitration.
enum class QueuePriority : uint8_t { kUrgent, kHigh, kMedium, kLow };
inline const char* QueuePriorityName(QueuePriority p) {
  switch (p) {
    case QueuePriority::kUrgent: return "urgent";
    case QueuePriority::kHigh: return "high";
    case QueuePriority::kMedium: return "medium";
    case QueuePriority::kLow: return "low";
  }
  return "?";
}

// How a host sets up one submission queue (NVMe Create I/O Submission
// Queue): its priority class, its size, and the flow whose figures its
// requests count in.
struct QueueSetup {
  QueuePriority priority = QueuePriority::kMedium;
  uint32_t depth = 0;  // commands outstanding at once; 0 = the device's queue depth
  // Non-empty: the device keeps per-flow figures under this name for every
  // request of the queue (several queues may name one flow).
  std::string flow;
};

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
  IoStatus status = IoStatus::kOk;  // set by the device before OnBlockComplete()
  ZoneAction zone_action = ZoneAction::kOpen;  // kZoneMgmt: the action
  ZoneError zone_error = ZoneError::kOk;       // with status kZoneError: the NVMe zone status
  uint64_t result_offset = 0;  // kZoneAppend: byte offset written at, set on success
};

class BlockClient {
 public:
  virtual ~BlockClient() = default;
  virtual void OnBlockComplete(BlockRequest* req) = 0;
};

// Sees every request a device accepts, at Submit() (before any of its work
// is done), in submission order. For measurements above the device (the
// aging workload's layout score and flash footprint). OnSubmit must not
// submit requests or change `req`; it runs inside Submit().
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  virtual void OnSubmit(const BlockRequest& req) = 0;
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

  // Installs `observer` (null removes it); one at a time, the last call
  // wins. The observer must outlive its installation. A device that cannot
  // observe ignores the call (the default).
  virtual void SetObserver(RequestObserver* observer) { (void)observer; }
  // Sets up submission queue `q` before any request is submitted on it.
  // REQUIRES: q < queues(); setup.depth <= the device's queue depth. A
  // device without priorities or per-flow figures ignores the call (the
  // default).
  virtual void SetupQueue(uint32_t q, const QueueSetup& setup) { (void)q, (void)setup; }
  // Where the flash page holding byte `offset` lives now: the FTL's current
  // mapping of that logical page (a page-mapped FTL's mapping table, a
  // static block-mapped FTL's block and write pointer). False when the page
  // is unmapped (never written, or trimmed), when the only copy of its
  // newest data is still in the device's write buffer (its future place is
  // decided only when it is destaged), and by default (a device without
  // flash). The answer can change at the next write, trim or garbage
  // collection. REQUIRES: offset < capacity(). No simulated time passes.
  virtual bool Locate(uint64_t offset, FlashPlace* out) const {
    (void)offset, (void)out;
    return false;
  }
};

}  // namespace ssd
