import ReduxConsumerAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// What the current thread is doing inside the library: the drains it runs, the
/// reducer it is in, and the queued deliveries it is calling.
///
/// Kept in thread-local storage, so only its own thread reads or writes it (other threads only
/// compare its identity, which they learn under a drain's lock).
final class ThreadContext {
    // `@exclusivity(unchecked)` on every property: only the context's own thread touches it
    // (`current` is thread-local), in short accesses that never span a call out of the library,
    // so two accesses can never overlap; the dynamic check costs a thread-local lookup of its
    // own, several per dispatch.

    /// Drains whose jobs this thread is running, innermost last. Unretained: a drain is in this
    /// list only while one of its jobs runs on this thread, and that job keeps its owner alive.
    @exclusivity(unchecked) private(set) var owned: [Unmanaged<Drain>] = []
    /// The drain whose reducer this thread is running, if any: its state is being changed in
    /// place, so work submitted meanwhile waits until the reducer returns. Unretained, like
    /// `owned`: set only while the drain's reducer runs on this thread (`Drain.reducing` sets and
    /// clears it around the call), inside a job that keeps the drain alive.
    @exclusivity(unchecked) var reducing: Unmanaged<Drain>?
    /// How many actions led to the one this thread is processing: 0 for an action dispatched from
    /// outside the library, one more for each action dispatched from inside another's processing.
    @exclusivity(unchecked) var generation = 0
    /// The queued deliveries this thread is calling right now, innermost last.
    @exclusivity(unchecked) private(set) var gates: [DeliveryGate] = []
    /// How many run-once works (a page's close, a store's teardown) this thread is running, which
    /// other threads asking for the same work wait for (see ``Lock/runOnce(_:_:)``, which checks
    /// in debug builds that it never goes below zero).
    @exclusivity(unchecked) var runOnceDepth = 0
    /// How many ``ConsumerBag`` emptyings this thread is running: an emptying made inside one (from
    /// a cancellation it makes) does not wait for the emptyings of other threads, which may be
    /// waiting for it (see ``ConsumerBag/removeAll()``, which checks in debug builds that it never
    /// goes below zero). Unlike `runOnceDepth`, it leaves the removals the emptying makes as they
    /// are: a thread waits for an emptying only when nothing waits for that thread.
    @exclusivity(unchecked) var emptyingDepth = 0

    /// The context of the calling thread, created on first use and freed when the thread exits.
    static var current: ThreadContext {
        if let pointer = rc_current_thread_context() {
            // Unmanaged: the pointer is a +1 reference made below, released by the pthread key's
            // destructor when the thread exits; nothing else frees it.
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext()
        let pointer = Unmanaged.passRetained(context).toOpaque()
        // The key only releases the context when the thread exits; the thread-local pointer is
        // what every lookup reads.
        pthread_setspecific(threadContextKey, pointer)
        rc_set_current_thread_context(pointer)
        return context
    }

    /// Runs `body` with the calling thread's context, borrowed: no retain and release around it,
    /// for the hottest paths (a dispatch).
    @inline(__always)
    static func withCurrent<Result>(_ body: (ThreadContext) -> Result) -> Result {
        guard let pointer = rc_current_thread_context() else { return body(current) }
        // Unmanaged, as in `current`: the thread's reference keeps the context alive until the
        // thread exits, which cannot happen during `body`.
        return Unmanaged<ThreadContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// Whether this thread holds anything another thread may wait for: a drain it runs, or a
    /// queued delivery in progress. Such a thread must never wait for a parked thread.
    var isHolder: Bool {
        !owned.isEmpty || !gates.isEmpty
    }

    /// Whether another thread may be waiting inside the library for this one: it holds something
    /// (``isHolder``) or runs a work others ask for too. A thread that is neither can never be part
    /// of a cycle of waits, so its waits need not give way to a parked thread (see ``parked(_:)``).
    var mayBeWaitedFor: Bool {
        isHolder || runOnceDepth > 0
    }

    /// Whether this thread is running `drain`'s jobs.
    @inline(__always)
    func owns(_ drain: Drain) -> Bool {
        // Innermost first: re-entrant work is almost always for the drain entered last.
        var index = owned.endIndex
        while index > owned.startIndex {
            index -= 1
            if owned[index].toOpaque() == Unmanaged.passUnretained(drain).toOpaque() {
                return true
            }
        }
        return false
    }

    /// Whether `drain` is the drain this thread entered last: its own jobs, and no other drain's
    /// nested inside them, are running here.
    @inline(__always)
    func isInnermost(_ drain: Drain) -> Bool {
        // Identities compared, nothing dereferenced: the unretained entries are `owned`'s (see there).
        owned.last?.toOpaque() == Unmanaged.passUnretained(drain).toOpaque()
    }

    func enter(_ drain: Drain) {
        owned.append(Unmanaged.passUnretained(drain))
    }

    func leave(_ drain: Drain) {
        let last = owned.removeLast()
        assert(last.toOpaque() == Unmanaged.passUnretained(drain).toOpaque(), "drains left out of order")
    }

    func enter(_ gate: DeliveryGate) {
        gates.append(gate)
    }

    func leave(_ gate: DeliveryGate) {
        let last = gates.removeLast()
        assert(last === gate, "queued deliveries left out of order")
    }

    /// Runs `body` while this thread waits for another: the drains it runs and the queued
    /// deliveries it is calling are marked parked, so that no thread that may itself be waited for
    /// (``mayBeWaitedFor``) waits for this one while it waits. Waits can then never form a cycle:
    /// the last thread to join one finds the thread it needs parked and does not wait. A thread
    /// that nothing can wait for still waits for a parked one: no cycle can lead back to it.
    func parked<Result>(_ body: () -> Result) -> Result {
        guard isHolder else { return body() }
        for drain in owned {
            drain.takeUnretainedValue().park()
        }
        for gate in gates {
            gate.park(by: self)
        }
        defer {
            for gate in gates {
                gate.unpark(by: self)
            }
            for drain in owned {
                drain.takeUnretainedValue().unpark()
            }
        }
        return body()
    }
}

private let threadContextKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
        let result = pthread_key_create(&key) { pointer in
            rc_set_current_thread_context(nil)
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #else
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            rc_set_current_thread_context(nil)
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #endif
    precondition(result == 0, "pthread_key_create failed with \(result)")
    return key
}()
