#include "host/sqlite/ycsb_spec.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "host/sqlite/ycsb_properties.h"

namespace host::sqlite {

void YcsbExponentialProperties::Describe(sim::Schema<YcsbExponentialProperties>& s) {
  s.Param("percentile", &YcsbExponentialProperties::percentile, "95",
          "requestdistribution=exponential: percentage of operations on the most recent exponential.frac of "
          "the records")
      .Range(1e-9, 100 - 1e-9);
  s.Param("frac", &YcsbExponentialProperties::frac, "0.8571428571",
          "requestdistribution=exponential: the fraction of the records those operations fall on")
      .Range(1e-12, 1e12);
}

void YcsbProperties::Describe(sim::Schema<YcsbProperties>& s) {
  using P = YcsbProperties;
  s.Param("workload", &P::workload, "site.ycsb.workloads.CoreWorkload",
          "Workload class; only CoreWorkload (site.ycsb or com.yahoo.ycsb) is run");
  s.Param("recordcount", &P::recordcount, "0",
          "Records loaded before the run; 0 only for a run that only inserts")
      .Range(0, 1e12);
  s.Param("operationcount", &P::operationcount, "0",
          "Operations of the run phase over all threads; 0 = no bound (needs maxexecutiontime)")
      .Range(0, 1e12);
  s.Param("threadcount", &P::threadcount, "1",
          "Client threads of the run phase, each with its own connection to the one database")
      .Range(1, 1000);
  s.Param("target", &P::target, "0", "Operations per second over all threads (throttle); 0 = as fast as possible")
      .Range(0, 1e12);
  s.Param("maxexecutiontime", &P::maxexecutiontime, "0",
          "Seconds (simulated) after which the run phase stops; 0 = no limit")
      .Range(0, 1e8);
  s.Param("dotransactions", &P::dotransactions, "true", "false = load only (YCSB's -load), no run phase");
  s.Param("insertstart", &P::insertstart, "0", "First key number the load inserts").Range(0, 1e12);
  s.Param("insertcount", &P::insertcount, "-1",
          "Records the load inserts (and the range requests choose from); -1 = recordcount - insertstart")
      .Range(-1, 1e12);
  s.Param("fieldcount", &P::fieldcount, "10", "Fields (columns) per record").Range(1, 1999);
  s.Param("fieldlength", &P::fieldlength, "100", "Bytes per field (the maximum with uniform/zipfian lengths)")
      .Range(0, 1 << 20);
  s.Param("minfieldlength", &P::minfieldlength, "1", "Smallest field length with uniform/zipfian lengths")
      .Range(0, 1 << 20);
  s.Choice("fieldlengthdistribution", &P::fieldlengthdistribution, "constant", {"constant", "uniform", "zipfian"},
           "Distribution of field lengths");
  s.Param("fieldnameprefix", &P::fieldnameprefix, "field", "Field names: prefix + index (columns FIELD0, ...)");
  s.Param("readallfields", &P::readallfields, "true", "Reads and scans read every field (else one, at random)");
  s.Param("readallfieldsbyname", &P::readallfieldsbyname, "false",
          "Accepted; no effect here (the statements always name their columns)");
  s.Param("writeallfields", &P::writeallfields, "false", "Updates write every field (else one, at random)");
  s.Param("dataintegrity", &P::dataintegrity, "false",
          "Values derive from key and field; every read is checked against them");
  s.Param("readproportion", &P::readproportion, "0.95", "Weight of reads (the weights are normalized to their sum)")
      .Range(0, 1e12);
  s.Param("updateproportion", &P::updateproportion, "0.05", "Weight of updates").Range(0, 1e12);
  s.Param("insertproportion", &P::insertproportion, "0", "Weight of inserts (each adds a record)").Range(0, 1e12);
  s.Param("scanproportion", &P::scanproportion, "0", "Weight of scans").Range(0, 1e12);
  s.Param("readmodifywriteproportion", &P::readmodifywriteproportion, "0",
          "Weight of read-modify-writes (a read, then an update of the same record)")
      .Range(0, 1e12);
  s.Choice("requestdistribution", &P::requestdistribution, "uniform",
           {"uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"},
           "Which records operations choose");
  s.Param("minscanlength", &P::minscanlength, "1", "Fewest records a scan asks for").Range(1, 1e9);
  s.Param("maxscanlength", &P::maxscanlength, "1000", "Most records a scan asks for").Range(1, 1e9);
  s.Choice("scanlengthdistribution", &P::scanlengthdistribution, "uniform", {"uniform", "zipfian"},
           "Distribution of scan lengths");
  s.Choice("insertorder", &P::insertorder, "hashed", {"hashed", "ordered"},
           "hashed: key = \"user\" + FNV-64 hash of the key number; ordered: the number itself");
  s.Param("zeropadding", &P::zeropadding, "1", "Digits the key number is zero-padded to").Range(0, 100);
  s.Param("table", &P::table, "usertable", "Table name");
  s.Param("hotspotdatafraction", &P::hotspotdatafraction, "0.2",
          "requestdistribution=hotspot: fraction of the records that are hot")
      .Range(0, 1);
  s.Param("hotspotopnfraction", &P::hotspotopnfraction, "0.8",
          "requestdistribution=hotspot: fraction of the operations on hot records")
      .Range(0, 1);
  s.Section("exponential", &P::exponential, "requestdistribution=exponential");
  s.Param("core_workload_insertion_retry_limit", &P::core_workload_insertion_retry_limit, "0",
          "Load insert retries; only 0 is supported");
  s.Param("core_workload_insertion_retry_interval", &P::core_workload_insertion_retry_interval, "3",
          "Accepted; no effect (no retries)");
}

namespace {

// Client, measurement and binding properties: nothing in a simulated run
// depends on them.
constexpr std::string_view kNoEffect[] = {
    "db",           "exporter",    "exportfile", "measurementtype", "histogram.buckets", "timeseries.granularity",
    "status",       "status.interval", "label",  "spin.sleep",      "fieldlengthhistogram"};
constexpr std::string_view kNoEffectPrefixes[] = {"db.", "jdbc.", "htrace.", "measurement.", "hdrhistogram."};

// Properties that would change the run in a way this driver does not model.
struct Refused {
  std::string_view name;
  std::string_view why;
};
constexpr Refused kRefused[] = {
    {"zipfianconstant",
     "not supported: YCSB's CoreWorkload fixes the zipfian constant of requests at 0.99, and so does this driver"},
};

constexpr std::string_view kCoreWorkloads[] = {"site.ycsb.workloads.CoreWorkload",
                                               "com.yahoo.ycsb.workloads.CoreWorkload"};

std::string_view Trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

bool IsSqlName(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && (i == 0 || c < '0' || c > '9')) return false;
  }
  return true;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char a = static_cast<char>(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    if (a != prefix[i]) return false;
  }
  return true;
}

