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
    // @unchecked: `value` is only read or written while `mutex` is held.
    // `@exclusivity(unchecked)`: the mutex already makes every access exclusive.
    @exclusivity(unchecked) private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let conditionResult = pthread_cond_init(condition, nil)
        precondition(conditionResult == 0, "pthread_cond_init failed with \(conditionResult)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the protected value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits until `isReady` holds for the protected value, then runs `body`, all under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    package func withLock<Result>(
        waitingUntil isReady: (Value) -> Bool,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isReady(value) {
            pthread_cond_wait(condition, mutex)
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
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var time = deadline.time
        while !isReady(value) {
            if pthread_cond_timedwait(condition, mutex, &time) == ETIMEDOUT {
                break
            }
        }
        return try body(&value)
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:_:)`` so it checks its condition again.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
