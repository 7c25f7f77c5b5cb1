import ReduxConsumer

/// How the selectors of a scaling row are spread over `StateConsumer`s, all on one store.
enum ConsumerLayout {
    /// One consumer with N members.
    case oneConsumer
    /// N consumers with one member each.
    case consumerPerSelector
}

/// One row of a scaling scenario: N selectors of one kind, laid out one way, fired one way.
struct ScalingRow {
    let layout: ConsumerLayout
    let selector: SelectorKind
    let selectors: Int
    let firing: Firing

    /// "1 consumer × N key paths, 10% fire, N = 1,000", "N consumers × 1 member on one key path,
    /// fired, N = 100".
    var title: String {
        let (singular, plural) =
            switch (firing, selector) {
            case (.sharedKeyPath, _): ("member on one key path", "members on one key path")
            case (.slots, .keyPath): ("key path", "key paths")
            case (.slots, .closure): ("closure", "closures")
            case (.slots, .closureValue): ("closure value", "closure values")
            }
        let layout =
            switch layout {
            case .oneConsumer: "1 consumer × N \(plural)"
            case .consumerPerSelector: "N consumers × 1 \(singular)"
            }
        return "\(layout), \(firing.label), N = \(grouped(selectors))"
    }
}

/// What one row measured: the library and the floor, in the same run.
struct ScalingMeasurement {
    let row: ScalingRow
    let library: BudgetedTiming
    let floor: BudgetedTiming
    let failure: String?

    var nsPerDispatch: Double { library.timing.median }

    /// The median per fired callback (not finite when nothing fires).
    var nsPerCallback: Double {
        let fired = row.firing.firedPerDispatch(row.selectors)
        return fired > 0 ? nsPerDispatch / fired : .nan
    }
}

/// A scaling store with the row's consumers subscribed, and what their callbacks must add up to.
final class ScalingFixture {
    let row: ScalingRow
    let sink = Sink()
    let driver: ScalingDriver
    private var subscriptions: [Subscription] = []

    init(_ row: ScalingRow) {
        self.row = row
        let store = Store(initialState: row.firing.initialState(selectors: row.selectors), reducer: scalingReducer)
        driver = ScalingDriver(store, firing: row.firing, selectors: row.selectors)
        switch row.layout {
        case .oneConsumer:
            let consumer = StateConsumer<ScalingState>()
            subscriptions.append(store.subscribe(consumer))
            for index in 0..<row.selectors {
                add(index, to: consumer)
            }
        case .consumerPerSelector:
            subscriptions.reserveCapacity(row.selectors)
            for index in 0..<row.selectors {
                let consumer = StateConsumer<ScalingState>()
                subscriptions.append(store.subscribe(consumer))
                add(index, to: consumer)
            }
        }
    }

    private func add(_ index: Int, to consumer: StateConsumer<ScalingState>) {
        let sink = sink
        switch row.selector {
        case .keyPath:
            consumer.add(row.firing.keyPath(index)) { old, new in sink.recordStep(from: old, to: new) }
        case .closure:
            // A literal at the call, as the README writes a selector: Swift builds it at the
            // library's generic signature. The same closure made elsewhere at its own type (as
            // `row.firing.selector(index)` makes it) would reach the library behind a
            // reabstraction thunk, one more call and one more object per evaluation: the rows
            // of `.closureValue` measure that way.
            switch row.firing {
            case .slots:
                consumer.add({ $0.slots[index] }) { old, new in sink.recordStep(from: old, to: new) }
            case .sharedKeyPath:
                consumer.add({ $0.shared }) { old, new in sink.recordStep(from: old, to: new) }
            }
        case .closureValue:
            consumer.add(row.firing.selector(index)) { old, new in sink.recordStep(from: old, to: new) }
        }
    }

    /// Cancels the subscriptions, then dispatches actions that change every selected value: no
    /// callback may follow. Returns what went wrong, if anything.
    func cancelAndCheck() -> String? {
        if let failure = checkCallbacks(sink, expected: driver.expectedCallbacks, of: "library") {
            return failure
        }
        for subscription in subscriptions {
            subscription.cancel()
        }
        let calls = sink.calls
        driver.store.dispatch(ScalingAction.bump(period: 1, round: 0))
        driver.store.dispatch(ScalingAction.bumpShared)
        return sink.calls == calls ? nil : "\(sink.calls - calls) callbacks after every subscription was cancelled"
    }
}

/// Whether `sink` saw exactly `expected` callbacks, each with the previous value as `old`.
func checkCallbacks(_ sink: Sink, expected: Int, of what: String) -> String? {
    if sink.calls != expected {
        return "\(what): expected \(grouped(expected)) callbacks, saw \(grouped(sink.calls))"
    }
    if sink.checksum != 0 {
        return "\(what): \(grouped(sink.checksum)) callbacks whose old value was not the previous new one"
    }
    return nil
}

/// Measures `rows`, each against its floor, interleaved round by round within `budget`, and checks
/// every callback of each.
///
/// All rows of a comparison are measured together so that its ratios (a row against the same row
/// with N/10 selectors, N consumers against one) are in-run ratios like the floor's, which a noisy
/// neighbour moves much less than rows timed a few seconds apart.
func measure(_ rows: [ScalingRow], within budget: TimeBudget) -> [ScalingMeasurement] {
    let fixtures = rows.map(ScalingFixture.init)
    let floorSinks = rows.map { _ in Sink() }
    var floors = rows.indices.map { index in
        ScalingFloor(
            selectors: rows[index].selectors, selector: rows[index].selector, firing: rows[index].firing,
            sink: floorSinks[index])
    }
    var variants: [(Int) -> Void] = []
    for index in rows.indices {
        variants.append { fixtures[index].driver.run($0) }
        variants.append { floors[index].run($0) }
    }
    let timings = measure(within: budget, variants)
    return rows.indices.map { index in
        let failure =
            fixtures[index].cancelAndCheck()
            ?? checkCallbacks(floorSinks[index], expected: floors[index].expectedCallbacks, of: "floor")
        return ScalingMeasurement(
            row: rows[index], library: timings[2 * index], floor: timings[2 * index + 1], failure: failure)
    }
}

/// `1234567` as "1,234,567".
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}
