import Dispatch
import ReduxConsumer

/// S6: consumers added, then removed in a random (seeded) order, on a consumer fed by a store.
func churn(_ sizes: Sizes) -> Report {
    let cycles = sizes.s6Cycles
    let sink = Sink()
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    let consumer = StateConsumer<BenchState>()
    let subscription = store.subscribe(consumer)
    var random = SplitMix64(seed: 0x5EED_CAFE)
    var tokens: [ConsumerToken] = []
    tokens.reserveCapacity(cycles)
    var leftovers = 0
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            Variant(operations: cycles) {
                for _ in 0..<cycles {
                    let field = Int(random.next() % UInt64(BenchState.fieldCount))
                    tokens.append(consumer.add(BenchState.keyPaths[field]) { _, new in sink.record(new) })
                }
                tokens.shuffle(using: &random)
                for token in tokens {
                    consumer.remove(token)
                }
                tokens.removeAll(keepingCapacity: true)
                leftovers += consumer.count
            }
        ]
    )
    subscription.cancel()
    var report = Report(
        scenario: "S6",
        title: "churn, \(cycles) adds then removes in random order",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        figures: [("total_ms_per_10k_cycles", timings[0].median * 10_000 / 1e6)],
        target: "10,000 add+remove cycles < 10 ms"
    )
    report.goalMet = timings[0].median * 10_000 < 10e6
    if leftovers != 0 { report.failure = "\(leftovers) consumers left after removal" }
    return report
}

/// S7: two threads dispatching into one store with consumers attached, against one thread doing
/// all of it; checks that no action and no notification is lost.
func concurrentDispatch(_ sizes: Sizes) -> Report {
    let actions = sizes.s7Actions
    let threads = 2
    let fieldsPerThread = BenchState.fieldCount / threads

    /// A store with one key-path consumer per field, and how many actions it has seen.
    final class Fixture: @unchecked Sendable {
        // @unchecked: `rounds` is only touched by the benchmark's main thread.
        let store = Store(initialState: BenchState(), reducer: incrementReducer)
        let consumer = StateConsumer<BenchState>()
        let sink = Sink()
        let subscription: Subscription
        var rounds = 0

        init() {
            for field in 0..<BenchState.fieldCount {
                consumer.add(BenchState.keyPaths[field]) { [sink] _, new in sink.record(new) }
            }
            subscription = store.subscribe(consumer)
        }

        /// `actions` increments from thread `thread` of `threads`, on that thread's own fields.
        func send(_ actions: Int, thread: Int, fieldsPerThread: Int) {
            for index in 0..<actions {
                store.dispatch(IncrementField(field: thread * fieldsPerThread + index % fieldsPerThread))
            }
        }

        func check(actionsPerRound: Int) -> String? {
            let expected = rounds * actionsPerRound / BenchState.fieldCount
            let state = store.state
            for field in 0..<BenchState.fieldCount where state.value(field: field) != expected {
                return "field \(field) is \(state.value(field: field)), expected \(expected): an action was lost"
            }
            if sink.calls != rounds * actionsPerRound {
                return "expected \(rounds * actionsPerRound) callbacks, saw \(sink.calls)"
            }
            return nil
        }
    }

    let concurrent = Fixture()
    let single = Fixture()
    let timings = measure(
        repetitions: sizes.repetitions,
        [
            Variant(operations: actions) {
                concurrent.rounds += 1
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    concurrent.send(actions / threads, thread: thread, fieldsPerThread: fieldsPerThread)
                }
            },
            Variant(operations: actions) {
                single.rounds += 1
                for thread in 0..<threads {
                    single.send(actions / threads, thread: thread, fieldsPerThread: fieldsPerThread)
                }
            },
        ]
    )
    var report = Report(
        scenario: "S7",
        title: "\(threads) threads, \(actions) actions, \(BenchState.fieldCount) consumers",
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [("throughput_vs_single_thread", timings[1].median / timings[0].median)],
        figures: [("single_thread_ns_per_op", timings[1].median)],
        target: "no lost action; throughput ≥ 0.5× single thread",
        failure: concurrent.check(actionsPerRound: actions) ?? single.check(actionsPerRound: actions)
    )
    report.goalMet = timings[1].median >= 0.5 * timings[0].median
    return report
}

