import ReduxConsumer

/// L2: N consumers with one member each on the same key path (the service pattern: a page per
/// request watching one global field), subscribed, then their subscriptions cancelled oldest first
/// (requests end roughly in the order they came), for N/10 and N (N = `s6Cycles`): the cost per
/// consumer at both sizes and its growth. Reported, as L1 and L3: each leave costs O(1)
/// amortised in the node's lists (a vacancy takes the consumer's place); what still grows from
/// N/10 to N is the allocator's and the caches' part (see `Benchmarks/RESULTS.md`).
func sharedKeyPathUnsubscribeOldestFirst(_ sizes: Sizes) -> Report {
    perItemGrowth(
        sizes,
        scenario: "L2",
        title: "\(grouped(sizes.s6Cycles)) consumers on one key path subscribed, then cancelled oldest first"
    ) { count, sink in
        let store = Store(initialState: BenchState(), reducer: benchReducer)
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            let consumer = StateConsumer<BenchState>()
            consumer.add(\.f0) { _, new in sink.record(new) }
            subscriptions.append(store.subscribe(consumer))
        }
        for subscription in subscriptions {
            subscription.cancel()
        }
        return store.subscriberCount == 0 ? nil : "\(store.subscriberCount) subscribers left after cancelling"
    }
}

/// L3: N members of one consumer, each on a `Derived` value of its own, added and then removed,
/// for N/10 and N: what N pages adding a derived value of the global state each cost the global
/// store's cache of derived values, which prunes itself in amortised constant time per memo (it
/// rescanned itself every 64 memos before: 7× the cost per member from 1,000 to 10,000).
/// Reported, as L1: beyond the cache, the allocator's and the cache's part grows too.
func distinctDerivedMembers(_ sizes: Sizes) -> Report {
    perItemGrowth(
        sizes,
        scenario: "L3",
        title: "\(grouped(sizes.s6Cycles)) members on distinct Derived values added, then removed"
    ) { count, sink in
        let store = Store(initialState: BenchState(), reducer: benchReducer)
        let consumer = StateConsumer<BenchState>()
        let subscription = store.subscribe(consumer)
        var tokens: [ConsumerToken] = []
        tokens.reserveCapacity(count)
        for index in 0..<count {
            let derived = Derived(\BenchState.f0) { $0 &+ index }
            tokens.append(consumer.add(derived) { _, new in sink.record(new) })
        }
        for token in tokens {
            token.cancel()
        }
        subscription.cancel()
        return consumer.count == 0 ? nil : "\(consumer.count) members left after removal"
    }
}

/// Runs `body` (which builds and tears down `count` items, returning a failure or `nil`) at N/10
/// and N items, N = `s6Cycles`, and reports the median cost per item at N and its growth.
private func perItemGrowth(
    _ sizes: Sizes,
    scenario: String,
    title: String,
    _ body: @escaping (_ count: Int, _ sink: Sink) -> String?
) -> Report {
    let counts = [sizes.s6Cycles / 10, sizes.s6Cycles]
    let sink = Sink()
    var failure: String?
    var perItem: [Double] = []
    var best: [Double] = []
    for count in counts {
        let timings = measure(
            repetitions: sizes.repetitions,
            [Variant(operations: count) { failure = failure ?? body(count, sink) }]
        )
        perItem.append(timings[0].median)
        best.append(timings[0].min)
    }
    var report = Report(
        scenario: scenario,
        title: title,
        nsPerOp: perItem[1],
        minNsPerOp: best[1],
        ratios: [("growth_per_item", perItem[1] / perItem[0])],
        figures: [("ns_per_item_at_n_over_10", perItem[0])],
        target: "reported: cost per item at N over N/10 (flat when linear, beyond the cache)"
    )
    report.failure = failure
    return report
}
