import ReduxConsumer

/// The derived selectors of S11: ten, each over three `Int` fields of its own (fields 0–29).
private let selectorCount = 10
private let inputFieldCount = 30

/// What S11's selectors compute: the three inputs combined, then `rounds` rounds of a 64-bit
/// mixer, so the cost can go from a few field reads (0 rounds) to something heavier. A change of
/// one input always changes the result (every step is a bijection).
@inline(never)
private func derivation(_ a: Int, _ b: Int, _ c: Int, rounds: Int) -> Int {
    var hash = UInt64(bitPattern: Int64(a &+ 31 &* b &+ 961 &* c))
    for _ in 0..<rounds {
        hash ^= hash >> 31
        hash &*= 0xBF58_476D_1CE4_E5B9
    }
    return Int(truncatingIfNeeded: hash)
}

/// The inputs of selector `selector`, read by hand as the floor would.
private func inputs(of selector: Int) -> (BenchState) -> (Int, Int, Int) {
    switch selector {
    case 0: { ($0.f0, $0.f1, $0.f2) }
    case 1: { ($0.f3, $0.f4, $0.f5) }
    case 2: { ($0.f6, $0.f7, $0.f8) }
    case 3: { ($0.f9, $0.f10, $0.f11) }
    case 4: { ($0.f12, $0.f13, $0.f14) }
    case 5: { ($0.f15, $0.f16, $0.f17) }
    case 6: { ($0.f18, $0.f19, $0.f20) }
    case 7: { ($0.f21, $0.f22, $0.f23) }
    case 8: { ($0.f24, $0.f25, $0.f26) }
    case 9: { ($0.f27, $0.f28, $0.f29) }
    default: preconditionFailure("no selector \(selector)")
    }
}

/// Adds a consumer of selector `selector` written as a plain closure selector, as a user without
/// `Derived` would: a closure literal at the call site (a closure first stored at its own type would
/// reach the engine through a reabstraction thunk that copies the whole state on every call).
private func addClosureConsumer(
    to consumer: StateConsumer<BenchState>,
    selector: Int,
    rounds: Int,
    _ callback: @escaping @Sendable (_ old: Int, _ new: Int) -> Void
) {
    switch selector {
    case 0: consumer.add({ derivation($0.f0, $0.f1, $0.f2, rounds: rounds) }, callback)
    case 1: consumer.add({ derivation($0.f3, $0.f4, $0.f5, rounds: rounds) }, callback)
    case 2: consumer.add({ derivation($0.f6, $0.f7, $0.f8, rounds: rounds) }, callback)
    case 3: consumer.add({ derivation($0.f9, $0.f10, $0.f11, rounds: rounds) }, callback)
    case 4: consumer.add({ derivation($0.f12, $0.f13, $0.f14, rounds: rounds) }, callback)
    case 5: consumer.add({ derivation($0.f15, $0.f16, $0.f17, rounds: rounds) }, callback)
    case 6: consumer.add({ derivation($0.f18, $0.f19, $0.f20, rounds: rounds) }, callback)
    case 7: consumer.add({ derivation($0.f21, $0.f22, $0.f23, rounds: rounds) }, callback)
    case 8: consumer.add({ derivation($0.f24, $0.f25, $0.f26, rounds: rounds) }, callback)
    case 9: consumer.add({ derivation($0.f27, $0.f28, $0.f29, rounds: rounds) }, callback)
    default: preconditionFailure("no selector \(selector)")
    }
}

/// The action S11 dispatches as its `number`th: one input of one selector changes.
private func inputChange(_ number: Int) -> SetField {
    SetField(field: number % inputFieldCount, value: number)
}

/// The floor of S11: what a careful programmer writes by hand for memoized selectors. Per action,
/// reduce in place; per selector, read its inputs, compare them with the last ones, recompute
/// only when they changed, and call the selector's callbacks when the output changed.
private struct MemoizingFloor {
    struct Entry {
        let read: (BenchState) -> (Int, Int, Int)
        var inputs: (Int, Int, Int)
        var output: Int
        var callbacks: [(_ old: Int, _ new: Int) -> Void] = []
    }

    var state = BenchState()
    var entries: [Entry]
    let rounds: Int
    var dispatched = 0

    init(consumers: Int, rounds: Int, sink: Sink) {
        self.rounds = rounds
        let state = state
        entries = (0..<selectorCount).map { selector in
            let read = inputs(of: selector)
            let values = read(state)
            return Entry(read: read, inputs: values, output: derivation(values.0, values.1, values.2, rounds: rounds))
        }
        for consumer in 0..<consumers {
            entries[consumer % selectorCount].callbacks.append { _, new in sink.record(new) }
        }
    }

    mutating func run(dispatches: Int) {
        for _ in 0..<dispatches {
            dispatched &+= 1
            let action = inputChange(dispatched)
            state.set(field: action.field, to: action.value)
            for index in entries.indices {
                let values = entries[index].read(state)
                guard values != entries[index].inputs else { continue }
                entries[index].inputs = values
                let output = derivation(values.0, values.1, values.2, rounds: rounds)
                guard output != entries[index].output else { continue }
                let old = entries[index].output
                entries[index].output = output
                for callback in entries[index].callbacks {
                    callback(old, output)
                }
            }
        }
    }
}