class Resolver {
 public:
  explicit Resolver(std::string_view path) : path_(path) { spec_.p = sim::MakeDefault<YcsbProperties>(); }

  // Applies one property given at `where` ("file:line" or a key path).
  sim::Status Apply(std::string_view key, std::string_view raw, const std::string& where) {
    const std::string_view value = Trim(raw);
    const sim::ParamDecl* decl = sim::SchemaOf<YcsbProperties>().FindParam(key);
    if (decl == nullptr) return Other(key, value, where);
    if (key == "fieldlengthdistribution" && value == "histogram") {
      return Error(where, key, "histogram (field lengths from a file) is not supported; use constant, uniform or "
                               "zipfian");
    }
    sim::Result<sim::ParamValue> v = sim::ParseParamValue(*decl, value);
    if (!v.ok()) return Error(where, key, fmt::format("'{}': {}", value, v.status().message()));
    FS_RETURN_IF_ERROR(sim::SetKey(sim::SchemaOf<YcsbProperties>(), &spec_.p, key, value));
    spec_.origin[std::string(key)] = where;
    return sim::Status::Ok();
  }

  // A typed override, already parsed by the config schema.
  void Override(std::string_view key, std::string_view value) {
    const std::string where = fmt::format("{}.{}", path_, key);
    CHECK(sim::SetKey(sim::SchemaOf<YcsbProperties>(), &spec_.p, key, value).ok()) << key << "=" << value;
    spec_.origin[std::string(key)] = where;
  }

