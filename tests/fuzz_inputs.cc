// flashstack_fuzz: a randomized-input driver for everything a user feeds
// flashstack — experiment configs (YAML text and --set overrides), block
// traces of every registered format, MobiGen syscall traces, git-aging traces, filebench
// scripts and YCSB property files. Inputs are mutated from the shipped
// configs, the project's trace samples, the built-in personalities and the
// shipped YCSB workloads; parsers see every input,
// and a share of the accepted ones is run on a short simulated clock.
//
// A finding ends the driver: an abort or sanitizer report (the process
// dies), an error that is not InvalidInput/IoError/NotFound from a
// parser or a run, or an input that runs past --max-wall seconds or
// --max-rss-mb of resident memory (the watchdog aborts). The input being
// processed is always on disk in WORK/current.* with WORK/current.txt
// telling how to reproduce it, so every finding is reproducible.
//
//   flashstack_fuzz --repo . --work /tmp/fuzz --configs 100000 --traces 100000
//                   --mobigen 20000 --aging 20000 --filebench 20000 --ycsb 20000 --run-share 0.01 --seed 1
//
// Build it with -DFLASHSTACK_SANITIZE=ON to make memory and UB errors
// findings (scripts/fuzz_inputs.sh does both). Deterministic: the same
// seed gives the same inputs.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "app/commands.h"
#include "app/experiment.h"
#include "host/fsworkload/filebench_personalities.h"
#include "host/fsworkload/filebench_script.h"
#include "host/fsworkload/aging_trace.h"
#include "host/fsworkload/mobigen_trace.h"
#include "host/sqlite/ycsb_spec.h"
#include "host/trace/block_trace_reader.h"
#include "host/trace/trace_format.h"
#include "host/trace/trace_info.h"
#include "sim/config.h"
#include "sim/rng.h"
#include "sim/status.h"

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string repo = ".";
  std::string work = "/tmp/flashstack_fuzz";
  uint64_t configs = 1000;
  uint64_t traces = 1000;
  uint64_t mobigen = 200;
  uint64_t aging = 200;
  uint64_t filebench = 200;
  uint64_t ycsb = 200;
  double run_share = 0.02;
  uint64_t seed = 1;
  double max_wall = 120;     // seconds per input
  uint64_t max_rss_mb = 8192;
  std::vector<std::string> extra_traces;  // more block-trace seeds
  std::vector<std::string> extra_mobigen; // more MobiGen seeds
};

// ---- the watchdog: wall time per input and resident memory ----

std::atomic<int64_t> g_case_start_ms{0};
std::atomic<bool> g_stop{false};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t RssMb() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) >> 20;
}

void Watchdog(const Options& o) {
  while (!g_stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int64_t start = g_case_start_ms.load();
    const uint64_t rss = RssMb();
    if (start != 0 && NowMs() - start > static_cast<int64_t>(o.max_wall * 1000)) {
      fmt::print(stderr, "\nFINDING: an input ran past {} s; it is in {}/current.*\n", o.max_wall, o.work);
      std::_Exit(3);
    }
    if (rss > o.max_rss_mb) {
      fmt::print(stderr, "\nFINDING: resident memory {} MiB passed {} MiB; the input is in {}/current.*\n", rss,
                 o.max_rss_mb, o.work);
      std::_Exit(3);
    }
  }
}

// ---- text mutation ----

const char* const kPieces[] = {
    "99999999999999999999", "18446744073709551615", "-1", " ", "\n", "0", "1.5", "9223372036854775807", "\t", "x",
    "1 2 3 4 5 6", "4294967295", "1e308", "nan", "inf", "-0", "0x10", ",", ":", "\"", "'", "[", "{", "}", "]",
    "#", "&a ", "*a", "\r\n", "\xEF\xBB\xBF", "\xC3", "\xFF", std::string_view("\0", 1).data(), "1e-300",
    "7.3902e-05", "16TiB", "1EiB", "0%", "1000%", "1ns", "1e12s", "include: x.yaml\n", "sweep:\n  seed: [1, 2]\n"};

