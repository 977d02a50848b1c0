// DieScheduler: the policy that orders the commands queued at each die.
//
// One scheduler object serves the whole array, so it sees every die's queue
// (a parallelism-aware policy can weigh dies against each other); the array
// tells it about die and channel state through DieSchedulerHost. The array
// owns the execution (channel, die and plane state machines); the scheduler
// only holds the queued commands and answers "what next?".
//
// Contract:
//  - Enqueue() takes ownership of cmd->next until the command is returned by
//    Next() or TakePartner(); it must not allocate per command (queues are
//    intrusive lists through FlashCommand::next).
//  - Next(die, slot) removes and returns the command the die should start,
//    or nullptr to leave the die as it is. `slot` says what the die can
//    accept at this moment (see PickSlot).
//  - TakePartner() removes and returns a queued command that may join the
//    multi-plane operation led by `lead` (PartnerRule::Matches), or nullptr.
//    Among programs for one plane, submission order must be preserved, so
//    only the first queued program of each plane is eligible.
//  - Implementations are deterministic: no hashing of pointers, no clocks.
//  - A policy that returns nullptr although commands are queued must call
//    host->Wake(die) later, or the die stays idle.
//
// Implementations live in their own .cc files and are listed by name in
// die_scheduler.cc ("fifo", "read_priority", "parafs"). A policy with
// parameters declares its own config section (DieSchedulerInfo::config),
// read from FlashConfig::scheduler_configs under the policy's name
// (device.flash.<name>.*).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flash/flash_array.h"
#include "flash/flash_config.h"
#include "flash/geometry.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"

namespace flash {

// What a die can start right now.
enum class PickSlot : uint8_t {
  kIdle,          // the die is free: any command
  kCacheProgram,  // the die runs tPROG and its cache register is free: a program only, or nothing
  kSuspended,     // a program/erase is suspended: only commands that may run during suspension (reads)
};

// The array's state as seen by a scheduler.
class DieSchedulerHost {
 public:
  virtual ~DieSchedulerHost() = default;
  // Commands submitted to the die and not yet completed (queued + executing).
  virtual uint32_t DieLoad(uint32_t die) const = 0;
  // True while the die executes nothing.
  virtual bool DieIdle(uint32_t die) const = 0;
  virtual bool ChannelBusy(uint32_t channel) const = 0;
  // Asks the die to call Next() again at the current time.
  virtual void Wake(uint32_t die) = 0;
  // The simulated time now (time-based policies; never a wall clock).
  virtual sim::SimTime Now() const = 0;
  // Channels on which at least one erase is in progress: from the moment a
  // die takes the erase until tBERS ends (a suspended erase still counts).
  virtual uint32_t ChannelsErasing() const = 0;
  // Fraction in [0, 1] of the channel's blocks that hold data: programmed at
  // least once through this array since their last erase. Blocks filled
  // without commands (an FTL's zero-time precondition) are not seen.
  virtual double ChannelBlocksInUse(uint32_t channel) const = 0;
};

// Which queued commands may join a multi-plane operation.
struct PartnerRule {
  uint32_t taken_planes = 0;  // bit per plane already in the operation
  bool same_block = false;
  uint32_t scan = 16;         // queued commands examined at most
  // Bit per plane of the die, or 0 if unknown. Lets a program search stop
  // once every plane is taken or blocked (nothing later can match).
  uint32_t die_planes = 0;
  // Same kind, a plane not yet taken, same page offset (reads, programs),
  // and the same block offset when same_block.
  bool Matches(const FlashCommand& lead, const FlashCommand& c) const {
    if (c.kind != lead.kind || (taken_planes >> c.addr.plane) & 1u) return false;
    if (lead.kind != FlashOpKind::kErase && c.addr.page != lead.addr.page) return false;
    return !same_block || c.addr.block == lead.addr.block;
  }
};

// Intrusive FIFO of commands through FlashCommand::next.
class CommandList {
 public:
  bool empty() const { return head_ == nullptr; }
  uint32_t size() const { return size_; }
  FlashCommand* front() const { return head_; }
  void PushBack(FlashCommand* c);
  FlashCommand* PopFront();
  // Removes the first command matching `rule` within rule.scan entries,
  // honouring the per-plane program order; nullptr if none.
  FlashCommand* TakePartner(const FlashCommand& lead, const PartnerRule& rule);

 private:
  FlashCommand* head_ = nullptr;
  FlashCommand* tail_ = nullptr;
  uint32_t size_ = 0;
};

class DieScheduler {
 public:
  virtual ~DieScheduler() = default;
  virtual void Enqueue(uint32_t die, FlashCommand* cmd) = 0;
  virtual FlashCommand* Next(uint32_t die, PickSlot slot) = 0;
  virtual FlashCommand* TakePartner(uint32_t die, const FlashCommand& lead, const PartnerRule& rule) = 0;
  // Asked when a die running a suspendable program/erase (`running`) could
  // suspend it: true to suspend now. The array has already checked that
  // the configuration allows suspending `running`.
  virtual bool ShouldSuspend(uint32_t die, FlashOpKind running) = 0;
  // Commands queued (not started) at the die.
  virtual uint32_t Queued(uint32_t die) const = 0;
};

struct DieSchedulerContext {
  const Geometry* geometry = nullptr;
  const FlashConfig* config = nullptr;
  DieSchedulerHost* host = nullptr;
};

// An implementation (one .cc each) registers itself with
// sim::Registrar<DieSchedulerInfo> (sim/registry.h).
struct DieSchedulerInfo {
  const char* name;
  const char* description;
  std::unique_ptr<DieScheduler> (*make)(const DieSchedulerContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a policy without parameters
};

// Registered policy names, sorted.
const std::vector<std::string>& DieSchedulerNames();
// The config sections of the policies that have parameters.
std::vector<sim::ImplSection> DieSchedulerSections();
// InvalidInput listing the choices if `name` is unknown.
sim::Result<std::unique_ptr<DieScheduler>> MakeDieScheduler(const std::string& name,
                                                            const DieSchedulerContext& ctx);

}  // namespace flash
