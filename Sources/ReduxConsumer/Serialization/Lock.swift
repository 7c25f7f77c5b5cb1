#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A mutex (with a condition variable) around a value: the only way in is `withLock`.
///
/// `package`, not public: the package's other modules (the test store, the demo, the tests) use
/// this one reviewed lock instead of keeping copies of it.
///
/// Built on `pthread_mutex_t` rather than `Synchronization.Mutex` because ThreadSanitizer on Linux
/// understands pthread mutexes (it reports false races for `Mutex`) and because it needs no
/// macOS 15 / iOS 18 availability. Never call user code inside `withLock`.
package final class Lock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written while the mutex is held (every access goes
    // through `withLock`, which takes it).
    // `@exclusivity(unchecked)`: holding the mutex makes every access exclusive; the only way to
    // overlap two accesses would be a nested `withLock` on the same lock, which debug builds trap
    // (an error-checking mutex, see `init`).
    @exclusivity(unchecked) private var value: Value
    /// The mutex and its condition variable, in one allocation.
    private let primitives: UnsafeMutablePointer<Primitives>

    private struct Primitives {
        var mutex = pthread_mutex_t()
        var condition = pthread_cond_t()
    }

    package init(_ value: Value) {
        self.value = value
        primitives = UnsafeMutablePointer<Primitives>.allocate(capacity: 1)
        primitives.initialize(to: Primitives())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
            // Reports a nested `withLock` on the same lock (an overlapping access) instead of hanging.
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let result = pthread_mutex_init(&primitives.pointee.mutex, &attributes)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
        let conditionResult = pthread_cond_init(&primitives.pointee.condition, nil)
        precondition(conditionResult == 0, "pthread_cond_init failed with \(conditionResult)")
    }

    deinit {
        pthread_cond_destroy(&primitives.pointee.condition)
        pthread_mutex_destroy(&primitives.pointee.mutex)
        primitives.deinitialize(count: 1)
        primitives.deallocate()
    }

    /// Runs `body` with exclusive access to the protected value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock()
        defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
        return try body(&value)
    }

    @inline(__always)
    private func lock() {
        let result = pthread_mutex_lock(&primitives.pointee.mutex)
        assert(result == 0, "Lock: the same thread took a lock it already holds (nested withLock)")
    }

    /// Waits until `isReady` holds for the protected value, then runs `body`, all under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    package func withLock<Result>(
        waitingUntil isReady: (Value) -> Bool,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        lock()
        defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
        while !isReady(value) {
            pthread_cond_wait(&primitives.pointee.condition, &primitives.pointee.mutex)
        }
        return try body(&value)
    }

    /// Waits until `isReady` holds or `deadline` has passed, whichever comes first, then runs `body`
    /// under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    package func withLock<Result>(
        waitingUntil isReady: (Value) -> Bool,
        deadline: Deadline,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        lock()
        defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
        var time = deadline.time
        while !isReady(value) {
            if pthread_cond_timedwait(&primitives.pointee.condition, &primitives.pointee.mutex, &time) == ETIMEDOUT {
                break
            }
        }
        return try body(&value)
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:_:)`` so it checks its condition again.
    package func broadcast() {
        pthread_cond_broadcast(&primitives.pointee.condition)
    }
}
