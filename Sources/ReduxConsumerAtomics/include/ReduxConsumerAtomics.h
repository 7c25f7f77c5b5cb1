#ifndef REDUX_CONSUMER_ATOMICS_H
#define REDUX_CONSUMER_ATOMICS_H

// The few atomic operations ReduxConsumer needs, an asymmetric memory barrier and a prefetch hint.
//
// A drain's owner publishes which callback it is about to call and then checks for removals with
// plain (relaxed) loads and stores plus `rc_light_barrier`; a thread removing a consumer on
// another thread issues `rc_heavy_barrier` between its store and its load. Where the kernel
// offers `membarrier` (Linux), the light barrier is a compiler barrier and the heavy one makes
// every running thread of the process execute a full barrier; elsewhere both are full fences.
// Either way, of two threads that each store and then load the other's variable, at least one
// sees the other's store (Dekker's condition).

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uintptr_t rc_load_relaxed(const uintptr_t *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

static inline void rc_store_relaxed(uintptr_t *address, uintptr_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELAXED);
}

/// A hint to bring the cache line at `address` in for a read soon; never faults, whatever the
/// address.
static inline void rc_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Whether the heavy barrier is the process-wide one (set once by `rc_setup`).
extern int rc_is_asymmetric;

/// Chooses the barriers; safe to call from any thread, any number of times.
void rc_setup(void);

/// The cheap side of the pair: run between a store and a load on the hot path.
static inline void rc_light_barrier(void) {
    if (__builtin_expect(__atomic_load_n(&rc_is_asymmetric, __ATOMIC_RELAXED), 1)) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
}

/// The light barrier's two forms, for a loop that reads `rc_is_asymmetric` once and runs a copy of
/// itself for each value: a compiler barrier (asymmetric) or a full fence.
static inline void rc_compiler_barrier(void) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void rc_full_barrier(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/// Whether the light barrier is a compiler barrier; never changes once a drain exists.
static inline int rc_light_barrier_is_compiler_only(void) {
    return __atomic_load_n(&rc_is_asymmetric, __ATOMIC_RELAXED);
}

/// The expensive side: run between a store and a load by the rare thread that must see the hot
/// path's stores (or have its own seen by the hot path's next load).
void rc_heavy_barrier(void);

/// The first index in `0..<count` whose key is not below `key`, where element `i`'s key is the
/// `uint64_t` at `base + i * stride` and keys increase with the index: a binary search without a
/// branch per step (the compiler is told the comparison is unpredictable, so it keeps a
/// conditional move), for identifiers searched in no order a predictor could learn.
static inline intptr_t rc_lower_bound_u64(const void *base, intptr_t stride, intptr_t count, uint64_t key) {
    if (count <= 0) {
        return 0;
    }
    const char *bytes = (const char *)base;
    intptr_t low = 0;
    intptr_t length = count;
    while (length > 1) {
        intptr_t half = length >> 1;
        uint64_t probe = *(const uint64_t *)(bytes + (low + half) * stride);
        low = __builtin_unpredictable(probe < key) ? low + half : low;
        length -= half;
    }
    return low + (*(const uint64_t *)(bytes + low * stride) < key ? 1 : 0);
}

/// Two words of the calling thread's own, that nobody reads: where a drain's owner names calls
/// nested deeper than the drain publishes, so that every call is named with the same stores.
extern _Thread_local uintptr_t rc_spare_call_slots[2];

static inline uintptr_t *rc_spare_call_slot(void) {
    return rc_spare_call_slots;
}

/// The calling thread's context object (`ThreadContext` in ReduxConsumer), or NULL before its
/// first use: a thread-local pointer the compiler reaches without a call. The library owns the
/// reference it holds (a pthread key's destructor releases it when the thread exits).
extern _Thread_local void *rc_thread_context;

static inline void *rc_current_thread_context(void) {
    return rc_thread_context;
}

static inline void rc_set_current_thread_context(void *context) {
    rc_thread_context = context;
}

#ifdef __cplusplus
}
#endif

#endif
