/* count/count_abi.h: the C interface of libstorh_count.so, the syscall-counting
 * interposer (count/interposer.cpp, docs/counters.md).
 *
 * The library is loaded with LD_PRELOAD into a worker; the worker finds
 * storh_count_snapshot with dlsym(RTLD_DEFAULT, ...) and reads the counters before and
 * after a step. Counts cover every thread of the process since the library loaded.
 *
 * Versioning: the struct is append-only. The caller sets struct_size to the size it
 * knows; the library fills min(struct_size, its own size) bytes, sets struct_size to
 * what it filled, and returns its own size. Fields past what the library filled keep
 * the caller's values. Fields added later are marked with the size of the struct
 * that first had them; a caller takes a field only when struct_size says it was
 * filled (STORH_COUNT_SIZE_V1_1, STORH_COUNT_SIZE_V1_2). Thread safety: callable from any thread at
 * any time; each field is read atomically, the set as a whole is not one instant. */
#ifndef STORH_COUNT_ABI_H
#define STORH_COUNT_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STORH_COUNT_SNAPSHOT_SYMBOL "storh_count_snapshot"

typedef struct storh_count_snapshot_v1 {
  uint32_t struct_size; /* in: the caller's sizeof; out: bytes filled */
  uint32_t reserved;    /* zero */
  uint64_t fsync;       /* fsync(2) calls */
  uint64_t fdatasync;   /* fdatasync(2) calls */
  uint64_t opens;       /* open/open64/openat/openat64/creat/creat64 calls */
  uint64_t creates;     /* of those, with O_CREAT (creat always) */
  uint64_t renames;     /* rename/renameat/renameat2 calls */
  uint64_t unlinks;     /* unlink/unlinkat calls */
  uint64_t stats;       /* stat/lstat/fstat/fstatat (and *64), statx, __xstat family */
  uint64_t read_calls;  /* read/pread/pread64/readv/preadv(64) calls */
  uint64_t read_bytes;  /* bytes those calls returned */
  uint64_t write_calls; /* write/pwrite/pwrite64/writev/pwritev(64) calls */
  uint64_t write_bytes; /* bytes those calls reported written */
  /* Since STORH_COUNT_SIZE_V1_1: */
  uint64_t close;    /* close/closedir calls */
  uint64_t getdents; /* getdents64 and readdir/readdir64 calls */
  uint64_t mkdir;    /* mkdir/mkdirat calls */
  uint64_t mmap;     /* mmap/mmap64 calls */
  uint64_t munmap;   /* munmap calls */
  /* Since STORH_COUNT_SIZE_V1_2: */
  uint64_t syncfs; /* syncfs(2) calls */
} storh_count_snapshot_v1;

/* The struct's size before close..munmap were appended, and with them. */
#define STORH_COUNT_SIZE_V1_0 (2 * sizeof(uint32_t) + 11 * sizeof(uint64_t))
#define STORH_COUNT_SIZE_V1_1 (STORH_COUNT_SIZE_V1_0 + 5 * sizeof(uint64_t))
/* With syncfs appended. */
#define STORH_COUNT_SIZE_V1_2 (STORH_COUNT_SIZE_V1_1 + sizeof(uint64_t))

#ifdef __cplusplus
static_assert(sizeof(storh_count_snapshot_v1) == STORH_COUNT_SIZE_V1_2,
              "the snapshot struct is append-only: update the size macros with it");
#endif

typedef uint32_t (*storh_count_snapshot_fn)(storh_count_snapshot_v1* out);

uint32_t storh_count_snapshot(storh_count_snapshot_v1* out);

#ifdef __cplusplus
}
#endif

#endif /* STORH_COUNT_ABI_H */
