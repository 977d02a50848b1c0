#include "sim/stats.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <map>
#include <set>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>
#include <glog/logging.h>

namespace sim {

struct StatsRegistry::Impl {
  using Formula = std::function<double()>;
  struct Stat {
    std::variant<const Counter*, const Gauge*, const Histogram*, Formula> object;
    std::string unit;
    std::string desc;
  };
  struct Series {
    enum class Kind { kValue, kRate, kDelta, kRatio, kCount, kQuantile };
    std::string name;
    std::string unit;
    std::string desc;
    Kind kind;
    Formula fn;
    Formula den;                 // kRatio's denominator
    double last = 0;             // fn() at the previous sample (kRate, kDelta, kRatio)
    double last_den = 0;         // den() at the previous sample (kRatio)
    size_t window = 0;           // kCount, kQuantile: index into windows
    size_t quantile = 0;         // kQuantile: index into the window's qs
    std::vector<double> values;  // one per row
  };
  // A histogram's values in the current interval (AddIntervalPercentiles).
  struct Window {
    const Histogram* h;
    std::vector<double> qs;
    Histogram::Mark mark;       // the histogram at the interval's start
    uint64_t count = 0;         // at the interval's end: values recorded in it
    std::vector<double> at_qs;  // and their quantiles
  };

  // Runs at each interval end after all other events of that instant.
  class Sampler final : public Event {
   public:
    explicit Sampler(Impl* impl) : Event(Priority::kStats), impl_(impl) { set_daemon(true); }
    void Process() override { impl_->OnSample(); }
    std::string_view Name() const override { return "stats.sampler"; }

   private:
    Impl* impl_;
  };

  ~Impl() {
    if (sampler.scheduled()) queue->Deschedule(&sampler);
  }

  void AddStat(std::string name, Stat stat) {
    CHECK(!name.empty()) << "empty stat name";
    const auto [it, inserted] = stats.emplace(std::move(name), std::move(stat));
    CHECK(inserted) << "stat '" << it->first << "' registered twice";
  }

  void AddSeries(Series s) {
    CHECK(!s.name.empty()) << "empty series name";
    CHECK(queue == nullptr) << "series '" << s.name << "' registered after sampling started";
    CHECK(series_names.insert(s.name).second) << "series '" << s.name << "' registered twice";
    series.push_back(std::move(s));
  }

  void Prime() {
    for (Series& s : series) {
      if (s.fn) s.last = s.fn();
      if (s.den) s.last_den = s.den();
    }
    for (Window& w : windows) w.h->MarkNow(&w.mark);
  }

  void TakeSample(SimTime now) {
    using K = Series::Kind;
    const double dt_ns = static_cast<double>((now - last_sample).ns());
    for (Window& w : windows) {
      w.count = w.h->CountSince(w.mark);
      w.at_qs.resize(w.qs.size());
      w.h->PercentilesSince(w.mark, w.qs, &w.at_qs);
    }
    for (Series& s : series) {
      double out = 0;
      switch (s.kind) {
        case K::kValue:
          out = s.fn();
          break;
        case K::kRate:
        case K::kDelta: {
          const double v = s.fn();
          // delta * 1e9 / ns rather than delta / seconds: exact for integral
          // deltas over whole-ns intervals whenever the true rate is.
          out = s.kind == K::kRate ? (v - s.last) * 1e9 / dt_ns : v - s.last;
          s.last = v;
          break;
        }
        case K::kRatio: {
          const double v = s.fn(), d = s.den();
          out = d > s.last_den ? (v - s.last) / (d - s.last_den) : std::nan("");
          s.last = v;
          s.last_den = d;
          break;
        }
        case K::kCount:
          out = static_cast<double>(windows[s.window].count);
          break;
        case K::kQuantile:
          out = windows[s.window].at_qs[s.quantile];
          break;
      }
      s.values.push_back(out);
    }
    for (Window& w : windows) w.h->MarkNow(&w.mark);
    sample_ns.push_back(now.ns());
    last_sample = now;
  }

  void OnSample() {
    TakeSample(queue->now());
    // The sampler is a daemon event; it stops once nothing else is pending
    // so that a finished run does not leave it scheduled.
    if (queue->pending() > 0) queue->ScheduleIn(&sampler, interval);
  }

