// NandArray: the timed NAND array behind the FlashArray interface.
//
// Resources and phases (all times from FlashConfig; t_x = page_size / channel_rate):
//  - Channel: one bus per channel. A die holds it for one phase at a time,
//    never while its array works. Waiting dies are granted the bus in FIFO
//    order, command-only phases ahead of data phases under
//    channel_arbitration: cmd_first (see FlashConfig).
//  - Read:    bus [n * cmd_overhead] -> array tR -> bus [n * t_x, one page
//             after the other; each command completes when its page is out].
//  - Program: bus [n * (cmd_overhead + t_x)] (command, address, data-in) ->
//             array tPROG -> all n commands complete.
//  - Erase:   bus [n * cmd_overhead] -> array tBERS -> complete.
//  (n = commands in a multi-plane operation, 1 otherwise.)
//
// Register assumption: a die has one page register per plane plus, when
// cache_program is on, one cache register per plane used only by programs.
// A read occupies the die from its command until its data has left over the
// bus: if the channel is busy at the end of tR, the die waits (no cache
// read). With cache_program, while tPROG runs the next program's command and
// data may be loaded (if the scheduler offers one); its tPROG starts as soon
// as the running one ends.
//
// Multi-plane: when enabled, the scheduler's choice leads an operation and
// up to planes_per_die - 1 partners of the same kind on other planes with the
// same page offset (and block offset if multi_plane.same_block) join it; they
// share one tR/tPROG/tBERS (the longest of the members) and transfer one
// after the other.
//
// Suspension: when a running program/erase may be suspended (suspend.program
// / suspend.erase, max_per_op) and the scheduler says so, the array op stops
// at that instant (remaining time kept), the die is busy for the suspend
// latency, then runs reads chosen by the scheduler (PickSlot::kSuspended);
// when none is left it resumes with resume_latency + the remaining time.
// While the die is busy with a cache-register transfer it does not suspend.
//
// Completions are delivered from the array's events. Within an event, the
// array first updates its state, then calls the clients, then lets the die
// pick new work, so commands submitted from OnFlashComplete compete in that
// choice. A command submitted to an idle die is started by a per-die event at
// the same time with Priority::kIssue, after same-time completions.
//
// Nothing is allocated per command: queues are intrusive, events are members
// of dies and channels.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/event_queue.h"
#include "flash/die_scheduler.h"
#include "flash/flash_array.h"
#include "flash/flash_config.h"
#include "flash/geometry.h"
#include "sim/stats.h"

namespace flash {

class NandArray final : public FlashArray, private DieSchedulerHost {
 public:
  // REQUIRES: config.Validate(geometry).ok(). Registers stats under `stats`
  // (e.g. "flash.*"). `events` must outlive the array; destroying the array
  // with commands in flight deschedules its events (the commands never
  // complete).
  NandArray(sim::EventQueue* events, const Geometry& geometry, const FlashConfig& config, sim::StatGroup stats);
  ~NandArray() override;

  const Geometry& geometry() const override { return geometry_; }
  // REQUIRES: cmd->ppn < geometry().pages(), cmd->client != nullptr, cmd not in flight.
  void Submit(FlashCommand* cmd) override;
  uint32_t DieLoad(uint32_t die_id) const override;

  // Derived timing (exact values used by the model).
  sim::SimTime page_transfer_time() const { return t_xfer_; }

  // Accumulated busy time up to now (a die is busy while it holds any
  // command: waiting for or using the bus, array work, suspension).
  sim::SimTime DieBusyTime(uint32_t die_id) const;
  sim::SimTime ChannelBusyTime(uint32_t channel) const;
  uint64_t commands_completed() const { return completed_; }
  uint64_t suspensions() const;

 private:
  class Die;
  class Channel;
  friend class Die;
  friend class Channel;

  // DieSchedulerHost
  bool DieIdle(uint32_t die) const override;
  bool ChannelBusy(uint32_t channel) const override;
  void Wake(uint32_t die) override;
  sim::SimTime Now() const override { return events_->now(); }
  uint32_t ChannelsErasing() const override { return channels_erasing_; }
  double ChannelBlocksInUse(uint32_t channel) const override;

  void RegisterStats(sim::StatGroup& stats);
  void Finish(FlashCommand* cmd);
  // A die took `cmd` for execution (space/erase state for the scheduler).
  void NoteStart(const FlashCommand& cmd);

  sim::EventQueue* events_;
  const Geometry geometry_;
  const FlashConfig config_;
  sim::SimTime t_xfer_;
  sim::SimTime t_cmd_;
  // Submit's address decoding when every size below the channel is a power
  // of two: ppn bit offsets of block, plane, die id; die id bit offsets of
  // chip and channel.
  bool pow2_ = false;
  int shift_block_ = 0, shift_plane_ = 0, shift_die_ = 0, shift_chip_ = 0, shift_channel_ = 0;
  // tR and tPROG by page offset in the block (the page type's timing).
  std::vector<sim::SimTime> read_time_;
  std::vector<sim::SimTime> program_time_;
  std::unique_ptr<DieScheduler> scheduler_;
  std::vector<std::unique_ptr<Die>> dies_;
  std::vector<std::unique_ptr<Channel>> channels_;

  // State offered to the scheduler (DieSchedulerHost), kept for every policy.
  std::vector<uint8_t> block_in_use_;             // per block: programmed since its last erase
  std::vector<uint32_t> channel_blocks_in_use_;   // per channel: blocks with block_in_use_
  std::vector<uint32_t> channel_erases_;          // per channel: erases taken and not finished
  uint32_t channels_erasing_ = 0;                 // channels with channel_erases_ > 0
  double blocks_per_channel_ = 1;

  // Stats.
  uint64_t completed_ = 0;
  sim::Counter cmds_[3][3];  // [FlashOpKind][CmdSource]
  sim::Counter multi_plane_ops_;
  sim::Counter multi_plane_cmds_;
  sim::Counter suspends_[2];  // [0] program, [1] erase
  sim::Histogram latency_[3]; // submit -> finish, ns, per FlashOpKind
  sim::Histogram wait_[3];    // submit -> start, ns
};

}  // namespace flash
