#include "ReduxConsumerAtomics.h"

#include <pthread.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int rc_is_asymmetric = 0;

_Thread_local void *rc_thread_context = 0;

_Thread_local uintptr_t rc_spare_call_slots[2] = {0, 0};

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void setup(void) {
#if defined(__linux__) && defined(SYS_membarrier)
    long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
        __atomic_store_n(&rc_is_asymmetric, 1, __ATOMIC_SEQ_CST);
    }
#endif
}

void rc_setup(void) {
    pthread_once(&setup_once, setup);
}

void rc_heavy_barrier(void) {
#if defined(__linux__) && defined(SYS_membarrier)
    if (__atomic_load_n(&rc_is_asymmetric, __ATOMIC_RELAXED)) {
        // Once registered, the kernel documents no failure for this command.
        (void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    }
#endif
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
