#include "sim/stats.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace sim {
namespace {

using SeriesKind = StatGroup::SeriesKind;

std::string Json(const StatsRegistry& r) {
  std::ostringstream out;
  r.WriteJson(out);
  return out.str();
}

std::string Csv(const StatsRegistry& r) {
  std::ostringstream out;
  r.WriteSeriesCsv(out);
  return out.str();
}

std::string Summary(const StatsRegistry& r, const std::vector<std::string>& prefixes = {}) {
  std::ostringstream out;
  r.WriteSummary(out, prefixes);
  return out.str();
}

// ---- JsonWriter ----

TEST(JsonWriterTest, PrettyNesting) {
  std::ostringstream out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("a");
  w.Int(-3);
  w.Key("list");
  w.BeginArray();
  w.Uint(1);
  w.Bool(true);
  w.Null();
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.Key("o");
  w.BeginObject();
  w.Key("s");
  w.String("x");
  w.EndObject();
  w.EndObject();
  EXPECT_EQ(out.str(), R"({
  "a": -3,
  "list": [
    1,
    true,
    null,
    {},
    []
  ],
  "o": {
    "s": "x"
  }
})");
}

TEST(JsonWriterTest, CompactWhenIndentIsZero) {
  std::ostringstream out;
  JsonWriter w(out, 0);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(1);
  w.Int(2);
  w.EndArray();
  w.Key("b");
  w.Bool(false);
  w.EndObject();
  EXPECT_EQ(out.str(), R"({"a":[1,2],"b":false})");
}

TEST(JsonWriterTest, CompactArrayStaysOnOneLine) {
  std::ostringstream out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("b");
  w.BeginArray(/*compact=*/true);
  w.BeginArray();
  w.Uint(1);
  w.Uint(2);
  w.EndArray();
  w.BeginObject();
  w.Key("k");
  w.Int(3);
  w.EndObject();
  w.EndArray();
  w.Key("after");
  w.BeginArray();
  w.Int(4);
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(out.str(), R"({
  "b": [[1,2],{"k": 3}],
  "after": [
    4
  ]
})");
}

TEST(JsonWriterTest, EscapesStrings) {
  std::ostringstream out;
  JsonWriter w(out);
  w.String("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(out.str(), "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9\xe2\x82\xac\"");

  std::ostringstream nul;
  JsonWriter w2(nul);
  w2.String(std::string("a\0b", 3));
  EXPECT_EQ(nul.str(), "\"a\\u0000b\"");
}

TEST(JsonWriterTest, EscapesKeys) {
  std::ostringstream out;
  JsonWriter w(out, 0);
  w.BeginObject();
  w.Key("a\"b\n");
  w.Int(1);
  w.EndObject();
  EXPECT_EQ(out.str(), R"({"a\"b\n":1})");
}

std::string NumberText(double v) {
  std::ostringstream out;
  JsonWriter w(out);
  w.Number(v);
  return out.str();
}

