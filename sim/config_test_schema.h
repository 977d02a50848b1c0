// A small experiment schema for the configuration tests: every parameter
// kind, nested sections and declared ranges. Test-only; mirrors how layers
// declare their configs without depending on them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"

namespace sim::config_testing {

struct GeometryConfig {
  uint32_t channels = 0;
  uint32_t dies_per_channel = 0;
  Bytes page_size;
  static void Describe(Schema<GeometryConfig>& s) {
    s.Param("channels", &GeometryConfig::channels, "8", "Flash channels").Range(1, 64);
    s.Param("dies_per_channel", &GeometryConfig::dies_per_channel, "4", "Dies on each channel").Min(1);
    s.Param("page_size", &GeometryConfig::page_size, "16KiB", "Bytes per flash page").Range(512, 65536);
  }
};

struct TimingConfig {
  SimTime t_read;
  SimTime t_prog;
  Bandwidth channel_rate;
  static void Describe(Schema<TimingConfig>& s) {
    s.Param("tR", &TimingConfig::t_read, "75us", "Array read time per page");
    s.Param("tPROG", &TimingConfig::t_prog, "1.3ms", "Page program time").Range(1e3, 1e8);
    s.Param("channel_rate", &TimingConfig::channel_rate, "333MB/s", "Channel bus rate").Min(1);
  }
};

struct DeviceConfig {
  std::string model;
  GeometryConfig geometry;
  TimingConfig timing;
  static void Describe(Schema<DeviceConfig>& s) {
    s.Param("model", &DeviceConfig::model, "generic", "Device model name");
    s.Section("geometry", &DeviceConfig::geometry, "Flash array shape");
    s.Section("timing", &DeviceConfig::timing, "NAND timings");
  }
};

struct FtlConfig {
  Ratio op;
  std::string victim;
  bool wear_leveling = false;
  int32_t gc_slack = 0;
  double hot_weight = 0;
  static void Describe(Schema<FtlConfig>& s) {
    s.Param("op", &FtlConfig::op, "7%", "Over-provisioning ratio");
    s.Choice("victim", &FtlConfig::victim, "greedy", {"greedy", "fifo", "cost_benefit"}, "GC victim policy");
    s.Param("wear_leveling", &FtlConfig::wear_leveling, "off", "Static wear leveling");
    s.Param("gc_slack", &FtlConfig::gc_slack, "-2", "Free-block slack before GC (may be negative)");
    s.Param("hot_weight", &FtlConfig::hot_weight, "0.5", "Weight of hot data in victim scoring");
  }
};

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 0;
  std::vector<std::string> tags;
  DeviceConfig device;
  FtlConfig ftl;
  static void Describe(Schema<ExperimentConfig>& s) {
    s.Param("name", &ExperimentConfig::name, "unnamed", "Experiment name");
    s.Param("seed", &ExperimentConfig::seed, "1", "Run seed");
    s.Param("tags", &ExperimentConfig::tags, "[]", "Free-form labels");
    s.Section("device", &ExperimentConfig::device, "The SSD");
    s.Section("ftl", &ExperimentConfig::ftl, "Flash translation layer");
  }
};

}  // namespace sim::config_testing
