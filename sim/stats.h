// Statistics: plain objects owned by components, registered once by name.
//
// A component keeps its stats as members (Counter, Gauge, Histogram) and
// updates them directly on the hot path (no string lookups). At
// construction it registers each one with a StatGroup under a dotted name
// with a unit and a one-line description. Formulas (e.g. write
// amplification) are registered as functions evaluated only when results are
// written. Time series sample registered values every `interval` of
// simulated time, driven by a StatsSampler event on the engine's queue.
//
// Output is independent of collection: StatsRegistry writes stats.json,
// CSV time series and a human summary from whatever was registered.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event_queue.h"
#include "sim/time.h"

namespace sim {

class Counter {
 public:
  void Inc(uint64_t n = 1) { v_ += n; }
  uint64_t value() const { return v_; }
  void Reset() { v_ = 0; }

 private:
  uint64_t v_ = 0;
};

class Gauge {
 public:
  void Set(double v) { v_ = v; }
  void Add(double d) { v_ += d; }
  double value() const { return v_; }

 private:
  double v_ = 0;
};

// Log-linear (HDR-style) histogram of non-negative integers (latencies in
// ns, sizes in bytes). Values below 2^(kSubBits+1) are exact; above, each
// power-of-two range is split into 2^kSubBits buckets, so the relative
// error of any reported quantile is < 2^-kSubBits (0.78%). Memory is
// constant (a fixed bucket array); min, max, count and sum are exact.
class Histogram {
 public:
  static constexpr int kSubBits = 7;
  Histogram();
  // Negative values are clamped to 0. Inline: called several times per I/O.
  void Record(int64_t v) {
    v = v < 0 ? 0 : v;
    ++buckets_[BucketOf(static_cast<uint64_t>(v))];
    ++count_;
    sum_ += v;
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
  }
  void RecordN(int64_t v, uint64_t n);
  void Merge(const Histogram& o);
  void Reset();

  uint64_t count() const { return count_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0; }
  // Value at quantile q in [0, 1] (q = 0.99 is p99); exact min/max at the ends.
  int64_t Percentile(double q) const;
  // Calls fn(low, high, count) for every non-empty bucket in ascending
  // order; the bucket holds the recorded values in [low, high] (its full
  // range, not clamped to min/max). Percentile(q) is the bucket where the
  // cumulative count first reaches the nearest rank, at low + (high -
  // low) / 2 clamped to [min, max].
  // The state of the histogram at one moment, to describe the values
  // recorded after it: the per-interval columns of series.csv are the
  // difference between the histogram at the interval's two ends.
  struct Mark {
    uint64_t count = 0;
    size_t first = 0;              // bucket index of counts[0]
    std::vector<uint64_t> counts;  // the non-empty range of buckets then
  };
  void MarkNow(Mark* m) const;
  // How many values were recorded since `m` (taken from this histogram).
  uint64_t CountSince(const Mark& m) const { return count_ - m.count; }
  // The values at quantiles qs[i] (each in [0, 1]) of those recorded since
  // `m`, by the rule of Percentile() (nearest rank, the bucket's midpoint
  // clamped to the whole histogram's [min(), max()]), into out[i]; NaN when
  // none was recorded. REQUIRES: out->size() == qs.size().
  void PercentilesSince(const Mark& m, const std::vector<double>& qs, std::vector<double>* out) const;
  template <class Fn>
  void ForEachBucket(Fn&& fn) const {
    if (count_ == 0) return;
    const size_t last = BucketOf(static_cast<uint64_t>(max_));
    for (size_t b = BucketOf(static_cast<uint64_t>(min_)); b <= last; ++b)
      if (buckets_[b] != 0) fn(BucketLow(b), BucketHigh(b), buckets_[b]);
  }

