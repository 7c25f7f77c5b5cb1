import Dispatch

/// Where a consumer's callbacks wait when they do not run on the store's thread: on a
/// `DispatchQueue` (`deliveringOn:`), or on actors (members added with `on:`). Pending calls are
/// coalesced per member, and the gate makes removal final.
///
/// A pass posts a member's call here instead of making it; a pump (a block on the queue, or a task)
/// then makes the calls one at a time. While a member's call waits, a newer change of the same
/// member is merged into it, keeping the first `old` and the latest `new`: a slow receiver gets
/// fewer, larger steps, never a stale or repeated value, and the memory held is one waiting call
/// per member at most (besides the batch being made), whatever the dispatch rate.
///
/// The pump makes the calls in *batches*: when it is done with one, it takes every waiting call
/// at once and makes them in the order their members were added (identifiers grow as members are
/// added); calls posted meanwhile wait, and merge, for the next batch. So the members a state
/// changed are called in the order they were added, as on the store's thread, even when some of
/// their calls waited since an earlier state (a call keeps no place of its own in the queue: the
/// order of first posting would call a member whose call waited since an earlier state ahead of
/// members added before it); and a member whose value keeps changing never holds the others back,
/// since the batch being made takes no new calls.
///
/// Each call goes through three steps: the pump *takes* it, the call *begins* where it runs (on the
/// queue, or on the member's actor) and *ends*. For an actor's member the pump takes the call only
/// once on the actor, in one step with beginning it (``takeAndBegin(_:)``): a call still waiting
/// for a batch keeps merging newer changes until then, and a batch is formed only when its first
/// call is taken, on that call's actor (the later calls of a batch are made with what they had
/// then, as on a queue). Removal drops a member's pending call, makes a taken call refuse to begin, and waits for a call that has begun on another thread to end (unless that
/// thread waits inside the library, parked, while another may be waiting for the remover: see
/// ``ThreadContext/parked(_:)`` and ``ThreadContext/mayBeWaitedFor``): once removal returns, the
/// callback neither runs nor starts again.
@usableFromInline
final class DeliveryGate: Sendable {
    /// How the pump runs.
    enum Pump: Sendable {
        /// A block on this queue makes the calls.
        case queue(DispatchQueue)
        /// A task makes the calls, each on its member's actor.
        case tasks
    }

    private let pump: Pump
    private let state = ConditionLock(State())

    private struct State {
        /// Calls waiting for the next batch, by member.
        var pending: [UInt64: any PendingCall] = [:]
        /// The batch being made, from `batchHead` on: the calls that were waiting when the pump
        /// took it, in member order. A call taken out of it, or dropped, leaves `nil`.
        var batch: [(member: UInt64, call: (any PendingCall)?)] = []
        var batchHead = 0
        /// Whether a pump is scheduled or running.
        var isPumping = false
        /// The call the pump took: whose, whether removal dropped it before it began, and once it
        /// began, on which thread and whether that thread is parked.
        var current: Current?
        /// Set when the consumer is gone: nothing is called any more.
        var isClosed = false
        /// The `old` of calls withdrawn while their members stay (the subscription ended): the
        /// value each member heard last, for its group to compare with when it comes back.
        var withdrawn: [UInt64: any Sendable] = [:]
        /// The `old` of merged calls that came back and were not made: the member's next call
        /// starts from it, the value it heard last (its group's cell moved on without it).
        var carried: [UInt64: any Sendable] = [:]

        /// Takes the next call of the batch; when the batch is done, takes the waiting calls as the
        /// next one. `nil` when no call is left.
        ///
        /// - Complexity: O(1), and O(*k* log *k*) once per batch of *k* calls, to sort it.
        mutating func takeNext() -> (UInt64, any PendingCall)? {
            guard let (member, call) = peekNext(formingBatch: true) else { return nil }
            // The caller holds the call now: this is not its last reference.
            batch[batchHead].call = nil
            batchHead += 1
            return (member, call)
        }

