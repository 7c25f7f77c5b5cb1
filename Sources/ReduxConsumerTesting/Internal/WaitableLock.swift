#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A pthread mutex and condition variable around a value, with a wait that gives up at a deadline.
///
/// The library's own lock is internal to `ReduxConsumer` and has no timed wait; a test store must
/// wait for actions dispatched from other threads without ever waiting longer than its timeout.
/// Never call user code inside `withLock`.
final class WaitableLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written while `mutex` is held.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init(_ value: Value) {
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
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits until `isReady` holds or `deadline` has passed, whichever comes first, then runs `body`
    /// under the lock.
    ///
    /// `isReady` is checked again each time another thread calls ``broadcast()``.
    func withLock<Result>(
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

    /// Wakes every thread waiting in ``withLock(waitingUntil:deadline:_:)``.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A moment on the wall clock, as `pthread_cond_timedwait` expects it.
struct Deadline {
    fileprivate let time: timespec

    /// The moment `seconds` from now; negative or non-finite values mean now.
    init(secondsFromNow seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let delay = seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
        let whole = Int(delay)
        var nanoseconds = Int(now.tv_nsec) + Int((delay - Double(whole)) * 1_000_000_000)
        var secondsPart = Int(now.tv_sec) + whole
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            secondsPart += 1
        }
        time = timespec(tv_sec: .init(secondsPart), tv_nsec: .init(nanoseconds))
    }

    /// Whether the moment has come.
    var hasPassed: Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return (now.tv_sec, now.tv_nsec) >= (time.tv_sec, time.tv_nsec)
    }
}
