#include "fs/f2fs/data_pages.h"

#include <glog/logging.h>

namespace fs::f2fs {

namespace {
DataPage* Cached(const Inode* inode, uint64_t index) {
  if (index < inode->page_at.size()) return inode->page_at[index];
  if (index < Inode::kPageAtLimit) return nullptr;
  auto it = inode->pages.find(index);
  return it == inode->pages.end() ? nullptr : it->second.get();
}
}  // namespace

DataPage* DataPages::Find(Inode* inode, uint64_t index) {
  DataPage* p = Cached(inode, index);
  if (p != nullptr) cache_->Touch(p);
  return p;
}

DataPage* DataPages::New(Inode* inode, uint64_t index) {
  CHECK(Cached(inode, index) == nullptr);
  cache_->Admit();
  auto p = std::make_unique<DataPage>();
  p->ino = inode->ino;
  p->index = index;
  DataPage* raw = p.get();
  inode->pages[index] = std::move(p);
  if (index < Inode::kPageAtLimit) {
    if (index >= inode->page_at.size()) inode->page_at.resize(index + 1, nullptr);
    inode->page_at[index] = raw;
  }
  cache_->MaybeLru(raw);
  return raw;
}

void DataPages::Drop(Inode* inode, uint64_t index) {
  auto it = inode->pages.find(index);
  if (it == inode->pages.end()) return;
  ClearDirty(inode, it->second.get());
  std::unique_ptr<DataPage> owned = std::move(it->second);
  inode->pages.erase(it);
  if (index < inode->page_at.size()) inode->page_at[index] = nullptr;
  cache_->Detach(std::move(owned));
}

std::unique_ptr<DataPage> DataPages::Unlink(Inode* inode, DataPage* p) {
  auto it = inode->pages.find(p->index);
  CHECK(it != inode->pages.end() && it->second.get() == p);
  std::unique_ptr<DataPage> owned = std::move(it->second);
  inode->pages.erase(it);
  if (p->index < inode->page_at.size()) inode->page_at[p->index] = nullptr;
  return owned;
}

void DataPages::SetDirty(Inode* inode, DataPage* p) {
  if (p->dirty) return;
  p->dirty = true;
  cache_->LruRemove(p);
  ++inode->dirty_pages;
  inode->dirty_index.Insert(p->index);
  if (inode->is_dir) {
    ++dirty_dentry_pages_;
    dirty_dirs_.insert(inode->ino.v);
    return;
  }
  wb_->FileDataDirtied(inode->ino.v, &inode->wb);
}

void DataPages::ClearDirty(Inode* inode, DataPage* p) {
  if (!p->dirty) return;
  p->dirty = false;
  --inode->dirty_pages;
  inode->dirty_index.Erase(p->index);
  if (inode->is_dir) {
    --dirty_dentry_pages_;
    if (inode->dirty_pages == 0) dirty_dirs_.erase(inode->ino.v);
  } else {
    wb_->FileDataCleaned(&inode->wb, inode->dirty_pages);
  }
  cache_->MaybeLru(p);
}

DataBlock& DataPages::MutBytes(DataPage* p) {
  if (!p->bytes) p->bytes = std::make_shared<DataBlock>();
  else if (p->bytes.use_count() > 1) p->bytes = std::make_shared<DataBlock>(*p->bytes);
  return *p->bytes;
}

DentryBlock& DataPages::MutDents(DataPage* p) {
  if (!p->dents) p->dents = std::make_shared<DentryBlock>();
  else if (p->dents.use_count() > 1) p->dents = std::make_shared<DentryBlock>(*p->dents);
  return *p->dents;
}

}  // namespace fs::f2fs