  sim::Result<YcsbSpec> Finish() {
    FS_RETURN_IF_ERROR(Check());
    return std::move(spec_);
  }

 private:
  sim::Status Other(std::string_view key, std::string_view value, const std::string& where) {
    for (const Refused& r : kRefused) {
      if (key == r.name) return Error(where, key, r.why);
    }
    for (std::string_view n : kNoEffect) {
      if (key == n) return sim::Status::Ok();
    }
    for (std::string_view p : kNoEffectPrefixes) {
      if (key.substr(0, p.size()) == p) return sim::Status::Ok();
    }
    if (warned_.insert(std::string(key)).second) {
      spec_.warnings.push_back(fmt::format(
          "{}: property '{}' is not one YCSB's CoreWorkload or client reads; ignored, as YCSB ignores it", where,
          key));
    }
    return sim::Status::Ok();
  }

  // "<where>: <key>: problem", or "<typed key>: problem".
  sim::Status Error(std::string_view where, std::string_view key, std::string_view problem) const {
    if (where == fmt::format("{}.{}", path_, key)) return sim::Status::InvalidInput(fmt::format("{}: {}", where, problem));
    return sim::Status::InvalidInput(fmt::format("{}: {}: {}", where, key, problem));
  }
  // An error about `key` where it was given (or the section, for a default).
  sim::Status ErrorAt(std::string_view key, std::string_view problem) const {
    auto it = spec_.origin.find(std::string(key));
    return Error(it == spec_.origin.end() ? path_ : it->second, key, problem);
  }
  std::string Given(std::string_view key) const {
    auto it = spec_.origin.find(std::string(key));
    return it == spec_.origin.end() ? "YCSB's default" : it->second;
  }

  sim::Status Check() {
    YcsbProperties& p = spec_.p;
    if (std::find(std::begin(kCoreWorkloads), std::end(kCoreWorkloads), p.workload) == std::end(kCoreWorkloads)) {
      return ErrorAt("workload", fmt::format("'{}': only YCSB's CoreWorkload ({}) is supported", p.workload,
                                             kCoreWorkloads[0]));
    }
    if (p.core_workload_insertion_retry_limit != 0) {
      return ErrorAt("core_workload_insertion_retry_limit", "not supported: loads are not retried; set it to 0");
    }
    const double key_ops = p.readproportion + p.updateproportion + p.scanproportion + p.readmodifywriteproportion;
    const double sum = key_ops + p.insertproportion;
    if (p.dotransactions && !(sum > 0)) {
      std::string given;
      for (const char* k : {"readproportion", "updateproportion", "insertproportion", "scanproportion",
                            "readmodifywriteproportion"}) {
        given += fmt::format("{}{} ({})", given.empty() ? "" : ", ", k, Given(k));
      }
      return ErrorAt("readproportion", fmt::format("the operation proportions sum to 0; at least one must be "
                                                   "positive (they are weights, normalized to their sum as YCSB "
                                                   "does): {}",
                                                   given));
    }
    if (p.insertcount >= 0) {
      spec_.insertcount = static_cast<uint64_t>(p.insertcount);
    } else if (p.insertstart <= p.recordcount) {
      spec_.insertcount = p.recordcount - p.insertstart;
    } else {
      return ErrorAt("insertstart", fmt::format("{} is past recordcount {} ({})", p.insertstart, p.recordcount,
                                                Given("recordcount")));
    }
    if (p.insertstart + spec_.insertcount > p.recordcount) {
      return ErrorAt(p.insertcount >= 0 ? "insertcount" : "insertstart",
                     fmt::format("insertstart {} + insertcount {} exceed recordcount {} ({}); YCSB requires "
                                 "insertstart + insertcount <= recordcount",
                                 p.insertstart, spec_.insertcount, p.recordcount, Given("recordcount")));
    }
    if (p.dotransactions && key_ops > 0 && spec_.insertcount == 0) {
      return ErrorAt(p.recordcount == 0 ? "recordcount" : "insertcount",
                     fmt::format("{} records to choose from, but reads, updates, scans and read-modify-writes "
                                 "choose among the loaded records; it must be at least 1 (only a run that only "
                                 "inserts may start empty)",
                                 spec_.insertcount));
    }
    if (p.dotransactions && p.operationcount == 0 && p.maxexecutiontime == 0) {
      return ErrorAt("operationcount", "0 means no bound in YCSB; give operationcount or maxexecutiontime");
    }
    if (p.dataintegrity && p.fieldlengthdistribution != "constant") {
      return ErrorAt("dataintegrity",
                     fmt::format("needs fieldlengthdistribution=constant, as YCSB does (it is {}, {})",
                                 p.fieldlengthdistribution, Given("fieldlengthdistribution")));
    }
    if (p.fieldlengthdistribution != "constant" && p.minfieldlength > p.fieldlength) {
      return ErrorAt("minfieldlength", fmt::format("{} is larger than fieldlength {}", p.minfieldlength, p.fieldlength));
    }
    if (static_cast<uint64_t>(p.fieldcount) * p.fieldlength > kMaxRecordBytes) {
      return ErrorAt("fieldlength", fmt::format("records of {} fields x {} bytes exceed the {} MiB this driver "
                                                "allows",
                                                p.fieldcount, p.fieldlength, kMaxRecordBytes >> 20));
    }
    if (p.minscanlength > p.maxscanlength) {
      return ErrorAt("minscanlength",
                     fmt::format("{} is larger than maxscanlength {}", p.minscanlength, p.maxscanlength));
    }
    if (!IsSqlName(p.table) || StartsWithNoCase(p.table, "sqlite_")) {
      return ErrorAt("table", fmt::format("'{}' is not a plain SQL table name ([A-Za-z_][A-Za-z0-9_]*, not "
                                          "starting with sqlite_)",
                                          p.table));
    }
    if (!IsSqlName(p.fieldnameprefix)) {
      return ErrorAt("fieldnameprefix",
                     fmt::format("'{}' is not a plain SQL name ([A-Za-z_][A-Za-z0-9_]*)", p.fieldnameprefix));
    }
    spec_.ordered_keys = p.insertorder == "ordered";
    spec_.threads = p.threadcount;
    if (p.operationcount > 0 && spec_.threads > p.operationcount) {
      spec_.threads = static_cast<uint32_t>(p.operationcount);
    }
    spec_.max_execution = sim::Sec(static_cast<double>(p.maxexecutiontime));
    return sim::Status::Ok();
  }

