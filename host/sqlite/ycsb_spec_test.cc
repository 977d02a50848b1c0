#include "host/sqlite/ycsb_spec.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config.h"

namespace host::sqlite {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kPath = "workload.ycsb";

std::string TempFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("ycsb_spec_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

sim::Result<YcsbSpec> FromText(const std::string& text, std::vector<std::string> set = {}) {
  YcsbInputs in;
  in.properties = TempFile("w", text);
  in.set = std::move(set);
  return ResolveYcsb(in, kPath);
}

std::string ErrorOf(const std::string& text, std::vector<std::string> set = {}) {
  auto r = FromText(text, std::move(set));
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(YcsbSpecTest, DefaultsAreYcsbs) {
  const YcsbProperties d = sim::MakeDefault<YcsbProperties>();
  const YcsbProperties c;
  EXPECT_EQ(c.recordcount, d.recordcount);
  EXPECT_EQ(c.fieldcount, d.fieldcount);
  EXPECT_EQ(c.fieldlength, d.fieldlength);
  EXPECT_EQ(c.readproportion, d.readproportion);
  EXPECT_EQ(c.updateproportion, d.updateproportion);
  EXPECT_EQ(c.requestdistribution, d.requestdistribution);
  EXPECT_EQ(c.maxscanlength, d.maxscanlength);
  EXPECT_EQ(c.exponential.frac, d.exponential.frac);
  EXPECT_EQ(c.insertcount, d.insertcount);
  // CoreWorkload's documented defaults.
  EXPECT_EQ(d.fieldcount, 10u);
  EXPECT_EQ(d.fieldlength, 100u);
  EXPECT_EQ(d.fieldlengthdistribution, "constant");
  EXPECT_TRUE(d.readallfields);
  EXPECT_FALSE(d.writeallfields);
  EXPECT_DOUBLE_EQ(d.readproportion, 0.95);
  EXPECT_DOUBLE_EQ(d.updateproportion, 0.05);
  EXPECT_EQ(d.requestdistribution, "uniform");
  EXPECT_EQ(d.maxscanlength, 1000u);
  EXPECT_EQ(d.scanlengthdistribution, "uniform");
  EXPECT_EQ(d.insertorder, "hashed");
  EXPECT_EQ(d.table, "usertable");
  EXPECT_EQ(d.threadcount, 1u);
}

TEST(YcsbSpecTest, ShippedWorkloadsResolve) {
  const std::string dir = std::string(FLASHSTACK_SHARED_DIR) + "/traces/workloads/ycsb/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is not there";
  struct Case {
    const char* file;
    double read, update, insert, scan, rmw;
    const char* dist;
  };
  for (const Case& c : {Case{"workloada", 0.5, 0.5, 0, 0, 0, "zipfian"}, Case{"workloadb", 0.95, 0.05, 0, 0, 0, "zipfian"},
                        Case{"workloadc", 1, 0, 0, 0, 0, "zipfian"}, Case{"workloadd", 0.95, 0, 0.05, 0, 0, "latest"},
                        Case{"workloade", 0, 0, 0.05, 0.95, 0, "zipfian"},
                        Case{"workloadf", 0.5, 0, 0, 0, 0.5, "zipfian"}}) {
    YcsbInputs in;
    in.properties = dir + c.file;
    auto r = ResolveYcsb(in, kPath);
    ASSERT_TRUE(r.ok()) << c.file << ": " << r.status().message();
    const YcsbProperties& p = r->p;
    EXPECT_EQ(p.recordcount, 1000u) << c.file;
    EXPECT_EQ(p.operationcount, 1000u) << c.file;
    EXPECT_DOUBLE_EQ(p.readproportion, c.read) << c.file;
    EXPECT_DOUBLE_EQ(p.updateproportion, c.update) << c.file;
    EXPECT_DOUBLE_EQ(p.insertproportion, c.insert) << c.file;
    EXPECT_DOUBLE_EQ(p.scanproportion, c.scan) << c.file;
    EXPECT_DOUBLE_EQ(p.readmodifywriteproportion, c.rmw) << c.file;
    EXPECT_EQ(p.requestdistribution, c.dist) << c.file;
    EXPECT_EQ(r->insertcount, 1000u);
    EXPECT_TRUE(r->warnings.empty()) << c.file << ": " << r->warnings.front();
    EXPECT_THAT(r->origin.at("readproportion"), StartsWith(dir + c.file + ":"));
  }
  // workload E's own scan settings.
  YcsbInputs in;
  in.properties = dir + "workloade";
  auto e = ResolveYcsb(in, kPath);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->p.maxscanlength, 100u);
  // The template lists every core property, plus three that CoreWorkload
  // does not read: each warned about once, and ignored.
  in.properties = dir + "workload_template";
  auto t = ResolveYcsb(in, kPath);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->p.recordcount, 1000000u);
  EXPECT_EQ(t->p.operationcount, 3000000u);
  ASSERT_EQ(t->warnings.size(), 3u);
  EXPECT_THAT(t->warnings[0], HasSubstr("'maxscanrate'"));
  EXPECT_THAT(t->warnings[0], StartsWith(dir + "workload_template:"));
  // A workload class other than CoreWorkload is refused.
  in.properties = dir + "tsworkloada";
  auto ts = ResolveYcsb(in, kPath);
  ASSERT_FALSE(ts.ok());
  EXPECT_THAT(ts.status().message(), HasSubstr("workload: 'site.ycsb.workloads.TimeSeriesWorkload'"));
}

TEST(YcsbSpecTest, SetAndTypedKeysOverrideTheFileInOrder) {
  YcsbInputs in;
  in.properties = TempFile("o", "recordcount=10\noperationcount=20\nthreadcount=2\nfieldcount=3\n");
  in.set = {"recordcount = 30 ", "fieldcount=4", "fieldcount=5", "exponential.percentile=90"};
  in.operationcount = 50;
  auto r = ResolveYcsb(in, kPath);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->p.recordcount, 30u);
  EXPECT_EQ(r->p.operationcount, 50u);
  EXPECT_EQ(r->p.threadcount, 2u);
  EXPECT_EQ(r->p.fieldcount, 5u);
  EXPECT_DOUBLE_EQ(r->p.exponential.percentile, 90);
  EXPECT_EQ(r->origin.at("recordcount"), "workload.ycsb.set");
  EXPECT_EQ(r->origin.at("operationcount"), "workload.ycsb.operationcount");
  EXPECT_EQ(r->origin.at("threadcount"), in.properties + ":3");
  // No file at all: YCSB's defaults plus what is set.
  YcsbInputs none;
  none.recordcount = 5;
  none.operationcount = 7;
  auto d = ResolveYcsb(none, kPath);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->p.requestdistribution, "uniform");
  EXPECT_EQ(d->threads, 1u);
}