std::string Mutate(const std::string& text, sim::Rng& rng) {
  std::string s = text;
  const uint64_t edits = 1 + rng.Uniform(6);
  for (uint64_t e = 0; e < edits; ++e) {
    if (s.empty()) {
      s = kPieces[rng.Uniform(std::size(kPieces))];
      continue;
    }
    const size_t pos = rng.Uniform(s.size());
    switch (rng.Uniform(8)) {
      case 0:  // a random byte
        s[pos] = static_cast<char>(rng.Uniform(256));
        break;
      case 1:  // delete a run
        s.erase(pos, 1 + rng.Uniform(8));
        break;
      case 2:  // insert a piece
        s.insert(pos, kPieces[rng.Uniform(std::size(kPieces))]);
        break;
      case 3:  // duplicate a run elsewhere
        s.insert(pos, s.substr(rng.Uniform(s.size()), rng.Uniform(64)));
        break;
      case 4: {  // replace a number by an extreme one
        size_t b = s.find_first_of("0123456789", pos);
        if (b == std::string::npos) break;
        size_t e2 = s.find_first_not_of("0123456789.", b);
        if (e2 == std::string::npos) e2 = s.size();
        static const char* kNums[] = {"0", "1", "2", "65535", "4294967296", "18446744073709551616", "1e19",
                                      "9223372036854775808", "0.000001", "100000000000"};
        s.replace(b, e2 - b, kNums[rng.Uniform(std::size(kNums))]);
        break;
      }
      case 5: {  // duplicate a whole line many times
        size_t b = s.rfind('\n', pos);
        b = b == std::string::npos ? 0 : b + 1;
        size_t e2 = s.find('\n', pos);
        if (e2 == std::string::npos) e2 = s.size();
        const std::string line = s.substr(b, e2 - b) + "\n";
        std::string rep;
        for (uint64_t i = 0, n = 1 + rng.Uniform(200); i < n; ++i) rep += line;
        s.insert(b, rep);
        break;
      }
      case 6:  // truncate
        s.resize(pos);
        break;
      default: {  // drop a line
        size_t b = s.rfind('\n', pos);
        b = b == std::string::npos ? 0 : b + 1;
        size_t e2 = s.find('\n', pos);
        s.erase(b, e2 == std::string::npos ? std::string::npos : e2 - b + 1);
        break;
      }
    }
  }
  if (s.size() > (1u << 20)) s.resize(1u << 20);
  return s;
}

// ---- random values for --set overrides, by kind ----

template <size_t N>
const char* Pick(sim::Rng& rng, const char* const (&a)[N]) {
  return a[rng.Uniform(N)];
}

