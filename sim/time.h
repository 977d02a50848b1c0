// Simulated time.
//
// SimTime is a signed 64-bit count of nanoseconds. Resolution 1 ns; range
// +/- 292 years, so any experiment fits with room to spare. The same type is
// used for points in time and for durations (as in ns-3's Time): the
// difference of two points is a duration, and a point plus a duration is a
// point. Construct values through the unit factories (Us(75), Ms(3.8)); never
// pass a bare integer of unknown unit across an interface.
#pragma once

#include <cstdint>
#include <compare>
#include <limits>
#include <string>

namespace sim {

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime FromNs(int64_t ns) { return SimTime(ns); }
  static constexpr SimTime Zero() { return SimTime(0); }
  static constexpr SimTime Max() { return SimTime(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ns() const { return ns_; }
  constexpr double us() const { return static_cast<double>(ns_) / 1e3; }
  constexpr double ms() const { return static_cast<double>(ns_) / 1e6; }
  constexpr double sec() const { return static_cast<double>(ns_) / 1e9; }

  constexpr SimTime operator+(SimTime o) const { return SimTime(ns_ + o.ns_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ns_ - o.ns_); }
  constexpr SimTime& operator+=(SimTime o) { ns_ += o.ns_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ns_ -= o.ns_; return *this; }
  constexpr SimTime operator*(int64_t k) const { return SimTime(ns_ * k); }
  constexpr SimTime operator/(int64_t k) const { return SimTime(ns_ / k); }
  constexpr int64_t operator/(SimTime o) const { return ns_ / o.ns_; }
  constexpr auto operator<=>(const SimTime&) const = default;

  // "1.5ms", "75us", "12ns": the largest unit that keeps the value >= 1,
  // at most 4 significant decimals. For human output only.
  std::string ToString() const;

 private:
  constexpr explicit SimTime(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;
};

constexpr SimTime Ns(int64_t v) { return SimTime::FromNs(v); }
constexpr SimTime Us(double v) { return SimTime::FromNs(static_cast<int64_t>(v * 1e3 + (v >= 0 ? 0.5 : -0.5))); }
constexpr SimTime Ms(double v) { return SimTime::FromNs(static_cast<int64_t>(v * 1e6 + (v >= 0 ? 0.5 : -0.5))); }
constexpr SimTime Sec(double v) { return SimTime::FromNs(static_cast<int64_t>(v * 1e9 + (v >= 0 ? 0.5 : -0.5))); }

// For times derived from user input (trace timestamps times scale
// factors), which may lie beyond the range: Us(v) clamped to
// [-Max(), Max()] (NaN gives Zero()), and a + b clamped likewise. Inputs
// should still be bounded where they are read; these keep an unchecked
// path from overflowing.
SimTime SaturatingUs(double v);
SimTime SaturatingAdd(SimTime a, SimTime b);

// Simulated spans beyond this deserve a warning: a run that long idles
// almost all of its time, and its periodic statistics grow accordingly.
inline constexpr SimTime kLongSimulatedSpan = SimTime::FromNs(int64_t{10} * 365 * 24 * 3600 * 1000000000);
// Largest span a replay may schedule ahead of its start (about 100 years),
// leaving room below Max() for the run's own progress.
inline constexpr SimTime kMaxReplaySpan = SimTime::FromNs(int64_t{100} * 365 * 24 * 3600 * 1000000000);

// Time to move `bytes` at `bytes_per_sec`, rounded up to whole ns.
// REQUIRES: bytes_per_sec > 0.
SimTime TransferTime(uint64_t bytes, double bytes_per_sec);

}  // namespace sim
