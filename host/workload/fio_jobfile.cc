#include "host/workload/fio_jobfile.h"

#include <algorithm>

#include <cctype>
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace host {

namespace {

constexpr size_t kMaxFileBytes = 1 << 20;  // a job file is a few lines
constexpr size_t kMaxJobs = 256;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 60)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (s.size() > 60) out += "...";
  return out;
}

sim::Result<uint64_t> Uint(std::string_view v) {
  uint64_t n = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size()) {
    return sim::Status::InvalidInput(fmt::format("'{}' is not a whole number", Shown(v)));
  }
  return n;
}

// fio sizes: a number with an optional k/m/g/t/p suffix (powers of 1024,
// "k", "kb", "kib" alike); "0x" hex is not accepted.
sim::Result<uint64_t> Size(std::string_view v) {
  size_t digits = 0;
  while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) ++digits;
  if (digits == 0) return sim::Status::InvalidInput(fmt::format("'{}' is not a size", Shown(v)));
  FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v.substr(0, digits)));
  const std::string unit = Lower(v.substr(digits));
  int shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gb" || unit == "gib") shift = 30;
  else if (unit == "t" || unit == "tb" || unit == "tib") shift = 40;
  else if (unit == "p" || unit == "pb" || unit == "pib") shift = 50;
  else return sim::Status::InvalidInput(fmt::format("'{}' has an unknown size unit", Shown(v)));
  if (shift > 0 && n > (UINT64_MAX >> shift)) return sim::Status::InvalidInput(fmt::format("'{}' is too large", Shown(v)));
  return n << shift;
}

// fio times: seconds unless suffixed (us, ms, s, m, h, d).
sim::Result<sim::SimTime> Time(std::string_view v) {
  size_t digits = 0;
  while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) ++digits;
  if (digits == 0) return sim::Status::InvalidInput(fmt::format("'{}' is not a time", Shown(v)));
  FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v.substr(0, digits)));
  const std::string unit = Lower(v.substr(digits));
  uint64_t ns_per = 0;
  if (unit == "us" || unit == "usec") ns_per = 1000;
  else if (unit == "ms" || unit == "msec") ns_per = 1000000;
  else if (unit.empty() || unit == "s" || unit == "sec") ns_per = 1000000000ull;
  else if (unit == "m" || unit == "min") ns_per = 60 * 1000000000ull;
  else if (unit == "h") ns_per = 3600 * 1000000000ull;
  else if (unit == "d") ns_per = 86400 * 1000000000ull;
  else return sim::Status::InvalidInput(fmt::format("'{}' has an unknown time unit", Shown(v)));
  if (n > static_cast<uint64_t>(INT64_MAX) / ns_per) return sim::Status::InvalidInput(fmt::format("'{}' is too long", Shown(v)));
  return sim::Ns(static_cast<int64_t>(n * ns_per));
}

sim::Result<uint32_t> Percent(std::string_view v) {
  FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
  if (n > 100) return sim::Status::InvalidInput(fmt::format("{} is not a percentage (0..100)", n));
  return static_cast<uint32_t>(n);
}

sim::Status NotHere(std::string_view what) { return sim::Status::InvalidInput(std::string(what)); }

// The state of one job while its options are applied.
struct JobState {
  FioConfig cfg;
  sim::SimTime startdelay;
  bool time_based = false;
  bool io_size_set = false;
  bool sync_engine = false;
  uint64_t size_bytes = 0;  // size= in bytes (0: not given or a percentage)
  bool stonewall = false;   // stonewall / wait_for_previous: after every earlier job
  std::string wait_for;     // wait_for=<job>: after that job
};

// Sets a FioConfig key through its declaration (units, ranges, choices).
sim::Status Set(JobState& j, std::string_view key, const std::string& text) {
  return sim::SetKey(sim::SchemaOf<FioConfig>(), &j.cfg, key, text);
}

using Handler = std::function<sim::Status(JobState&, std::string_view value, bool bare)>;