        /// The call ``takeNext()`` would take, left in place: the head of the batch, or when the
        /// batch is done, the waiting call of the first member, taken as a new batch only if
        /// `formsBatch` (a call left waiting still merges the changes posted after it).
        ///
        /// - Complexity: O(1) in a batch; O(*k*) for *k* waiting calls without forming a batch.
        mutating func peekNext(formingBatch formsBatch: Bool) -> (UInt64, any PendingCall)? {
            while batchHead < batch.count, batch[batchHead].call == nil {
                batchHead += 1
            }
            if batchHead < batch.count, let call = batch[batchHead].call {
                return (batch[batchHead].member, call)
            }
            batch.removeAll(keepingCapacity: batch.count <= 64)
            batchHead = 0
            guard !pending.isEmpty else { return nil }
            guard formsBatch else {
                return pending.min { $0.key < $1.key }.map { ($0.key, $0.value) }
            }
            batch.reserveCapacity(pending.count)
            for (member, call) in pending {
                batch.append((member, call))
            }
            // The dictionary's references go; the batch holds every call. A large table is freed:
            // single-member drops never walk it, but keeping the peak capacity of one burst
            // would keep its memory.
            pending.removeAll(keepingCapacity: pending.count <= 64)
            batch.sort { $0.member < $1.member }
            return (batch[0].member, batch[0].call!)
        }

        /// Takes out `call`, a call the pump looked at and did not make, if it is still the next
        /// one: it is not made (its member's actor wrapper found the member gone).
        mutating func discardIfNext(_ call: any PendingCall) -> (any PendingCall)? {
            guard let (member, next) = peekNext(formingBatch: false), next === call else {
                return nil
            }
            if batchHead < batch.count {
                batch[batchHead].call = nil
                batchHead += 1
                return next
            }
            return pending.removeValue(forKey: member)
        }
    }

    private struct Current {
        let member: UInt64
        /// The call, for its `old` if it is withdrawn before it begins.
        let call: any PendingCall
        var isDropped = false
        var thread: ObjectIdentifier?
        var isParked = false
    }

    init(pump: Pump) {
        self.pump = pump
    }

