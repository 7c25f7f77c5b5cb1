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
    private let drain = Drain<State>(level: .consumer)
    private let engine = ConsumerEngine<State>()
    private let counters = Lock(Counters())

    private struct Counters {
        var nextID: UInt64 = 0
        var count = 0
    }

    /// Creates a consumer.
    ///
    /// - Parameter queue: Where callbacks run. `nil` (the default) calls them synchronously on the
    ///   thread that feeds the state, before `dispatch` returns; a queue such as `.main` calls them
    ///   asynchronously there, in order, as ReSwift-Consumer did.
    public init(deliveringOn queue: DispatchQueue? = nil) {
        if let queue {
            let drain = drain
            let engine = engine
            // A queued call runs as a job of this consumer's drain, so it is ordered with passes and
            // removals, and is dropped if its consumer was removed after the call was queued.
            engine.delivery = .queue(queue) { member, call in
                drain.perform(
                    {
                        if engine.contains(member) { call() }
                    },
                    process: { engine.consume($0, delivery: engine.delivery) }
                )
            }
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
        drain.submit(newState, process: process)
    }

    /// Removes the consumer `token` names; it is not called again, even later in a pass that is
    /// running now.
    ///
    /// - Parameter token: The token `add` returned.
    public func remove(_ token: ConsumerToken) {
        remove(id: token.id)
    }

    /// Removes every consumer.
    public func removeAll() {
        drain.perform(
            { [engine, counters] in
                let removed = engine.removeAll()
                counters.withLock { $0.count -= removed }
            },
            process: process
        )
    }

    /// Registers one consumer; every public `add` ends here.
    func register<Value: Sendable>(
        groupKey: (any AnyKeyPath & Sendable)?,
        select: @escaping @Sendable (State) -> Value,
        isEqual: (@Sendable (Value, Value) -> Bool)?,
        options: ConsumeOptions,
        callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        let id = counters.withLock { counters in
            counters.nextID += 1
            counters.count += 1
            return counters.nextID
        }
        let isPulse = options.contains(.pulse)
        let comparison = isPulse ? nil : isEqual
        let key = isPulse ? nil : groupKey
        let instantly = options.contains(.instantly)
        let delivery = engine.delivery
        drain.perform(
            { [engine] in
                engine.add(
                    id: id,
                    groupKey: key,
                    select: select,
                    isEqual: comparison,
                    instantly: instantly,
                    callback: callback,
                    delivery: delivery
                )
            },
            process: process
        )
        return ConsumerToken(id: id, owner: ObjectIdentifier(self)) { [weak self] id in
            self?.remove(id: id)
        }
    }

    /// Makes `source` the place to read the current state when a consumer is added.
    func attach(source: StateSource<State>) {
        drain.perform({ [engine] in engine.source = source }, process: process)
    }

    /// Forgets the source with identity `sourceID`, if it is the current one.
    func detach(sourceID: ObjectIdentifier) {
        drain.perform(
            { [engine] in
                if engine.source?.id == sourceID { engine.source = nil }
            },
            process: process
        )
    }

    private func remove(id: UInt64) {
        drain.perform(
            { [engine, counters] in
                if engine.remove(id) {
                    counters.withLock { $0.count -= 1 }
                }
            },
            process: process
        )
    }

    private func process(_ state: State) {
        engine.consume(state, delivery: engine.delivery)
    }
}