TEST(JsonWriterTest, NumbersAreShortestRoundTrip) {
  EXPECT_EQ(NumberText(3.0), "3");
  EXPECT_EQ(NumberText(0.1), "0.1");
  EXPECT_EQ(NumberText(-2.5), "-2.5");
  EXPECT_EQ(NumberText(1e21), "1e+21");
  EXPECT_EQ(NumberText(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(NumberText(std::nan("")), "null");
  EXPECT_EQ(NumberText(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(NumberText(-std::numeric_limits<double>::infinity()), "null");

  Rng rng(7, "json_numbers");
  for (int i = 0; i < 10000; ++i) {
    const double v = (rng.UniformDouble() - 0.5) * std::exp2(static_cast<double>(rng.Uniform(200)) - 100);
    const std::string s = NumberText(v);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
}

TEST(JsonWriterTest, IntegerExtremes) {
  std::ostringstream out;
  JsonWriter w(out, 0);
  w.BeginArray();
  w.Int(std::numeric_limits<int64_t>::min());
  w.Uint(std::numeric_limits<uint64_t>::max());
  w.EndArray();
  EXPECT_EQ(out.str(), "[-9223372036854775808,18446744073709551615]");
}

TEST(JsonWriterDeathTest, ValueInObjectNeedsKey) {
  std::ostringstream out;
  JsonWriter w(out);
  w.BeginObject();
  EXPECT_DEATH(w.Int(1), "needs a key");
}

// ---- Registry ----

TEST(StatsRegistryTest, GroupsBuildDottedNames) {
  StatsRegistry r;
  Counter c;
  Gauge g;
  Histogram h;
  const StatGroup gc = r.Root().Group("ftl").Group("gc");
  EXPECT_EQ(gc.prefix(), "ftl.gc");
  gc.Add(&c, "erases", "blocks", "Blocks erased by GC");
  r.Root().Add(&g, "util", "", "Busy fraction");
  r.Root().Group("host").Add(&h, "latency", "ns", "Request latency");
  c.Inc(7);
  g.Set(0.5);
  EXPECT_TRUE(r.Has("ftl.gc.erases"));
  EXPECT_TRUE(r.Has("util"));
  EXPECT_TRUE(r.Has("host.latency"));
  EXPECT_FALSE(r.Has("ftl.gc"));
  EXPECT_FALSE(r.Has("erases"));
  EXPECT_EQ(r.Value("ftl.gc.erases"), 7);  // read at call time
  EXPECT_EQ(r.Value("util"), 0.5);
  EXPECT_TRUE(std::isnan(r.Value("host.latency")));
  EXPECT_TRUE(std::isnan(r.Value("missing")));
  EXPECT_EQ(r.FindHistogram("host.latency"), &h);
  EXPECT_EQ(r.FindHistogram("util"), nullptr);
  EXPECT_EQ(r.FindHistogram("missing"), nullptr);
}

TEST(StatsRegistryTest, FormulaEvaluatedAtOutput) {
  StatsRegistry r;
  Counter host;
  Counter flash;
  r.Root().AddFormula(
      [&] { return static_cast<double>(flash.value()) / static_cast<double>(host.value()); }, "waf", "",
      "Write amplification");
  host.Inc(4);
  flash.Inc(6);
  EXPECT_EQ(r.Value("waf"), 1.5);
  flash.Inc(2);
  EXPECT_EQ(r.Value("waf"), 2);
}

TEST(StatsRegistryDeathTest, DuplicateNameIsABug) {
  StatsRegistry r;
  Counter a;
  Counter b;
  Histogram h;
  r.Root().Group("x").Add(&a, "n", "", "");
  EXPECT_DEATH(r.Root().Group("x").Add(&b, "n", "", ""), "'x.n' registered twice");
  EXPECT_DEATH(r.Root().Add(&h, "x.n", "", ""), "registered twice");
  EXPECT_DEATH(r.Root().Group("x").AddFormula([] { return 0.0; }, "n", "", ""), "registered twice");
  r.Root().AddSeries([] { return 0.0; }, SeriesKind::kValue, "s", "", "");
  EXPECT_DEATH(r.Root().AddSeries([] { return 1.0; }, SeriesKind::kRate, "s", "", ""), "registered twice");
}

TEST(StatsRegistryDeathTest, SamplingMisuseIsABug) {
  EventQueue q;
  StatsRegistry r;
  EXPECT_DEATH(r.StartSampling(&q, SimTime::Zero()), "interval must be positive");
  r.StartSampling(&q, Ms(1));
  EXPECT_DEATH(r.StartSampling(&q, Ms(1)), "called twice");
  EXPECT_DEATH(r.Root().AddSeries([] { return 0.0; }, SeriesKind::kValue, "late", "", ""),
               "registered after sampling started");
  r.StopSampling();
}

TEST(StatsRegistryTest, JsonContent) {
  StatsRegistry r;
  Counter reads;
  Gauge util;
  Histogram lat;
  const StatGroup io = r.Root().Group("io");
  io.Add(&reads, "reads", "ops", "Host reads");
  r.Root().Group("dev").Add(&util, "util", "", "Busy \"fraction\"");
  io.Add(&lat, "lat", "ns", "Latency");
  io.AddFormula([] { return 1.5; }, "waf", "", "Write amplification");
  io.AddFormula([] { return std::nan(""); }, "nan", "", "Undefined");
  reads.Inc(42);
  util.Set(0.25);
  lat.Record(100);
  lat.Record(200);
  EXPECT_EQ(Json(r), R"({
  "dev.util": {
    "type": "gauge",
    "unit": "",
    "desc": "Busy \"fraction\"",
    "value": 0.25
  },
  "io.lat": {
    "type": "histogram",
    "unit": "ns",
    "desc": "Latency",
    "count": 2,
    "min": 100,
    "max": 200,
    "mean": 150,
    "p50": 100,
    "p90": 200,
    "p99": 200,
    "p999": 200,
    "p9999": 200,
    "buckets": [[100,100,1],[200,200,1]]
  },
  "io.nan": {
    "type": "formula",
    "unit": "",
    "desc": "Undefined",
    "value": null
  },
  "io.reads": {
    "type": "counter",
    "unit": "ops",
    "desc": "Host reads",
    "value": 42
  },
  "io.waf": {
    "type": "formula",
    "unit": "",
    "desc": "Write amplification",
    "value": 1.5
  }
}
)");
}

TEST(StatsRegistryTest, EmptyRegistryJson) {
  StatsRegistry r;
  EXPECT_EQ(Json(r), "{}\n");
  EXPECT_EQ(Csv(r), "time_s\n");
  EXPECT_EQ(Summary(r), "");
}

TEST(StatsRegistryTest, JsonEmbedsInEnclosingDocument) {
  StatsRegistry r;
  Counter c;
  c.Inc(3);
  r.Root().Add(&c, "c", "", "");
  std::ostringstream out;
  JsonWriter w(out, 0);
  w.BeginObject();
  w.Key("seed");
  w.Uint(1);
  w.Key("stats");
  r.WriteJson(w);
  w.EndObject();
  EXPECT_EQ(out.str(), R"({"seed":1,"stats":{"c":{"type":"counter","unit":"","desc":"","value":3}}})");
}

TEST(StatsRegistryTest, SummaryLines) {
  StatsRegistry r;
  Counter erases;
  Gauge util;
  Histogram lat;
  Histogram size;
  r.Root().Group("ftl").Add(&erases, "erases", "blocks", "");
  r.Root().Group("ftlx").Add(&util, "util", "", "");
  r.Root().Group("host").Add(&lat, "read_latency", "ns", "");
  r.Root().Group("host").Add(&size, "req_size", "B", "");
  erases.Inc(12);
  util.Set(0.125);
  lat.RecordN(200, 3);
  lat.Record(1500000);
  size.Record(100);
  EXPECT_EQ(Summary(r),
            "ftl.erases        = 12 blocks\n"
            "ftlx.util         = 0.125\n"
            "host.read_latency : n=4 mean=375.1us p50=200ns p99=1.5ms max=1.5ms\n"
            "host.req_size     : n=1 mean=100 p50=100 p99=100 max=100 B\n");
  // Prefixes select whole dotted components.
  EXPECT_EQ(Summary(r, {"ftl"}), "ftl.erases = 12 blocks\n");
  EXPECT_EQ(Summary(r, {"ftlx", "host.req_size"}),
            "ftlx.util     = 0.125\n"
            "host.req_size : n=1 mean=100 p50=100 p99=100 max=100 B\n");
}

// ---- Time series ----

// Increments `count` at 10, 20, ..., `last` ms of simulated time.
class Ticker {
 public:
  Ticker(EventQueue* q, Counter* count, SimTime last)
      : q_(q), count_(count), last_(last), event_([this] { Tick(); }) {
    q_->Schedule(&event_, Ms(10));
  }
  ~Ticker() {
    if (event_.scheduled()) q_->Deschedule(&event_);
  }

 private:
  void Tick() {
    count_->Inc();
    if (q_->now() < last_) q_->ScheduleIn(&event_, Ms(10));
  }
  EventQueue* q_;
  Counter* count_;
  SimTime last_;
  FunctionEvent event_;
};

TEST(StatsSamplingTest, RatesAndValuesPerInterval) {
  EventQueue q;
  StatsRegistry r;
  Counter ios;
  Gauge depth;
  depth.Set(4);
  const StatGroup io = r.Root().Group("io");
  io.AddSeries([&] { return static_cast<double>(ios.value()); }, SeriesKind::kValue, "count", "ops", "");
  io.AddSeries([&] { return static_cast<double>(ios.value()); }, SeriesKind::kRate, "iops", "ops/s", "");
  io.AddSeries([&] { return depth.value(); }, SeriesKind::kValue, "depth", "", "");
  Ticker ticker(&q, &ios, Ms(350));
  r.StartSampling(&q, Ms(100));
  // The sampler is a daemon event: the run ends with the last tick at
  // 350 ms instead of sampling forever.
  q.Run();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.now(), Ms(350));
  // Stopping adds the partial interval 300..350 ms. Ticks at a sample
  // instant count in the interval that ends there.
  r.StopSampling();
  EXPECT_EQ(Csv(r),
            "time_s,io.count,io.iops,io.depth\n"
            "0.1,10,100,4\n"
            "0.2,20,100,4\n"
            "0.3,30,100,4\n"
            "0.35,35,100,4\n");
}

// Per-interval columns: a histogram's count and percentiles over the values
// recorded in each interval, a ratio of two counters' growth (write
// amplification) and a counter's growth; empty cells where an interval has
// nothing to describe.
TEST(StatsSamplingTest, IntervalPercentilesRatiosAndDeltas) {
  EventQueue q;
  StatsRegistry r;
  Histogram h;
  Counter num, den;
  h.Record(123456);  // before sampling: in no interval
  const StatGroup g = r.Root().Group("x");
  g.AddIntervalPercentiles(&h, "lat", "ns", {0.5, 0.99, 1});
  g.AddIntervalRatio([&] { return static_cast<double>(num.value()); }, [&] { return static_cast<double>(den.value()); },
                     "wa", "ratio", "");
  g.AddSeries([&] { return static_cast<double>(num.value()); }, SeriesKind::kDelta, "programs", "pages", "");
  FunctionEvent a([&] {
    h.RecordN(1000, 10);
    den.Inc(10);
    num.Inc(20);
  });
  FunctionEvent b([&] {
    h.RecordN(100, 99);
    h.Record(5000);
    den.Inc(100);
    num.Inc(150);
  });
  FunctionEvent c([&] {
    h.RecordN(7, 3);
    num.Inc(5);
  });
  q.Schedule(&a, Ms(50));
  q.Schedule(&b, Ms(150));
  q.Schedule(&c, Ms(350));
  r.StartSampling(&q, Ms(100));
  q.Run();
  r.StopSampling();
  EXPECT_EQ(Csv(r),
            "time_s,x.lat.count,x.lat.p50,x.lat.p99,x.lat.p100,x.wa,x.programs\n"
            // 1000 and 5000 lie in buckets [1000, 1003] and [4992, 5023]:
            // their midpoints, within the whole histogram's [7, 123456].
            "0.1,10,1001,1001,1001,2,20\n"
            "0.2,100,100,100,5007,1.5,150\n"
            "0.3,0,,,,,0\n"
            "0.35,3,7,7,7,,5\n");
}

// The per-interval percentiles of a histogram are its percentiles over the
// values recorded since a mark: the same as a fresh histogram of only
// those values would give, up to the clamping to the whole range.
TEST(HistogramMarkTest, PercentilesSinceAMarkMatchAHistogramOfTheNewValues) {
  Rng rng(7, "marks");
  Histogram all;
  Histogram::Mark mark;
  all.MarkNow(&mark);
  const std::vector<double> qs = {0, 0.5, 0.9, 0.99, 0.999, 1};
  for (int round = 0; round < 20; ++round) {
    Histogram fresh;
    const int n = round % 5 == 4 ? 0 : 1 + static_cast<int>(rng.Uniform(2000));
    for (int i = 0; i < n; ++i) {
      const int64_t v = static_cast<int64_t>(rng.Uniform(1u << (round % 30 + 1)));
      all.Record(v);
      fresh.Record(v);
    }
    std::vector<double> got(qs.size());
    all.PercentilesSince(mark, qs, &got);
    EXPECT_EQ(all.CountSince(mark), static_cast<uint64_t>(n));
    for (size_t i = 0; i < qs.size(); ++i) {
      if (n == 0) {
        EXPECT_TRUE(std::isnan(got[i]));
        continue;
      }
      // Same bucket as the fresh histogram's answer; both midpoints clamped.
      const double want = static_cast<double>(fresh.Percentile(qs[i]));
      const double tol = std::max(1.0, want / 64);
      EXPECT_NEAR(got[i], want, tol) << "round " << round << " q " << qs[i];
      EXPECT_GE(got[i], static_cast<double>(all.min()));
      EXPECT_LE(got[i], static_cast<double>(all.max()));
    }
    all.MarkNow(&mark);
  }
}

TEST(StatsSamplingTest, StopAddsPartialRow) {
  EventQueue q;
  StatsRegistry r;
  Counter ios;
  r.Root().AddSeries([&] { return static_cast<double>(ios.value()); }, SeriesKind::kRate, "iops", "", "");
  Ticker ticker(&q, &ios, Sec(10));
  ios.Inc(1000);  // before sampling starts: not part of any interval
  r.StartSampling(&q, Ms(100));
  q.Run(Ms(250));
  r.StopSampling();
  EXPECT_EQ(q.pending(), 1u);  // the sampler is gone; the ticker remains
  // The last row covers 200..250 ms: 5 ticks in 0.05 s.
  EXPECT_EQ(Csv(r),
            "time_s,iops\n"
            "0.1,100\n"
            "0.2,100\n"
            "0.25,100\n");
  r.StopSampling();  // idempotent
  EXPECT_EQ(Csv(r), "time_s,iops\n0.1,100\n0.2,100\n0.25,100\n");
}

// Rates are over the measured phase: what happened before its Begin and
// after its End (a drain of background work) is in no rate, and the series
// stop at its End with a partial row there.
TEST(MeasuredPhaseTest, RatesCoverThePhaseAndSeriesStopAtItsEnd) {
  EventQueue q;
  StatsRegistry r;
  Counter ios;
  Counter busy_a, busy_b;  // busy milliseconds of two members
  const StatGroup g = r.Root();
  g.AddRate([&] { return static_cast<double>(ios.value()); }, &q, "iops", "ops/s", "");
  g.AddMaxRate(
      [&](std::vector<double>* out) {
        out->push_back(static_cast<double>(busy_a.value()) / 1000);
        out->push_back(static_cast<double>(busy_b.value()) / 1000);
      },
      &q, "busiest", "fraction", "");
  g.AddSeries([&] { return static_cast<double>(ios.value()); }, SeriesKind::kRate, "iops", "ops/s", "");
  Ticker ticker(&q, &ios, Ms(500));  // 100 ticks/s until 500 ms
  r.StartSampling(&q, Ms(100));
  FunctionEvent begin([&] {
    ios.Inc(1000);  // a burst just before Begin's snapshot: in no rate (in the series' row)
    r.BeginMeasured(q.now());
  });
  FunctionEvent end([&] {
    busy_a.Inc(30);   // 30 ms busy of a 200 ms phase: 0.15
    busy_b.Inc(100);  // 0.5: the busiest
    r.EndMeasured(q.now());
    busy_b.Inc(100);  // after the phase: in no rate
  });
  q.Schedule(&begin, Ms(105));
  q.Schedule(&end, Ms(305));
  q.Run();
  r.StopSampling();
  EXPECT_EQ(q.now(), Ms(500));
  EXPECT_EQ(r.measured_start(), Ms(105));
  EXPECT_EQ(r.measured_end(), Ms(305));
  EXPECT_TRUE(r.measured_ended());
  // 20 ticks in 105..305 ms (at 110, 120, ... 300): 100/s; the 1,000
  // before the snapshot and the 20 ticks after the end count in no rate.
  EXPECT_NEAR(r.Value("iops"), 100.0, 1e-9);
  EXPECT_NEAR(r.Value("busiest"), 0.5, 1e-9);
  // Rows at 100, 200, 300 ms and the partial one at the phase's end; none
  // for the 195 ms the run went on.
  EXPECT_EQ(Csv(r),
            "time_s,iops\n"
            "0.1,100\n"
            "0.2,10100\n"
            "0.3,100\n"
            "0.305,0\n");
}

// Several workloads (flows) make one phase from the first Begin to the last
// End; without marks, or with whole-run rates, a rate covers 0..now.
TEST(MeasuredPhaseTest, NestedMarksMakeOnePhaseAndWholeRunIgnoresThem) {
  for (const bool whole : {false, true}) {
    SCOPED_TRACE(whole);
    EventQueue q;
    StatsRegistry r;
    r.SetWholeRunRates(whole);
    Counter ios;
    r.Root().AddRate([&] { return static_cast<double>(ios.value()); }, &q, "iops", "ops/s", "");
    Ticker ticker(&q, &ios, Ms(1000));  // 100/s until 1 s
    FunctionEvent b1([&] { r.BeginMeasured(q.now()); }), b2([&] { r.BeginMeasured(q.now()); });
    FunctionEvent e1([&] { r.EndMeasured(q.now()); }), e2([&] { r.EndMeasured(q.now()); });
    FunctionEvent burst([&] { ios.Inc(200); });
    q.Schedule(&b1, Ms(205));
    q.Schedule(&b2, Ms(305));
    q.Schedule(&e1, Ms(405));
    q.Schedule(&burst, Ms(500));  // inside the phase: e2 has not come
    q.Schedule(&e2, Ms(605));
    FunctionEvent check([&] {
      // Mid-phase: an open phase ends at output time.
      EXPECT_FALSE(r.measured_ended());
      EXPECT_NEAR(r.Value("iops"), whole ? 25.0 / 0.255 : 5.0 / 0.05, 1e-9);
    });
    q.Schedule(&check, Ms(255));
    q.Run();
    EXPECT_EQ(q.now(), Ms(1000));
    if (whole) {
      EXPECT_FALSE(r.measured_ended());
      EXPECT_NEAR(r.Value("iops"), 300.0, 1e-9);  // (100 ticks + 200) / 1 s
    } else {
      EXPECT_EQ(r.measured_start(), Ms(205));
      EXPECT_EQ(r.measured_end(), Ms(605));
      EXPECT_NEAR(r.Value("iops"), (40.0 + 200) / 0.4, 1e-9);
    }
  }
}

TEST(StatsSamplingTest, SamplingStartsFromCurrentTime) {
  EventQueue q;
  FunctionEvent noop([] {});
  q.Schedule(&noop, Ms(30));
  q.Run();
  ASSERT_EQ(q.now(), Ms(30));
  StatsRegistry r;
  Counter c;
  r.Root().AddSeries([&] { return static_cast<double>(c.value()); }, SeriesKind::kRate, "rate", "", "");
  FunctionEvent bump([&] { c.Inc(3); });
  q.Schedule(&bump, Ms(35));
  r.StartSampling(&q, Ms(10));
  q.Run();
  r.StopSampling();
  // One partial interval 30..35 ms holding the 3 increments.
  EXPECT_EQ(Csv(r), "time_s,rate\n0.035,600\n");
}

TEST(StatsSamplingTest, DestroyingRegistryDeschedulesSampler) {
  EventQueue q;
  FunctionEvent work([] {});
  q.Schedule(&work, Sec(1));
  {
    StatsRegistry r;
    r.StartSampling(&q, Ms(1));
    EXPECT_EQ(q.pending(), 1u);  // the sampler is a daemon event
  }
  // A sampler left scheduled would CHECK-fail in its destructor.
  EXPECT_EQ(q.pending(), 1u);
  q.Run();
  EXPECT_EQ(q.now(), Sec(1));
}

TEST(StatsSamplingTest, CsvQuotesAwkwardNames) {
  EventQueue q;
  StatsRegistry r;
  r.Root().AddSeries([] { return 1.0; }, SeriesKind::kValue, "a,b", "", "");
  r.Root().AddSeries([] { return std::nan(""); }, SeriesKind::kValue, "say \"hi\"", "", "");
  FunctionEvent work([] {});
  q.Schedule(&work, Ms(1));
  r.StartSampling(&q, Ms(1));
  q.Run();
  r.StopSampling();
  EXPECT_EQ(Csv(r), "time_s,\"a,b\",\"say \"\"hi\"\"\"\n0.001,1,\n");
}

// ---- Determinism ----

struct RunOutput {
  std::string json;
  std::string csv;
  std::string summary;
};

RunOutput SimulateAndWrite(uint64_t seed) {
  EventQueue q;
  StatsRegistry r;
  Rng rng(seed, "stats_test.workload");
  Counter done;
  Gauge busy;
  Histogram lat;
  const StatGroup g = r.Root().Group("work");
  g.Add(&done, "done", "ops", "Completed operations");
  g.Add(&busy, "busy", "", "Fraction of time busy");
  g.Add(&lat, "latency", "ns", "Operation latency");
  g.AddFormula([&] { return busy.value() * 3; }, "scaled", "", "A formula");
  g.AddSeries([&] { return static_cast<double>(done.value()); }, SeriesKind::kRate, "rate", "ops/s", "");
  g.AddSeries([&] { return busy.value(); }, SeriesKind::kValue, "busy", "", "");
  int remaining = 5000;
  FunctionEvent op([&] {
    const SimTime service = Ns(static_cast<int64_t>(rng.Exponential(20000)) + 1);
    lat.Record(service.ns());
    done.Inc();
    busy.Set(rng.UniformDouble());
    if (--remaining > 0) q.ScheduleIn(&op, service);
  });
  q.Schedule(&op, Us(1));
  r.StartSampling(&q, Ms(7));
  q.Run();
  r.StopSampling();
  return {Json(r), Csv(r), Summary(r)};
}

TEST(StatsRegistryTest, OutputIsDeterministic) {
  const RunOutput a = SimulateAndWrite(1);
  const RunOutput b = SimulateAndWrite(1);
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.csv, b.csv);
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_NE(a.json.find("\"work.done\": {"), std::string::npos);
  EXPECT_NE(a.json.find("\"value\": 5000"), std::string::npos);
  EXPECT_NE(a.json.find("\"count\": 5000"), std::string::npos);
  EXPECT_GT(a.csv.size(), 100u);
  // A different seed gives different results (the test can fail).
  EXPECT_NE(a.json, SimulateAndWrite(2).json);
}

}  // namespace
}  // namespace sim