    /// Posts `call` for `member`, merged into its pending call if it has one.
    @usableFromInline
    func post(member: UInt64, _ call: any PendingCall) {
        var displaced: (any Sendable)?
        let schedules = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            if let earlier = state.pending[member] {
                earlier.absorb(call)
            } else {
                if let old = state.carried.removeValue(forKey: member) {
                    // Swapped: the value replaced goes with `old`, released after the lock.
                    displaced = call.rebase(old: old)
                }
                state.pending[member] = call
            }
            guard !state.isPumping else { return false }
            state.isPumping = true
            return true
        }
        withExtendedLifetime(displaced) {}
        guard schedules else { return }
        switch pump {
        case .queue(let queue):
            queue.async { [self] in pumpOnQueue() }
        case .tasks:
            Task { [self] in await pumpTasks() }
        }
    }

    /// Drops `member`'s pending call and, if its call began on another thread, waits until it
    /// ends (or that thread parks).
    func drop(_ member: UInt64) {
        drop(keepingOld: false, .one(member))
    }

    /// Drops the pending calls of the members up to `last` (identifiers grow as members are added)
    /// and waits for a call of theirs in progress, as ``drop(_:)`` does.
    func drop(through last: UInt64) {
        drop(keepingOld: false, .through(last))
    }

    /// Drops every pending call as ``drop(through:)`` does, for members that stay: each keeps the
    /// `old` of its earliest call not made, the value it heard last (see ``takeWithdrawn(_:)``).
    func withdrawAll() {
        drop(keepingOld: true, .all)
    }

    /// Drops every pending call as ``withdrawAll()`` does, without waiting for a call in progress
    /// (see ``waitForCallInProgress()``): for a drain's job, where the subscription ends in order
    /// with the states that posted the calls.
    /// Returns what it dropped, for the caller to release once it holds no lock (a dropped value's
    /// `deinit` is user code).
    func withdrawPending() -> [any Sendable] {
        dropPending(keepingOld: true, .all)
    }

    /// Waits until no call is running on another thread (or the thread running it parks).
    func waitForCallInProgress() {
        waitForCall(ThreadContext.current) { _ in true }
    }

    /// Whether calls were withdrawn and not yet taken back.
    var hasWithdrawn: Bool {
        state.withLock { !$0.withdrawn.isEmpty }
    }

    /// The value `member` heard last before its calls were withdrawn, if they were; forgets it.
    func takeWithdrawn(_ member: UInt64) -> (any Sendable)? {
        state.withLock { $0.withdrawn.removeValue(forKey: member) }
    }

    /// The merged call `member` the pump took came back to where it started and is not made:
    /// the member's next call starts from `old`, the value it heard last.
    func carry(_ old: any Sendable, of member: UInt64) {
        let displaced = state.withLock { state -> (any Sendable)? in
            guard !state.isClosed, let current = state.current, current.member == member, !current.isDropped else {
                return nil  // removed meanwhile
            }
            if let pending = state.pending[member] {
                return pending.rebase(old: old)
            }
            // A value it replaces (none is expected) is released after the lock too.
            return state.carried.updateValue(old, forKey: member)
        }
        withExtendedLifetime(displaced) {}
    }

    /// Drops everything for good: the consumer is gone.
    func close() {
        let dropped = state.withLock { state -> [any Sendable] in
            state.isClosed = true
            state.current?.isDropped = true
            let batch = state.batch[state.batchHead...].compactMap(\.call)
            defer {
                state.pending.removeAll()
                state.batch.removeAll()
                state.batchHead = 0
                state.withdrawn.removeAll()
                state.carried.removeAll()
            }
            return Array(state.pending.values) + batch + [state.withdrawn, state.carried]
        }
        // Released outside the lock: a callback's captures may run code in their deinit.
        withExtendedLifetime(dropped) {}
    }

    /// The call `member` the pump took is about to run on the calling thread; returns `false` if
    /// removal dropped it meanwhile (then it must not run, and ``end(_:)`` is not called).
    func begin(_ member: UInt64) -> Bool {
        let context = ThreadContext.current
        let begins = state.withLock { state -> Bool in
            guard let current = state.current, current.member == member, !current.isDropped else { return false }
            state.current?.thread = ObjectIdentifier(context)
            return true
        }
        if begins { context.enter(self) }
        return begins
    }

    /// Takes `member`'s call and begins it on the calling thread, in one step, if it is the next
    /// call to make: what the pump of a ``Pump/tasks`` gate does once on the member's actor, so
    /// that changes posted while it waited for the actor merge into the call (see
    /// ``pumpTasks()``). `nil` when another call comes first now, or none is left for `member`
    /// (removed meanwhile): the pump looks again.
    func takeAndBegin(_ member: UInt64) -> (any PendingCall)? {
        let context = ThreadContext.current
        let call = state.withLock { state -> (any PendingCall)? in
            guard !state.isClosed, state.current == nil, let (next, _) = state.peekNext(formingBatch: true),
                next == member, let (_, call) = state.takeNext()
            else { return nil }
            state.current = Current(member: member, call: call, thread: ObjectIdentifier(context))
            return call
        }
        if call != nil { context.enter(self) }
        return call
    }

    /// The call that began on the calling thread is over.
    func end(_ member: UInt64) {
        ThreadContext.current.leave(self)
        state.withLock { state in
            if state.current?.member == member { state.current = nil }
        }
        state.broadcast()
    }

    /// The calling thread, which runs a call of this gate, starts waiting for another thread.
    func park(by context: ThreadContext) {
        let thread = ObjectIdentifier(context)
        state.withLock { state in
            if state.current?.thread == thread { state.current?.isParked = true }
        }
        state.broadcast()
    }

    /// The calling thread resumes.
    func unpark(by context: ThreadContext) {
        let thread = ObjectIdentifier(context)
        state.withLock { state in
            if state.current?.thread == thread { state.current?.isParked = false }
        }
    }

    /// The members a drop is for.
    private enum Members {
        case one(UInt64)
        /// The members up to this identifier.
        case through(UInt64)
        case all

        func contains(_ member: UInt64) -> Bool {
            switch self {
            case .one(let one): member == one
            case .through(let last): member <= last
            case .all: true
            }
        }
    }

    private func drop(keepingOld keepsOld: Bool, _ members: Members) {
        let dropped = dropPending(keepingOld: keepsOld, members)
        waitForCall(ThreadContext.current, where: members.contains)
        withExtendedLifetime(dropped) {}
    }

    /// The first half of a drop: takes the pending calls of `members` out (and makes a taken call
    /// refuse to begin); returns them, to release after the lock.
    ///
    /// - Complexity: For one member, O(log *b*) in the *b* calls of the batch and O(1) besides,
    ///   whatever number of calls waited at once before; for several, linear in the waiting calls.
    private func dropPending(keepingOld keepsOld: Bool, _ members: Members) -> [any Sendable] {
        let matches = members.contains
        return state.withLock { state -> [any Sendable] in
            if let current = state.current, matches(current.member) {
                if current.thread == nil {
                    state.current?.isDropped = true
                    // Taken before the pending calls were posted: its `old` is the earlier one.
                    if keepsOld, state.withdrawn[current.member] == nil {
                        state.withdrawn[current.member] = current.call.oldValue
                    }
                } else if !keepsOld {
                    state.current?.isDropped = true  // running: it carries nothing for a removed member
                }
            }
            var dropped: [any Sendable] = []
            // The batch's calls first: they were posted before the waiting ones, so a member's
            // earliest `old` is in the batch when it has a call there.
            // The batch is sorted by member: the members dropped are a range of it.
            var index = state.batchHead
            if case .one(let member) = members {
                index += lowerBound(count: state.batch.count - state.batchHead) {
                    state.batch[state.batchHead + $0].member < member
                }
            }
            while index < state.batch.count, matches(state.batch[index].member) {
                defer { index += 1 }
                guard let call = state.batch[index].call else { continue }
                state.batch[index].call = nil
                if keepsOld, state.withdrawn[state.batch[index].member] == nil {
                    state.withdrawn[state.batch[index].member] = call.oldValue
                }
                dropped.append(call)
            }
            let waiting: [UInt64] =
                switch members {
                case .one(let member): [member]
                case .through, .all: state.pending.keys.filter(matches)
                }
            for member in waiting {
                guard let call = state.pending.removeValue(forKey: member) else { continue }
                if keepsOld, state.withdrawn[member] == nil {
                    state.withdrawn[member] = call.oldValue
                }
                dropped.append(call)
            }
            if !keepsOld {
                // Removed members come back no more: what they kept goes, after the lock.
                let gone: (withdrawn: [UInt64], carried: [UInt64]) =
                    switch members {
                    case .one(let member): ([member], [member])
                    case .through, .all: (state.withdrawn.keys.filter(matches), state.carried.keys.filter(matches))
                    }
                for member in gone.withdrawn {
                    if let value = state.withdrawn.removeValue(forKey: member) { dropped.append(value) }
                }
                for member in gone.carried {
                    if let value = state.carried.removeValue(forKey: member) { dropped.append(value) }
                }
            }
            return dropped
        }
    }

    /// Waits until no call of a member that `matches` runs on a thread other than `context`'s (or
    /// the thread running it parks, when a thread may be waiting for `context`'s: see
    /// ``ThreadContext/mayBeWaitedFor``).
    private func waitForCall(_ context: ThreadContext, where matches: @escaping (UInt64) -> Bool) {
        let thread = ObjectIdentifier(context)
        let givesWayToParkedCall = context.mayBeWaitedFor
        context.parked {
            state.withLock(
                waitingUntil: { state in
                    guard let current = state.current, let running = current.thread, matches(current.member) else {
                        return true
                    }
                    return running == thread || (givesWayToParkedCall && current.isParked)
                },
                { _ in }
            )
        }
    }

    /// Takes the next call, or stops the pump when none is left.
    private func takeNext() -> (UInt64, any PendingCall)? {
        let next = state.withLock { state -> (UInt64, any PendingCall)? in
            state.current = nil
            guard !state.isClosed, let (member, call) = state.takeNext() else {
                state.isPumping = false
                return nil
            }
            state.current = Current(member: member, call: call)
            return (member, call)
        }
        // Wakes removers waiting for the call that just ended.
        state.broadcast()
        return next
    }

    /// Runs on the queue: makes the calls one at a time until none is left.
    private func pumpOnQueue() {
        while let (member, call) = takeNext() {
            guard begin(member) else { continue }
            call.run(gate: self, member: member)
            end(member)
        }
    }

    /// Runs in a task: makes the calls one at a time, each on its member's actor.
    ///
    /// The pump looks at the next call without taking it, hops to its member's actor, and takes
    /// it there (``takeAndBegin(_:)``): an actor that is busy for a while gets the changes posted
    /// meanwhile merged into that one call, the first `old` and the latest `new`, instead of a
    /// call with the value it had when it fell behind followed by a merged one.
    private func pumpTasks() async {
        // Held, not named by address: a call made and freed could leave its address to the next
        // call posted, which `discardIfNext` would then take for it.
        var previous: (any PendingCall)?
        while let (member, call) = nextToMake(after: previous) {
            previous = call
            await call.runIsolated(gate: self, member: member)
        }
    }

    /// The next call for ``pumpTasks()``, left in place, or `nil` (and the pump stops) when none
    /// is left. `previous`, the call the pump looked at last, is discarded first if it is still
    /// next, not taken: its member's wrapper did not make it (the owner was gone), so the pump
    /// moves on instead of looking at it again.
    private func nextToMake(after previous: (any PendingCall)?) -> (UInt64, any PendingCall)? {
        var discarded: (any PendingCall)?
        let next = state.withLock { state -> (UInt64, any PendingCall)? in
            state.current = nil
            if let previous {
                discarded = state.discardIfNext(previous)
            }
            guard !state.isClosed, let next = state.peekNext(formingBatch: false) else {
                state.isPumping = false
                return nil
            }
            return next
        }
        // Released after the lock: a callback's captures may run code in their deinit.
        withExtendedLifetime(discarded) {}
        state.broadcast()
        return next
    }
}

