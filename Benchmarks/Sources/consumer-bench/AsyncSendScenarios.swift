import ReduxConsumer

/// Sends `count` actions from inside an actor, so `send` inherits the actor's isolation.
private actor ActorSender {
    /// Sends `SetField` actions numbered `first + 1` through `first + count`.
    func send(to store: Store<BenchState>, after first: Int, count: Int) async {
        for offset in 1...count {
            let value = first + offset
            await store.send(SetField(field: value % BenchState.fieldCount, value: value))
        }
    }
}

/// A bench store and the number of `SetField` actions sent to it, numbered from 1, so its final
/// state can be checked against what was sent.
private final class NumberedStore {
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    private(set) var sent = 0

    /// Reserves the next `count` numbers and returns the last one already used.
    func reserve(_ count: Int) -> Int {
        defer { sent += count }
        return sent
    }

    /// A description of the first field whose value is not the last number sent to it.
    func lostAction() -> String? {
        let state = store.state
        for value in max(1, sent - BenchState.fieldCount + 1)...max(1, sent) {
            let field = value % BenchState.fieldCount
            if state.value(field: field) != value {
                return "field \(field) is \(state.value(field: field)), expected \(value): an action was lost"
            }
        }
        return nil
    }
}

/// S8: `await store.send` from one task with no contention, against S1's synchronous `dispatch`
/// from the main thread and the same `dispatch` loop inside a task, and `send` from an actor.
func asyncSend(_ sizes: AsyncSizes) -> Report {
    let sends = sizes.sends
    let sending = NumberedStore()
    let taskDispatching = NumberedStore()
    let dispatching = NumberedStore()
    let actorSending = NumberedStore()
    let sender = ActorSender()
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            Variant(operations: sends) {
                let first = sending.reserve(sends)
                let store = sending.store
                runBlocking {
                    for offset in 1...sends {
                        let value = first + offset
                        await store.send(SetField(field: value % BenchState.fieldCount, value: value))
                    }
                }
            },
            Variant(operations: sends) {
                let first = dispatching.reserve(sends)
                let store = dispatching.store
                for offset in 1...sends {
                    let value = first + offset
                    store.dispatch(SetField(field: value % BenchState.fieldCount, value: value))
                }
            },
            Variant(operations: sends) {
                let first = taskDispatching.reserve(sends)
                let store = taskDispatching.store
                runBlocking {
                    for offset in 1...sends {
                        let value = first + offset
                        store.dispatch(SetField(field: value % BenchState.fieldCount, value: value))
                    }
                }
            },
            Variant(operations: sends) {
                let first = actorSending.reserve(sends)
                let store = actorSending.store
                runBlocking { await sender.send(to: store, after: first, count: sends) }
            },
        ]
    )
    return Report(
        scenario: "S8",
        title: "await send, one task, no contention",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [
            ("vs_S1_dispatch", timings[0].median / timings[1].median),
            ("vs_dispatch_in_task", timings[0].median / timings[2].median),
        ],
        figures: [
            ("S1_dispatch_ns", timings[1].median), ("dispatch_in_task_ns", timings[2].median),
            ("send_from_actor_ns", timings[3].median), ("sends", Double(sends)),
        ],
        target: "≤ 2× S1",
        failure: sending.lostAction() ?? dispatching.lostAction() ?? taskDispatching.lostAction()
            ?? actorSending.lostAction()
    ).meeting(timings[0].median <= 2 * timings[1].median)
}

/// A store with one key-path consumer per field (as S7), whose actions increment one field each.
private final class CountingStore: Sendable {
    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    let sink = Sink()
    private let consumer = StateConsumer<BenchState>()
    private let subscription: Subscription

    init() {
        for field in 0..<BenchState.fieldCount {
            consumer.add(BenchState.keyPaths[field]) { [sink] _, new in sink.record(new) }
        }
        subscription = store.subscribe(consumer)
    }

    /// Sends `count` increments, starting at field `start` and going round the fields.
    func send(_ count: Int, from start: Int) async {
        for index in 0..<count {
            await store.send(IncrementField(field: (start + index) % BenchState.fieldCount))
        }
    }

    /// What went wrong if the store did not count exactly `sends` increments, spread evenly.
    func check(sends: Int) -> String? {
        let expected = sends / BenchState.fieldCount
        let state = store.state
        for field in 0..<BenchState.fieldCount where state.value(field: field) != expected {
            return "field \(field) is \(state.value(field: field)), expected \(expected): an action was lost"
        }
        if sink.calls != sends {
            return "expected \(sends) callbacks, saw \(sink.calls)"
        }
        return nil
    }
}

/// S10: many tasks each awaiting `send` to one store (with one consumer per field attached),
/// against one task sending all of it; checks that no action and no notification is lost.
func concurrentSend(_ sizes: AsyncSizes) -> Report {
    let tasks = sizes.tasks
    let perTask = sizes.sendsPerTask
    let total = tasks * perTask
    let concurrent = CountingStore()
    let single = CountingStore()
    var rounds = 0
    let timings = measure(
        repetitions: sizes.concurrentRepetitions,
        [
            Variant(operations: total) {
                rounds += 1
                runBlocking {
                    await withTaskGroup(of: Void.self) { group in
                        for task in 0..<tasks {
                            group.addTask { await concurrent.send(perTask, from: task) }
                        }
                    }
                }
            },
            Variant(operations: total) {
                runBlocking { await single.send(total, from: 0) }
            },
        ]
    )
    return Report(
        scenario: "S10",
        title: "\(tasks) tasks × \(perTask) await send, \(BenchState.fieldCount) consumers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [("throughput_vs_single_task", timings[1].median / timings[0].median)],
        figures: [("single_task_ns_per_op", timings[1].median), ("sends", Double(total))],
        target: "0 lost; throughput ≥ 0.5× single task",
        failure: concurrent.check(sends: rounds * total) ?? single.check(sends: rounds * total)
    ).meeting(timings[1].median >= 0.5 * timings[0].median)
}
