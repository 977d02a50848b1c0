// NodeCache against its contract (node_cache.h): one page per nid, the
// global dirty set and the per-file dirty lists, unlinking, copy-on-write.
#include "fs/f2fs/node_cache.h"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace fs::f2fs {
namespace {

// Evicts node pages through the cache under test.
struct Rig : vfs::PageCache::Owner {
  explicit Rig(uint64_t limit) : cache(this, limit), nodes(&cache) {}
  std::unique_ptr<vfs::CachedPage> Evict(vfs::CachedPage* p) override {
    NodePage* np = static_cast<NodePage*>(p);
    evicted.push_back(np->nid.v);
    return nodes.Unlink(np, nullptr);
  }
  NodePage* Add(uint32_t nid) { return nodes.Insert(Nid{nid}, std::make_shared<NodeBlock>()); }
  std::vector<uint32_t> List(const DirtyNodeList& l) const {
    std::vector<uint32_t> out;
    for (const NodePage* np = l.head; np; np = np->dnext) out.push_back(np->nid.v);
    return out;
  }
  std::vector<uint32_t> evicted;
  vfs::PageCache cache;
  NodeCache nodes;
};

std::vector<uint64_t> Dirty(const NodeCache& c) {
  std::vector<uint64_t> v;
  c.dirty().ForEach([&](uint64_t nid) {
    v.push_back(nid);
    return true;
  });
  return v;
}

TEST(NodeCacheTest, FindPeekAndEviction) {
  Rig r(2);
  NodePage* a = r.Add(10);
  r.Add(11);
  EXPECT_EQ(r.nodes.Find(Nid{10}), a);  // 10 is now the most recently used
  EXPECT_EQ(r.nodes.Peek(Nid{12}), nullptr);
  r.Add(12);
  EXPECT_EQ(r.evicted, (std::vector<uint32_t>{11}));
  EXPECT_EQ(r.nodes.Peek(Nid{11}), nullptr);
  r.nodes.Peek(Nid{10});  // no touch: 10 stays older than 12
  r.Add(13);
  EXPECT_EQ(r.evicted, (std::vector<uint32_t>{11, 10}));
}

TEST(NodeCacheTest, DirtySetAndPerFileLists) {
  Rig r(100);
  DirtyNodeList f1, f2;
  NodePage* a = r.Add(5);
  NodePage* b = r.Add(3);
  NodePage* c = r.Add(9);
  NodePage* d = r.Add(7);
  r.nodes.SetDirty(a, &f1);
  r.nodes.SetDirty(b, &f1);
  r.nodes.SetDirty(c, &f1);
  r.nodes.SetDirty(d, nullptr);  // an indirect node of no list
  r.nodes.SetDirty(a, &f2);      // already dirty: no change
  EXPECT_EQ(r.List(f1), (std::vector<uint32_t>{9, 3, 5}));  // newest first
  EXPECT_EQ(f1.count, 3u);
  EXPECT_EQ(f2.count, 0u);
  EXPECT_EQ(Dirty(r.nodes),
            (std::vector<uint64_t>{3, 5, 7, 9}));  // by nid, as a checkpoint writes them
  EXPECT_EQ(r.nodes.DirtyPage(7), d);
  r.nodes.ClearDirty(b, &f1);  // the middle of the list
  EXPECT_EQ(r.List(f1), (std::vector<uint32_t>{9, 5}));
  r.nodes.ClearDirty(c, &f1);  // its head
  EXPECT_EQ(r.List(f1), (std::vector<uint32_t>{5}));
  r.nodes.ClearDirty(c, &f1);  // twice: no change
  EXPECT_EQ(f1.count, 1u);
  r.nodes.ClearDirty(d, nullptr);
  EXPECT_EQ(Dirty(r.nodes), (std::vector<uint64_t>{5}));
  // Dirty pages are not evicted; cleaned ones are again.
  r.cache.EvictAll();
  EXPECT_EQ(r.evicted, (std::vector<uint32_t>{3, 9, 7}));
  EXPECT_EQ(r.nodes.Peek(Nid{5}), a);
}

TEST(NodeCacheTest, UnlinkCleansAndReturnsThePage) {
  Rig r(100);
  DirtyNodeList f;
  NodePage* a = r.Add(4);
  NodePage* b = r.Add(6);
  r.nodes.SetDirty(a, &f);
  r.nodes.SetDirty(b, &f);
  std::unique_ptr<NodePage> owned = r.nodes.Unlink(a, &f);
  EXPECT_EQ(owned.get(), a);
  EXPECT_FALSE(a->dirty);
  EXPECT_EQ(r.List(f), (std::vector<uint32_t>{6}));
  EXPECT_EQ(r.nodes.Peek(Nid{4}), nullptr);
  EXPECT_FALSE(r.nodes.dirty().Contains(4));
  r.cache.Detach(std::move(owned));
  EXPECT_EQ(r.cache.pages(), 1u);
  // A nid may be cached again once unlinked.
  EXPECT_NE(r.Add(4), nullptr);
}

TEST(NodeCacheTest, MutCopiesASharedBlock) {
  Rig r(100);
  NodePage* a = r.Add(8);
  std::shared_ptr<NodeBlock> written = a->blk;  // e.g. held by the Image or a write in flight
  NodeBlock& m = NodeCache::Mut(a);
  EXPECT_NE(&m, written.get());
  m.footer.ino = Nid{42};
  EXPECT_NE(written->footer.ino, Nid{42});
  written.reset();
  EXPECT_EQ(&NodeCache::Mut(a), a->blk.get());  // sole owner: changed in place
}

}  // namespace
}  // namespace fs::f2fs
