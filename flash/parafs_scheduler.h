// "parafs": the request-scheduling phase of ParaFS's parallelism-aware
// scheduling (Zhang, Shu, Lu, ATC'16; seed 002 slides "3. Parallelism-Aware
// Scheduling"), applied per channel below the FTL / S-FTL.
//
// Time slices. Each channel alternates a read slice (read_slice long) and a
// write/erase slice (write_slice long). While a die of the channel picks its
// next command, the class of the channel's current slice goes first: in a
// read slice the die's queued reads (FIFO), in a write/erase slice its
// programs and erases. A die whose queue holds only the other class runs
// that (a die with work never idles), and a slice ends early when nothing
// of its class is queued at any die of the channel while the other class
// has work. A slice that expires with the other class idle starts again.
// Slices are advanced only when a die of the channel picks a command
// (dies pick when they become free), so no timer events are needed.
//
// Write or erase. Within the write/erase slice, a die holding both queued
// programs and erases computes
//     e = a * f + b * N_e
// with f = the channel's free-space fraction (1 - the fraction of its blocks
// holding data, DieSchedulerHost::ChannelBlocksInUse) and N_e = the fraction
// of the device's channels with an erase in progress
// (DieSchedulerHost::ChannelsErasing / channels). The slides give the
// implementation as "1 ≈ 2×f + 1×N_e": we read 1 as the balance point
// (threshold), a = 2, b = 1. e < threshold: space is short and few channels
// are erasing, so the erase goes ahead of the queued programs; e >= threshold:
// the programs go first (plenty of free space, or enough channels already
// erasing that another erase would cost write parallelism). With no channel
// erasing this erases first once more than half of the channel's blocks are
// in use (f < 0.5). Reading f as free space (not used space) and N_e as a
// fraction (not a count) is ours; the slides name the terms only ("Space
// Utilization", "Number of Concurrent Erasing Channels"), and with a count
// a single erasing channel would already outweigh 2f <= 2.
//
// Contract details: per die, three FIFOs (reads, programs, erases), so the
// programs of a plane keep their submission order. PickSlot::kCacheProgram
// gets a program only when the die has no read waiting in a read slice and
// no erase that e would put first; kSuspended gets reads. ShouldSuspend is
// true in a read slice with reads queued at the die (the array asks only
// when suspend.* allows it). Next(kIdle) returns nullptr only with an empty
// queue, so the policy never needs Wake().
#pragma once

#include "sim/config.h"
#include "sim/time.h"

namespace flash {

// device.flash.parafs
struct ParafsSchedulerConfig {
  sim::SimTime read_slice;   // length of a channel's read slice
  sim::SimTime write_slice;  // length of a channel's write/erase slice
  double a;                  // weight of the free-space fraction f
  double b;                  // weight of the erasing-channel fraction N_e
  double threshold;          // erase before programs while e < threshold
  static void Describe(sim::Schema<ParafsSchedulerConfig>& s);
};

}  // namespace flash
