// Test helper: host write streams whose skew the allocation schemes' binding
// of pages to groups does not foresee (for the FTL's randomized tests).
//
// Patterns (SkewedStream::Pattern):
//   kAligned    one new Lpn (cycling over the logical space), then period-1
//               writes of a single hot Lpn. With period = planes (page
//               stripe) or planes x unit pages (block stripe), every new Lpn
//               lands in the same group, so that group would have to hold
//               the whole logical space.
//   kOverlap    sequential runs of `run` pages whose starts advance by
//               `step` < run pages (what fit: scale makes of large sequential
//               trace requests): each Lpn is rewritten run/step times and
//               its last copy lands at a few fixed offsets of the rotation.
//   kDuplicate  sequential Lpns, each written `period` times in a row.
// A fraction of the writes can be hinted cold (cold_every > 0: every
// cold_every-th new Lpn), so hot/cold separation sees skew across streams.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "flash/geometry.h"
#include "sim/rng.h"

namespace ftl {

class SkewedStream {
 public:
  enum class Pattern : uint8_t { kAligned, kOverlap, kDuplicate };
  struct Write {
    Lpn lpn;
    bool cold = false;
  };

  // REQUIRES: logical_pages > 1; period, run, step >= 1.
  SkewedStream(Pattern pattern, uint64_t logical_pages, uint64_t period, uint64_t run, uint64_t step,
               uint64_t cold_every = 0)
      : pattern_(pattern),
        logical_(logical_pages),
        period_(period),
        run_(run),
        step_(std::min(step, run)),
        cold_every_(cold_every) {}

  Write Next() {
    Write w;
    switch (pattern_) {
      case Pattern::kAligned:
        if (i_ % period_ == 0) {
          w.lpn = Lpn{1 + next_ % (logical_ - 1)};  // Lpn 0 is the hot one
          w.cold = Cold(next_++);
        } else {
          w.lpn = Lpn{0};
        }
        break;
      case Pattern::kOverlap:
        w.lpn = Lpn{(start_ + offset_) % logical_};
        w.cold = Cold(start_ + offset_);
        if (++offset_ == run_) {
          offset_ = 0;
          start_ += step_;
        }
        break;
      case Pattern::kDuplicate:
        w.lpn = Lpn{(i_ / period_) % logical_};
        w.cold = Cold(i_ / period_);
        break;
    }
    ++i_;
    return w;
  }

  // A random pattern with parameters drawn around the geometry's stripe
  // width (planes) and unit size, which is where the schemes' bindings are.
  static SkewedStream Random(sim::Rng& rng, const flash::Geometry& g, uint64_t logical_pages, bool cold) {
    const uint64_t planes = g.planes();
    const uint64_t unit = g.pages_per_block;
    const uint64_t periods[] = {planes, planes * unit, 2, 3, planes + 1};
    const uint64_t period = std::max<uint64_t>(1, periods[rng.Uniform(5)]);
    const uint64_t run = 1 + rng.Uniform(4 * planes * unit);
    const uint64_t step = 1 + rng.Uniform(std::max<uint64_t>(1, run / 2));
    const auto pattern = static_cast<Pattern>(rng.Uniform(3));
    return SkewedStream(pattern, logical_pages, pattern == Pattern::kDuplicate ? 1 + period % 5 : period, run, step,
                        cold ? 2 + rng.Uniform(5) : 0);
  }

  std::string Describe() const {
    static const char* const kNames[] = {"aligned", "overlap", "duplicate"};
    return std::string(kNames[static_cast<int>(pattern_)]) + " period=" + std::to_string(period_) +
           " run=" + std::to_string(run_) + " step=" + std::to_string(step_) +
           " cold_every=" + std::to_string(cold_every_);
  }

 private:
  bool Cold(uint64_t n) const { return cold_every_ != 0 && n % cold_every_ == 0; }

  Pattern pattern_;
  uint64_t logical_;
  uint64_t period_;
  uint64_t run_;
  uint64_t step_;
  uint64_t cold_every_;
  uint64_t i_ = 0;
  uint64_t next_ = 0;
  uint64_t start_ = 0;
  uint64_t offset_ = 0;
};

// The smallest op (in steps of 1%, from `from`) that `cfg` validates with on
// `g`, plus `extra`; 0 if none up to 400%.
inline double SmallestValidOp(FtlConfig cfg, const flash::Geometry& g, double from = 0.01, double extra = 0) {
  for (double op = from; op <= 4.0; op += 0.01) {
    cfg.op = sim::Ratio{op};
    if (cfg.Validate(g).ok()) return op + extra;
  }
  return 0;
}

}  // namespace ftl
