#include "host/fsworkload/filebench_script.h"

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/fsworkload/filebench_personalities.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadShared(const std::string& name) {
  std::ifstream in(std::string(FLASHSTACK_SHARED_DIR) + "/traces/workloads/filebench/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const FilebenchScript& Builtin(std::string_view name, std::string_view variant) {
  static std::map<std::string, FilebenchScript>* cache = new std::map<std::string, FilebenchScript>();
  const std::string key = std::string(name) + "/" + std::string(variant);
  auto it = cache->find(key);
  if (it == cache->end()) {
    sim::Result<const Personality*> p = FindPersonality(name, variant);
    CHECK(p.ok()) << p.status().message();
    sim::Result<FilebenchScript> s = ParseFilebenchScript((*p)->script, key);
    CHECK(s.ok()) << s.status().message();
    it = cache->emplace(key, std::move(s).value()).first;
  }
  return it->second;
}

TEST(FilebenchScriptTest, EveryBuiltinParses) {
  for (const Personality& p : BuiltinPersonalities()) {
    sim::Result<FilebenchScript> s = ParseFilebenchScript(p.script, p.name);
    ASSERT_TRUE(s.ok()) << p.name << "/" << p.variant << ": " << s.status().message();
    EXPECT_GT(s->TotalThreads(), 0u) << p.name;
    EXPECT_TRUE(s->variables.count("dir")) << p.name << " must set $dir";
  }
  EXPECT_EQ(BuiltinPersonalities().size(), 22u);
  EXPECT_EQ(PersonalityNames().size(), 12u);
}

TEST(FilebenchScriptTest, StockParametersMatchFilebench) {
  struct Want {
    const char* name;
    uint32_t threads;
    uint64_t entries;
    double dirwidth;
    double mean;
    uint32_t prealloc;
    size_t flowops;
  };
  const Want wants[] = {
      {"varmail", 16, 1000, 1000000, 16384, 80, 13},   {"fileserver", 50, 10000, 20, 131072, 80, 11},
      {"webserver", 100, 1000, 20, 16384, 100, 31},    {"webproxy", 100, 10000, 1000000, 16384, 80, 20},
      {"createfiles", 16, 50000, 100, 16384, 0, 3},    {"deletefiles", 16, 5000, 100, 16384, 100, 3},
      {"copyfiles", 1, 1000, 20, 16384, 100, 6},
  };
  for (const Want& w : wants) {
    const FilebenchScript& s = Builtin(w.name, "stock");
    SCOPED_TRACE(w.name);
    EXPECT_EQ(s.TotalThreads(), w.threads);
    const FilesetDef& f = s.filesets[0];
    EXPECT_EQ(f.entries, w.entries);
    EXPECT_EQ(f.dirwidth, w.dirwidth);
    EXPECT_EQ(f.size_mean, w.mean);
    EXPECT_EQ(f.size_gamma, 1.5);
    EXPECT_EQ(f.prealloc_percent, w.prealloc);
    EXPECT_EQ(s.processes[0].threads[0].flowops.size(), w.flowops);
  }
  const FilebenchScript& oltp = Builtin("oltp", "stock");
  EXPECT_EQ(oltp.TotalThreads(), 211u);  // 1 log writer, 10 DB writers, 200 shadows
  EXPECT_EQ(oltp.filesets[0].entries, 10u);
  EXPECT_EQ(oltp.filesets[0].size_mean, 10.0 * (1 << 20));
  EXPECT_TRUE(oltp.processes[1].threads[0].flowops[0].dsync);
  EXPECT_EQ(oltp.processes[1].threads[0].flowops[0].iters, 100u);
  EXPECT_TRUE(oltp.processes[2].threads[0].flowops[0].opennext);
  EXPECT_EQ(oltp.run_time, sim::Sec(60));
  const FilebenchScript& mk = Builtin("makedirs", "stock");
  EXPECT_EQ(mk.filesets[0].leafdirs, 10000u);
  EXPECT_FALSE(mk.filesets[0].prealloc);
  EXPECT_EQ(mk.mode, RunMode::kFirstDone);
  EXPECT_TRUE(Builtin("removedirs", "stock").filesets[0].prealloc);
  EXPECT_EQ(Builtin("varmail", "stock").run_time, sim::Sec(60));
  EXPECT_EQ(Builtin("webproxy", "stock").run_time, sim::SimTime::Zero());  // "run" without a time
}

TEST(FilebenchScriptTest, F2fsjVariantsFollowTheirEvaluation) {
  const FilebenchScript& v = Builtin("varmail", "f2fsj");
  EXPECT_EQ(v.TotalThreads(), 1u);
  EXPECT_EQ(v.filesets[0].entries, 250000u);
  EXPECT_EQ(v.filesets[0].dirwidth, 100);
  EXPECT_EQ(v.filesets[0].size_mean, 16384);
  EXPECT_TRUE(v.filesets[0].paralloc);
  EXPECT_EQ(v.mode, RunMode::kAllDone);
  EXPECT_EQ(v.processes[0].threads[0].flowops[2].kind, FlowopKind::kAppendFile);
  EXPECT_EQ(v.processes[0].threads[0].flowops.back().kind, FlowopKind::kFinishOnCount);
  EXPECT_EQ(v.processes[0].threads[0].flowops.back().value, 300000u);
  EXPECT_EQ(Builtin("fileserver", "f2fsj").processes[0].threads[0].flowops.back().value, 1600000u);
  EXPECT_EQ(Builtin("webserver", "f2fsj").processes[0].threads[0].flowops.back().value, 12800000u);
  EXPECT_EQ(Builtin("webproxy", "f2fsj").processes[0].threads[0].flowops.back().value, 4000000u);
  const FilebenchScript& o = Builtin("oltp", "f2fsj");
  EXPECT_EQ(o.filesets[0].entries, 800u);
  EXPECT_FALSE(o.processes[0].threads[0].flowops[0].dsync);
  EXPECT_FALSE(o.processes[1].threads[0].flowops[0].dsync);
  EXPECT_EQ(o.run_time, sim::Sec(120));
  EXPECT_EQ(Builtin("createfiles", "f2fsj").filesets[0].entries, 1000000u);
  EXPECT_EQ(Builtin("createfiles", "f2fsj").filesets[0].size_mean, 4096);
  EXPECT_EQ(Builtin("makedirs", "f2fsj").filesets[0].leafdirs, 2500000u);
  EXPECT_EQ(Builtin("removedirs", "f2fsj").filesets[0].leafdirs, 1000000u);
  EXPECT_EQ(Builtin("createfiles_empty", "f2fsj").filesets[0].size_mean, 0);
  EXPECT_FALSE(FindPersonality("createfiles_empty", "stock").ok());
}

// The shared copies of filebench's .f files parse to the same model as the
// built-in stock personalities.
TEST(FilebenchScriptTest, SharedFilesMatchTheBuiltins) {
  for (const char* name : {"varmail", "fileserver", "webserver", "webproxy", "oltp"}) {
    SCOPED_TRACE(name);
    const std::string text = ReadShared(std::string(name) + ".f");
    ASSERT_FALSE(text.empty());
    sim::Result<FilebenchScript> shared = ParseFilebenchScript(text, name);
    ASSERT_TRUE(shared.ok()) << shared.status().message();
    const FilebenchScript& mine = Builtin(name, "stock");
    ASSERT_EQ(shared->filesets.size(), mine.filesets.size());
    for (size_t i = 0; i < mine.filesets.size(); ++i) {
      const FilesetDef& a = shared->filesets[i];
      const FilesetDef& b = mine.filesets[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.entries, b.entries);
      EXPECT_EQ(a.dirwidth, b.dirwidth);
      EXPECT_EQ(a.size_mean, b.size_mean);
      EXPECT_EQ(a.size_gamma, b.size_gamma);
      EXPECT_EQ(a.prealloc_percent, b.prealloc_percent);
      EXPECT_EQ(a.reuse, b.reuse);
    }
    ASSERT_EQ(shared->processes.size(), mine.processes.size());
    for (size_t p = 0; p < mine.processes.size(); ++p) {
      EXPECT_EQ(shared->processes[p].instances, mine.processes[p].instances);
      ASSERT_EQ(shared->processes[p].threads.size(), mine.processes[p].threads.size());
      for (size_t t = 0; t < mine.processes[p].threads.size(); ++t) {
        const ThreadDef& a = shared->processes[p].threads[t];
        const ThreadDef& b = mine.processes[p].threads[t];
        EXPECT_EQ(a.instances, b.instances);
        ASSERT_EQ(a.flowops.size(), b.flowops.size());
        for (size_t f = 0; f < a.flowops.size(); ++f) {
          EXPECT_EQ(a.flowops[f].kind, b.flowops[f].kind) << a.flowops[f].name;
          EXPECT_EQ(a.flowops[f].name, b.flowops[f].name);
          EXPECT_EQ(a.flowops[f].fd, b.flowops[f].fd);
          EXPECT_EQ(a.flowops[f].iosize, b.flowops[f].iosize);
          EXPECT_EQ(a.flowops[f].fileset, b.flowops[f].fileset);
          EXPECT_EQ(a.flowops[f].random, b.flowops[f].random);
          EXPECT_EQ(a.flowops[f].dsync, b.flowops[f].dsync);
          EXPECT_EQ(a.flowops[f].value, b.flowops[f].value);
        }
      }
    }
    EXPECT_EQ(shared->mode, mine.mode);
    EXPECT_EQ(shared->eventrate, mine.eventrate);
  }
}

TEST(FilebenchScriptTest, OverridesReplaceSetValues) {
  const Personality* p = FindPersonality("varmail", "stock").value();
  sim::Result<FilebenchScript> s =
      ParseFilebenchScript(p->script, "v", {{"nfiles", "77"}, {"nthreads", "3"}, {"filesize", "32k"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->filesets[0].entries, 77u);
  EXPECT_EQ(s->TotalThreads(), 3u);
  EXPECT_EQ(s->filesets[0].size_mean, 32768);
  EXPECT_EQ(s->filesets[0].size_gamma, 1.5);  // a plain size still draws gamma(1.5) sizes
  sim::Result<FilebenchScript> bad = ParseFilebenchScript(p->script, "v", {{"nshadows", "3"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("sets no variable $nshadows"));
  EXPECT_THAT(bad.status().message(), HasSubstr("$nfiles"));
}

TEST(FilebenchScriptTest, NumbersUseBinarySuffixes) {
  EXPECT_EQ(ParseFilebenchNumber("16k").value(), 16384);
  EXPECT_EQ(ParseFilebenchNumber("1m").value(), 1048576);
  EXPECT_EQ(ParseFilebenchNumber("2G").value(), 2147483648.0);
  EXPECT_EQ(ParseFilebenchNumber("0k").value(), 0);
  EXPECT_EQ(ParseFilebenchNumber("1.5").value(), 1.5);
  EXPECT_FALSE(ParseFilebenchNumber("k").ok());
  EXPECT_FALSE(ParseFilebenchNumber("12q").ok());
  EXPECT_FALSE(ParseFilebenchNumber("").ok());
}

TEST(FilebenchScriptTest, ErrorsNameSourceAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string fs = "define fileset name=f,path=/t,size=1k,entries=10,dirwidth=10\n";
  const Case cases[] = {
      {"set $a=1\nfrobnicate now\n", "s.f:2: unsupported statement: frobnicate"},
      {"define fileset name=f,path=$nope,size=1,entries=1,dirwidth=2\n", "s.f:1: undefined variable: $nope"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop teleport name=x\n }\n}\n",
       "s.f:6: unsupported flowop type: teleport"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop read name=x,filesetname=f,iosize=1k,bogus=1\n }\n}\n",
       "s.f:6: unsupported attribute for flowop read: bogus"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop read name=x,filesetname=g,iosize=1k\n }\n}\n",
       "s.f:6: unknown fileset: g"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop read name=x,filesetname=f\n }\n}\n",
       "s.f:6: read needs iosize: x"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop sempost name=x,target=nowhere,value=1\n }\n}\n",
       "s.f:6: unknown target flowop: nowhere"},
      {fs + "define process name=p\n{\n thread name=t\n {\n flowop closefile name=c,fd=1\n",
       "s.f:4: thread not closed with '}': t"},
      {"define fileset name=f,path=/t,size=1k,entries=10\n", "s.f:1: fileset needs dirwidth > 1: f"},
      {"define fileset name=f,path=/t,size=1k,entries=10,dirwidth=x\n", "s.f:1: bad number for 'dirwidth': x"},
      {"set $s=cvar(type=cvar-normal,parameters=mean:1)\ndefine fileset name=f,path=/t,size=$s,entries=1,dirwidth=2\n",
       "s.f:2: unsupported cvar"},
      {"set mode quit sometimes\n", "s.f:1: unknown run mode"},
      {"run forever\n", "s.f:1: bad run time: forever"},
      {"set $x=1\n", "defines no"},
  };
  for (const Case& c : cases) {
    sim::Result<FilebenchScript> s = ParseFilebenchScript(c.text, "s.f");
    if (c.message == "defines no") {
      EXPECT_TRUE(s.ok());  // a script without threads parses; the workload rejects it
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_THAT(s.status().message(), HasSubstr(c.message)) << c.text;
    EXPECT_THAT(s.status().message(), StartsWith("s.f:")) << c.text;
  }
}

TEST(FilebenchScriptTest, ContinuationLinesCommentsAndFileDefinitions) {
  const std::string text = R"(
# a comment
set $n=4   # trailing comment
define file name=one,path=/data,size=8k,prealloc
define process name=p,instances=2
{
  thread name=t,instances=$n,memsize=1m,useism
  {
    flowop write name=w,filesetname=one,
        iosize=4k,random,
        dsync
    flowop delay name=d,value=1
  }
}
echo "done # not a comment"
run 5
)";
  sim::Result<FilebenchScript> s = ParseFilebenchScript(text, "c.f");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->TotalThreads(), 8u);
  EXPECT_TRUE(s->filesets[0].single_file);
  EXPECT_EQ(s->filesets[0].entries, 1u);
  EXPECT_EQ(s->filesets[0].size_gamma, 0);
  const FlowopDef& w = s->processes[0].threads[0].flowops[0];
  EXPECT_TRUE(w.random);
  EXPECT_TRUE(w.dsync);
  EXPECT_EQ(w.iosize, 4096u);
  EXPECT_EQ(w.line, 9);
  EXPECT_EQ(s->run_time, sim::Sec(5));
}

}  // namespace
}  // namespace host