/// A store whose consumers watch S11's selectors, and the number of actions sent to it.
private final class SelectorStore {
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    let sink = Sink()
    private let consumer = StateConsumer<BenchState>()
    private let subscription: Subscription
    private(set) var dispatched = 0

    /// `consumers` consumers spread evenly over the selectors; `derived` says whether they watch
    /// `Derived` values (shared) or closure selectors (one each).
    init(consumers: Int, rounds: Int, derived: Bool) {
        let selectors = (0..<selectorCount).map { selector in
            let fields = (0..<3).map { BenchState.keyPaths[3 * selector + $0] }
            return Derived(fields[0], fields[1], fields[2]) { a, b, c in derivation(a, b, c, rounds: rounds) }
        }
        for index in 0..<consumers {
            if derived {
                consumer.add(selectors[index % selectorCount]) { [sink] _, new in sink.record(new) }
            } else {
                addClosureConsumer(to: consumer, selector: index % selectorCount, rounds: rounds) { [sink] _, new in
                    sink.record(new)
                }
            }
        }
        subscription = store.subscribe(consumer)
    }

    /// A variant that dispatches `count` actions, each changing one input.
    func variant(dispatching count: Int) -> Variant {
        Variant(operations: count) { [self] in
            for _ in 0..<count {
                dispatched &+= 1
                store.dispatch(inputChange(dispatched))
            }
        }
    }

    /// What went wrong if the consumers did not hear exactly one change per consumer of the
    /// changed selector per action.
    func check(consumers: Int) -> String? {
        let expected = dispatched * (consumers / selectorCount)
        return sink.calls == expected ? nil : "expected \(expected) callbacks, saw \(sink.calls)"
    }
}

/// S11: consumers on ten `Derived` selectors of three inputs each, one input changed per action,
/// against a hand-written memoizing floor and against the same consumers on plain closure
/// selectors. One row per number of consumers (the 1,000, i.e. 100 sharing each selector,
/// and 10, one per selector, where only memoization can help) and per cost of the derivation,
/// from a sum of the inputs up to `sizes.derivationCosts.last` mixing rounds; the last row of each
/// group names the crossover: the cheapest cost at which `Derived` beats the closures (or says
/// there is none up to the costliest).
func derivedSelectors(_ sizes: AsyncSizes) -> [Report] {
    sizes.derivedConsumers.flatMap { consumers in
        var rows = sizes.derivationCosts.map { rounds in
            derivedSelectors(sizes, consumers: consumers, rounds: rounds)
        }
        if let crossover = zip(sizes.derivationCosts, rows).first(where: { $0.1.ratios[1].value < 1 })?.0 {
            rows[rows.count - 1].figures.append(("crossover_at_rounds", Double(crossover)))
        } else {
            rows[rows.count - 1].figures.append(("no_crossover_up_to_rounds", Double(sizes.derivationCosts.last ?? 0)))
        }
        return rows
    }
}

/// One row of S11.
private func derivedSelectors(_ sizes: AsyncSizes, consumers: Int, rounds: Int) -> Report {
    let dispatches = sizes.derivedDispatches
    // The closure consumers compute the derivation once each per action: fewer actions per sample
    // as it gets costlier, so that a sample takes about `sampleNanoseconds`.
    let closureCost = Double(consumers) * (5 + 1.5 * Double(rounds)) + 300
    let closureDispatches = min(4 * dispatches, max(20, Int(sizes.sampleNanoseconds / closureCost)))
    let derived = SelectorStore(consumers: consumers, rounds: rounds, derived: true)
    let closures = SelectorStore(consumers: consumers, rounds: rounds, derived: false)
    let floorSink = Sink()
    var floor = MemoizingFloor(consumers: consumers, rounds: rounds, sink: floorSink)
    let derivations = 10_000
    var accumulator = 0
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            derived.variant(dispatching: dispatches),
            Variant(operations: dispatches) { floor.run(dispatches: dispatches) },
            closures.variant(dispatching: closureDispatches),
            Variant(operations: derivations) {
                for input in 0..<derivations {
                    accumulator &+= derivation(input, input &+ 1, input &+ 2, rounds: rounds)
                }
            },
        ]
    )
    floorSink.record(accumulator)
    var failure = derived.check(consumers: consumers) ?? closures.check(consumers: consumers)
    if failure == nil,
        derived.sink.checksum &+ accumulator != floorSink.checksum
            || derived.sink.calls + 1 != floorSink.calls
    {
        failure = "the consumers heard other values than the floor's callbacks"
    }
    return Report(
        scenario: "S11",
        title: "\(consumers) consumers on \(selectorCount) Derived of 3 inputs, \(rounds) mixing rounds",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [
            ("vs_floor", timings[0].median / timings[1].median),
            ("vs_closures", timings[0].median / timings[2].median),
        ],
        figures: [
            ("floor_ns_per_op", timings[1].median), ("closures_ns_per_op", timings[2].median),
            ("derivation_ns", timings[3].median),
        ],
        target: "≤ 1.3× floor; < closures above a field read",
        failure: failure
    ).meeting(timings[0].median <= 1.3 * timings[1].median)
}
