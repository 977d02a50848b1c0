// One block-level I/O request read from a trace file.
//
// Every reader in host/trace produces this record whatever the on-disk
// format: byte offsets and lengths, a time relative to the trace's first
// record, and the volume (disk, LUN, ASU, device) the request addressed.
#pragma once

#include <cstdint>
#include <string_view>

#include "ssd/block_device.h"
#include "sim/time.h"

namespace host {

struct BlockTraceRecord {
  using Op = ssd::BlockOp;  // kRead, kWrite, kTrim, kFlush

  // Request attributes a format may carry; combined as a bit set in `flags`.
  enum Flag : uint8_t {
    kFlagSync = 1 << 0,      // issued synchronously (blkparse 'S', WiscSee sync=True)
    kFlagFua = 1 << 1,       // forced unit access: durable on completion
    kFlagPreflush = 1 << 2,  // the device cache is flushed before this request
    kFlagMeta = 1 << 3,      // file-system metadata (blkparse 'M')
  };

  // Arrival time relative to the first record that carries a time (that
  // record has time 0). Traces are not guaranteed to be sorted: time may
  // decrease, and is negative for a record earlier than the first one.
  // Meaningless when !valid_time.
  sim::SimTime time;
  bool valid_time = false;
  Op op = Op::kRead;
  uint8_t flags = 0;
  // Bytes from the start of `volume`. Reads, writes and trims have
  // length_bytes > 0 (zero-length requests never reach the caller) and
  // offset_bytes + length_bytes does not overflow. Flushes have offset 0 and
  // length 0.
  uint64_t offset_bytes = 0;
  uint64_t length_bytes = 0;
  // The trace's own device/disk/LUN/ASU/volume number, unchanged. Formats
  // that name a device by major,minor (blkparse, FIU) use
  // MakeDevVolume(major, minor).
  uint32_t volume = 0;
  // 1-based line of the trace file this record came from.
  uint64_t line_no = 0;
};

// "read", "write", "trim", "flush".
std::string_view OpName(BlockTraceRecord::Op op);

// Linux-style device number: major in the top 12 bits, minor in the low 20.
// REQUIRES: major < 4096 and minor < 2^20 (parsers check before calling).
constexpr uint32_t MakeDevVolume(uint32_t major, uint32_t minor) { return (major << 20) | minor; }
constexpr uint32_t kMaxDevMajor = (1u << 12) - 1;
constexpr uint32_t kMaxDevMinor = (1u << 20) - 1;

}  // namespace host
