#include "host/fsworkload/postmark.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/fsworkload_test_util.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using testing::Rig;

PostmarkConfig Pm() { return sim::MakeDefault<PostmarkConfig>(); }

std::unique_ptr<PostmarkWorkload> Make(const PostmarkConfig& c, Rig& rig) {
  auto w = PostmarkWorkload::Create(c, rig.Env(), "workload.postmark");
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(w).value() : nullptr;
}

double Total(const Rig& rig, const char* what) { return rig.Stat(std::string("workload.postmark.") + what); }

TEST(PostmarkTest, DefaultRunBalancesItsBooks) {
  Rig rig;
  auto w = Make(Pm(), rig);
  ASSERT_TRUE(rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok());
  EXPECT_FALSE(w->ran_out_of_files());
  EXPECT_EQ(Total(rig, "transactions"), 500);
  // Every transaction reads or appends, and creates or deletes.
  EXPECT_EQ(Total(rig, "files_read") + Total(rig, "files_appended"), 500);
  const double created_in_tx = Total(rig, "files_created") - 500;
  EXPECT_GT(created_in_tx, 200);
  EXPECT_LT(created_in_tx, 300);  // bias 5: half creates
  // Everything created is deleted by the end; only the location is left.
  EXPECT_EQ(Total(rig, "files_created"), Total(rig, "files_deleted"));
  EXPECT_EQ(rig.memfs.inode_count(), 2u);
  EXPECT_EQ(rig.memfs.used_bytes(), 0u);
  EXPECT_EQ(rig.OpCount("create"), Total(rig, "files_created"));
  EXPECT_EQ(rig.OpCount("delete"), Total(rig, "files_deleted"));
  EXPECT_EQ(rig.OpCount("read"), Total(rig, "files_read"));
  EXPECT_EQ(rig.OpCount("append"), Total(rig, "files_appended"));
  // Sizes are uniform in [500, 10000].
  const double mean = rig.Stat("workload.op.create.bytes") / rig.OpCount("create");
  EXPECT_NEAR(mean, 5250, 400);
  EXPECT_EQ(rig.Stat("workload.fs.unlink.calls"), Total(rig, "files_deleted"));
  EXPECT_GT(rig.Stat("workload.postmark.transactions_per_sec"), 0);
}

// fsync: one per file written (creates and appends), none without it.
TEST(PostmarkTest, FsyncEveryFileWritten) {
  for (bool fsync : {false, true}) {
    Rig rig;
    PostmarkConfig c = Pm();
    c.fsync = fsync;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    ASSERT_TRUE(w->run_status().ok());
    const double written = Total(rig, "files_created") + Total(rig, "files_appended");
    EXPECT_GT(written, 500);
    EXPECT_EQ(rig.Stat("workload.fs.fsync.calls"), fsync ? written : 0) << "fsync " << fsync;
  }
}

TEST(PostmarkTest, BufferedAndUnbufferedCallSizes) {
  for (bool buffered : {true, false}) {
    Rig rig;
    PostmarkConfig c = Pm();
    c.size_low = sim::Bytes{10000};
    c.size_high = sim::Bytes{10000};
    c.number = 50;
    c.transactions = 50;
    c.bias_read = 10;     // always read
    c.bias_create = -1;   // never create/delete
    c.buffered = buffered;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    // 10000 bytes: 3 stdio-buffer calls (4096, 4096, 1808), or 19 blocks of
    // 512 and the 272-byte remainder.
    const double per_file = buffered ? 3 : 20;
    EXPECT_EQ(rig.Stat("workload.fs.write.calls"), 50 * per_file) << buffered;
    EXPECT_EQ(rig.Stat("workload.fs.read.calls"), 50 * per_file) << buffered;
    EXPECT_EQ(rig.Stat("workload.bytes_read"), 50 * 10000.0);
    EXPECT_EQ(Total(rig, "files_appended"), 0);
    EXPECT_EQ(Total(rig, "files_read"), 50);
  }
}

TEST(PostmarkTest, AppendsStopAtTheLargestSize) {
  Rig rig;
  PostmarkConfig c = Pm();
  c.number = 20;
  c.transactions = 400;
  c.bias_read = 0;  // always append
  c.bias_create = -1;
  auto w = Make(c, rig);
  ASSERT_TRUE(rig.Run(*w));
  // Appends grow files up to size_high; once there they are skipped.
  EXPECT_GT(Total(rig, "files_appended"), 20);
  EXPECT_LT(Total(rig, "files_appended"), 400);
  const double bytes = rig.Stat("workload.op.create.bytes") + rig.Stat("workload.op.append.bytes");
  EXPECT_LE(bytes, 20 * 10000.0);
}

TEST(PostmarkTest, SubdirectoriesInstancesAndRunningOut) {
  {
    Rig rig;
    PostmarkConfig c = Pm();
    c.subdirectories = 4;
    c.instances = 3;
    c.number = 40;
    c.transactions = 100;
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    EXPECT_EQ(w->thread_count(), 3u);
    EXPECT_EQ(Total(rig, "transactions"), 300);
    fs::testing::SyncFs s(&rig.q, &rig.memfs);
    EXPECT_EQ(s.Readdir("/postmark").value, (std::vector<std::string>{"p0", "p1", "p2"}));
    EXPECT_TRUE(s.Readdir("/postmark/p1").value.empty());  // subdirectories removed after the run
  }
  {
    Rig rig;
    PostmarkConfig c = Pm();
    c.number = 5;
    c.transactions = 1000;
    c.bias_create = 0;  // always delete
    auto w = Make(c, rig);
    ASSERT_TRUE(rig.Run(*w));
    EXPECT_TRUE(w->ran_out_of_files());
    EXPECT_EQ(Total(rig, "transactions"), 5);
  }
}

TEST(PostmarkTest, Validation) {
  PostmarkConfig c = Pm();
  c.size_high = sim::Bytes{100};
  EXPECT_THAT(c.Validate("workload.postmark").message(),
              HasSubstr("workload.postmark.size_high: 100 is below size_low (500)"));
  c = Pm();
  c.location = "pm";
  EXPECT_THAT(c.Validate("p").message(), HasSubstr("p.location: must be an absolute path"));
  const PostmarkConfig d = Pm();
  EXPECT_EQ(d.number, 500u);
  EXPECT_EQ(d.transactions, 500u);
  EXPECT_EQ(d.size_low.value, 500u);
  EXPECT_EQ(d.size_high.value, 10000u);
  EXPECT_EQ(d.read_block.value, 512u);
  EXPECT_EQ(d.bias_read, 5);
  EXPECT_TRUE(d.buffered);
}

}  // namespace
}  // namespace host