/// One member's call waiting in a ``DeliveryGate``, typed inside (see ``PendingChange``).
@usableFromInline
protocol PendingCall: AnyObject, Sendable {
    /// Makes the call on the calling thread (a queue's).
    func run(gate: DeliveryGate, member: UInt64)
    /// Hops to its member's actor and there takes the member's call from the gate and makes it
    /// (see ``DeliveryGate/takeAndBegin(_:)``): called on a call the pump looked at, not taken.
    func runIsolated(gate: DeliveryGate, member: UInt64) async
    /// Merges a newer change of the same member into this one: keep `old`, take the new `new`
    /// (the values replaced are left in `newer`, so that they are released after the gate's lock).
    func absorb(_ newer: any PendingCall)
    /// The `old` the call will be made with.
    var oldValue: any Sendable { get }
    /// Makes the call start from `old` instead, the value its member heard last, and compare it
    /// with its `new` as a merged change does; returns the value replaced, to release after the
    /// gate's lock.
    func rebase(old: any Sendable) -> any Sendable
}

/// A member's pending change: its callback, the `old` it will get, and the latest `new`.
@usableFromInline
final class PendingChange<State: Sendable, Value: Sendable>: PendingCall, @unchecked Sendable {
    // @unchecked: `old`, `new` and `state` are only touched under the gate's lock (`absorb`,
    // `rebase`) or by the one pump that took the call out of the gate (`run`), never both; a call
    // the pump only looked at (a task pump, before the hop to the actor) is read for its constant
    // `callback` alone, and for its values once `takeAndBegin` took it.
    let callback: ConsumerCallback<State, Value>
    var old: Value
    var new: Value
    var state: State?
    /// How the member compares values, `nil` for a member that fires for every state or for an
    /// `.instantly` call; and whether later changes were merged into this one. A merged change
    /// whose values are the same (the value came back while the call waited) is no change: it is
    /// dropped when its turn comes, outside the gate's lock.
    let isSame: (@Sendable (Value, Value) -> Bool)?
    var isMerged = false
    /// The place in its dispatch chain of the action the change came from, so that a callback
    /// that dispatches continues the chain by one link, as it would if called synchronously.
    let generation: Int

