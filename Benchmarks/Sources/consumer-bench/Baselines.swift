/// The two designs every scenario is compared with, written in this file without the library.

/// One entry of the floor: what a careful programmer writes by hand for one consumer.
struct FloorEntry {
    let select: (BenchState) -> Int
    var last: Int
    let callback: (_ old: Int, _ new: Int) -> Void
}

/// The floor: reduce the state in place, then for every entry read the selected value, compare it
/// with the last one and call the callback when it changed. No locks, no queue, no type erasure.
struct Floor {
    var state: BenchState
    var entries: [FloorEntry]
    var dispatched = 0

    init(state: BenchState, consumers: Int, sink: Sink) {
        self.state = state
        entries = (0..<consumers).map { index in
            let select = BenchState.selector(field: index % BenchState.fieldCount)
            return FloorEntry(select: select, last: select(state)) { _, new in sink.record(new) }
        }
    }

    /// Applies `dispatches` actions, each changing one field, and notifies the entries.
    mutating func run(dispatches: Int) {
        for _ in 0..<dispatches {
            dispatched &+= 1
            state.set(field: dispatched % BenchState.fieldCount, to: dispatched)
            for index in entries.indices {
                let new = entries[index].select(state)
                if new != entries[index].last {
                    let old = entries[index].last
                    entries[index].last = new
                    entries[index].callback(old, new)
                }
            }
        }
    }
}

/// The whole-state design users are leaving (ReSwift-Consumer): a consumer set keeps a copy of the
/// whole previous state, and every consumer evaluates its selector on the old and the new state.
struct NaiveConsumerSet {
    var previous: BenchState
    var consumers: [(_ old: BenchState, _ new: BenchState) -> Void] = []

    init(state: BenchState) {
        previous = state
    }

    /// A consumer that compares the value at `keyPath` in both states.
    mutating func add<Value: Equatable>(
        _ keyPath: KeyPath<BenchState, Value>,
        _ callback: @escaping (Value, Value) -> Void
    ) {
        consumers.append { old, new in
            let oldValue = old[keyPath: keyPath]
            let newValue = new[keyPath: keyPath]
            if oldValue != newValue { callback(oldValue, newValue) }
        }
    }

    /// A consumer that compares what `selector` computes from both states.
    mutating func add<Value: Equatable>(
        _ selector: @escaping (BenchState) -> Value, _ callback: @escaping (Value, Value) -> Void
    ) {
        consumers.append { old, new in
            let oldValue = selector(old)
            let newValue = selector(new)
            if oldValue != newValue { callback(oldValue, newValue) }
        }
    }

    mutating func consume(_ state: BenchState) {
        for consumer in consumers {
            consumer(previous, state)
        }
        previous = state
    }
}

/// A store in the naive design: reduce in place, then feed the consumer set the whole state.
struct NaiveStore {
    var state: BenchState
    var consumers: NaiveConsumerSet
    var dispatched = 0

    init(state: BenchState) {
        self.state = state
        consumers = NaiveConsumerSet(state: state)
    }

    mutating func run(dispatches: Int) {
        for _ in 0..<dispatches {
            dispatched &+= 1
            state.set(field: dispatched % BenchState.fieldCount, to: dispatched)
            consumers.consume(state)
        }
    }
}