 private:
  static size_t BucketOf(uint64_t v) {
    const int e = 63 - std::countl_zero(v | 1);  // floor(log2 v); 0 for v = 0
    const int shift = e > kSubBits ? e - kSubBits : 0;
    return (static_cast<size_t>(shift) << kSubBits) + static_cast<size_t>(v >> shift);
  }
  static uint64_t BucketLow(size_t b);
  static uint64_t BucketHigh(size_t b);
  std::unique_ptr<uint64_t[]> buckets_;
  uint64_t count_ = 0;
  __int128 sum_ = 0;
  int64_t min_ = std::numeric_limits<int64_t>::max();
  int64_t max_ = 0;
};

class StatsRegistry;
class JsonWriter;

// A naming prefix inside a registry: Group("ftl").Group("gc") registers
// "ftl.gc.<name>". Cheap to copy.
class StatGroup {
 public:
  StatGroup(StatsRegistry* registry, std::string prefix) : registry_(registry), prefix_(std::move(prefix)) {}
  StatGroup Group(std::string_view name) const;
  const std::string& prefix() const { return prefix_; }

  // The object must outlive the registry's last output call.
  void Add(const Counter* c, std::string_view name, std::string_view unit, std::string_view desc) const;
  void Add(const Gauge* g, std::string_view name, std::string_view unit, std::string_view desc) const;
  void Add(const Histogram* h, std::string_view name, std::string_view unit, std::string_view desc) const;
  // Evaluated at output time.
  void AddFormula(std::function<double()> fn, std::string_view name, std::string_view unit,
                  std::string_view desc) const;
  // A rate over the measured phase (StatsRegistry::BeginMeasured):
  // (amount() at the phase's end - amount() at its start) / the phase's
  // length in seconds, 0 for an empty phase. `clock` is the end of a phase
  // still open at output time. An amount in seconds of busy time gives a
  // utilization (0..1). Amounts are 0 at time 0 (counters, busy times).
  void AddRate(std::function<double()> amount, const EventQueue* clock, std::string_view name,
               std::string_view unit, std::string_view desc) const;
  // The largest of several such rates (`amounts` fills one value per
  // member, always as many): the busiest die's utilization.
  void AddMaxRate(std::function<void(std::vector<double>*)> amounts, const EventQueue* clock,
                  std::string_view name, std::string_view unit, std::string_view desc) const;
  // The measured phase's marks (StatsRegistry::BeginMeasured); no-ops in a
  // group without a registry.
  void BeginMeasured(SimTime now) const;
  void EndMeasured(SimTime now) const;
  // A per-interval time series column. kValue samples fn() at each interval
  // end; kRate reports (fn() now - fn() at last sample) / interval seconds;
  // kDelta reports fn() now - fn() at the last sample (what a counter
  // gained in the interval: the column sums to the counter's growth over
  // the run). Series names are unique among series (a series may share the
  // name of the stat it samples). REQUIRES: called before StartSampling().
  enum class SeriesKind { kValue, kRate, kDelta };
  void AddSeries(std::function<double()> fn, SeriesKind kind, std::string_view name, std::string_view unit,
                 std::string_view desc) const;
  // A ratio over each interval of two growing quantities: (num() now - num()
  // at the last sample) / (den() now - den() at the last sample), an empty
  // cell when den() did not grow. The per-interval write amplification.
  void AddIntervalRatio(std::function<double()> num, std::function<double()> den, std::string_view name,
                        std::string_view unit, std::string_view desc) const;
  // Columns over the values `h` recorded in each interval: "<name>.count"
  // and "<name>.p50", "<name>.p99" (one per quantile of `qs`, named as
  // stats.json names them: p50 p90 p99 p999 p9999), empty cells for an
  // interval without values. The counts sum to h->count() at the end less
  // its count when sampling started. The object must outlive sampling.
  void AddIntervalPercentiles(const Histogram* h, std::string_view name, std::string_view unit,
                              const std::vector<double>& qs = {0.5, 0.99}) const;

 private:
  std::string Full(std::string_view name) const;
  StatsRegistry* registry_;
  std::string prefix_;
};

class StatsRegistry {
 public:
  StatsRegistry() = default;
  StatsRegistry(const StatsRegistry&) = delete;
  StatsRegistry& operator=(const StatsRegistry&) = delete;

  StatGroup Root() { return StatGroup(this, ""); }