    @usableFromInline
    init(
        _ callback: ConsumerCallback<State, Value>, old: Value, new: Value, state: State?,
        isSame: (@Sendable (Value, Value) -> Bool)?
    ) {
        self.callback = callback
        self.old = old
        self.new = new
        self.state = state
        self.isSame = isSame
        generation = ThreadContext.current.generation
    }

    /// Whether the merged change came back to where it started (then it is not made).
    var cameBack: Bool {
        guard isMerged, let isSame else { return false }
        return isSame(old, new)
    }

    @usableFromInline
    func run(gate: DeliveryGate, member: UInt64) {
        guard !cameBack else { return gate.carry(old, of: member) }
        let context = ThreadContext.current
        let outer = context.generation
        context.generation = generation
        callback.call(old: old, new: new, state: state)
        context.generation = outer
    }

    @usableFromInline
    func runIsolated(gate: DeliveryGate, member: UInt64) async {
        // This call was looked at, not taken: until taken, posts may merge into it under the gate's
        // lock, so only the constant `callback` is read here; the values are read from the call
        // `takeAndBegin` takes, after it began.
        guard case .isolated(let call) = callback else {
            // Not an actor's member (none is posted to an actor gate today; kept so that one
            // would still be made, in order): run it where the pump is.
            guard let taken = Self.takeAndBegin(member, of: gate) else { return }
            taken.run(gate: gate, member: member)
            gate.end(member)
            return
        }
        await call(gate, member)
    }

    /// Takes `member`'s call from `gate` and begins it on the calling thread (see
    /// ``DeliveryGate/takeAndBegin(_:)``), or `nil` when it is not the next call any more.
    @usableFromInline
    static func takeAndBegin(_ member: UInt64, of gate: DeliveryGate) -> PendingChange? {
        guard let call = gate.takeAndBegin(member) else { return nil }
        // Every call posted for a member is a `PendingChange` of its state and value types (see
        // `absorb`); debug builds check the cast.
        return unsafeDowncast(call, to: Self.self)
    }

    @usableFromInline
    func absorb(_ newer: any PendingCall) {
        let newer = unsafeDowncast(newer, to: Self.self)
        // Swapped, not assigned: the values replaced go with `newer`, which its poster releases
        // after the gate's lock (the last copy of a state may run a user deinit).
        swap(&new, &newer.new)
        swap(&state, &newer.state)
        isMerged = true
    }

    @usableFromInline
    var oldValue: any Sendable { old }

    @usableFromInline
    func rebase(old: any Sendable) -> any Sendable {
        guard var old = old as? Value else { return old }
        swap(&self.old, &old)
        isMerged = true
        return old
    }
}
