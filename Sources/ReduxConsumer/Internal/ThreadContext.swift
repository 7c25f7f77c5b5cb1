#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// What the current thread is doing inside the library: which drains it is running right now.
///
/// Kept in thread-local storage, so only its own thread ever reads or writes it. This is how a
/// dispatch made from inside a callback, a middleware or a reducer is recognised as re-entrant
/// (and queued instead of deadlocking), and how a thread that is already running one store knows
/// not to block on another.
final class ThreadContext {
    /// Drains this thread is running, innermost last, with their levels.
    private var running: [(id: ObjectIdentifier, level: DrainLevel)] = []
    /// The store whose reducer this thread is running right now, if any.
    var reducingStore: ObjectIdentifier?
    /// Dispatches made from inside a reducer, run once the reducer has returned (and its store's
    /// lock is released), so no store ever runs inside another store's reducer.
    var dispatchesAfterReduce: [() -> Void] = []

    /// The context of the calling thread, created on first use and freed when the thread exits.
    static var current: ThreadContext {
        if let pointer = pthread_getspecific(threadContextKey) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext()
        pthread_setspecific(threadContextKey, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// Whether this thread may block waiting for a drain of `level`: only when every drain it is
    /// running has a lower level, so waits always go up the levels and can never form a cycle.
    func mayWait(for level: DrainLevel) -> Bool {
        running.allSatisfy { $0.level < level }
    }

    /// Whether this thread is running the drain `id` (possibly with others nested inside it).
    @inline(__always)
    func isRunning(_ id: ObjectIdentifier) -> Bool {
        running.contains { $0.id == id }
    }

    func enter(_ id: ObjectIdentifier, level: DrainLevel) {
        running.append((id, level))
    }

    func leave(_ id: ObjectIdentifier) {
        if running.last?.id == id {
            running.removeLast()
        } else if let index = running.lastIndex(where: { $0.id == id }) {
            running.remove(at: index)
        }
    }
}

private let threadContextKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
        let result = pthread_key_create(&key) { pointer in
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #else
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #endif
    precondition(result == 0, "pthread_key_create failed with \(result)")
    return key
}()
