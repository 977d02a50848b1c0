// The descriptor table and path parsing every file system model shares.
#include <iterator>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "fs/vfs/fd_table.h"
#include "fs/vfs/path.h"
#include "sim/rng.h"

namespace fs::vfs {
namespace {

TEST(FdTableTest, LowestFreeDescriptorFromThree) {
  FdTable<int> t;
  EXPECT_EQ(t.Open(10), 3);
  EXPECT_EQ(t.Open(11), 4);
  EXPECT_EQ(t.Open(12), 5);
  EXPECT_TRUE(t.Close(4));
  EXPECT_TRUE(t.Close(3));
  EXPECT_EQ(t.open_count(), 1u);
  EXPECT_EQ(t.Open(13), 3);  // the lowest free, not the last closed
  EXPECT_EQ(t.Open(14), 4);
  EXPECT_EQ(t.Open(15), 6);
  ASSERT_NE(t.Get(5), nullptr);
  EXPECT_EQ(*t.Get(5), 12);
  EXPECT_EQ(*t.Get(4), 14);
}

TEST(FdTableTest, OtherNumbersAreNotOpen) {
  FdTable<int> t;
  t.Open(1);
  for (Fd fd : {-1, 0, 1, 2, 4, 1000, INT32_MAX, INT32_MIN}) {
    EXPECT_EQ(t.Get(fd), nullptr) << fd;
    EXPECT_FALSE(t.Close(fd)) << fd;
  }
  EXPECT_TRUE(t.Close(3));
  EXPECT_FALSE(t.Close(3));  // twice
  EXPECT_EQ(t.Get(3), nullptr);
  EXPECT_EQ(t.open_count(), 0u);
}

TEST(FdTableTest, ForEachVisitsOpenDescriptorsInOrder) {
  FdTable<int> t;
  for (int i = 0; i < 5; ++i) t.Open(i);
  t.Close(4);
  std::string seen;
  t.ForEach([&](Fd fd, int v) { seen += std::to_string(fd) + "=" + std::to_string(v) + " "; });
  EXPECT_EQ(seen, "3=0 5=2 6=3 7=4 ");
}

// Random opens and closes against a reference: every open gets the lowest
// descriptor not open, across thousands of descriptors (several words of
// the free set's bitmap).
TEST(FdTableTest, OpensTakeTheLowestFreeOverRandomSteps) {
  FdTable<int> t;
  std::set<Fd> open;
  sim::Rng rng(5);
  for (int step = 0; step < 20000; ++step) {
    if (open.empty() || rng.Uniform(100) < (open.size() < 3000 ? 60u : 40u)) {
      Fd want = kFirstFd;
      while (open.count(want)) ++want;
      ASSERT_EQ(t.Open(step), want) << "step " << step;
      open.insert(want);
    } else {
      auto it = open.begin();
      std::advance(it, static_cast<long>(rng.Uniform(open.size())));
      ASSERT_TRUE(t.Close(*it)) << "step " << step;
      open.erase(it);
    }
    ASSERT_EQ(t.open_count(), open.size());
  }
}

TEST(ParsePathTest, Components) {
  const ParsedPath p = ParsePath("//a/./b//../c");
  EXPECT_EQ(p.err, Errno::kOk);
  ASSERT_EQ(p.dirs.size(), 3u);
  EXPECT_EQ(p.dirs[0], "a");
  EXPECT_EQ(p.dirs[1], "b");
  EXPECT_EQ(p.dirs[2], "..");
  EXPECT_EQ(p.last, "c");
  EXPECT_FALSE(p.dir_required);
  EXPECT_FALSE(p.is_root);
}

// More directories than ParsedPath keeps inline: the rest spill to the heap
// and the order holds, through a copy too.
TEST(ParsePathTest, DeepPathsKeepEveryDirectory) {
  std::string path;
  for (int i = 0; i < 3 * static_cast<int>(ParsedPath::kInlineDirs); ++i) path += "/d" + std::to_string(i) + "/.";
  path += "/leaf";
  const ParsedPath p = ParsePath(path);
  ASSERT_EQ(p.err, Errno::kOk);
  ASSERT_EQ(p.dirs.size(), 3 * ParsedPath::kInlineDirs);
  const ParsedPath copy = p;
  for (size_t i = 0; i < p.dirs.size(); ++i) {
    EXPECT_EQ(p.dirs[i], "d" + std::to_string(i));
    EXPECT_EQ(copy.dirs[i], p.dirs[i]);
  }
  EXPECT_EQ(p.last, "leaf");
}

TEST(ParsePathTest, RootTrailingSlashAndDots) {
  for (const char* root : {"/", "///"}) {
    const ParsedPath p = ParsePath(root);
    EXPECT_TRUE(p.is_root) << root;
    EXPECT_TRUE(p.dir_required) << root;
    EXPECT_TRUE(p.dirs.empty()) << root;
  }
  const ParsedPath t = ParsePath("/a/b/");
  EXPECT_EQ(t.last, "b");
  EXPECT_TRUE(t.dir_required);
  const ParsedPath d = ParsePath("/a/..");
  EXPECT_EQ(d.last, "..");
  EXPECT_TRUE(d.last_is_dot());
  EXPECT_EQ(ParsePath("a").last, "a");  // relative paths start at the root
}

TEST(ParsePathTest, Errors) {
  EXPECT_EQ(ParsePath("").err, Errno::kNoEnt);
  EXPECT_EQ(CheckName(std::string(255, 'x')), Errno::kOk);
  EXPECT_EQ(CheckName(std::string(256, 'x')), Errno::kNameTooLong);
  // Long components are the walk's to report, in walking order.
  EXPECT_EQ(ParsePath("/" + std::string(256, 'x') + "/a").err, Errno::kOk);
  std::string deep;
  while (deep.size() + 2 < kMaxPathLen) deep += "/d";
  EXPECT_EQ(ParsePath(deep).err, Errno::kOk);  // 4094 or 4095 bytes
  EXPECT_EQ(ParsePath(deep + "/d").err, Errno::kNameTooLong);
}

}  // namespace
}  // namespace fs::vfs
