// Builds the configured FTL on a flash array.
#pragma once

#include <memory>

#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "sim/event_queue.h"
#include "flash/flash_array.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace ftl {

// A page-mapped FTL (PageFtl) for `cfg` on `array`, registering its stats
// under `stats`, preconditioned if cfg.precondition.enabled. InvalidInput
// (naming the ftl.* key) if `cfg` does not fit the array's geometry.
// `array` and `queue` must outlive the result.
sim::Result<std::unique_ptr<Ftl>> MakeFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                                          const sim::StatGroup& stats);

}  // namespace ftl