  // A rate over the measured phase (AddRate, AddMaxRate).
  struct Rate {
    std::function<void(std::vector<double>*)> fn;
    const EventQueue* clock;
    bool max;                    // the largest member's rate, else member 0's
    std::vector<double> at_start;  // empty: zeros (phase from time 0)
    std::vector<double> at_end;    // valid when the phase ended
    double Value(const Impl& im) const {
      std::vector<double> end;
      SimTime t1;
      if (im.phase_ended && !im.whole_run) {
        end = at_end;
        t1 = im.phase_end;
      } else {
        fn(&end);
        t1 = clock->now();
      }
      const SimTime t0 = im.whole_run ? SimTime::Zero() : im.phase_start;
      const double dt_ns = static_cast<double>((t1 - t0).ns());
      if (dt_ns <= 0 || end.empty()) return 0.0;
      double out = 0;
      for (size_t i = 0; i < end.size(); ++i) {
        const double a0 = im.whole_run || i >= at_start.size() ? 0.0 : at_start[i];
        const double r = (end[i] - a0) * 1e9 / dt_ns;
        if (!max) return r;
        out = i == 0 ? r : std::max(out, r);
      }
      return out;
    }
  };

  void SnapshotRates(bool start) {
    for (Rate& r : rates) {
      std::vector<double>& v = start ? r.at_start : r.at_end;
      v.clear();
      r.fn(&v);
    }
  }

  std::map<std::string, Stat, std::less<>> stats;  // sorted: output order
  std::vector<Series> series;                     // registration order
  std::set<std::string, std::less<>> series_names;
  std::vector<Window> windows;

