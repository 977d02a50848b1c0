// YcsbSpec: a YCSB CoreWorkload run, resolved from YCSB properties.
//
// YcsbProperties declares every property of YCSB's CoreWorkload and Client
// that shapes a run here, once, with YCSB's name, type and default (a
// sim::Schema, so values parse and range-check like any config value).
// ResolveYcsb() starts from those defaults and applies, in order:
//   1. the property file (Java properties, see ycsb_properties.h),
//   2. `set` entries "name=value", in order (YCSB's -p),
//   3. the typed overrides (recordcount, operationcount, threadcount) that
//      are not 0.
// Leading and trailing blanks of a value are dropped before it is parsed
// (Java's Properties keeps trailing blanks and YCSB's parsers then fail or,
// for booleans, read false). Booleans are true/false (also yes/no, on/off).
//
// Properties that are not declared:
//  - measurement, reporting and binding properties (measurementtype,
//    histogram.buckets, status.interval, exporter, db, db.*, jdbc.*, ...)
//    change nothing in a simulated run and are accepted silently;
//  - properties that would change the run in a way this driver does not
//    model are errors: zipfianconstant (a fork's knob; YCSB fixes 0.99),
//    fieldlengthdistribution=histogram, a workload class other than
//    CoreWorkload, core_workload_insertion_retry_limit > 0;
//  - any other property is ignored with one warning per name, as YCSB
//    ignores properties nobody reads.
//
// Checks beyond each value's own range (errors "<where>: <property>:
// problem", <where> being "file:line" for the property file, the `set`
// key, or `path` for a YCSB default):
//  - the five operation proportions are weights: each >= 0 and their sum
//    > 0; they are normalized to their sum, as YCSB's DiscreteGenerator
//    does (0.5/0.5 and 1/1 are the same mix);
//  - recordcount >= 1 unless the run only inserts (reads, updates, scans
//    and read-modify-writes choose among the loaded records);
//    insertstart + insertcount <= recordcount, as YCSB requires;
//  - operationcount 0 (YCSB: no bound) needs maxexecutiontime;
//  - dataintegrity needs fieldlengthdistribution=constant (as YCSB);
//  - minfieldlength <= fieldlength, minscanlength <= maxscanlength;
//    a record (fieldcount x fieldlength) at most kMaxRecordBytes;
//  - table and fieldnameprefix are plain SQL names ([A-Za-z_][A-Za-z0-9_]*,
//    the table not starting with "sqlite_").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"

namespace host::sqlite {

struct YcsbExponentialProperties {
  double percentile = 95;
  double frac = 0.8571428571;
  static void Describe(sim::Schema<YcsbExponentialProperties>& s);
};

// YCSB's properties, named as YCSB names them. In-class values equal the
// declared defaults, which are YCSB's.
struct YcsbProperties {
  std::string workload = "site.ycsb.workloads.CoreWorkload";
  uint64_t recordcount = 0;
  uint64_t operationcount = 0;
  uint32_t threadcount = 1;
  double target = 0;
  uint64_t maxexecutiontime = 0;  // seconds
  bool dotransactions = true;
  uint64_t insertstart = 0;
  int64_t insertcount = -1;  // -1: recordcount - insertstart
  uint32_t fieldcount = 10;
  uint64_t fieldlength = 100;
  uint64_t minfieldlength = 1;
  std::string fieldlengthdistribution = "constant";
  std::string fieldnameprefix = "field";
  bool readallfields = true;
  bool readallfieldsbyname = false;
  bool writeallfields = false;
  bool dataintegrity = false;
  double readproportion = 0.95;
  double updateproportion = 0.05;
  double insertproportion = 0;
  double scanproportion = 0;
  double readmodifywriteproportion = 0;
  std::string requestdistribution = "uniform";
  uint64_t minscanlength = 1;
  uint64_t maxscanlength = 1000;
  std::string scanlengthdistribution = "uniform";
  std::string insertorder = "hashed";
  uint32_t zeropadding = 1;
  std::string table = "usertable";
  double hotspotdatafraction = 0.2;
  double hotspotopnfraction = 0.8;
  YcsbExponentialProperties exponential;
  uint32_t core_workload_insertion_retry_limit = 0;
  uint64_t core_workload_insertion_retry_interval = 3;

  static void Describe(sim::Schema<YcsbProperties>& s);
};

// Largest record (fieldcount x fieldlength) a run may use.
inline constexpr uint64_t kMaxRecordBytes = uint64_t{64} << 20;

// What ResolveYcsb() reads.
struct YcsbInputs {
  std::string properties;         // path of the property file; "" = none
  std::vector<std::string> set;   // "name=value"
  uint64_t recordcount = 0;       // 0 = leave as resolved
  uint64_t operationcount = 0;
  uint32_t threadcount = 0;
};

struct YcsbSpec {
  YcsbProperties p;
  // Derived from p.
  uint64_t insertcount = 0;    // records the load inserts, from key insertstart
  uint32_t threads = 1;        // threadcount, at most operationcount (as YCSB)
  bool ordered_keys = false;   // insertorder=ordered
  sim::SimTime max_execution;  // 0 = none
  // Where each property that was given came from: "file:line", the `set`
  // key path, or the typed key's path.
  std::map<std::string, std::string> origin;
  // One line per ignored unknown property ("<where>: ...").
  std::vector<std::string> warnings;

  // True when the run phase only inserts.
  bool InsertOnly() const;
  // Operations thread `t` of `threads` runs (YCSB's split: the first
  // operationcount % threads threads take one more); 0 = no bound.
  uint64_t OpsOfThread(uint32_t t) const;
};

// Resolves `in`; `path` is the config section ("workload.ycsb") that names
// the set and typed keys in messages.
sim::Result<YcsbSpec> ResolveYcsb(const YcsbInputs& in, std::string_view path);

}  // namespace host::sqlite
