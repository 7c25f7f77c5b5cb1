import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A store's cache of derived values forgets the memos nothing uses any more, in amortised
/// constant time per memo made: it prunes when it has grown to twice what its last pruning left.
/// (It pruned every 64 memos made, a scan of the whole table each time: adding N members on N
/// distinct derived values cost O(N²), 575 µs a member at 100,000 in a release build.)
struct DerivationCachePruningTests {
    /// The number of entries in `store`'s cache of derived values.
    private func entryCount(_ store: Store<AppState>) -> Int {
        let count = Lock(-1)
        store.perform(.control) { store in
            let entries = store.core.value.engine?.derivations.entryCount ?? 0
            count.withLock { $0 = entries }
        }
        return count.withLock { $0 }
    }

    @Test func theEntriesOfMemosGoneArePrunedAndLiveOnesKept() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let live = 300
        let calls = Recorder<Int>()
        var kept: [Derived<AppState, Int>] = []
        for index in 0..<2_000 {
            let derived = Derived(\AppState.counter) { $0 + index }
            let token = consumer.add(derived) { _, new in calls.append(new - index) }
            if index < live {
                kept.append(derived)
            } else {
                token.cancel()  // its memo goes with its last member
            }
        }
        #expect(entryCount(store) <= 2 * live + 64, "entries: \(entryCount(store))")

        store.dispatch(CounterAction.increment)
        #expect(calls.values == Array(repeating: 1, count: live))
        withExtendedLifetime(kept) {}
        subscription.cancel()
    }
}