  EventQueue* queue = nullptr;  // set by StartSampling
  bool stopped = false;
  std::deque<Rate> rates;  // stable addresses: the formulas point at them
  bool whole_run = false;
  bool phase_begun = false;
  bool phase_ended = false;
  int phase_open = 0;  // Begins less Ends
  SimTime phase_start;
  SimTime phase_end;
  SimTime interval;
  SimTime last_sample;
  std::vector<int64_t> sample_ns;  // row times
  Sampler sampler{this};
};

std::shared_ptr<StatsRegistry::Impl> StatsRegistry::MakeImpl() { return std::make_shared<Impl>(); }

// ---- StatGroup ----

std::string StatGroup::Full(std::string_view name) const {
  CHECK(!name.empty()) << "empty stat name under '" << prefix_ << "'";
  if (prefix_.empty()) return std::string(name);
  std::string full;
  full.reserve(prefix_.size() + 1 + name.size());
  full.append(prefix_).append(".").append(name);
  return full;
}

StatGroup StatGroup::Group(std::string_view name) const { return StatGroup(registry_, Full(name)); }

void StatGroup::Add(const Counter* c, std::string_view name, std::string_view unit, std::string_view desc) const {
  CHECK(c != nullptr && registry_ != nullptr);
  registry_->impl_->AddStat(Full(name), {c, std::string(unit), std::string(desc)});
}

void StatGroup::Add(const Gauge* g, std::string_view name, std::string_view unit, std::string_view desc) const {
  CHECK(g != nullptr && registry_ != nullptr);
  registry_->impl_->AddStat(Full(name), {g, std::string(unit), std::string(desc)});
}

void StatGroup::Add(const Histogram* h, std::string_view name, std::string_view unit,
                    std::string_view desc) const {
  CHECK(h != nullptr && registry_ != nullptr);
  registry_->impl_->AddStat(Full(name), {h, std::string(unit), std::string(desc)});
}

void StatGroup::AddFormula(std::function<double()> fn, std::string_view name, std::string_view unit,
                           std::string_view desc) const {
  CHECK(fn != nullptr && registry_ != nullptr);
  registry_->impl_->AddStat(Full(name), {std::move(fn), std::string(unit), std::string(desc)});
}

void StatGroup::AddRate(std::function<double()> amount, const EventQueue* clock, std::string_view name,
                        std::string_view unit, std::string_view desc) const {
  CHECK(amount != nullptr && clock != nullptr);
  AddMaxRate([fn = std::move(amount)](std::vector<double>* out) { out->push_back(fn()); }, clock, name, unit,
             desc);
  registry_->impl_->rates.back().max = false;
}

void StatGroup::AddMaxRate(std::function<void(std::vector<double>*)> amounts, const EventQueue* clock,
                           std::string_view name, std::string_view unit, std::string_view desc) const {
  CHECK(amounts != nullptr && clock != nullptr && registry_ != nullptr);
  StatsRegistry::Impl& im = *registry_->impl_;
  CHECK(!im.phase_begun) << "rate '" << Full(name) << "' registered after the measured phase began";
  StatsRegistry::Impl::Rate& r = im.rates.emplace_back();
  r.fn = std::move(amounts);
  r.clock = clock;
  r.max = true;
  const StatsRegistry::Impl* imp = &im;
  im.AddStat(Full(name), {[&r, imp] { return r.Value(*imp); }, std::string(unit), std::string(desc)});
}

void StatGroup::BeginMeasured(SimTime now) const {
  if (registry_ != nullptr) registry_->BeginMeasured(now);
}

void StatGroup::EndMeasured(SimTime now) const {
  if (registry_ != nullptr) registry_->EndMeasured(now);
}

void StatGroup::AddSeries(std::function<double()> fn, SeriesKind kind, std::string_view name,
                          std::string_view unit, std::string_view desc) const {
  CHECK(fn != nullptr && registry_ != nullptr);
  using Series = StatsRegistry::Impl::Series;
  Series s;
  s.name = Full(name);
  s.unit = std::string(unit);
  s.desc = std::string(desc);
  s.kind = kind == SeriesKind::kValue ? Series::Kind::kValue
           : kind == SeriesKind::kRate ? Series::Kind::kRate
                                       : Series::Kind::kDelta;
  s.fn = std::move(fn);
  registry_->impl_->AddSeries(std::move(s));
}

void StatGroup::AddIntervalRatio(std::function<double()> num, std::function<double()> den, std::string_view name,
                                 std::string_view unit, std::string_view desc) const {
  CHECK(num != nullptr && den != nullptr && registry_ != nullptr);
  using Series = StatsRegistry::Impl::Series;
  Series s;
  s.name = Full(name);
  s.unit = std::string(unit);
  s.desc = std::string(desc);
  s.kind = Series::Kind::kRatio;
  s.fn = std::move(num);
  s.den = std::move(den);
  registry_->impl_->AddSeries(std::move(s));
}

void StatGroup::AddIntervalPercentiles(const Histogram* h, std::string_view name, std::string_view unit,
                                       const std::vector<double>& qs) const {
  CHECK(h != nullptr && registry_ != nullptr);
  StatsRegistry::Impl& im = *registry_->impl_;
  CHECK(im.queue == nullptr) << "interval percentiles of '" << Full(name) << "' registered after sampling started";
  using Series = StatsRegistry::Impl::Series;
  const size_t window = im.windows.size();
  im.windows.push_back({h, qs, {}, 0, {}});
  Series c;
  c.name = Full(name) + ".count";
  c.unit = "values";
  c.desc = fmt::format("values recorded in the interval ({})", name);
  c.kind = Series::Kind::kCount;
  c.window = window;
  im.AddSeries(std::move(c));
  for (size_t i = 0; i < qs.size(); ++i) {
    CHECK(qs[i] >= 0 && qs[i] <= 1) << "quantile out of [0, 1]: " << qs[i];
    std::string p = fmt::format("{:g}", qs[i] * 100);
    p.erase(std::remove(p.begin(), p.end(), '.'), p.end());
    Series s;
    s.name = Full(name) + ".p" + p;
    s.unit = std::string(unit);
    s.desc = fmt::format("p{} of the values recorded in the interval ({})", p, name);
    s.kind = Series::Kind::kQuantile;
    s.window = window;
    s.quantile = i;
    im.AddSeries(std::move(s));
  }
}

// ---- Sampling ----

void StatsRegistry::StartSampling(EventQueue* q, SimTime interval) {
  CHECK(q != nullptr);
  CHECK(interval > SimTime::Zero()) << "sampling interval must be positive";
  CHECK(impl_->queue == nullptr) << "StartSampling called twice";
  Impl& im = *impl_;
  im.queue = q;
  im.interval = interval;
  im.last_sample = q->now();
  im.Prime();
  q->ScheduleIn(&im.sampler, interval);
}

void StatsRegistry::StopSampling() {
  Impl& im = *impl_;
  if (im.queue == nullptr || im.stopped) return;
  im.stopped = true;
  // Only a sampler that is still running owes a partial row. One that
  // stopped itself on an empty queue already covered the last activity, and
  // time that passed since (Run(until) on an empty queue) carries none.
  if (!im.sampler.scheduled()) return;
  im.queue->Deschedule(&im.sampler);
  if (im.queue->now() > im.last_sample) im.TakeSample(im.queue->now());
}

// ---- Measured phase ----

void StatsRegistry::SetWholeRunRates(bool whole) { impl_->whole_run = whole; }

void StatsRegistry::BeginMeasured(SimTime now) {
  Impl& im = *impl_;
  if (im.whole_run) return;
  ++im.phase_open;
  if (!im.phase_begun) {
    im.phase_begun = true;
    im.phase_start = now;
    im.SnapshotRates(/*start=*/true);
  }
  im.phase_ended = false;
}

void StatsRegistry::EndMeasured(SimTime now) {
  Impl& im = *impl_;
  if (im.whole_run) return;
  CHECK_GT(im.phase_open, 0) << "EndMeasured without BeginMeasured";
  if (--im.phase_open > 0) return;
  im.phase_ended = true;
  im.phase_end = now;
  im.SnapshotRates(/*start=*/false);
  // The series end with the phase: a partial row at its end, none after.
  if (im.queue != nullptr && !im.stopped && im.sampler.scheduled()) {
    CHECK(im.queue->now() == now) << "EndMeasured at a time other than now";
    StopSampling();
  }
}

SimTime StatsRegistry::measured_start() const { return impl_->phase_start; }
SimTime StatsRegistry::measured_end() const { return impl_->phase_end; }
bool StatsRegistry::measured_ended() const { return impl_->phase_ended; }

// ---- Output ----

namespace {

const char* TypeName(const Counter*) { return "counter"; }
const char* TypeName(const Gauge*) { return "gauge"; }
const char* TypeName(const Histogram*) { return "histogram"; }
const char* TypeName(const std::function<double()>&) { return "formula"; }

// Matches whole dotted components: "ftl" selects "ftl" and "ftl.gc.x" but
// not "ftlx".
bool Selected(std::string_view name, const std::vector<std::string>& prefixes) {
  if (prefixes.empty()) return true;
  for (const std::string& p : prefixes) {
    if (p.empty()) return true;
    if (!name.starts_with(p)) continue;
    if (name.size() == p.size() || p.back() == '.' || name[p.size()] == '.') return true;
  }
  return false;
}

std::string HistogramSummary(const Histogram& h, std::string_view unit) {
  if (unit == "ns") {
    auto t = [](int64_t ns) { return SimTime::FromNs(ns).ToString(); };
    return fmt::format("n={} mean={} p50={} p99={} max={}", h.count(), t(std::llround(h.mean())),
                       t(h.Percentile(0.5)), t(h.Percentile(0.99)), t(h.max()));
  }
  std::string s = fmt::format("n={} mean={:.6g} p50={} p99={} max={}", h.count(), h.mean(), h.Percentile(0.5),
                              h.Percentile(0.99), h.max());
  if (!unit.empty()) s.append(" ").append(unit);
  return s;
}

}  // namespace

void StatsRegistry::WriteJson(JsonWriter& w) const {
  w.BeginObject();
  for (const auto& [name, stat] : impl_->stats) {
    w.Key(name);
    w.BeginObject();
    w.Key("type");
    w.String(std::visit([](const auto& o) { return TypeName(o); }, stat.object));
    w.Key("unit");
    w.String(stat.unit);
    w.Key("desc");
    w.String(stat.desc);
    std::visit(
        [&w](const auto& o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, const Counter*>) {
            w.Key("value");
            w.Uint(o->value());
          } else if constexpr (std::is_same_v<T, const Gauge*>) {
            w.Key("value");
            w.Number(o->value());
          } else if constexpr (std::is_same_v<T, Impl::Formula>) {
            w.Key("value");
            w.Number(o());
          } else {
            const Histogram& h = *o;
            w.Key("count");
            w.Uint(h.count());
            w.Key("min");
            w.Int(h.min());
            w.Key("max");
            w.Int(h.max());
            w.Key("mean");
            w.Number(h.mean());
            static constexpr std::pair<const char*, double> kQuantiles[] = {
                {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}, {"p9999", 0.9999}};
            for (const auto& [key, q] : kQuantiles) {
              w.Key(key);
              w.Int(h.Percentile(q));
            }
            w.Key("buckets");
            w.BeginArray(/*compact=*/true);
            h.ForEachBucket([&w](uint64_t low, uint64_t high, uint64_t n) {
              w.BeginArray();
              w.Uint(low);
              w.Uint(high);
              w.Uint(n);
              w.EndArray();
            });
            w.EndArray();
          }
        },
        stat.object);
    w.EndObject();
  }
  w.EndObject();
}