sim::Status NoList(std::string_view v) {
  if (v.find(',') != std::string_view::npos) {
    return NotHere("separate read,write[,trim] values are not modelled; give one value for all directions");
  }
  return sim::Status::Ok();
}

const std::map<std::string, Handler, std::less<>>& Handlers() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, Handler, std::less<>>();
    auto& h = *t;
    auto ignore = [](JobState&, std::string_view, bool) { return sim::Status::Ok(); };
    for (const char* k : {"name", "description", "group_reporting", "new_group", "thread", "threads", "write_bw_log",
                          "write_lat_log", "write_iops_log", "write_hist_log", "log_avg_msec", "per_job_logs",
                          "lat_percentiles", "clat_percentiles", "slat_percentiles", "percentile_list",
                          "unified_rw_reporting", "norandommap", "randrepeat", "filename"}) {
      h[k] = ignore;
    }
    h["rw"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      if (v.find(':') != std::string_view::npos) return NotHere("rw=<mode>:<n> (skipping n blocks) is not modelled");
      const std::string mode(v);
      for (const char* m : {"read", "write", "trim", "randread", "randwrite", "randtrim", "rw", "readwrite", "randrw"}) {
        if (mode == m) return Set(j, "rw", mode);
      }
      return NotHere(fmt::format("'{}' is not a modelled pattern (read, write, trim, randread, randwrite, randtrim, "
                                 "rw, readwrite, randrw)",
                                 Shown(v)));
    };
    h["readwrite"] = h["rw"];
    h["rwmixread"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint32_t p, Percent(v));
      return Set(j, "rwmixread", fmt::format("{}%", p));
    };
    h["rwmixwrite"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint32_t p, Percent(v));
      return Set(j, "rwmixread", fmt::format("{}%", 100 - p));
    };
    h["bs"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_RETURN_IF_ERROR(NoList(v));
      if (v.find('-') != std::string_view::npos) return NotHere("a block-size range (bsrange) is not modelled; use bssplit");
      FS_ASSIGN_OR_RETURN(uint64_t b, Size(v));
      return Set(j, "bs", std::to_string(b));
    };
    h["blocksize"] = h["bs"];
    h["bssplit"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_RETURN_IF_ERROR(NoList(v));
      std::vector<std::string> entries;
      size_t start = 0;
      while (start <= v.size()) {
        const size_t colon = v.find(':', start);
        const std::string_view e = v.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
        const size_t slash = e.find('/');
        if (slash == std::string_view::npos) return NotHere(fmt::format("entry '{}' is not <size>/<percent>", Shown(e)));
        FS_ASSIGN_OR_RETURN(uint64_t b, Size(e.substr(0, slash)));
        const std::string_view pct = e.substr(slash + 1);
        if (pct.empty()) {
          entries.push_back(std::to_string(b));
        } else {
          FS_ASSIGN_OR_RETURN(uint32_t p, Percent(pct));
          entries.push_back(fmt::format("{}/{}%", b, p));
        }
        if (colon == std::string_view::npos) break;
        start = colon + 1;
      }
      j.cfg.bssplit = entries;
      return sim::Status::Ok();
    };
    h["blockalign"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_RETURN_IF_ERROR(NoList(v));
      FS_ASSIGN_OR_RETURN(uint64_t b, Size(v));
      return Set(j, "blockalign", std::to_string(b));
    };
    h["ba"] = h["blockalign"];
    h["iodepth"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      return Set(j, "iodepth", std::to_string(n));
    };
    h["numjobs"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      return Set(j, "numjobs", std::to_string(n));
    };
    auto range = [](const char* key) {
      return [key](JobState& j, std::string_view v, bool) -> sim::Status {
        if (!v.empty() && v.back() == '%') {
          FS_ASSIGN_OR_RETURN(uint32_t p, Percent(v.substr(0, v.size() - 1)));
          if (std::string_view(key) == "size") j.size_bytes = 0;
          return Set(j, key, fmt::format("{}%", p));
        }
        FS_ASSIGN_OR_RETURN(uint64_t b, Size(v));
        if (std::string_view(key) == "size") j.size_bytes = b;
        return Set(j, key, std::to_string(b));
      };
    };
    h["offset"] = range("offset");
    h["size"] = range("size");
    h["io_size"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint64_t b, Size(v));
      j.io_size_set = true;
      return Set(j, "io_size", std::to_string(b));
    };
    h["io_limit"] = h["io_size"];
    h["runtime"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(sim::SimTime t, Time(v));
      j.cfg.runtime = t;
      return sim::Status::Ok();
    };
    h["timeout"] = h["runtime"];
    h["ramp_time"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(sim::SimTime t, Time(v));
      j.cfg.ramp_time = t;
      return sim::Status::Ok();
    };
    h["startdelay"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      if (v.find('-') != std::string_view::npos) return NotHere("a random start delay (a range) is not modelled");
      FS_ASSIGN_OR_RETURN(sim::SimTime t, Time(v));
      j.startdelay = t;
      return sim::Status::Ok();
    };
    h["time_based"] = [](JobState& j, std::string_view v, bool bare) -> sim::Status {
      if (bare) {
        j.time_based = true;
        return sim::Status::Ok();
      }
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      j.time_based = n != 0;
      return sim::Status::Ok();
    };
    h["rate_iops"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_RETURN_IF_ERROR(NoList(v));
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      return Set(j, "rate_iops", std::to_string(n));
    };
    h["rate"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_RETURN_IF_ERROR(NoList(v));
      FS_ASSIGN_OR_RETURN(uint64_t b, Size(v));
      return Set(j, "rate_bw", fmt::format("{}B/s", b));
    };
    h["fsync"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      return Set(j, "fsync", std::to_string(n));
    };
    h["zonemode"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      if (v == "none" || v == "zbd") return Set(j, "zonemode", std::string(v));
      return NotHere(fmt::format("'{}' is not modelled (none, zbd)", Shown(v)));
    };
    h["max_open_zones"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      FS_ASSIGN_OR_RETURN(uint64_t n, Uint(v));
      return Set(j, "max_open_zones", std::to_string(n));
    };
    h["zone_reset_threshold"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      return Set(j, "zone_reset_threshold", std::string(v));
    };
    h["zone_reset_frequency"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      return Set(j, "zone_reset_frequency", std::string(v));
    };
    h["read_beyond_wp"] = [](JobState& j, std::string_view v, bool bare) -> sim::Status {
      return Set(j, "read_beyond_wp", bare || v == "1" ? "true" : "false");
    };
    h["random_distribution"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      if (v == "random") return Set(j, "distribution", "uniform");
      if (v.rfind("zipf:", 0) == 0) {
        FS_RETURN_IF_ERROR(Set(j, "distribution", "zipf"));
        return Set(j, "zipf.theta", std::string(v.substr(5)));
      }
      if (v.rfind("zoned:", 0) == 0) {
        std::vector<std::string> zones;
        std::string_view rest = v.substr(6);
        while (!rest.empty()) {
          const size_t colon = rest.find(':');
          const std::string_view z = rest.substr(0, colon);
          const size_t slash = z.find('/');
          if (slash == std::string_view::npos) return NotHere(fmt::format("zone '{}' is not <access%>/<size%>", Shown(z)));
          FS_ASSIGN_OR_RETURN(uint32_t a, Percent(z.substr(0, slash)));
          FS_ASSIGN_OR_RETURN(uint32_t s, Percent(z.substr(slash + 1)));
          zones.push_back(fmt::format("{}%/{}%", a, s));
          if (colon == std::string_view::npos) break;
          rest = rest.substr(colon + 1);
        }
        FS_RETURN_IF_ERROR(Set(j, "distribution", "zoned"));
        std::string list;
        for (const std::string& z : zones) list += (list.empty() ? "[\"" : ", \"") + z + "\"";
        return Set(j, "zoned.zones", list + "]");
      }
      return NotHere(fmt::format("'{}' is not modelled (random, zipf:<theta>, zoned:...)", Shown(v)));
    };
    h["ioengine"] = [](JobState& j, std::string_view v, bool) -> sim::Status {
      for (const char* e : {"libaio", "io_uring", "posixaio"}) {
        if (v == e) {
          j.sync_engine = false;
          return sim::Status::Ok();
        }
      }
      for (const char* e : {"sync", "psync", "pvsync", "pvsync2", "vsync"}) {
        if (v == e) {
          j.sync_engine = true;
          return sim::Status::Ok();
        }
      }
      return NotHere(fmt::format("'{}' is not modelled: jobs issue block I/O as libaio/io_uring (async) or the sync "
                                 "engines (one I/O at a time) do",
                                 Shown(v)));
    };
    h["direct"] = [](JobState&, std::string_view v, bool bare) -> sim::Status {
      if (bare || v == "1") return sim::Status::Ok();
      return NotHere("buffered I/O (direct=0) goes through the host page cache, which block flows do not model; "
                     "set direct=1");
    };
    h["loops"] = [](JobState&, std::string_view v, bool) -> sim::Status {
      if (v == "1") return sim::Status::Ok();
      return NotHere("repeating a job (loops > 1) is not modelled; bound it with io_size or runtime");
    };
    h["stonewall"] = [](JobState& j, std::string_view v, bool bare) -> sim::Status {
      if (!bare && v != "1" && v != "0") return NotHere("takes no value (or 0/1)");
      j.stonewall = bare || v == "1";
      return sim::Status::Ok();
    };
    h["wait_for_previous"] = h["stonewall"];
    h["directory"] = [](JobState&, std::string_view, bool) -> sim::Status {
      return NotHere("files in a directory need a file system; a job-file flow drives the device as a block "
                     "device (drop directory, keep filename)");
    };
    h["wait_for"] = [](JobState& j, std::string_view v, bool bare) -> sim::Status {
      if (bare || v.empty()) return NotHere("needs the name of an earlier job");
      j.wait_for = std::string(v);
      return sim::Status::Ok();
    };
    return t;
  }();
  return *table;
}

