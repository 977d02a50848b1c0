#include "fs/f2fs/node_cache.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

NodePage* NodeCache::Find(Nid nid) {
  auto it = nodes_.find(nid.v);
  if (it == nodes_.end()) return nullptr;
  cache_->Touch(it->second.get());
  return it->second.get();
}

NodePage* NodeCache::Peek(Nid nid) const {
  auto it = nodes_.find(nid.v);
  return it == nodes_.end() ? nullptr : it->second.get();
}

NodePage* NodeCache::Insert(Nid nid, std::shared_ptr<NodeBlock> blk) {
  CHECK(!nodes_.count(nid.v)) << "node " << nid.v << " cached twice";
  cache_->Admit();
  auto np = std::make_unique<NodePage>();
  np->nid = nid;
  np->blk = std::move(blk);
  NodePage* raw = np.get();
  nodes_[nid.v] = std::move(np);
  cache_->MaybeLru(raw);
  return raw;
}

NodeBlock& NodeCache::Mut(NodePage* np) {
  if (np->blk.use_count() > 1) np->blk = std::make_shared<NodeBlock>(*np->blk);
  return *np->blk;
}

void NodeCache::SetDirty(NodePage* np, DirtyNodeList* list) {
  if (np->dirty) return;
  np->dirty = true;
  cache_->LruRemove(np);
  if (np->nid.v >= dirty_.capacity()) dirty_.Grow(std::max<uint64_t>(np->nid.v + 1, 2 * dirty_.capacity()));
  dirty_.Insert(np->nid.v);
  if (list) {
    np->dprev = nullptr;
    np->dnext = list->head;
    if (list->head) list->head->dprev = np;
    list->head = np;
    np->on_ino_list = true;
    ++list->count;
  }
}

void NodeCache::ClearDirty(NodePage* np, DirtyNodeList* list) {
  if (!np->dirty) return;
  np->dirty = false;
  dirty_.Erase(np->nid.v);
  if (np->on_ino_list) {
    CHECK(list != nullptr) << "dirty node " << np->nid.v << " without its file's list";
    if (np->dprev) np->dprev->dnext = np->dnext; else list->head = np->dnext;
    if (np->dnext) np->dnext->dprev = np->dprev;
    np->dprev = np->dnext = nullptr;
    np->on_ino_list = false;
    --list->count;
  }
  cache_->MaybeLru(np);
}

std::unique_ptr<NodePage> NodeCache::Unlink(NodePage* np, DirtyNodeList* list) {
  ClearDirty(np, list);
  auto it = nodes_.find(np->nid.v);
  CHECK(it != nodes_.end() && it->second.get() == np);
  std::unique_ptr<NodePage> owned = std::move(it->second);
  nodes_.erase(it);
  return owned;
}

}  // namespace fs::f2fs
