#include "host/fsworkload/txbench.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/fsworkload_test_util.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using testing::Rig;

TxbenchConfig Tb() { return sim::MakeDefault<TxbenchConfig>(); }

TEST(TxbenchConfigTest, ValidateNamesTheKey) {
  TxbenchConfig c = Tb();
  EXPECT_TRUE(c.Validate("w").ok());
  c.threads = 4;
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.files: 1 files for 4 threads"));
  c = Tb();
  c.write_size = sim::Bytes{8ull << 20};
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.write_size:"));
  c = Tb();
  c.file_size = sim::Bytes{0};
  c.write_size = sim::Bytes{8ull << 20};
  EXPECT_TRUE(c.Validate("w").ok()) << "appends to new files have no size bound";
  c.dir = "rel";
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.dir: 'rel' is not an absolute path"));
}

// fsync mode on any file system: each round writes `writes` random blocks
// of the preallocated file and fsyncs it.
TEST(TxbenchTest, FsyncModeWritesAndSyncsEachRound) {
  Rig rig;
  TxbenchConfig c = Tb();
  c.mode = "fsync";
  c.transactions = 50;
  c.files = 2;
  c.threads = 2;
  auto w = TxbenchWorkload::Create(c, rig.Env(), "workload.txbench");
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_TRUE(rig.Run(**w));
  ASSERT_TRUE((*w)->run_status().ok()) << (*w)->run_status().message();
  EXPECT_EQ((*w)->txns(), 100u);  // per file
  EXPECT_EQ(rig.Stat("workload.fs.fsync.calls"), 100);
  EXPECT_EQ(rig.Stat("workload.fs.pwrite.calls"), 300);
  EXPECT_EQ(rig.Stat("workload.txbench.txns"), 100);
  EXPECT_GT(rig.Stat("workload.txbench.txn_per_s"), 0);
}

// A file system without transactions: the run stops with a clear error.
TEST(TxbenchTest, TransactionsOnAFileSystemWithoutThemFailClearly) {
  for (const char* mode : {"set", "atomic"}) {
    Rig rig;
    TxbenchConfig c = Tb();
    c.mode = mode;
    c.transactions = 5;
    auto w = TxbenchWorkload::Create(c, rig.Env(), "workload.txbench");
    ASSERT_TRUE(w.ok());
    rig.Run(**w);
    EXPECT_THAT((*w)->run_status().message(), HasSubstr("the file system has no transactions (EOPNOTSUPP)")) << mode;
    EXPECT_EQ((*w)->txns(), 0u);
  }
}

}  // namespace
}  // namespace host