/// L1: one consumer's members, each on a selection of its own (closure selectors), added and then
/// removed one by one in a random (seeded) order, for N/10 and N members (N = `s6Cycles`): the
/// cost per member at both sizes, and its growth. A removal that scanned the consumer's
/// selections would make it grow with N; a linear one keeps it flat, but for the cache: at N the
/// members outgrow it, and a removal in random order finds its objects cold. So the figure is
/// reported, not judged; `Benchmarks/RESULTS.md` has the instructions callgrind counts, which
/// the cache does not move.
func removalOneByOne(_ sizes: Sizes) -> Report {
    let counts = [sizes.s6Cycles / 10, sizes.s6Cycles]
    let sink = Sink()
    var failure: String?
    var perMember: [Double] = []
    var best: [Double] = []
    for count in counts {
        let store = Store(initialState: BenchState(), reducer: benchReducer)
        let consumer = StateConsumer<BenchState>()
        let subscription = store.subscribe(consumer)
        var random = SplitMix64(seed: 0x5EED_0001)
        var tokens: [ConsumerToken] = []
        tokens.reserveCapacity(count)
        let timings = measure(
            repetitions: sizes.repetitions,
            [
                Variant(operations: count) {
                    for index in 0..<count {
                        tokens.append(consumer.add({ $0.f0 &+ index }) { _, new in sink.record(new) })
                    }
                    tokens.shuffle(using: &random)
                    for token in tokens {
                        consumer.remove(token)
                    }
                    tokens.removeAll(keepingCapacity: true)
                    if consumer.count != 0 { failure = "\(consumer.count) members left after removal" }
                }
            ]
        )
        subscription.cancel()
        perMember.append(timings[0].median)
        best.append(timings[0].min)
    }
    var report = Report(
        scenario: "L1",
        title: "\(grouped(counts[1])) closure members of one consumer added, then removed one by one",
        nsPerOp: perMember[1],
        minNsPerOp: best[1],
        ratios: [("growth_per_member", perMember[1] / perMember[0])],
        figures: [("ns_per_member_at_n_over_10", perMember[0])],
        target: "reported: cost per member at N over N/10 (flat when linear, beyond the cache)"
    )
    report.failure = failure
    return report
}

/// A sink for the memory scenarios' callbacks, global so their closures capture nothing: the
/// figure is then the library's cost per consumer, not the callback's captures.
private let memorySink = Sink()

/// M1/M2/M3: resident memory growth per consumer while `sizes.memoryConsumers` key-path consumers
/// are added to a consumer fed by a store holding `state`. With `keepsTokens`, the tokens `add`
/// returns are kept, as a caller that removes consumers one by one keeps them: the figure is then
/// the full cost of one added consumer (its member, its token and any box behind either).
func memoryPerConsumer(
    _ sizes: Sizes, scenario: String, title: String, state: BenchState, keepsTokens: Bool = false
) -> Report {
    let consumers = sizes.memoryConsumers
    let store = Store(initialState: state, reducer: benchReducer)
    let consumer = StateConsumer<BenchState>()
    let subscription = store.subscribe(consumer)
    var tokens: [ConsumerToken] = []
    // Reserved, not yet written: the pages of the tokens' storage are faulted in, and counted,
    // as the tokens are stored.
    if keepsTokens { tokens.reserveCapacity(consumers) }
    releaseFreeMemory()
    let before = residentBytes()
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<consumers {
        let token = consumer.add(BenchState.keyPaths[index % BenchState.fieldCount]) { _, new in
            memorySink.record(new)
        }
        if keepsTokens { tokens.append(token) }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    releaseFreeMemory()
    let after = residentBytes()
    var report = Report(
        scenario: scenario,
        title: title,
        nsPerOp: elapsed / Double(consumers),
        minNsPerOp: .nan,
        target: keepsTokens
            ? "≤ 100 bytes per consumer (member, token, any box)"
            : "≤ 100 bytes + the selected value (8) per consumer"
    )
    if let before, let after {
        let bytes = Double(after - before) / Double(consumers)
        report.figures = [("bytes_per_consumer", bytes)]
        // The selected value here is an `Int`: 8 bytes.
        report.goalMet = bytes <= (keepsTokens ? 100 : 108)
    } else {
        report.figures = [("bytes_per_consumer", .nan)]
    }
    if keepsTokens {
        report.figures.append(("token_inline_bytes", Double(MemoryLayout<ConsumerToken>.stride)))
    }
    if consumer.count != consumers { report.failure = "expected \(consumers) consumers, counted \(consumer.count)" }
    consumer.removeAll()
    subscription.cancel()
    withExtendedLifetime(tokens) {}
    return report
}