  std::string path_;
  YcsbSpec spec_;
  std::set<std::string> warned_;
};

}  // namespace

bool YcsbSpec::InsertOnly() const {
  return p.readproportion + p.updateproportion + p.scanproportion + p.readmodifywriteproportion == 0;
}

uint64_t YcsbSpec::OpsOfThread(uint32_t t) const {
  const uint64_t n = p.operationcount;
  return n / threads + (t < n % threads ? 1 : 0);
}

sim::Result<YcsbSpec> ResolveYcsb(const YcsbInputs& in, std::string_view path) {
  Resolver r(path);
  if (!in.properties.empty()) {
    FS_ASSIGN_OR_RETURN(std::vector<JavaProperty> props, ReadJavaPropertiesFile(in.properties));
    for (const JavaProperty& p : props) {
      FS_RETURN_IF_ERROR(r.Apply(p.key, p.value, fmt::format("{}:{}", in.properties, p.line)));
    }
  }
  const std::string set_key = fmt::format("{}.set", path);
  for (const std::string& entry : in.set) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || Trim(std::string_view(entry).substr(0, eq)).empty()) {
      return sim::Status::InvalidInput(
          fmt::format("{}: '{}' is not name=value (e.g. \"recordcount=1000\")", set_key, entry));
    }
    FS_RETURN_IF_ERROR(r.Apply(Trim(std::string_view(entry).substr(0, eq)), std::string_view(entry).substr(eq + 1),
                               set_key));
  }
  if (in.recordcount) r.Override("recordcount", std::to_string(in.recordcount));
  if (in.operationcount) r.Override("operationcount", std::to_string(in.operationcount));
  if (in.threadcount) r.Override("threadcount", std::to_string(in.threadcount));
  return r.Finish();
}

}  // namespace host::sqlite
