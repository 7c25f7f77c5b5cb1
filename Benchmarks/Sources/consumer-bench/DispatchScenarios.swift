import ReduxConsumer

/// S1: the cost of `dispatch` itself, with nobody listening.
func dispatchWithoutSubscribers(_ sizes: Sizes) -> Report {
    let dispatches = sizes.s1Dispatches
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    let dispatcher = Dispatcher(store)
    var floor = Floor(state: BenchState(), consumers: 0, sink: Sink())
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            dispatcher.variant(dispatching: dispatches),
            Variant(operations: dispatches) { floor.run(dispatches: dispatches) },
        ]
    )
    var report = Report(
        scenario: "S1",
        title: "dispatch, no subscribers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [("vs_floor", timings[0].median / timings[1].median)],
        figures: [("floor_ns_per_op", timings[1].median), ("dispatches", Double(dispatches))],
        target: "≤ 100 ns per dispatch"
    )
    report.goalMet = report.nsPerOp <= 100
    let dispatched = dispatcher.dispatched
    let last = dispatched % BenchState.fieldCount
    if store.state.value(field: last) != dispatched {
        report.failure = "final state lost an action"
    }
    return report
}

/// The floor of S2: a loop calling every closure with the old and the new state.
private struct FanOutFloor {
    var state = BenchState()
    var callbacks: [(_ old: BenchState, _ new: BenchState) -> Void]
    var dispatched = 0

    mutating func run(dispatches: Int) {
        for _ in 0..<dispatches {
            dispatched &+= 1
            let old = state
            state.set(field: dispatched % BenchState.fieldCount, to: dispatched)
            let new = state
            for callback in callbacks {
                callback(old, new)
            }
        }
    }
}

/// S2: whole-state closure subscribers, every one called for every action.
func fanOut(_ sizes: Sizes) -> Report {
    let dispatches = sizes.s2Dispatches
    let subscribers = sizes.s2Subscribers
    let sink = Sink()
    let floorSink = Sink()
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    let subscriptions = (0..<subscribers).map { _ in
        store.subscribe { old, new in sink.record(new.f0 &- old.f0) }
    }
    var floor = FanOutFloor(
        callbacks: (0..<subscribers).map { _ in { old, new in floorSink.record(new.f0 &- old.f0) } }
    )
    let dispatcher = Dispatcher(store)
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            dispatcher.variant(dispatching: dispatches),
            Variant(operations: dispatches) { floor.run(dispatches: dispatches) },
        ]
    )
    var report = Report(
        scenario: "S2",
        title: "fan-out, \(subscribers) closure subscribers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [("vs_floor", timings[0].median / timings[1].median)],
        figures: [
            ("floor_ns_per_op", timings[1].median), ("ns_per_callback", timings[0].median / Double(subscribers)),
        ],
        target: "≤ 1.5× floor"
    )
    report.goalMet = report.nsPerOp <= 1.5 * timings[1].median
    let dispatched = dispatcher.dispatched
    if sink.calls != dispatched * subscribers || sink.checksum != floorSink.checksum {
        report.failure = "expected \(dispatched * subscribers) callbacks, saw \(sink.calls)"
    }
    withExtendedLifetime(subscriptions) {}
    return report
}
