// Test helpers for the NAND array (used by *_test.cc and *_bench.cc only).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sim/config.h"
#include "flash/flash_array.h"
#include "flash/flash_config.h"
#include "flash/geometry.h"

namespace flash::testing {

// 2 channels x 2 chips x 1 die x 2 planes x 8 blocks x 16 pages of 8 KiB.
inline Geometry TinyGeometry() {
  Geometry g;
  g.channels = 2;
  g.chips_per_channel = 2;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 8;
  g.pages_per_block = 16;
  g.page_size = sim::KiB(8);
  return g;
}

// MQSim-like timing with a visible command overhead.
inline FlashConfig TestFlashConfig() {
  FlashConfig c = sim::MakeDefault<FlashConfig>();
  c.timing.t_read = sim::Us(75);
  c.timing.t_prog = sim::Us(750);
  c.timing.t_erase = sim::Ms(3.8);
  c.timing.channel_rate = sim::Bandwidth{333e6};
  c.timing.cmd_overhead = sim::Ns(500);
  c.multi_plane.enabled = false;
  c.cache_program = false;
  c.scheduler = "fifo";
  return c;
}

// Records completions; optionally runs a callback on each.
class RecordingClient final : public FlashClient {
 public:
  void OnFlashComplete(FlashCommand* cmd) override {
    done.push_back(cmd);
    if (on_done) on_done(cmd);
  }
  std::vector<FlashCommand*> done;
  std::function<void(FlashCommand*)> on_done;
};

}  // namespace flash::testing
