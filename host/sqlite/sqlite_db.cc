#include "host/sqlite/sqlite_db.h"

#include <fmt/format.h>

namespace host::sqlite {

sim::Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(SqliteVfs* vfs, const std::string& path, bool create) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, vfs->name());
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (db) sqlite3_close(db);
    return sim::Status::IoError(fmt::format("sqlite: open {}: {}", path, msg));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqliteDb>(new SqliteDb(vfs, db));
}

SqliteDb::~SqliteDb() {
  if (db_ && vfs_->runtime()->InFiber()) sqlite3_close_v2(db_);
}

sim::Status SqliteDb::Error(std::string_view what) const {
  return sim::Status::IoError(fmt::format("sqlite: {}: {}", what, db_ ? sqlite3_errmsg(db_) : "closed"));
}

sim::Status SqliteDb::Exec(std::string_view sql) {
  std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return Error(sql);
  return sim::Status::Ok();
}

namespace {
// Steps `sql` once and hands the statement to `take` on SQLITE_ROW.
template <class F>
sim::Status QueryOne(sqlite3* db, std::string_view sql, F take, bool* got_row) {
  sqlite3_stmt* st = nullptr;
  *got_row = false;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &st, nullptr) != SQLITE_OK) {
    return sim::Status::IoError(fmt::format("sqlite: {}: {}", sql, sqlite3_errmsg(db)));
  }
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *got_row = true;
    take(st);
    rc = SQLITE_DONE;
  }
  sim::Status out = sim::Status::Ok();
  if (rc != SQLITE_DONE) out = sim::Status::IoError(fmt::format("sqlite: {}: {}", sql, sqlite3_errmsg(db)));
  sqlite3_finalize(st);
  return out;
}
}  // namespace

sim::Result<int64_t> SqliteDb::QueryInt(std::string_view sql) {
  int64_t v = 0;
  bool row = false;
  FS_RETURN_IF_ERROR(QueryOne(db_, sql, [&](sqlite3_stmt* st) { v = sqlite3_column_int64(st, 0); }, &row));
  if (!row) return sim::Status::NotFound(fmt::format("sqlite: {}: no row", sql));
  return v;
}

sim::Result<std::string> SqliteDb::QueryText(std::string_view sql) {
  std::string v;
  bool row = false;
  FS_RETURN_IF_ERROR(QueryOne(
      db_, sql,
      [&](sqlite3_stmt* st) {
        const unsigned char* t = sqlite3_column_text(st, 0);
        if (t) v.assign(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, 0)));
      },
      &row));
  if (!row) return sim::Status::NotFound(fmt::format("sqlite: {}: no row", sql));
  return v;
}

sim::Status SqliteDb::Close() {
  if (!db_) return sim::Status::Ok();
  if (sqlite3_close(db_) != SQLITE_OK) return Error("close");
  db_ = nullptr;
  return sim::Status::Ok();
}

}  // namespace host::sqlite
