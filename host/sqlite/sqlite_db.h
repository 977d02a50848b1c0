// SqliteDb: a thin C++ handle on one SQLite connection through a SqliteVfs.
//
// Every method does SQLite work and therefore file I/O in simulated time:
// call it only on a fiber of the VFS's runtime. Errors are Status values
// carrying SQLite's message and the statement ("sqlite: <sql>: <message>").
// Close() explicitly; the destructor closes a still-open connection only
// when it runs on a fiber (on the event loop the connection is abandoned:
// only a fiber unwound by its runtime's shutdown leaves one open, see
// fiber.h).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "host/sqlite/sqlite_vfs.h"
#include "sim/status.h"

namespace host::sqlite {

class SqliteDb {
 public:
  // Opens `path` (created if missing and `create`) with SQLITE_OPEN_NOMUTEX.
  static sim::Result<std::unique_ptr<SqliteDb>> Open(SqliteVfs* vfs, const std::string& path, bool create = true);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements, discarding rows.
  sim::Status Exec(std::string_view sql);
  // The first column of the first row as an integer / text.
  sim::Result<int64_t> QueryInt(std::string_view sql);
  sim::Result<std::string> QueryText(std::string_view sql);
  // Closes the connection (finalize your statements first).
  sim::Status Close();

  sqlite3* handle() const { return db_; }
  // "sqlite: <what>: <errmsg>" for the connection's last error.
  sim::Status Error(std::string_view what) const;

 private:
  SqliteDb(SqliteVfs* vfs, sqlite3* db) : vfs_(vfs), db_(db) {}
  SqliteVfs* vfs_;
  sqlite3* db_;
};

}  // namespace host::sqlite
