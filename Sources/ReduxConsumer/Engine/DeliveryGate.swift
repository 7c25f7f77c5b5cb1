import Dispatch

/// The queue side of a consumer that delivers on a `DispatchQueue`: pending calls, coalesced per
/// member, and the gate that makes removal final.
///
/// A pass posts a member's call here instead of making it; the queue then calls the members in the
/// order their calls were first posted. While a member's call waits, a newer change of the same
/// member is merged into it, keeping the first `old` and the latest `new`: a slow queue gets fewer,
/// larger steps, never a stale or repeated value, and the memory held is one call per member at
/// most, whatever the dispatch rate.
///
/// Removal drops a member's pending call; when that member's call is running on the queue at that
/// moment, removal waits for it to return (unless the thread running it is waiting for the
/// remover, see ``ThreadContext/parked(_:)``), so once removal returns the callback neither runs nor
/// starts again.
@usableFromInline
final class DeliveryGate: Sendable {
    private let queue: DispatchQueue
    private let state = Lock(State())

    private struct State {
        /// Pending calls by member.
        var pending: [UInt64: any PendingCall] = [:]
        /// Members with a pending call, in the order their calls were first posted; may hold
        /// members whose call was dropped since (skipped when reached).
        var order: [UInt64] = []
        var head = 0
        /// Whether a block that drains `pending` is scheduled on the queue.
        var isScheduled = false
        /// The call running on the queue: whose, on which thread, and whether that thread is
        /// parked (waiting inside the library for another thread).
        var running: (member: UInt64, thread: ObjectIdentifier, isParked: Bool)?
        /// Set when the consumer is gone: nothing is called any more.
        var isClosed = false

        mutating func takeNext() -> (UInt64, any PendingCall)? {
            while head < order.count {
                let member = order[head]
                head += 1
                if let call = pending.removeValue(forKey: member) {
                    return (member, call)
                }
            }
            order.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
    }

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Posts `call` for `member`, merged into its pending call if it has one.
    @usableFromInline
    func post(member: UInt64, _ call: any PendingCall) {
        let schedules = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            if let earlier = state.pending[member] {
                earlier.absorb(call)
            } else {
                state.pending[member] = call
                state.order.append(member)
            }
            guard !state.isScheduled else { return false }
            state.isScheduled = true
            return true
        }
        if schedules {
            queue.async { [self] in drain() }
        }
    }

    /// Drops `member`'s pending call and, if its call is running on another thread, waits until it
    /// returns (or that thread parks).
    func drop(_ member: UInt64) {
        drop { $0 == member }
    }

    /// Drops every pending call and waits for a running one, as ``drop(_:)`` does.
    func dropAll() {
        drop { _ in true }
    }

    /// Drops everything for good: the consumer is gone.
    func close() {
        let dropped = state.withLock { state -> [any PendingCall] in
            state.isClosed = true
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        // Released outside the lock: a callback's captures may run code in their deinit.
        withExtendedLifetime(dropped) {}
    }

    /// The calling thread, which runs a call of this gate, starts waiting for another thread.
    func park(by context: ThreadContext) {
        let thread = ObjectIdentifier(context)
        state.withLock { state in
            if state.running?.thread == thread { state.running?.isParked = true }
        }
        state.broadcast()
    }

    /// The calling thread resumes.
    func unpark(by context: ThreadContext) {
        let thread = ObjectIdentifier(context)
        state.withLock { state in
            if state.running?.thread == thread { state.running?.isParked = false }
        }
    }

    private func drop(where matches: @escaping (UInt64) -> Bool) {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        let dropped = state.withLock { state -> [any PendingCall] in
            let members = state.pending.keys.filter(matches)
            return members.compactMap { state.pending.removeValue(forKey: $0) }
        }
        context.parked {
            state.withLock(
                waitingUntil: { state in
                    guard let running = state.running, matches(running.member) else { return true }
                    return running.thread == thread || running.isParked
                },
                { _ in }
            )
        }
        withExtendedLifetime(dropped) {}
    }

    /// Runs on the queue: calls pending members one at a time until none is left.
    private func drain() {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        while true {
            let next = state.withLock { state -> (any PendingCall)? in
                state.running = nil
                guard !state.isClosed, let (member, call) = state.takeNext() else {
                    state.isScheduled = false
                    return nil
                }
                state.running = (member, thread, false)
                return call
            }
            // Wakes removers waiting for the call that just returned.
            state.broadcast()
            guard let next else { return }
            context.enter(self)
            let outer = context.generation
            context.generation = next.generation
            next.run()
            context.generation = outer
            context.leave(self)
        }
    }
}

/// One member's call waiting on a queue, typed inside (see ``PendingChange``).
@usableFromInline
protocol PendingCall: AnyObject, Sendable {
    /// The dispatch chain the change came from, so a callback that dispatches continues it.
    var generation: Int { get }
    /// Makes the call.
    func run()
    /// Merges a newer change of the same member into this one: keep `old`, take the new `new`.
    func absorb(_ newer: any PendingCall)
}

/// A member's pending change: its callback, the `old` it will get, and the latest `new`.
@usableFromInline
final class PendingChange<State: Sendable, Value: Sendable>: PendingCall, @unchecked Sendable {
    // @unchecked: `new` and `state` are only touched under the gate's lock (`absorb`) or by the
    // one queue block that took the call out of the gate (`run`), never both.
    let callback: ConsumerCallback<State, Value>
    let old: Value
    var new: Value
    var state: State?
    @usableFromInline let generation: Int

    @usableFromInline
    init(_ callback: ConsumerCallback<State, Value>, old: Value, new: Value, state: State?) {
        self.callback = callback
        self.old = old
        self.new = new
        self.state = state
        generation = ThreadContext.current.generation + 1
    }

    @usableFromInline
    func run() {
        callback.call(old: old, new: new, state: state)
    }

    @usableFromInline
    func absorb(_ newer: any PendingCall) {
        let newer = unsafeDowncast(newer, to: Self.self)
        new = newer.new
        state = newer.state
    }
}