void StatsRegistry::WriteJson(std::ostream& out, int indent) const {
  JsonWriter w(out, indent);
  WriteJson(w);
  out << '\n';
}

void StatsRegistry::WriteSeriesCsv(std::ostream& out) const {
  const Impl& im = *impl_;
  std::string line = "time_s";
  for (const Impl::Series& s : im.series) line.append(",").append(CsvField(s.name));
  out << line << '\n';
  for (size_t row = 0; row < im.sample_ns.size(); ++row) {
    line = fmt::format("{}", static_cast<double>(im.sample_ns[row]) / 1e9);
    for (const Impl::Series& s : im.series) {
      line.push_back(',');
      const double v = s.values[row];
      if (std::isfinite(v)) fmt::format_to(std::back_inserter(line), "{}", v);
    }
    out << line << '\n';
  }
}

void StatsRegistry::WriteSeriesUnitsCsv(std::ostream& out) const {
  out << "column,unit,description\n";
  out << "time_s,s,simulated time at the end of the interval\n";
  for (const Impl::Series& s : impl_->series) {
    out << CsvField(s.name) << ',' << CsvField(s.unit) << ',' << CsvField(s.desc) << '\n';
  }
}

void StatsRegistry::WriteSummary(std::ostream& out, const std::vector<std::string>& prefixes) const {
  size_t width = 0;
  for (const auto& [name, stat] : impl_->stats) {
    if (Selected(name, prefixes)) width = std::max(width, name.size());
  }
  for (const auto& [name, stat] : impl_->stats) {
    if (!Selected(name, prefixes)) continue;
    std::string line;
    if (const auto* h = std::get_if<const Histogram*>(&stat.object)) {
      line = fmt::format("{:<{}} : {}", name, width, HistogramSummary(**h, stat.unit));
    } else {
      const std::string value = std::holds_alternative<const Counter*>(stat.object)
                                    ? fmt::format("{}", std::get<const Counter*>(stat.object)->value())
                                    : fmt::format("{:.6g}", Value(name));
      line = fmt::format("{:<{}} = {}", name, width, value);
      if (!stat.unit.empty()) line.append(" ").append(stat.unit);
    }
    out << line << '\n';
  }
}