std::string RandomValue(const sim::ParamDecl& p, sim::Rng& rng) {
  static const char* const kCounts[] = {"0", "1", "2", "3", "7", "64", "1000", "65536", "4294967295", "4294967296",
                                        "9223372036854775807", "18446744073709551615", "-1", "1e20", "x", ""};
  static const char* const kReals[] = {"0", "-1", "0.5", "1", "2", "1e-300", "1e300", "nan", "inf", "-inf", "1e9",
                                       "0.001", "x"};
  static const char* const kDurations[] = {"0s", "1ns", "1us", "100us", "1ms", "20ms", "1s", "100s", "1e9s",
                                           "-1s", "1h", "0", "5", "1e30ns", "x"};
  static const char* const kBytes[] = {"0", "1B", "512B", "4KiB", "64KiB", "1MiB", "1GiB", "16TiB", "1EiB",
                                       "18446744073709551615", "-4KiB", "3B", "x"};
  static const char* const kBandwidths[] = {"0", "1B/s", "333MB/s", "8Gb/s", "1e30GB/s", "-1MB/s", "x"};
  static const char* const kRatios[] = {"0%", "1%", "7%", "28%", "50%", "99%", "100%", "1e9%", "-5%", "0.5", "7",
                                        "0", "1", "x"};
  static const char* const kBools[] = {"true", "false", "yes", "no", "2", ""};
  static const char* const kStrings[] = {"", "x", "/dev/zero", "/nonexistent/file", "msr", "a.b", "..", "/",
                                         "traces/samples/msr.csv", "0"};
  static const char* const kLists[] = {"[]", "[0]", "[0, 1]", "[\"8,16\"]", "[x]", "[[a]]"};
  const int r = static_cast<int>(rng.Uniform(10));
  if (r == 0 && !p.default_text.empty()) return p.default_text;
  switch (p.kind) {
    case sim::ParamKind::kBool: return Pick(rng, kBools);
    case sim::ParamKind::kInt:
    case sim::ParamKind::kUint:
      return r < 4 ? std::to_string(rng.Uniform(uint64_t{1} << (1 + rng.Uniform(40)))) : Pick(rng, kCounts);
    case sim::ParamKind::kDouble: return r < 3 ? fmt::format("{}", rng.UniformDouble() * 10) : Pick(rng, kReals);
    case sim::ParamKind::kDuration: return Pick(rng, kDurations);
    case sim::ParamKind::kBytes:
      return r < 3 ? fmt::format("{}KiB", rng.Uniform(uint64_t{1} << (1 + rng.Uniform(30)))) : Pick(rng, kBytes);
    case sim::ParamKind::kBandwidth: return Pick(rng, kBandwidths);
    case sim::ParamKind::kRatio: return Pick(rng, kRatios);
    case sim::ParamKind::kChoice:
      if (r < 8 && !p.choices.empty()) return p.choices[rng.Uniform(p.choices.size())];
      return Pick(rng, kStrings);
    case sim::ParamKind::kStringList: return Pick(rng, kLists);
    case sim::ParamKind::kString: return Pick(rng, kStrings);
  }
  return "x";
}

struct KeyDecl {
  std::string path;
  const sim::ParamDecl* decl;
};

void CollectKeys(const sim::SchemaNode& node, const std::string& path, std::vector<KeyDecl>* out) {
  for (const auto& p : node.params()) out->push_back({path.empty() ? p.key : path + "." + p.key, &p});
  for (const auto& c : node.children()) CollectKeys(*c.node, path.empty() ? c.key : path + "." + c.key, out);
}

// ---- bookkeeping ----

struct Tally {
  uint64_t inputs = 0, accepted = 0, rejected = 0, runs = 0, runs_ok = 0, runs_rejected = 0;
};

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Records how to reproduce the input about to be processed.
void Announce(const Options& o, const std::string& how) {
  WriteFile(o.work + "/current.txt", how + "\n");
  g_case_start_ms.store(NowMs());
}

// A user's mistake (exit code 1 or 2 from the CLI) is an expected outcome;
// anything else is a finding.
bool Expected(const sim::Status& st) {
  using C = sim::Status::Code;
  return st.ok() || st.code() == C::kInvalidInput || st.code() == C::kIoError || st.code() == C::kNotFound;
}

[[noreturn]] void Finding(const Options& o, const std::string& what, const sim::Status& st) {
  fmt::print(stderr, "\nFINDING ({}): unexpected status {}: {}\ninput: {}/current.* ({})\n", what,
             static_cast<int>(st.code()), st.message(), o.work, ReadFile(o.work + "/current.txt"));
  std::_Exit(4);
}

std::string SetsText(const std::vector<std::string>& sets) {
  std::string s;
  for (const auto& x : sets) s += " --set '" + x + "'";
  return s;
}

