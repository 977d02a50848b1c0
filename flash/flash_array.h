// FlashArray: the command interface the FTL uses to reach the NAND dies.
//
// The FTL submits FlashCommands; the array queues them per die, schedules
// them (FIFO or read-priority, with optional program/erase suspend), holds
// the channel bus for command/address and data transfers, holds the die (and
// plane) for tR/tPROG/tBERS, may merge same-kind commands on different
// planes of one die into a multi-plane operation, and calls
// client->OnFlashComplete(cmd) from an event when the command finishes.
// Commands are owned by the submitter and must stay alive until completion.
#pragma once

#include <cstdint>

#include "flash/geometry.h"
#include "sim/time.h"

namespace flash {

enum class FlashOpKind : uint8_t { kRead, kProgram, kErase };
// Who caused the command: used for scheduling priority and statistics.
enum class CmdSource : uint8_t { kHost, kGc, kMeta };

class FlashClient;

struct FlashCommand {
  FlashOpKind kind = FlashOpKind::kRead;
  CmdSource source = CmdSource::kHost;
  Ppn ppn;                 // target page; for kErase any page of the block
  FlashClient* client = nullptr;
  uint64_t tag = 0;        // the submitter's own value
  // Set by the array:
  sim::SimTime submit_time;
  sim::SimTime start_time;   // first resource acquired
  sim::SimTime finish_time;
  FlashAddr addr;            // ppn decoded at Submit
  uint32_t die = 0;          // die id of ppn, at Submit
  FlashCommand* next = nullptr;  // intrusive link, owned by the array while queued
};

class FlashClient {
 public:
  virtual ~FlashClient() = default;
  virtual void OnFlashComplete(FlashCommand* cmd) = 0;
};

class FlashArray {
 public:
  virtual ~FlashArray() = default;
  virtual const Geometry& geometry() const = 0;
  virtual void Submit(FlashCommand* cmd) = 0;
  // Commands queued or executing on a die (for least-busy allocation).
  virtual uint32_t DieLoad(uint32_t die_id) const = 0;
};

}  // namespace flash
