import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A consumer whose subscription is cancelled from inside one of its store's callbacks stays with
/// that store until the store's job in progress is over (the pass that called it still walks its
/// members). Subscribed meanwhile to another store, on the same thread, it joins that store then,
/// hearing what changed since its last values (README, "Threads and re-entrancy"; Guarantees, G7).
@Suite struct JoinAfterLeavingInACallbackTests {
    private struct Value: Sendable, Equatable {
        var a = 0
    }

    private enum SetA: Action {
        case to(Int)
    }

    private static let reducer = Reducer<Value> { (state, action: SetA) in
        if case .to(let value) = action { state.a = value }
    }

    @Test func aConsumerMovedToAnIdleStoreFromACallbackJoinsItAfterTheFirstStoresJob() {
        let seen = Recorder<String>()
        let storeA = Store(initialState: Value(a: 0), reducer: Self.reducer)
        let storeB = Store(initialState: Value(a: 100), reducer: Self.reducer)
        let consumer = StateConsumer<Value>()
        consumer.add(\.a) { old, new in seen.append("member \(old)→\(new)") }
        let current = Box<Subscription?>(storeA.subscribe(consumer))
        let moved = Box(false)
        let mover = storeA.subscribe { _, _ in
            guard !moved.value else { return }
            moved.value = true
            current.value?.cancel()
            current.value = storeB.subscribe(consumer)
            storeB.dispatch(SetA.to(101))
            seen.append("B's dispatch returned")
        }
        let listener = storeA.observeActions { _ in seen.append("A's listener") }
        storeA.dispatch(SetA.to(1))
        #expect(
            seen.values == ["member 0→1", "B's dispatch returned", "A's listener", "member 1→101"],
            "joins B once A's job is over, from its last value")
        storeB.dispatch(SetA.to(102))
        storeA.dispatch(SetA.to(2))
        #expect(seen.values.dropFirst(4) == ["member 101→102", "A's listener"], "then hears B, and no longer A")
        for subscription in [current.value, mover, listener] { subscription?.cancel() }
    }
}
