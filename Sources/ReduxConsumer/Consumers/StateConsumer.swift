import Dispatch

/// Links property selectors to callbacks that fire only when the selected value changed, with the
/// old and the new value.
///
/// ```swift
/// let consumer = StateConsumer<AppState>()
/// consumer.add(\.counter) { old, new in print("counter: \(old) → \(new)") }
/// consumer.add(\.name) { old, new in print("name: \(old ?? "nil") → \(new ?? "nil")") }
/// let subscription = store.subscribe(consumer)
/// ```
///
/// Feed it by subscribing it to a store (``Store/subscribe(_:)-(StateConsumer<State>)``), or by hand
/// with ``consume(newState:)``, as in ReSwift-Consumer.
///
/// ## Change rules
/// - A consumer fires when its selected value differs from the last value it saw: by `==` for
///   `Equatable` values (collections compare element by element), or by the `isEqual` you give,
///   which then is the only judge. ``ConsumeOptions/pulse`` fires for every state.
/// - `old` is the value the consumer saw last, never stale: every consumer remembers its own last
///   value, even when another consumer dispatched in between.
/// - A change to or from `nil` fires; `nil` to `nil` does not.
///
/// ## First delivery
/// A consumer starts from the value at the moment it is added when the state is known (the
/// consumer is subscribed to a store); otherwise from the first state it consumes. It fires on the
/// first *change* after that. With ``ConsumeOptions/instantly`` it also fires once at the start,
/// with `old == new`.
///
/// ## Order, threads and memory
/// Callbacks run in the order the consumers were added, one at a time, synchronously on the thread
/// that feeds the state (or asynchronously on the queue given at creation, in the same order).
/// Adding and removing consumers is safe from any thread and from inside callbacks: a removed
/// consumer is never called again, not even later in the same pass; an added one starts with the
/// next state. The consumer keeps the selected values only, never a copy of the state; consumers
/// on the same key path share one read and one comparison per state.
public final class StateConsumer<State: Sendable>: Sendable {
    private let drain = Drain(level: .consumer)
    private let engine = ConsumerEngine<State>()
    private let counters = Lock(ConsumerCounters())
    private let delivery: Delivery
    /// Shared by every token this consumer hands out: one closure per consumer, not one per token.
    private let removeByID: @Sendable (UInt64) -> Void

    /// Creates a consumer.
    ///
    /// - Parameter queue: Where callbacks run. `nil` (the default) calls them synchronously on the
    ///   thread that feeds the state, before `dispatch` returns; a queue such as `.main` calls them
    ///   asynchronously there, in order, as ReSwift-Consumer did.
    public init(deliveringOn queue: DispatchQueue? = nil) {
        let drain = drain
        let engine = engine
        let counters = counters
        removeByID = { id in
            drain.perform({ Self.remove(id, from: engine, counters: counters) }) {
                { Self.remove(id, from: engine, counters: counters) }
            }
        }
        if let queue {
            delivery = .queue(queue) { member, call in
                // Ask the drain whether the consumer is still there (ordered with passes and
                // removals), then call on this queue's thread: a job of the drain may run on
                // whichever thread is draining it, never the place for a queued callback.
                let isPresent = Lock(false)
                let check: @Sendable () -> Void = { isPresent.withLock { $0 = engine.contains(member) } }
                drain.perform(check, queueing: { check })
                if isPresent.withLock({ $0 }) { call() }
            }
        } else {
            delivery = .inline
        }
    }

    /// The number of consumers added and not yet removed.
    public var count: Int {
        counters.withLock { $0.count }
    }

    /// Passes a new state: every consumer whose selected value changed is called.
    ///
    /// Safe from any thread; passes run one at a time in the order they arrive. Called from inside
    /// one of this consumer's callbacks, the state is consumed right after the current pass.
    ///
    /// - Parameter newState: The new state.
    public func consume(newState: State) {
        var state = newState
        consume(state: &state)
    }

    /// Consumes `state` without copying it; `inout` only to keep it in memory, never written.
    func consume(state: inout State) {
        let engine = engine
        let delivery = delivery
        drain.submit({ engine.consume(&state, delivery: delivery) }) {
            // Only when the pass cannot run now: the job keeps its own copy of the state.
            let copy = state
            return {
                var state = copy
                engine.consume(&state, delivery: delivery)
            }
        }
    }

    /// Removes the consumer `token` names; it is not called again, even later in a pass that is
    /// running now (unless `remove` is called from inside another consumer's callback while this
    /// one is busy on another thread; then it ends right after that thread's current pass).
    ///
    /// - Parameter token: The token `add` returned.
    public func remove(_ token: ConsumerToken) {
        removeByID(token.id)
    }

    /// Removes every consumer.
    public func removeAll() {
        let job: @Sendable () -> Void = { [engine, counters] in
            let removed = engine.removeAll()
            counters.withLock { $0.count -= removed }
        }
        drain.perform(job, queueing: { job })
    }

    /// A new member identifier, counted as live from now on.
    @usableFromInline
    func reserveID() -> UInt64 {
        counters.withLock { counters in
            counters.nextID += 1
            counters.count += 1
            return counters.nextID
        }
    }

    /// Registers one member: every public `add` ends here, through the `@inlinable` helpers in
    /// `StateConsumer+Add.swift`, which build the enrollment (and everything in it typed by the
    /// selected value) in the caller's module.
    @usableFromInline
    func enroll(_ enrollment: Enrollment<State>) -> ConsumerToken {
        let engine = engine
        let delivery = delivery
        drain.perform({ engine.add(enrollment, delivery: delivery) }) {
            // Only when another thread is running this consumer: the job waits in its queue.
            let enrollment = UncheckedSendable(enrollment)
            return { engine.add(enrollment.value, delivery: delivery) }
        }
        return ConsumerToken(id: enrollment.id, owner: ObjectIdentifier(self), remove: removeByID)
    }

    /// Makes `source` the place to read the current state when a consumer is added.
    func attach(source: StateSource<State>) {
        let engine = engine
        let job: @Sendable () -> Void = { engine.source = source }
        drain.perform(job, queueing: { job })
    }

    /// Forgets the source with identity `sourceID`, if it is the current one.
    func detach(sourceID: ObjectIdentifier) {
        let engine = engine
        let job: @Sendable () -> Void = {
            if engine.source?.id == sourceID { engine.source = nil }
        }
        drain.perform(job, queueing: { job })
    }

    private static func remove(_ id: UInt64, from engine: ConsumerEngine<State>, counters: Lock<ConsumerCounters>) {
        if engine.remove(id) {
            counters.withLock { $0.count -= 1 }
        }
    }
}

/// Identifiers and the live count of one ``StateConsumer``; not nested, so it is not generic.
struct ConsumerCounters {
    var nextID: UInt64 = 0
    var count = 0
}

/// Carries a value confined to one drain into a job of that same drain.
struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked: only used to hand a value to a job of the drain it is confined to.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
