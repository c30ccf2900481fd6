// A SQLite VFS that puts SQLite's own file I/O on the write boundaries of
// common/fault_injection.h, for the mirror's fault test: it wraps the default VFS and
// calls fault::at_boundary before every xWrite and xTruncate (write), xSync (sync) and
// xDelete (rename: deleting the rollback journal is SQLite's commit point; plus a
// directory sync when SQLite asks for one). An injected errno becomes SQLITE_FULL for
// ENOSPC and the call's SQLITE_IOERR_* code otherwise; Action::exit kills the process
// there. Everything else is forwarded unchanged.
//
// install() registers it as the default VFS once per process (not thread-safe; call it
// before opening databases).
#pragma once

#include <sqlite3.h>

#include <cerrno>
#include <cstring>

#include "common/fault_injection.h"

namespace mirror_test::fault_vfs {

namespace fault = storh::engines::fault;

struct File {
  sqlite3_file base;
  sqlite3_file* real;  // right after this struct, real_vfs->szOsFile bytes
};

inline sqlite3_vfs*& real_vfs() {
  static sqlite3_vfs* vfs = nullptr;
  return vfs;
}

inline sqlite3_file* real(sqlite3_file* file) {
  return reinterpret_cast<File*>(file)->real;
}

inline int injected(fault::Boundary boundary, int io_error) {
  const int error = fault::at_boundary(boundary);
  if (error == 0) return SQLITE_OK;
  return error == ENOSPC ? SQLITE_FULL : io_error;
}

inline int x_close(sqlite3_file* f) {
  const int rc = real(f)->pMethods != nullptr ? real(f)->pMethods->xClose(real(f)) : SQLITE_OK;
  return rc;
}
inline int x_read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  return real(f)->pMethods->xRead(real(f), out, amount, offset);
}
inline int x_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = injected(fault::Boundary::write, SQLITE_IOERR_WRITE)) return rc;
  return real(f)->pMethods->xWrite(real(f), data, amount, offset);
}
inline int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (const int rc = injected(fault::Boundary::write, SQLITE_IOERR_TRUNCATE)) return rc;
  return real(f)->pMethods->xTruncate(real(f), size);
}
inline int x_sync(sqlite3_file* f, int flags) {
  if (const int rc = injected(fault::Boundary::sync, SQLITE_IOERR_FSYNC)) return rc;
  return real(f)->pMethods->xSync(real(f), flags);
}
inline int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return real(f)->pMethods->xFileSize(real(f), size);
}
inline int x_lock(sqlite3_file* f, int level) {
  return real(f)->pMethods->xLock(real(f), level);
}
inline int x_unlock(sqlite3_file* f, int level) {
  return real(f)->pMethods->xUnlock(real(f), level);
}
inline int x_check_reserved_lock(sqlite3_file* f, int* out) {
  return real(f)->pMethods->xCheckReservedLock(real(f), out);
}
inline int x_file_control(sqlite3_file* f, int op, void* arg) {
  return real(f)->pMethods->xFileControl(real(f), op, arg);
}
inline int x_sector_size(sqlite3_file* f) {
  return real(f)->pMethods->xSectorSize(real(f));
}
inline int x_device_characteristics(sqlite3_file* f) {
  return real(f)->pMethods->xDeviceCharacteristics(real(f));
}
inline int x_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return real(f)->pMethods->xShmMap(real(f), page, size, extend, out);
}
inline int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
inline void x_shm_barrier(sqlite3_file* f) {
  real(f)->pMethods->xShmBarrier(real(f));
}
inline int x_shm_unmap(sqlite3_file* f, int delete_flag) {
  return real(f)->pMethods->xShmUnmap(real(f), delete_flag);
}
inline int x_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return real(f)->pMethods->xFetch(real(f), offset, amount, out);
}
inline int x_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  return real(f)->pMethods->xUnfetch(real(f), offset, page);
}

