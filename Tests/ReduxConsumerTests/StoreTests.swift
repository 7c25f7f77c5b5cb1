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
}
