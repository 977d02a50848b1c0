// Reading fio job files (fio's INI format) into FioConfig jobs.
//
// A job file holds sections "[name]": [global] sections give options to
// every job after them (a later [global] adds to or overrides an earlier
// one), every other section is one job. Lines "key=value" or a bare "key"
// (a flag) set options; lines starting with '#' or ';' and text after
// " #" or " ;" are comments. Each job starts from `base` (the YAML
// workload.fio section), then the [global] options, then its own, in file
// order.
//
// Options honoured (fio's names and units: sizes with k/m/g/t suffixes
// in powers of 1024, times in seconds unless suffixed us/ms/s/m/h/d):
//   rw/readwrite, rwmixread, rwmixwrite, bs/blocksize, bssplit,
//   blockalign/ba, iodepth, numjobs, offset, size, io_size/io_limit,
//   runtime, time_based, ramp_time, startdelay, rate, rate_iops, fsync,
//   random_distribution (random, zipf:<theta>, zoned:<a>/<s>:...),
//   ioengine (libaio, io_uring, posixaio; sync, psync, pvsync, pvsync2,
//   vsync run at iodepth 1), direct=1, norandommap, randrepeat (the run
//   seed draws every random number), loops=1, filename (the simulated
//   device is the target);
//   and, without effect on the I/O, the reporting options name,
//   description, group_reporting, new_group, thread(s), write_*_log,
//   log_avg_msec, per_job_logs, lat/clat_percentiles, percentile_list,
//   unified_rw_reporting.
// Without time_based a job whose size is given in bytes ends after size
// bytes per job clone (io_size = size x numjobs), as fio's does. Every
// stonewall / wait_for_previous (the job starts once every earlier job
// finished) and wait_for=<job> (once that earlier job finished), with
// startdelay still counted from the run's start as fio does. Every
// other option, and values these cannot honour (direct=0,
// steady-state detection, per-direction "a,b" values, ...), is an error
// "<file>:<line>: <option>: <why>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/workload/fio_config.h"
#include "sim/status.h"
#include "sim/time.h"

namespace host {

struct FioJob {
  std::string name;  // the section name
  int line = 0;      // line of its "[name]" header
  FioConfig cfg;
  sim::SimTime startdelay;  // the job starts this long after the run
  // Section names of the jobs it waits for (stonewall, wait_for_previous:
  // every earlier job; wait_for=<name>: that one).
  std::vector<std::string> after = {};
};

// `display` names the file in messages. No job at all is an error.
sim::Result<std::vector<FioJob>> ParseFioJobFile(std::string_view text, const std::string& display,
                                                 const FioConfig& base);
// Reads `path` and parses it.
sim::Result<std::vector<FioJob>> ReadFioJobFile(const std::string& path, const FioConfig& base);

}  // namespace host