inline const sqlite3_io_methods* io_methods(int version) {
  static sqlite3_io_methods methods[4];
  sqlite3_io_methods& m = methods[version];
  m = sqlite3_io_methods{};
  m.iVersion = version;
  m.xClose = x_close;
  m.xRead = x_read;
  m.xWrite = x_write;
  m.xTruncate = x_truncate;
  m.xSync = x_sync;
  m.xFileSize = x_file_size;
  m.xLock = x_lock;
  m.xUnlock = x_unlock;
  m.xCheckReservedLock = x_check_reserved_lock;
  m.xFileControl = x_file_control;
  m.xSectorSize = x_sector_size;
  m.xDeviceCharacteristics = x_device_characteristics;
  if (version >= 2) {
    m.xShmMap = x_shm_map;
    m.xShmLock = x_shm_lock;
    m.xShmBarrier = x_shm_barrier;
    m.xShmUnmap = x_shm_unmap;
  }
  if (version >= 3) {
    m.xFetch = x_fetch;
    m.xUnfetch = x_unfetch;
  }
  return &m;
}

inline int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
  File* wrapper = reinterpret_cast<File*>(file);
  wrapper->real = reinterpret_cast<sqlite3_file*>(wrapper + 1);
  std::memset(wrapper->real, 0, static_cast<std::size_t>(real_vfs()->szOsFile));
  const int rc = real_vfs()->xOpen(real_vfs(), name, wrapper->real, flags, out_flags);
  const sqlite3_io_methods* inner = wrapper->real->pMethods;
  // SQLite calls xClose whenever pMethods is set, even after a failed open.
  wrapper->base.pMethods =
      inner != nullptr ? io_methods(inner->iVersion > 3 ? 3 : inner->iVersion) : nullptr;
  return rc;
}

inline int x_delete(sqlite3_vfs*, const char* name, int sync_dir) {
  if (const int rc = injected(fault::Boundary::rename, SQLITE_IOERR_DELETE)) return rc;
  if (sync_dir != 0) {
    if (const int rc = injected(fault::Boundary::dir_sync, SQLITE_IOERR_DIR_FSYNC)) return rc;
  }
  return real_vfs()->xDelete(real_vfs(), name, sync_dir);
}

inline int x_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return real_vfs()->xAccess(real_vfs(), name, flags, out);
}
inline int x_full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
  return real_vfs()->xFullPathname(real_vfs(), name, size, out);
}
inline void* x_dl_open(sqlite3_vfs*, const char* name) {
  return real_vfs()->xDlOpen(real_vfs(), name);
}
inline void x_dl_error(sqlite3_vfs*, int size, char* out) {
  real_vfs()->xDlError(real_vfs(), size, out);
}
inline void (*x_dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
  return real_vfs()->xDlSym(real_vfs(), handle, symbol);
}
inline void x_dl_close(sqlite3_vfs*, void* handle) {
  real_vfs()->xDlClose(real_vfs(), handle);
}
inline int x_randomness(sqlite3_vfs*, int size, char* out) {
  return real_vfs()->xRandomness(real_vfs(), size, out);
}
inline int x_sleep(sqlite3_vfs*, int us) {
  return real_vfs()->xSleep(real_vfs(), us);
}
inline int x_current_time(sqlite3_vfs*, double* out) {
  return real_vfs()->xCurrentTime(real_vfs(), out);
}
inline int x_get_last_error(sqlite3_vfs*, int size, char* out) {
  return real_vfs()->xGetLastError != nullptr ? real_vfs()->xGetLastError(real_vfs(), size, out)
                                              : 0;
}
inline int x_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) {
  return real_vfs()->xCurrentTimeInt64(real_vfs(), out);
}

inline void install() {
  static sqlite3_vfs vfs{};
  if (real_vfs() != nullptr) return;
  sqlite3_initialize();
  real_vfs() = sqlite3_vfs_find(nullptr);
  vfs.iVersion = 2;
  vfs.szOsFile = static_cast<int>(sizeof(File)) + real_vfs()->szOsFile;
  vfs.mxPathname = real_vfs()->mxPathname;
  vfs.zName = "storh-fault";
  vfs.xOpen = x_open;
  vfs.xDelete = x_delete;
  vfs.xAccess = x_access;
  vfs.xFullPathname = x_full_pathname;
  vfs.xDlOpen = x_dl_open;
  vfs.xDlError = x_dl_error;
  vfs.xDlSym = x_dl_sym;
  vfs.xDlClose = x_dl_close;
  vfs.xRandomness = x_randomness;
  vfs.xSleep = x_sleep;
  vfs.xCurrentTime = x_current_time;
  vfs.xGetLastError = x_get_last_error;
  vfs.xCurrentTimeInt64 = x_current_time_int64;
  sqlite3_vfs_register(&vfs, 1);
}

}  // namespace mirror_test::fault_vfs
