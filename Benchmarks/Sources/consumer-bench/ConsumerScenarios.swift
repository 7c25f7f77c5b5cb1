import ReduxConsumer

/// How the consumers of S3–S5 and of the scaling scenarios select their value.
enum SelectorKind {
    case keyPath
    /// A closure: in the scaling scenarios, a literal written at the `add` call.
    case closure
    /// In the scaling scenarios only, a closure made by a function at its own type and passed to
    /// `add` as a value: Swift wraps it in a reabstraction thunk to match the library's generic
    /// signature (S3–S5 treat it as ``closure``).
    case closureValue
}

/// Runs one selective scenario: `sizes.consumers` consumers spread over the 100 fields (10 per
/// field, added interleaved), one field changed per action; the library against the floor and the
/// naive design, all on the same initial state.
private func selective(
    _ sizes: Sizes,
    state: BenchState,
    selector: SelectorKind,
    dispatches: Int
) -> (timings: [Timing], failure: String?) {
    let consumers = sizes.consumers
    let sink = Sink()
    let floorSink = Sink()
    let naiveSink = Sink()
    let store = Store(initialState: state, reducer: benchReducer)
    let consumer = StateConsumer<BenchState>()
    var naive = NaiveStore(state: state)
    for index in 0..<consumers {
        let field = index % BenchState.fieldCount
        switch selector {
        case .keyPath:
            consumer.add(BenchState.keyPaths[field]) { _, new in sink.record(new) }
            naive.consumers.add(BenchState.keyPaths[field]) { _, new in naiveSink.record(new) }
        case .closure, .closureValue:
            consumer.add(BenchState.selectors[field]) { _, new in sink.record(new) }
            naive.consumers.add(BenchState.selectors[field]) { _, new in naiveSink.record(new) }
        }
    }
    let subscription = store.subscribe(consumer)
    var floor = Floor(state: state, consumers: consumers, sink: floorSink)
    let dispatcher = Dispatcher(store)
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            dispatcher.variant(dispatching: dispatches),
            Variant(operations: dispatches) { floor.run(dispatches: dispatches) },
            Variant(operations: dispatches) { naive.run(dispatches: dispatches) },
        ]
    )
    subscription.cancel()
    let perField = consumers / BenchState.fieldCount
    var failure: String?
    let dispatched = dispatcher.dispatched
    if sink.calls != dispatched * perField || sink.checksum != floorSink.checksum
        || floorSink.calls != naiveSink.calls
    {
        failure = "expected \(dispatched * perField) callbacks, saw \(sink.calls) (floor \(floorSink.calls))"
    }
    return (timings, failure)
}

/// S3: key-path consumers, ten per field; one field changes per action.
func selectiveKeyPaths(_ sizes: Sizes) -> (report: Report, nsPerOp: Double) {
    let (timings, failure) = selective(sizes, state: BenchState(), selector: .keyPath, dispatches: sizes.s3Dispatches)
    var report = Report(
        scenario: "S3",
        title: "selective, \(sizes.consumers) key-path consumers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [
            ("vs_floor", timings[0].median / timings[1].median), ("vs_naive", timings[0].median / timings[2].median),
        ],
        figures: [("floor_ns_per_op", timings[1].median), ("naive_ns_per_op", timings[2].median)],
        target: "≤ 1.0× floor, ≤ 1/30 naive",
        failure: failure
    )
    report.goalMet = timings[0].median <= timings[1].median && timings[0].median * 30 <= timings[2].median
    return (report, timings[0].median)
}

/// S4: the same with closure selectors, which cannot be grouped.
func selectiveClosures(_ sizes: Sizes) -> Report {
    let (timings, failure) = selective(sizes, state: BenchState(), selector: .closure, dispatches: sizes.s4Dispatches)
    var report = Report(
        scenario: "S4",
        title: "selective, \(sizes.consumers) closure consumers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [
            ("vs_floor", timings[0].median / timings[1].median), ("vs_naive", timings[0].median / timings[2].median),
        ],
        figures: [("floor_ns_per_op", timings[1].median), ("naive_ns_per_op", timings[2].median)],
        target: "≤ 1.2× floor",
        failure: failure
    )
    report.goalMet = timings[0].median <= 1.2 * timings[1].median
    return report
}

/// S5: S3 on a state that also holds a large array no action touches.
func largeState(_ sizes: Sizes, selectiveNsPerOp: Double?) -> Report {
    var state = BenchState()
    state.samples = Array(0..<sizes.s5Samples)
    let (timings, failure) = selective(sizes, state: state, selector: .keyPath, dispatches: sizes.s3Dispatches)
    var ratios = [
        ("vs_floor", timings[0].median / timings[1].median), ("vs_naive", timings[0].median / timings[2].median),
    ]
    if let selectiveNsPerOp { ratios.insert(("vs_S3", timings[0].median / selectiveNsPerOp), at: 0) }
    var report = Report(
        scenario: "S5",
        title: "large state (\(sizes.s5Samples) × Int), \(sizes.consumers) key-path consumers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: ratios,
        figures: [("floor_ns_per_op", timings[1].median), ("naive_ns_per_op", timings[2].median)],
        target: "≤ 1.2× S3",
        failure: failure
    )
    report.goalMet = selectiveNsPerOp.map { timings[0].median <= 1.2 * $0 }
    return report
}