bool StatsRegistry::Has(std::string_view name) const { return impl_->stats.find(name) != impl_->stats.end(); }

std::vector<std::string> StatsRegistry::Names(std::string_view prefix) const {
  std::vector<std::string> out;
  for (auto it = impl_->stats.lower_bound(prefix); it != impl_->stats.end(); ++it) {
    if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
    out.push_back(it->first);
  }
  return out;
}

double StatsRegistry::Value(std::string_view name) const {
  const auto it = impl_->stats.find(name);
  if (it == impl_->stats.end()) return std::nan("");
  return std::visit(
      [](const auto& o) -> double {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, const Counter*>) {
          return static_cast<double>(o->value());
        } else if constexpr (std::is_same_v<T, const Gauge*>) {
          return o->value();
        } else if constexpr (std::is_same_v<T, Impl::Formula>) {
          return o();
        } else {
          return std::nan("");
        }
      },
      it->second.object);
}

const Histogram* StatsRegistry::FindHistogram(std::string_view name) const {
  const auto it = impl_->stats.find(name);
  if (it == impl_->stats.end()) return nullptr;
  const auto* h = std::get_if<const Histogram*>(&it->second.object);
  return h ? *h : nullptr;
}

std::string HumanNumber(double v, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  const std::string suffix = fmt::format("{}{}", prefixes[i], unit);
  return suffix.empty() ? fmt::format("{:.4g}", v) : fmt::format("{:.4g} {}", v, suffix);
}

std::string LatencySummary(const Histogram& h) {
  auto t = [](int64_t ns) { return Ns(ns).ToString(); };
  return fmt::format("mean {} p50 {} p99 {} p99.9 {} max {}", t(static_cast<int64_t>(h.mean())),
                     t(h.Percentile(0.5)), t(h.Percentile(0.99)), t(h.Percentile(0.999)), t(h.max()));
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace sim
