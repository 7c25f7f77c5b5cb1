import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct StoreTests {
    @Test func dispatchRunsTheReducer() {
        let store = makeStore()
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("Kim"))
        #expect(store.state == AppState(counter: 1, name: "Kim"))
    }

    @Test func typedReducerLeavesOtherActionsAlone() {
        struct Unrelated: Action {}
        let store = makeStore(AppState(counter: 5))
        store.dispatch(Unrelated())
        #expect(store.state.counter == 5)
    }

    @Test func reSwiftReducerBuildsTheInitialStateFromTheInitAction() {
        let seen = Recorder<String>()
        let store = Store<Int>(
            reSwiftReducer: { action, state in
                seen.append("\(type(of: action)) \(state.map(String.init) ?? "nil")")
                if action is StoreInit { return 10 }
                if case CounterAction.increment? = action as? CounterAction { return (state ?? 0) + 1 }
                return state ?? 0
            },
            state: nil
        )
        #expect(store.state == 10)
        store.dispatch(CounterAction.increment)
        #expect(store.state == 11)
        #expect(seen.values == ["StoreInit nil", "CounterAction 10"])
    }

    @Test func reSwiftReducerKeepsAGivenInitialState() {
        let store = Store<Int>(reSwiftReducer: { _, state in state ?? 0 }, state: 7)
        #expect(store.state == 7)
    }

    @Test func combinedReducersRunInOrderOnScopedState() {
        struct Pair: Sendable, Equatable {
            var left = 0
            var right = 0
        }
        let increment = Reducer<Int> { (value, action: CounterAction) in
            if action == .increment { value += 1 }
        }
        let double = Reducer<Int> { (value, action: CounterAction) in
            if action == .increment { value *= 2 }
        }
        let store = Store(
            initialState: Pair(left: 1, right: 1),
            reducer: .combine(.scope(\.left, .combine(increment, double)), .scope(\.right, double))
        )
        store.dispatch(CounterAction.increment)
        #expect(store.state == Pair(left: 4, right: 2))
    }

    @Test func closureSubscriberReceivesOldAndNewState() {
        let store = makeStore()
        let seen = Recorder<String>()
        let subscription = store.subscribe { old, new in seen.append("\(old.counter)→\(new.counter)") }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1", "1→2"])
        subscription.cancel()
    }

    @Test func subscribersAreCalledInTheOrderTheySubscribed() {
        let store = makeStore()
        let seen = Recorder<Int>()
        let subscriptions = (0..<50).map { index in store.subscribe { _, _ in seen.append(index) } }
        store.dispatch(CounterAction.increment)
        #expect(seen.values == Array(0..<50))
        withExtendedLifetime(subscriptions) {}
    }

    @Test func cancelledSubscriptionsAreNotCalledAndDroppedOnesKeepRunning() {
        let store = makeStore()
        let seen = Recorder<String>()
        let kept = store.subscribe { _, _ in seen.append("kept") }
        let cancelled = store.subscribe { _, _ in seen.append("cancelled") }
        cancelled.cancel()
        var dropped: Subscription? = store.subscribe { _, _ in seen.append("dropped") }
        let handle = dropped
        dropped = nil
        #expect(store.subscriberCount == 2)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["kept", "dropped"])
        #expect(cancelled.isCancelled)
        kept.cancel()
        handle?.cancel()
        #expect(store.subscriberCount == 0)
    }

    @Test func subscriberCancellingALaterOneInTheSamePassStopsIt() {
        let store = makeStore()
        let seen = Recorder<String>()
        let later = Lock<Subscription?>(nil)
        let first = store.subscribe { _, _ in
            seen.append("first")
            later.withLock { $0?.cancel() }
        }
        later.withLock { $0 = store.subscribe { _, _ in seen.append("later") } }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["first", "first"])
        first.cancel()
    }

    @Test func subscriberCancellingItselfIsReleasedOnlyAfterItsCallbackReturns() {
        final class Probe: Sendable {
            let seen: Recorder<String>
            init(_ seen: Recorder<String>) { self.seen = seen }
            deinit { seen.append("released") }
        }
        let store = makeStore()
        let seen = Recorder<String>()
        let subscription = Lock<Subscription?>(nil)
        do {
            // The callback's context is the only owner of `probe`.
            let probe = Probe(seen)
            let made = store.subscribe { _, _ in
                subscription.withLock { $0 }?.cancel()
                probe.seen.append("after cancel")
            }
            subscription.withLock { $0 = made }
        }
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["after cancel", "released"])
        #expect(store.subscriberCount == 0)
    }

    @Test func storeIsReleasedWhileSubscriptionsOutliveIt() {
        weak var weakStore: Store<AppState>?
        var subscription: Subscription?
        do {
            let store = makeStore()
            weakStore = store
            subscription = store.subscribe { _, _ in }
        }
        #expect(weakStore == nil)
        subscription?.cancel()
    }

    @Test func readingStateFromAnotherStoresCallbackIsSafe() {
        let source = makeStore()
        let mirror = makeStore()
        let subscription = source.subscribe { _, new in
            mirror.dispatch(CounterAction.set(new.counter * 10))
            #expect(mirror.state.counter == new.counter * 10)
        }
        source.dispatch(CounterAction.increment)
        #expect(mirror.state.counter == 10)
        subscription.cancel()
    }

    /// Subscription order when one action changes several selections: closure subscribers between
    /// consumers, and each consumer's members in the order they were added, across its groups
    /// (here a key path's group with its first and third members, a closure's with its second,
    /// so the two groups' members interleave). The pass calls each consumer's fired groups as one
    /// run between the closure subscribers.
    @Test func subscribersHearAnActionThatFiresSeveralSelectionsInSubscriptionOrder() {
        let store = makeStore()
        let log = Recorder<String>()
        let first = StateConsumer<AppState>()
        first.add(\.counter) { _, new in log.append("first 1: \(new)") }
        first.add({ $0.counter * 10 }) { _, new in log.append("first 2: \(new)") }
        first.add(\.counter) { _, new in log.append("first 3: \(new)") }
        let second = StateConsumer<AppState>()
        second.add({ $0.counter + 100 }) { _, new in log.append("second 1: \(new)") }
        second.add({ $0.counter + 200 }) { _, new in log.append("second 2: \(new)") }
        let subscriptions = [
            store.subscribe { _, new in log.append("closure A: \(new.counter)") },
            store.subscribe(first),
            store.subscribe { _, new in log.append("closure B: \(new.counter)") },
            store.subscribe(second),
            store.subscribe { _, new in log.append("closure C: \(new.counter)") },
        ]

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)

        let expected = [1, 2].flatMap { value in
            [
                "closure A: \(value)", "first 1: \(value)", "first 2: \(value * 10)", "first 3: \(value)",
                "closure B: \(value)", "second 1: \(value + 100)", "second 2: \(value + 200)", "closure C: \(value)",
            ]
        }
        #expect(log.values == expected)
        for subscription in subscriptions { subscription.cancel() }
    }
}