  // Registers the sampling event for time series on `q` (every `interval`
  // of simulated time from now). Call once, before running. interval > 0.
  // The sampler stops rescheduling itself once it is the only pending event,
  // so it never keeps Run() going. REQUIRES: `q` outlives the registry, or
  // StopSampling() is called before `q` is destroyed.
  void StartSampling(EventQueue* q, SimTime interval);
  // Takes a final partial-interval sample (if any time passed since the
  // last one) and stops sampling.
  void StopSampling();

  // The measured phase: the span of simulated time the workload measures,
  // from the end of its setup (and ramp) to its last completion. Workloads
  // mark it; several (flows) make one phase from the first BeginMeasured to
  // the last EndMeasured (a Begin after the phase ended reopens it, keeping
  // its start). Rates (StatGroup::AddRate) are over it, and time series
  // stop at its end with a partial row there, so neither describes the
  // drain that follows (background work, unmount). Without a Begin the phase
  // starts at time 0; without an End it lasts until output.
  void BeginMeasured(SimTime now);
  void EndMeasured(SimTime now);
  // Rates over the whole run instead (run.rate_window: run): the marks are
  // ignored and series run to the end. Call before the run.
  void SetWholeRunRates(bool whole);
  // The phase as marked: start (0 without a Begin), end and whether it
  // ended (false: open, or never begun).
  SimTime measured_start() const;
  SimTime measured_end() const;
  bool measured_ended() const;

  // `{"<name>": {"unit":…, "desc":…, "value":…}, …}` for counters, gauges
  // and formulas; histograms add count/min/max/mean/p50/p90/p99/p999/p9999.
  // Names are sorted, numbers formatted deterministically.
  void WriteJson(std::ostream& out, int indent = 2) const;
  // The same object written as one value of an enclosing document.
  void WriteJson(JsonWriter& w) const;
  // Header "time_s,<series>…", one row per interval.
  void WriteSeriesCsv(std::ostream& out) const;
  // The units of WriteSeriesCsv's columns, one row per column in its order:
  // header "column,unit,description", then "time_s,s,..." and a row per
  // series (series.units.csv beside series.csv).
  void WriteSeriesUnitsCsv(std::ostream& out) const;
  // Lines "name = value unit" for the given name prefixes (all if empty);
  // histograms as "name : n=… mean=… p50=… p99=… max=…", times written as
  // "1.5ms" when the unit is "ns". A prefix matches whole dotted components.
  void WriteSummary(std::ostream& out, const std::vector<std::string>& prefixes = {}) const;

  bool Has(std::string_view name) const;
  // Names of the registered stats that start with `prefix`, sorted.
  std::vector<std::string> Names(std::string_view prefix) const;
  // Scalar value of a counter, gauge or formula; NaN if absent.
  double Value(std::string_view name) const;
  const Histogram* FindHistogram(std::string_view name) const;

 private:
  friend class StatGroup;
  struct Impl;
  std::shared_ptr<Impl> impl_ = MakeImpl();
  static std::shared_ptr<Impl> MakeImpl();
};

// A CSV field (RFC 4180): quoted when it holds a separator, a quote or a
// line break, with quotes doubled; as it is otherwise.
std::string CsvField(std::string_view s);

// Small deterministic JSON writer used for results files.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, int indent = 2) : out_(out), indent_(indent) {}
  void BeginObject();
  void EndObject();
  // A compact array (and every array or object inside it) is written on
  // one line whatever the indent.
  void BeginArray(bool compact = false);
  void EndArray();
  void Key(std::string_view k);
  void String(std::string_view s);
  void Number(double v);  // shortest round-trip form; NaN/inf written as null
  void Int(int64_t v);
  void Uint(uint64_t v);
  void Bool(bool v);
  void Null();

 private:
  void Prefix();
  void NextElement();
  std::ostream& out_;
  int indent_;
  struct Level {
    bool array;
    bool first;
    bool compact = false;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

// Summary formatting shared by every layer's summary lines.
// "12.3 kB/s": `v` with an SI prefix (k, M, G, T) before `unit`; 4 significant digits.
std::string HumanNumber(double v, const char* unit);
// "mean 1.2us p50 1us p99 3us p99.9 4us max 5us" of a latency histogram in ns.
std::string LatencySummary(const Histogram& h);

}  // namespace sim
