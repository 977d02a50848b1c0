// ChannelRoundRobinPlacement: logical flash blocks dealt to the channels in
// turn (block b on channel b % channels), blocks below `fixed_from` standing
// for the device's page-mapped area. What `check` assumes of a static
// block-mapped FTL before the device exists — every plane belongs to one
// channel and such an FTL cycles its logical blocks through all planes, so
// each channel gets the same share of blocks whatever the plane order — and
// the placement file-system tests give their fake devices.
#pragma once

#include <cstdint>

#include "ssd/device_layout.h"

namespace fs::f2fs {

class ChannelRoundRobinPlacement final : public ssd::FixedPlacement {
 public:
  ChannelRoundRobinPlacement(uint32_t channels, uint64_t fixed_from) : channels_(channels), fixed_from_(fixed_from) {}
  uint64_t logical_blocks() const override { return UINT64_MAX; }
  uint64_t fixed_from() const override { return fixed_from_; }
  ssd::FlashPlace PlaceOf(uint64_t b) const override {
    ssd::FlashPlace p;
    p.channel = static_cast<uint32_t>(b % channels_);
    p.block = b / channels_;
    return p;
  }

 private:
  uint32_t channels_;
  uint64_t fixed_from_;
};

}  // namespace fs::f2fs