// Runs CONFIG with `sets` on a short simulated clock into WORK/out.
void RunOne(const Options& o, const std::string& config, std::vector<std::string> sets, sim::Rng& rng,
            Tally* t, const std::string& what) {
  static const char* const kMaxTimes[] = {"100us", "1ms", "5ms", "20ms"};
  sets.push_back(std::string("run.max_time=") + Pick(rng, kMaxTimes));
  // The estimate checked before a run must keep it below the watchdog.
  sets.push_back(fmt::format("run.max_memory={}MiB", o.max_rss_mb / 2));
  std::error_code ec;
  fs::remove_all(o.work + "/out", ec);
  app::CommandOptions opts;
  opts.overrides = sets;
  opts.out_dir = o.work + "/out";
  opts.quiet = true;
  Announce(o, fmt::format("{}: flashstack run {}{}", what, config, SetsText(sets)));
  std::ostringstream sink;
  const sim::Status st = app::CmdRun(config, opts, sink);
  ++t->runs;
  if (st.ok()) ++t->runs_ok;
  else if (Expected(st)) ++t->runs_rejected;
  else Finding(o, what, st);
}

// ---- configs ----

std::vector<std::string> ConfigSeeds(const Options& o) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(o.work + "/configs")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().filename() != "fuzz_current.yaml") {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void FuzzConfigs(const Options& o, sim::Rng& rng, Tally* t) {
  const std::vector<std::string> seeds = ConfigSeeds(o);
  std::vector<KeyDecl> keys;
  CollectKeys(sim::SchemaOf<app::ExperimentConfig>(), "", &keys);
  std::map<std::string, std::string> seed_text;
  for (const auto& s : seeds) seed_text[s] = ReadFile(s);
  for (uint64_t i = 0; i < o.configs; ++i) {
    const std::string& seed = seeds[rng.Uniform(seeds.size())];
    // The mutated file sits beside its seed so includes and trace paths resolve.
    const std::string path = (fs::path(seed).parent_path() / "fuzz_current.yaml").string();
    std::string text = seed_text[seed];
    if (rng.Bernoulli(0.4)) text = Mutate(text, rng);
    WriteFile(path, text);
    std::vector<std::string> sets;
    for (uint64_t k = 0, n = rng.Uniform(5); k < n; ++k) {
      const KeyDecl& kd = keys[rng.Uniform(keys.size())];
      sets.push_back(kd.path + "=" + RandomValue(*kd.decl, rng));
    }
    WriteFile(o.work + "/current.yaml", text);
    Announce(o, fmt::format("config {}: flashstack check {} (a copy of {}){}", i, path, seed, SetsText(sets)));
    app::CommandOptions opts;
    opts.overrides = sets;
    std::ostringstream sink;
    const sim::Status st = app::CmdCheck(path, opts, sink);
    ++t->inputs;
    if (!Expected(st)) Finding(o, "config check", st);
    if (!st.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (rng.Bernoulli(o.run_share)) RunOne(o, path, sets, rng, t, fmt::format("config {}", i));
  }
}

// ---- block traces ----

void FuzzTraces(const Options& o, sim::Rng& rng, Tally* t) {
  std::vector<std::string> seeds;
  for (const auto& e : fs::directory_iterator(o.repo + "/traces/samples")) seeds.push_back(e.path().string());
  for (const auto& e : o.extra_traces) seeds.push_back(e);
  std::sort(seeds.begin(), seeds.end());
  std::vector<std::string> texts;
  for (const auto& s : seeds) texts.push_back(ReadFile(s));
  const std::vector<std::string> formats = host::BuiltinFormats().Names();
  static const char* const kUnits[] = {"0ns", "1ns", "100ns", "1us", "1ms", "1s", "1h"};
  static const char* const kActions[] = {"D", "Q", "C", "X"};
  const std::string tiny = o.work + "/configs/examples/tiny.yaml";
  for (uint64_t i = 0; i < o.traces; ++i) {
    const size_t which = rng.Uniform(texts.size());
    const std::string text = Mutate(texts[which], rng);
    host::BlockTraceOptions topt;
    topt.format = rng.Bernoulli(0.3) ? "" : formats[rng.Uniform(formats.size())];
    topt.on_error = rng.Bernoulli(0.5) ? "skip" : "fail";
    topt.zero_length = rng.Bernoulli(0.5) ? "drop" : "error";
    const char* unit = Pick(rng, kUnits);
    const char* action = Pick(rng, kActions);
    WriteFile(o.work + "/current.trace", text);
    Announce(o, fmt::format("trace {} (from {}): flashstack trace-info {}/current.trace --format '{}' --on_error {} "
                            "(reader zero_length {}, time_unit {}, action {})",
                            i, seeds[which], o.work, topt.format, topt.on_error, topt.zero_length, unit, action));
    {
      sim::ParamDecl unit_decl;
      unit_decl.kind = sim::ParamKind::kDuration;
      auto u = sim::ParseParamValue(unit_decl, unit);
      if (u.ok()) topt.time_unit = u->t;
    }
    topt.action = action;
    ++t->inputs;
    auto reader = host::OpenBlockTraceFromMemory("current.trace", text, topt);
    sim::Status st = reader.status();
    if (reader.ok()) {
      sim::Result<host::TraceInfo> info = host::Summarize(reader->get());
      st = info.status();
      if (info.ok()) host::FormatTraceInfo(*info);  // the warnings' arithmetic on any input
    }
    if (!Expected(st)) Finding(o, "trace-info", st);
    if (!st.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (!rng.Bernoulli(o.run_share)) continue;
    static const char* const kFits[] = {"wrap", "scale", "compact", "error"};
    static const char* const kScales[] = {"1", "1e-6", "1e-3", "1e3", "1e9"};
    static const char* const kSpreads[] = {"0s", "0s", "1ns", "1ms", "1s", "1h"};
    std::vector<std::string> sets = {
        "workload.kind=trace",
        "workload.trace.path=" + o.work + "/current.trace",
        "workload.trace.reader.format=" + topt.format,
        "workload.trace.reader.on_error=" + topt.on_error,
        "workload.trace.reader.zero_length=" + topt.zero_length,
        std::string("workload.trace.reader.time_unit=") + unit,
        std::string("workload.trace.reader.action=") + action,
        std::string("workload.trace.fit=") + Pick(rng, kFits),
        std::string("workload.trace.mode=") + (rng.Bernoulli(0.5) ? "open" : "closed"),
        std::string("workload.trace.volume_layout=") + (rng.Bernoulli(0.5) ? "overlay" : "split"),
        std::string("workload.trace.speedup=") + Pick(rng, kScales),
        std::string("workload.trace.spread_ties=") + Pick(rng, kSpreads),
        fmt::format("workload.trace.loops={}", 1 + rng.Uniform(3)),
        fmt::format("workload.trace.iodepth={}", 1 + rng.Uniform(64)),
        fmt::format("ftl.op={}%", 5 + rng.Uniform(45)),
    };
    RunOne(o, tiny, sets, rng, t, fmt::format("trace {}", i));
  }
}

// ---- MobiGen traces ----

const char kMobigenSeed[] =
    "0 0 open /data/data O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE 36\n"
    "0 5 write 36 4\n"
    "1 2 open \"/system/fonts/My Font.ttf\" O_RDONLY|O_LARGEFILE 40\n"
    "1 3 read 40 100\n"
    "1 9 pread 40 18740699 30\n"
    "0 10 pwrite 36 0 4096\n"
    "0 12 fsync 36 0\n"
    "0 13 fstat64 36 0\n"
    "1 14 stat64 \"/system/fonts/My Font.ttf\" 0\n"
    "1 15 access \"/data/data/x.xml\" 0\n"
    "1 16 lstat64 \"/data/data/x.xml.bak\" 0\n"
    "1 17 unlink \"/data/data/x.xml.bak\" 0\n"
    "0 20 close 36 0\n"
    "1 21 close 40 0\n";

void FuzzMobigen(const Options& o, sim::Rng& rng, Tally* t) {
  std::vector<std::string> texts = {kMobigenSeed};
  for (const auto& e : o.extra_mobigen) texts.push_back(ReadFile(e));
  for (uint64_t i = 0; i < o.mobigen; ++i) {
    const std::string text = Mutate(texts[rng.Uniform(texts.size())], rng);
    host::MobigenParseOptions popt;
    popt.skip_malformed = rng.Bernoulli(0.5);
    WriteFile(o.work + "/current.mobigen", text);
    Announce(o, fmt::format("mobigen {}: parse {}/current.mobigen (skip_malformed {})", i, o.work,
                            popt.skip_malformed));
    ++t->inputs;
    auto parsed = host::ParseMobigen(text, "current.mobigen", popt);
    if (!Expected(parsed.status())) Finding(o, "mobigen parse", parsed.status());
    if (!parsed.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (!rng.Bernoulli(o.run_share)) continue;
    static const char* const kScales[] = {"1", "0", "1e-6", "1e3", "1e9"};
    std::vector<std::string> sets = {
        "workload.kind=mobigen",
        "workload.mobigen.trace=" + o.work + "/current.mobigen",
        std::string("workload.mobigen.on_error=") + (popt.skip_malformed ? "skip" : "fail"),
        std::string("workload.mobigen.timing=") + (rng.Bernoulli(0.5) ? "timed" : "afap"),
        std::string("workload.mobigen.speedup=") + Pick(rng, kScales),
        std::string("workload.mobigen.fd_scope=") + (rng.Bernoulli(0.5) ? "process" : "thread"),
        std::string("workload.mobigen.unmapped_fd=") + (rng.Bernoulli(0.5) ? "open" : "skip"),
        std::string("workload.mobigen.open_flags=") + (rng.Bernoulli(0.5) ? "mobibench" : "trace"),
        std::string("workload.mobigen.prepare=") + (rng.Bernoulli(0.5) ? "true" : "false"),
    };
    const bool f2fs = rng.Bernoulli(0.5);
    const std::string config = o.work + (f2fs ? "/configs/examples/varmail_f2fs.yaml" : "/configs/examples/sqlite_wal_memfs.yaml");
    RunOne(o, config, sets, rng, t, fmt::format("mobigen {}", i));
  }
}

// ---- git-aging traces ----

const char kAgingSeed[] =
    "# flashstack git-aging trace v1\n"
    "# source: fuzz\n"
    "pull 0 0b25b292830fe31adf0ef51d8fa068fe2cdae432\n"
    "mkdir .git\n"
    "mkdir .git/objects\n"
    "mkdir .git/objects/0b\n"
    "write .git/objects/0b/25b292830fe31adf0ef51d8fa068fe2cdae432 209\n"
    "mkdir src\n"
    "write src/with%20space.c 4100\n"
    "write .git/index.lock 200\n"
    "rename .git/index.lock .git/index\n"
    "append .git/logs%25HEAD 160\n"
    "pull 1 4c355eb3e0320f6066dcc40ece3d2bfe92ab52b9\n"
    "unlink src/with%20space.c\n"
    "write src/with%20space.c 70000\n"
    "mkdir doc\n"
    "write doc/a 1\n"
    "unlink doc/a\n"
    "rmdir doc\n"
    "write .git/index.lock 210\n"
    "rename .git/index.lock .git/index\n"
    "append .git/logs%25HEAD 161\n";

void FuzzAging(const Options& o, sim::Rng& rng, Tally* t) {
  const std::string seed = (fs::path(o.work) / "traces/aging/flashstack_200.trace").string();
  std::vector<std::string> texts = {kAgingSeed};
  if (fs::exists(seed)) texts.push_back(ReadFile(seed).substr(0, 4096));
  for (uint64_t i = 0; i < o.aging; ++i) {
    const std::string text = Mutate(texts[rng.Uniform(texts.size())], rng);
    WriteFile(o.work + "/current.aging", text);
    Announce(o, fmt::format("aging {}: parse {}/current.aging", i, o.work));
    ++t->inputs;
    auto parsed = host::ParseAgingTrace(text, "current.aging");
    if (!Expected(parsed.status())) Finding(o, "aging parse", parsed.status());
    if (!parsed.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (!rng.Bernoulli(o.run_share)) continue;
    // A replay may stop on an operation the trace makes impossible: that
    // is an expected error, never a crash.
    std::vector<std::string> sets = {
        "workload.kind=aging",
        "workload.aging.trace=" + o.work + "/current.aging",
        fmt::format("workload.aging.grep_every={}", 1 + rng.Uniform(3)),
        std::string("workload.aging.mode=") + (rng.Bernoulli(0.5) ? "aged" : "clean"),
    };
    const bool f2fs = rng.Bernoulli(0.5);
    const std::string config = o.work + (f2fs ? "/configs/examples/varmail_f2fs.yaml" : "/configs/examples/sqlite_wal_memfs.yaml");
    RunOne(o, config, sets, rng, t, fmt::format("aging {}", i));
  }
}

// ---- filebench scripts ----

void FuzzFilebench(const Options& o, sim::Rng& rng, Tally* t) {
  const auto& personalities = host::BuiltinPersonalities();
  for (uint64_t i = 0; i < o.filebench; ++i) {
    const host::Personality& p = personalities[rng.Uniform(personalities.size())];
    const std::string text = Mutate(std::string(p.script), rng);
    WriteFile(o.work + "/current.f", text);
    Announce(o, fmt::format("filebench {}: parse {}/current.f (from {} {})", i, o.work, p.name, p.variant));
    ++t->inputs;
    auto parsed = host::ParseFilebenchScript(text, "current.f");
    if (!Expected(parsed.status())) Finding(o, "filebench parse", parsed.status());
    if (!parsed.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (!rng.Bernoulli(o.run_share)) continue;
    std::vector<std::string> sets = {"workload.filebench.script=" + o.work + "/current.f"};
    RunOne(o, o.work + "/configs/examples/varmail_f2fs.yaml", sets, rng, t, fmt::format("filebench {}", i));
  }
}

// ---- YCSB property files ----

void FuzzYcsb(const Options& o, sim::Rng& rng, Tally* t) {
  std::vector<std::string> texts;
  const std::string dir = o.work + "/configs/ycsb/workloads";
  for (const auto& e : fs::directory_iterator(dir)) texts.push_back(ReadFile(e.path().string()));
  std::sort(texts.begin(), texts.end());
  static const char* const kSets[] = {"requestdistribution=latest", "requestdistribution=exponential",
                                      "requestdistribution=hotspot", "requestdistribution=sequential",
                                      "requestdistribution=uniform", "insertorder=ordered", "dataintegrity=true",
                                      "readallfields=false", "writeallfields=true", "insertproportion=0.5",
                                      "scanlengthdistribution=zipfian", "fieldlengthdistribution=zipfian",
                                      "threadcount=4", "target=1000", "maxexecutiontime=1", "recordcount=0",
                                      "operationcount=0", "dotransactions=false", "x=y", "=", "recordcount"};
  for (uint64_t i = 0; i < o.ycsb; ++i) {
    const std::string text = Mutate(texts[rng.Uniform(texts.size())], rng);
    const std::string path = o.work + "/current.properties";
    WriteFile(path, text);
    host::sqlite::YcsbInputs in;
    in.properties = path;
    for (uint64_t k = 0, n = rng.Uniform(4); k < n; ++k) in.set.push_back(Pick(rng, kSets));
    std::string sets_text;
    for (const auto& x : in.set) sets_text += " " + x;
    Announce(o, fmt::format("ycsb {}: resolve {} with set [{} ]", i, path, sets_text));
    ++t->inputs;
    auto spec = host::sqlite::ResolveYcsb(in, "workload.ycsb");
    if (!Expected(spec.status())) Finding(o, "ycsb resolve", spec.status());
    if (!spec.ok()) {
      ++t->rejected;
      continue;
    }
    ++t->accepted;
    if (!rng.Bernoulli(o.run_share)) continue;
    static const char* const kJournals[] = {"delete", "truncate", "persist", "wal", "memory", "off"};
    std::string set_list = "[";
    for (const auto& x : in.set) set_list += (set_list.size() > 1 ? ", \"" : "\"") + x + "\"";
    std::vector<std::string> sets = {"workload.ycsb.properties=" + path, "workload.ycsb.set=" + set_list + "]",
                                     std::string("workload.ycsb.journal_mode=") + Pick(rng, kJournals),
                                     fmt::format("workload.ycsb.load_batch={}", 1 + rng.Uniform(2000)),
                                     "workload.ycsb.count_rows=true"};
    RunOne(o, o.work + "/configs/ycsb/workloada.yaml", sets, rng, t, fmt::format("ycsb {}", i));
  }
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--repo") o->repo = next();
    else if (a == "--work") o->work = next();
    else if (a == "--configs") o->configs = std::stoull(next());
    else if (a == "--traces") o->traces = std::stoull(next());
    else if (a == "--mobigen") o->mobigen = std::stoull(next());
    else if (a == "--aging") o->aging = std::stoull(next());
    else if (a == "--filebench") o->filebench = std::stoull(next());
    else if (a == "--ycsb") o->ycsb = std::stoull(next());
    else if (a == "--run-share") o->run_share = std::stod(next());
    else if (a == "--seed") o->seed = std::stoull(next());
    else if (a == "--max-wall") o->max_wall = std::stod(next());
    else if (a == "--max-rss-mb") o->max_rss_mb = std::stoull(next());
    else if (a == "--trace") o->extra_traces.push_back(next());
    else if (a == "--mobigen-trace") o->extra_mobigen.push_back(next());
    else {
      fmt::print(stderr, "unknown argument {}\n", a);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) return 2;
  std::error_code ec;
  fs::remove_all(o.work, ec);
  fs::create_directories(o.work);
  // The configs and samples are copied so mutated files can sit beside
  // their seeds (includes and trace paths resolve as in the repository).
  fs::copy(o.repo + "/configs", o.work + "/configs", fs::copy_options::recursive);
  fs::copy(o.repo + "/traces", o.work + "/traces", fs::copy_options::recursive);
  std::thread watchdog(Watchdog, std::cref(o));
  const auto t0 = std::chrono::steady_clock::now();
  struct Part {
    const char* name;
    void (*fn)(const Options&, sim::Rng&, Tally*);
  };
  const Part parts[] = {{"configs", FuzzConfigs}, {"block traces", FuzzTraces}, {"mobigen traces", FuzzMobigen},
                        {"aging traces", FuzzAging}, {"filebench scripts", FuzzFilebench}, {"ycsb properties", FuzzYcsb}};
  for (const Part& part : parts) {
    sim::Rng rng(o.seed, part.name);
    Tally t;
    const auto p0 = std::chrono::steady_clock::now();
    part.fn(o, rng, &t);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
    fmt::print("{:<18} {:>9} inputs: {:>9} accepted, {:>9} rejected with an error; {:>6} runs: {:>6} finished, "
               "{:>6} stopped with an error; {:.0f} s\n",
               part.name, t.inputs, t.accepted, t.rejected, t.runs, t.runs_ok, t.runs_rejected, secs);
    std::fflush(stdout);
  }
  g_case_start_ms.store(0);
  g_stop.store(true);
  watchdog.join();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("no finding; {:.0f} s, peak RSS {:.0f} MiB\n",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), ru.ru_maxrss / 1024.0);
  return 0;
}