TEST(YcsbSpecTest, ThreadsAndOperationsSplitAsYcsbDoes) {
  auto r = FromText("recordcount=10\noperationcount=10\nthreadcount=4\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->threads, 4u);
  EXPECT_EQ(r->OpsOfThread(0), 3u);
  EXPECT_EQ(r->OpsOfThread(1), 3u);
  EXPECT_EQ(r->OpsOfThread(2), 2u);
  EXPECT_EQ(r->OpsOfThread(3), 2u);
  auto few = FromText("recordcount=10\noperationcount=3\nthreadcount=8\n");
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(few->threads, 3u) << "no more threads than operations";
}

TEST(YcsbSpecTest, BadValuesNameTheFileLineAndProperty) {
  const std::string file = TempFile("w", "");
  std::string m = ErrorOf("recordcount=10\noperationcount=10\n\nrequestdistribution=zipfain\n");
  EXPECT_THAT(m, HasSubstr("/w:4: requestdistribution: 'zipfain': not one of the choices"));
  EXPECT_THAT(m, HasSubstr("did you mean 'zipfian'"));
  m = ErrorOf("recordcount=ten\n");
  EXPECT_THAT(m, HasSubstr("/w:1: recordcount: 'ten': not an integer"));
  m = ErrorOf("recordcount=10\noperationcount=10\nscanlengthdistribution=latest\n");
  EXPECT_THAT(m, HasSubstr("/w:3: scanlengthdistribution:"));
  m = ErrorOf("recordcount=10\noperationcount=10\nfieldlengthdistribution=histogram\n");
  EXPECT_THAT(m, HasSubstr("/w:3: fieldlengthdistribution: histogram"));
  m = ErrorOf("recordcount=10\noperationcount=10\nzipfianconstant=0.5\n");
  EXPECT_THAT(m, HasSubstr("/w:3: zipfianconstant: not supported"));
  m = ErrorOf("recordcount=10\noperationcount=10\nreadproportion=-0.5\n");
  EXPECT_THAT(m, HasSubstr("/w:3: readproportion:"));
  m = ErrorOf("recordcount=10\noperationcount=10\nreadallfields=maybe\n");
  EXPECT_THAT(m, HasSubstr("/w:3: readallfields:"));
  m = ErrorOf("recordcount=10\noperationcount=10\ncore_workload_insertion_retry_limit=3\n");
  EXPECT_THAT(m, HasSubstr("/w:3: core_workload_insertion_retry_limit: not supported"));
  m = ErrorOf("recordcount=10\n", {"requestdistribution=zipfain"});
  EXPECT_THAT(m, StartsWith("workload.ycsb.set: requestdistribution: 'zipfain'"));
  m = ErrorOf("recordcount=10\n", {"operationcount"});
  EXPECT_THAT(m, StartsWith("workload.ycsb.set: 'operationcount' is not name=value"));
}

TEST(YcsbSpecTest, CrossChecks) {
  // Proportions: weights, normalized; all zero is an error naming them.
  std::string m = ErrorOf("recordcount=10\noperationcount=10\nreadproportion=0\nupdateproportion=0\n");
  EXPECT_THAT(m, HasSubstr("/w:3: readproportion: the operation proportions sum to 0"));
  EXPECT_THAT(m, HasSubstr("insertproportion (YCSB's default)"));
  EXPECT_TRUE(FromText("recordcount=10\noperationcount=10\nreadproportion=1\nupdateproportion=1\n").ok());
  // Records to choose from.
  m = ErrorOf("operationcount=10\n");
  EXPECT_THAT(m, StartsWith("workload.ycsb: recordcount: 0 records to choose from"));
  m = ErrorOf("recordcount=0\noperationcount=10\n");
  EXPECT_THAT(m, HasSubstr("/w:1: recordcount: 0 records"));
  auto insert_only =
      FromText("recordcount=0\noperationcount=10\nreadproportion=0\nupdateproportion=0\ninsertproportion=1\n");
  ASSERT_TRUE(insert_only.ok()) << insert_only.status().message();
  EXPECT_TRUE(insert_only->InsertOnly());
  m = ErrorOf("recordcount=10\noperationcount=10\ninsertstart=5\ninsertcount=6\n");
  EXPECT_THAT(m, HasSubstr("/w:4: insertcount: insertstart 5 + insertcount 6 exceed recordcount 10"));
  m = ErrorOf("recordcount=10\noperationcount=10\ninsertstart=11\n");
  EXPECT_THAT(m, HasSubstr("/w:3: insertstart: 11 is past recordcount 10"));
  auto part = FromText("recordcount=10\noperationcount=10\ninsertstart=4\n");
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(part->insertcount, 6u);
  // No bound on the run.
  m = ErrorOf("recordcount=10\n");
  EXPECT_THAT(m, HasSubstr("operationcount: 0 means no bound"));
  EXPECT_TRUE(FromText("recordcount=10\nmaxexecutiontime=2\n").ok());
  EXPECT_TRUE(FromText("recordcount=10\ndotransactions=false\n").ok()) << "a load needs no operations";
  // Field and scan lengths, names.
  m = ErrorOf("recordcount=10\noperationcount=1\ndataintegrity=true\nfieldlengthdistribution=uniform\n");
  EXPECT_THAT(m, HasSubstr("/w:3: dataintegrity: needs fieldlengthdistribution=constant"));
  m = ErrorOf("recordcount=10\noperationcount=1\nminfieldlength=50\nfieldlength=10\nfieldlengthdistribution=zipfian\n");
  EXPECT_THAT(m, HasSubstr("minfieldlength: 50 is larger than fieldlength 10"));
  m = ErrorOf("recordcount=10\noperationcount=1\nfieldcount=1000\nfieldlength=1048576\n");
  EXPECT_THAT(m, HasSubstr("/w:4: fieldlength: records of 1000 fields x 1048576 bytes"));
  m = ErrorOf("recordcount=10\noperationcount=1\nminscanlength=5\nmaxscanlength=4\n");
  EXPECT_THAT(m, HasSubstr("/w:3: minscanlength: 5 is larger than maxscanlength 4"));
  m = ErrorOf("recordcount=10\noperationcount=1\ntable=user table\n");
  EXPECT_THAT(m, HasSubstr("/w:3: table: 'user table' is not a plain SQL table name"));
  m = ErrorOf("recordcount=10\noperationcount=1\ntable=sqlite_master\n");
  EXPECT_THAT(m, HasSubstr("table: 'sqlite_master'"));
  m = ErrorOf("recordcount=10\noperationcount=1\nfieldnameprefix=9f\n");
  EXPECT_THAT(m, HasSubstr("fieldnameprefix: '9f'"));
}

TEST(YcsbSpecTest, UnknownPropertiesWarnOnceAndClientOnesAreSilent) {
  auto r = FromText(
      "recordcount=10\noperationcount=10\nmystery=1\nmystery=2\nmeasurementtype=hdrhistogram\n"
      "hdrhistogram.percentiles=50,99\ndb.url=jdbc:sqlite:x\njdbc.autocommit=true\nexporter=x\n"
      "fieldlengthhistogram=h.txt\nstatus.interval=1\n",
      {"mystery=3", "other=1"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_THAT(r->warnings[0], HasSubstr("/w:4: property 'mystery' is not one"));
  EXPECT_THAT(r->warnings[1], StartsWith("workload.ycsb.set: property 'other'"));
}

TEST(YcsbSpecTest, ValuesAreTrimmedAndBooleansStrict) {
  auto r = FromText("recordcount=10 \noperationcount = 10\t\nreadallfields=false  \ntable= t1 \n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->p.recordcount, 10u);
  EXPECT_FALSE(r->p.readallfields);
  EXPECT_EQ(r->p.table, "t1");
}

}  // namespace
}  // namespace host::sqlite
