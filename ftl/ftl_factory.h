// FTL kinds: the registry of FTL implementations (ftl.kind) and the factory
// that builds the configured one on a flash array.
//
// An FTL kind is one folder of files registering an FtlKindInfo with
// sim::Registrar (sim/registry.h); the experiment assembly builds whatever
// ftl.kind names, so a new kind needs no edit outside its own files. A kind
// with parameters of its own declares them in `config`, a section named
// after the kind below `ftl` (ftl.<kind>.*).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "flash/flash_array.h"
#include "flash/geometry.h"
#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace ftl {

struct FtlKindInfo {
  const char* name;
  const char* description;
  // Checks `cfg` (the common keys and the kind's own section) against the
  // geometry. Errors name the full key ("ftl.op: ...").
  sim::Status (*validate)(const FtlConfig& cfg, const flash::Geometry& g);
  // Exported logical pages on `g`. REQUIRES: validate(cfg, g).ok().
  uint64_t (*logical_pages)(const FtlConfig& cfg, const flash::Geometry& g);
  // The FTL on `array`, its stats under `stats`. REQUIRES: validate ok.
  // `array` and `queue` outlive the result.
  std::unique_ptr<Ftl> (*make)(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                               const sim::StatGroup& stats);
  sim::ImplSection config;  // empty (no schema) for a kind without its own section
  // Estimated bytes of memory the FTL takes on `g` (its tables and
  // per-block state), for the limit checked before a run. REQUIRES:
  // validate ok.
  uint64_t (*memory_bytes)(const FtlConfig& cfg, const flash::Geometry& g) = nullptr;
  // The kind fixes placement (its Ftl::fixed_placement() is non-null): it
  // takes only whole flash pages, in order, so the host interface must not
  // put a write buffer in front of it (ssd::ValidateDeviceForFtl).
  bool fixed_placement = false;
  // For a kind with fixed placement: the first logical block with a fixed
  // place (FixedPlacement::fixed_from() of the FTL it makes; null = 0).
  // REQUIRES: validate ok.
  uint64_t (*fixed_from)(const FtlConfig& cfg, const flash::Geometry& g) = nullptr;
  // For a zoned kind (its Ftl::zoned() is non-null): the zone layout the
  // FTL it makes will have on `g` (null = not zoned). REQUIRES: validate ok.
  ZoneLayout (*zone_layout)(const FtlConfig& cfg, const flash::Geometry& g) = nullptr;
};

// Registered kinds, sorted; their config sections.
std::vector<std::string> FtlKindNames();
std::vector<sim::ImplSection> FtlKindSections();

// The FTL cfg.kind names, for `cfg` on `array`, registering its stats under
// `stats`, preconditioned if cfg.precondition.enabled. InvalidInput (naming
// the ftl.* key) if `cfg` does not fit the array's geometry or the kind is
// unknown. `array` and `queue` must outlive the result.
sim::Result<std::unique_ptr<Ftl>> MakeFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                                          const sim::StatGroup& stats);

}  // namespace ftl