// One "key[=value]" line of a section.
struct Option {
  std::string key;
  std::string value;
  bool bare = false;
  int line = 0;
};

sim::Status Apply(JobState& j, const Option& o, const std::string& display) {
  auto err = [&](const std::string& why) {
    return sim::Status::InvalidInput(fmt::format("{}:{}: {}: {}", display, o.line, Shown(o.key), why));
  };
  const auto& handlers = Handlers();
  auto it = handlers.find(o.key);
  if (it == handlers.end()) {
    if (o.key.rfind("steadystate", 0) == 0 || o.key.rfind("ss", 0) == 0) {
      return err("steady-state detection is not modelled; bound the job with runtime or io_size");
    }
    return err("option not modelled by flashstack's fio workload (see host/workload/fio_jobfile.h for those it "
               "honours)");
  }
  sim::Status st = it->second(j, o.value, o.bare);
  if (!st.ok()) return err(st.message());
  return st;
}

}  // namespace

sim::Result<std::vector<FioJob>> ParseFioJobFile(std::string_view text, const std::string& display,
                                                 const FioConfig& base) {
  struct Section {
    std::string name;
    int line = 0;
    std::vector<Option> options;
  };
  std::vector<Option> global;
  std::vector<std::pair<Section, std::vector<Option>>> jobs;  // each job with the global options in force
  Section* current = nullptr;
  bool in_global = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (line.find('\0') != std::string_view::npos) {
      return sim::Status::InvalidInput(fmt::format("{}:{}: a NUL byte: not a job file", display, line_no));
    }
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    // Trailing comment: " #" or " ;" (fio's own files write them so).
    for (size_t i = 1; i < line.size(); ++i) {
      if ((line[i] == '#' || line[i] == ';') && std::isspace(static_cast<unsigned char>(line[i - 1]))) {
        line = Trim(line.substr(0, i));
        break;
      }
    }
    if (line[0] == '[') {
      if (line.back() != ']' || line.size() < 3) {
        return sim::Status::InvalidInput(
            fmt::format("{}:{}: '{}': a section header is [name]", display, line_no, Shown(line)));
      }
      const std::string name(Trim(line.substr(1, line.size() - 2)));
      if (name.empty()) return sim::Status::InvalidInput(fmt::format("{}:{}: empty section name", display, line_no));
      if (name == "global") {
        in_global = true;
        current = nullptr;
        continue;
      }
      if (jobs.size() >= kMaxJobs) {
        return sim::Status::InvalidInput(fmt::format("{}:{}: more than {} jobs", display, line_no, kMaxJobs));
      }
      in_global = false;
      jobs.push_back({Section{name, line_no, {}}, global});
      current = &jobs.back().first;
      continue;
    }
    Option o;
    o.line = line_no;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      o.key = std::string(line);
      o.bare = true;
    } else {
      o.key = std::string(Trim(line.substr(0, eq)));
      o.value = std::string(Trim(line.substr(eq + 1)));
      if (o.key.empty()) return sim::Status::InvalidInput(fmt::format("{}:{}: '=' without an option name", display, line_no));
    }
    if (in_global) {
      global.push_back(std::move(o));
    } else if (current != nullptr) {
      current->options.push_back(std::move(o));
    } else {
      return sim::Status::InvalidInput(
          fmt::format("{}:{}: '{}' before any [section]", display, line_no, Shown(line)));
    }
  }
  if (jobs.empty()) return sim::Status::InvalidInput(fmt::format("{}: no job section ([name] other than [global])", display));

  std::vector<FioJob> out;
  for (auto& [sec, globals] : jobs) {
    JobState j;
    j.cfg = base;
    for (const Option& o : globals) FS_RETURN_IF_ERROR(Apply(j, o, display));
    for (const Option& o : sec.options) FS_RETURN_IF_ERROR(Apply(j, o, display));
    if (j.sync_engine) j.cfg.iodepth = 1;
    if (!j.time_based && !j.io_size_set && j.size_bytes > 0) {
      j.cfg.io_size = sim::Bytes{j.size_bytes * j.cfg.numjobs};
    }
    if (!j.time_based && !j.io_size_set && j.size_bytes == 0 && j.cfg.size != "0") {
      return sim::Status::InvalidInput(fmt::format(
          "{}:{}: size: a percentage without time_based leaves the job's byte count to the device; set io_size or "
          "time_based",
          display, sec.line));
    }
    std::vector<std::string> after;
    if (j.stonewall) {
      for (const FioJob& e : out) after.push_back(e.name);
    }
    if (!j.wait_for.empty()) {
      if (std::none_of(out.begin(), out.end(), [&](const FioJob& e) { return e.name == j.wait_for; })) {
        return sim::Status::InvalidInput(fmt::format("{}:{}: wait_for: no earlier job [{}]", display, sec.line,
                                                     j.wait_for));
      }
      if (std::find(after.begin(), after.end(), j.wait_for) == after.end()) after.push_back(j.wait_for);
    }
    out.push_back(FioJob{sec.name, sec.line, std::move(j.cfg), j.startdelay, std::move(after)});
  }
  return out;
}

sim::Result<std::vector<FioJob>> ReadFioJobFile(const std::string& path, const FioConfig& base) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sim::Status::InvalidInput(fmt::format("{}: cannot open the fio job file", path));
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes) {
    return sim::Status::InvalidInput(fmt::format("{}: more than {} bytes: not a fio job file", path, kMaxFileBytes));
  }
  return ParseFioJobFile(text, path, base);
}

}  // namespace host
