#include "app/sweep.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/stats.h"

namespace app {

const std::vector<std::string>& DefaultSweepStats() {
  static const std::vector<std::string> kStats = {
      "workload.iops",          "workload.bw",
      "workload.ops_per_sec",   "workload.read.lat.p50",
      "workload.read.lat.p99",  "workload.write.lat.p50",
      "workload.write.lat.p99", "fs.write_amplification",
      "ftl.write_amplification", "fs.write_amplification_end_to_end",
      // Multi-flow runs (workload.flows): each flow's figures.
      "flows.*.iops",           "flows.*.bw",
      "flows.*.read.lat.p99",   "flows.*.write.lat.p99",
      "ssd.flow.*.queue_wait.mean", "flows.*.slowdown",
      "flows.fairness",
  };
  return kStats;
}

sim::Result<std::vector<std::string>> ParseSweepStats(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    std::string name(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) {
      return sim::Status::InvalidInput(
          fmt::format("--sweep_stats: empty statistic name in '{}' (comma-separated names, e.g. "
                      "workload.iops,ftl.write_amplification,workload.write.lat.p99)",
                      list));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

namespace {

// '*' matches any run of characters (dots included).
bool Glob(std::string_view pat, std::string_view s) {
  size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (p < pat.size() && pat[p] == s[i]) {
      ++p;
      ++i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

constexpr const char* kHistogramFields[] = {"count", "min", "max", "mean", "p50", "p90", "p99", "p999", "p9999"};

struct PointStats {
  bool complete = true;
  std::map<std::string, std::string> values;  // flat name -> value text as in stats.json
  std::set<std::string> bare_histograms;      // histogram names (their mean), left out of globs
  std::map<std::string, std::string> units;   // flat name -> unit ("count" for a histogram's count)
};

std::string ScalarText(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return "";
  const std::string& t = n.Scalar();
  return t == "null" ? "" : t;
}

sim::Result<PointStats> ReadPointStats(const std::filesystem::path& file) {
  PointStats p;
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    return sim::Status::InvalidInput(fmt::format("{}: not a stats.json flashstack wrote: {}", file.string(), e.what()));
  }
  if (!doc.IsMap() || !doc["stats"] || !doc["stats"].IsMap()) {
    return sim::Status::InvalidInput(fmt::format("{}: not a stats.json flashstack wrote (no \"stats\")", file.string()));
  }
  if (const YAML::Node c = doc["complete"]; c && c.IsScalar()) p.complete = c.Scalar() != "false";
  for (const auto& kv : doc["stats"]) {
    const std::string name = kv.first.Scalar();
    const YAML::Node& s = kv.second;
    if (!s.IsMap()) continue;
    const std::string unit = ScalarText(s["unit"]);
    if (ScalarText(s["type"]) == "histogram") {
      // An empty histogram has a count and no values to describe (stats.json
      // writes 0 for them): empty cells, not a latency of 0.
      const bool empty = ScalarText(s["count"]) == "0";
      for (const char* f : kHistogramFields) {
        p.values[name + "." + f] = empty && std::strcmp(f, "count") != 0 ? "" : ScalarText(s[f]);
        p.units[name + "." + f] = std::strcmp(f, "count") == 0 ? "count" : unit;
      }
      p.values[name] = empty ? "" : ScalarText(s["mean"]);
      p.units[name] = unit;
      p.bare_histograms.insert(name);
    } else {
      p.values[name] = ScalarText(s["value"]);
      p.units[name] = unit;
    }
  }
  return p;
}

}  // namespace

sim::Status CheckSweepStats(const std::vector<std::string>& stats, const sim::StatsRegistry& registry) {
  // The names as stats.json gives them, read back as sweep.csv reads them.
  std::ostringstream json;
  registry.WriteJson(json);
  PointStats p;
  try {
    const YAML::Node doc = YAML::Load(json.str());
    for (const auto& kv : doc) {
      const std::string name = kv.first.Scalar();
      if (ScalarText(kv.second["type"]) == "histogram") {
        for (const char* f : kHistogramFields) p.values[name + "." + f] = "";
        p.bare_histograms.insert(name);
      }
      p.values[name] = "";
    }
  } catch (const YAML::Exception& e) {
    LOG(FATAL) << "the registry's own JSON does not parse: " << e.what();
  }
  std::vector<std::string> names;
  for (const auto& [n, v] : p.values) names.push_back(n);
  const std::vector<std::string> histograms(p.bare_histograms.begin(), p.bare_histograms.end());
  std::vector<std::string> unmatched;
  for (const std::string& pat : stats) {
    const bool glob = pat.find('*') != std::string::npos;
    bool found = false;
    for (const std::string& n : names) {
      if (glob ? Glob(pat, n) && !std::binary_search(histograms.begin(), histograms.end(), n) : n == pat) {
        found = true;
        break;
      }
    }
    if (!found) unmatched.push_back(pat);
  }
  if (unmatched.empty()) return sim::Status::Ok();
  return sim::Status::InvalidInput(fmt::format(
      "--sweep_stats: this experiment has no statistic named {} (see `flashstack run` of one point's stats.json; "
      "a histogram's field is name.p99, name.p999, name.mean, …)",
      fmt::join(unmatched, ", ")));
}

sim::Status WriteSweepCsv(const std::string& base, const std::vector<SweepRow>& rows,
                          const std::vector<std::string>& stats, bool chosen) {
  namespace fs = std::filesystem;
  std::vector<std::pair<const SweepRow*, PointStats>> points;
  for (const SweepRow& r : rows) {
    const fs::path file = fs::path(base) / r.folder / "stats.json";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    FS_ASSIGN_OR_RETURN(PointStats p, ReadPointStats(file));
    points.emplace_back(&r, std::move(p));
  }
  // Columns: each pattern in order; a glob's matches sorted by name.
  std::vector<std::string> columns;
  std::vector<std::string> unmatched;
  for (const std::string& pat : stats) {
    std::set<std::string> found;
    const bool glob = pat.find('*') != std::string::npos;
    for (const auto& [row, p] : points) {
      if (!glob) {
        if (p.values.count(pat) != 0) found.insert(pat);
        continue;
      }
      for (const auto& [name, v] : p.values) {
        if (p.bare_histograms.count(name) == 0 && Glob(pat, name)) found.insert(name);
      }
    }
    if (found.empty()) unmatched.push_back(pat);
    for (const std::string& c : found) {
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    }
  }
  std::vector<std::string> keys;
  for (const SweepRow& r : rows) {
    for (const auto& [k, v] : r.keys) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  std::ostringstream csv;
  csv << "point,folder";
  for (const std::string& k : keys) csv << ',' << sim::CsvField(k);
  csv << ",complete";
  for (const std::string& c : columns) csv << ',' << sim::CsvField(c);
  csv << '\n';
  for (const auto& [row, p] : points) {
    csv << row->index << ',' << sim::CsvField(row->folder);
    for (const std::string& k : keys) {
      csv << ',';
      for (const auto& [rk, v] : row->keys) {
        if (rk == k) csv << sim::CsvField(v);
      }
    }
    csv << ',' << (p.complete ? "true" : "false");
    for (const std::string& c : columns) {
      csv << ',';
      if (auto it = p.values.find(c); it != p.values.end()) csv << sim::CsvField(it->second);
    }
    csv << '\n';
  }
  // sweep.units.csv: the unit of every column of sweep.csv, in its order.
  std::ostringstream units;
  units << "column,unit,description\n";
  units << "point,,index of the sweep point\n";
  units << "folder,,the point's result folder below the sweep folder\n";
  for (const std::string& k : keys) units << sim::CsvField(k) << ",,swept configuration key (value as written)\n";
  units << "complete,,false when a signal ended the point's run early\n";
  for (const std::string& c : columns) {
    std::string unit;
    for (const auto& [row, p] : points) {
      if (auto it = p.units.find(c); it != p.units.end() && !it->second.empty()) {
        unit = it->second;
        break;
      }
    }
    units << sim::CsvField(c) << ',' << sim::CsvField(unit) << ",statistic of stats.json\n";
  }
  const fs::path out = fs::path(base) / "sweep.csv";
  for (const auto& [path, text] : {std::pair{out, csv.str()}, std::pair{fs::path(base) / "sweep.units.csv", units.str()}}) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) return sim::Status::IoError(fmt::format("cannot write {}", path.string()));
  }
  if (chosen && !unmatched.empty() && !points.empty()) {
    return sim::Status::InvalidInput(
        fmt::format("--sweep_stats: no point has a statistic named {} (see a point's stats.json; a histogram's "
                    "field is name.p99, name.mean, …); {} was written without it",
                    fmt::join(unmatched, ", "), out.string()));
  }
  return sim::Status::Ok();
}

// ---- running points ----

namespace {

struct Child {
  pid_t pid;
  int fd;  // read end of the pipe carrying the child's outcome
  size_t index;
};

// The child's report: "<interrupted 0|1> <status code> <failed I/Os>\n<message>".
void SendOutcome(int fd, const PointOutcome& o) {
  std::string msg = fmt::format("{} {} {}\n{}", o.interrupted ? 1 : 0, static_cast<int>(o.status.code()),
                                o.failed_ios, o.status.message().substr(0, 4000));
  const char* p = msg.data();
  size_t left = msg.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

PointOutcome ReceiveOutcome(int fd, int wait_status, size_t index) {
  std::string msg;
  char buf[4096];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    msg.append(buf, static_cast<size_t>(n));
  }
  PointOutcome o;
  int interrupted = 0, code = 0;
  unsigned long long failed = 0;
  const size_t nl = msg.find('\n');
  if (WIFEXITED(wait_status) && nl != std::string::npos &&
      std::sscanf(msg.c_str(), "%d %d %llu", &interrupted, &code, &failed) == 3) {
    o.interrupted = interrupted != 0;
    o.failed_ios = failed;
    const std::string text = msg.substr(nl + 1);
    using C = sim::Status::Code;
    switch (static_cast<C>(code)) {
      case C::kOk:
        break;
      case C::kInvalidInput:
        o.status = sim::Status::InvalidInput(text);
        break;
      case C::kNotFound:
        o.status = sim::Status::NotFound(text);
        break;
      case C::kUnsupported:
        o.status = sim::Status::Unsupported(text);
        break;
      default:
        o.status = sim::Status::IoError(text);
    }
    return o;
  }
  if (WIFSIGNALED(wait_status)) {
    o.status = sim::Status::IoError(fmt::format("point {}: its process was killed by signal {} ({})", index,
                                                WTERMSIG(wait_status), strsignal(WTERMSIG(wait_status))));
  } else {
    o.status = sim::Status::IoError(fmt::format("point {}: its process ended without reporting (exit status {})",
                                                index, WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1));
  }
  return o;
}

}  // namespace

sim::Status RunPoints(const std::vector<size_t>& points, int jobs, const std::atomic<int>* interrupt,
                      const std::function<PointOutcome(size_t)>& run_point,
                      const std::function<void(size_t, const PointOutcome&)>& on_done) {
  auto interrupted = [interrupt] { return interrupt != nullptr && interrupt->load(std::memory_order_relaxed) != 0; };
  sim::Status first;
  if (jobs <= 1 || points.size() <= 1) {
    for (const size_t i : points) {
      if (!first.ok() || interrupted()) break;
      const PointOutcome o = run_point(i);
      if (!o.status.ok() && first.ok()) first = o.status;
      on_done(i, o);
    }
    return first;
  }
  std::vector<Child> running;
  size_t next = 0;
  bool forwarded = false;
  while (true) {
    while (first.ok() && !interrupted() && next < points.size() && running.size() < static_cast<size_t>(jobs)) {
      const size_t i = points[next++];
      int pfd[2];
      if (pipe2(pfd, O_CLOEXEC) != 0) {
        first = sim::Status::IoError(fmt::format("cannot start point {}: pipe: {}", i, strerror(errno)));
        break;
      }
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        first = sim::Status::IoError(fmt::format("cannot start point {}: fork: {}", i, strerror(errno)));
        break;
      }
      if (pid == 0) {
        close(pfd[0]);
        setpgid(0, 0);
        PointOutcome o;
        {
          o = run_point(i);
        }
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        SendOutcome(pfd[1], o);
        _exit(0);
      }
      close(pfd[1]);
      running.push_back(Child{pid, pfd[0], i});
    }
    if (running.empty()) break;
    if (interrupted() && !forwarded) {
      forwarded = true;
      const int sig = interrupt->load(std::memory_order_relaxed);
      for (const Child& c : running) kill(c.pid, sig);
    }
    int st = 0;
    const pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid == 0 || (pid < 0 && errno == EINTR)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (pid < 0) {
      first = sim::Status::IoError(fmt::format("waiting for the sweep's points: {}", strerror(errno)));
      break;
    }
    auto it = std::find_if(running.begin(), running.end(), [pid](const Child& c) { return c.pid == pid; });
    if (it == running.end()) continue;
    const Child c = *it;
    running.erase(it);
    const PointOutcome o = ReceiveOutcome(c.fd, st, c.index);
    close(c.fd);
    if (!o.status.ok() && first.ok()) first = o.status;
    on_done(c.index, o);
  }
  return first;
}

}  // namespace app
