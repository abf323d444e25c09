// Interposes the C allocator (the executable's definitions come before libc's in symbol
// lookup) and forwards to glibc's exported internals, counting the allocations of one thread.
// Not for production binaries: only the test executable and tools/bench/allocations link it.
#define _GNU_SOURCE
#include "CAllocationCounter.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <execinfo.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_bool counting;
static pthread_t counted_thread;
static atomic_long total;

/// With ALLOCATION_COUNTER_TRACE set, the stacks of the first 40 allocations counted since
/// the last reset go to stderr (resolve the addresses with addr2line).
static __thread int tracing;

static inline void note_allocation(void) {
    if (atomic_load_explicit(&counting, memory_order_acquire) && pthread_equal(counted_thread, pthread_self())) {
        atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
        if (!tracing && atomic_load_explicit(&total, memory_order_relaxed) <= 40 && getenv("ALLOCATION_COUNTER_TRACE")) {
            tracing = 1;
            void *frames[24];
            int count = backtrace(frames, 24);
            write(2, "--- allocation\n", 15);
            backtrace_symbols_fd(frames, count, 2);
            tracing = 0;
        }
    }
}

void allocation_counter_resume(void) {
    counted_thread = pthread_self();
    atomic_store_explicit(&counting, 1, memory_order_release);
}

void allocation_counter_pause(void) { atomic_store_explicit(&counting, 0, memory_order_release); }

long allocation_counter_total(void) { return atomic_load_explicit(&total, memory_order_relaxed); }

void allocation_counter_reset(void) {
    allocation_counter_pause();
    atomic_store_explicit(&total, 0, memory_order_relaxed);
}

void *malloc(size_t size) {
    note_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note_allocation();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    note_allocation();
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
