import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct ReentrancyTests {
    @Test func dispatchFromASubscriberIsQueuedAfterTheCurrentAction() {
        let store = makeStore()
        let seen = Recorder<String>()
        let first = store.subscribe { old, new in
            seen.append("first \(old.counter)→\(new.counter)")
            if new.counter == 1 { store.dispatch(CounterAction.increment) }
        }
        let second = store.subscribe { old, new in seen.append("second \(old.counter)→\(new.counter)") }
        store.dispatch(CounterAction.increment)
        // The nested dispatch ran only after every subscriber saw 0→1, and before dispatch returned.
        #expect(seen.values == ["first 0→1", "second 0→1", "first 1→2", "second 1→2"])
        #expect(store.state.counter == 2)
        // The first subscriber holds the store: cancel to break the cycle.
        first.cancel()
        second.cancel()
    }

    @Test func dispatchFromAReducerIsQueuedNotRecursive() {
        let storeBox = Lock<Store<AppState>?>(nil)
        let order = Recorder<String>()
        let reducer = Reducer<AppState> { (state, action: CounterAction) in
            order.append("reduce \(action)")
            if case .set(let value) = action {
                state.counter = value
                if value < 3 { storeBox.withLock { $0 }?.dispatch(CounterAction.set(value + 1)) }
            }
        }
        let store = Store(initialState: AppState(), reducer: reducer)
        storeBox.withLock { $0 = store }
        store.dispatch(CounterAction.set(1))
        #expect(store.state.counter == 3)
        #expect(order.values == ["reduce set(1)", "reduce set(2)", "reduce set(3)"])
        storeBox.withLock { $0 = nil }
    }

    /// ReSwift issue #519: one consumer clamps 43 back to 42 while another prints the counter. The
    /// printer must see 42→43 and then 43→42, once each, with correct old values.
    @Test func clampingConsumerDoesNotGiveOthersStaleOldValues() {
        let store = makeStore(AppState(counter: 42))
        let consumer = StateConsumer<AppState>()
        let printed = Recorder<String>()
        consumer.add(\.counter) { _, new in
            if new > 42 { store.dispatch(CounterAction.set(42)) }
        }
        consumer.add(\.counter) { old, new in printed.append("\(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.set(43))
        #expect(printed.values == ["42→43", "43→42"])
        #expect(store.state.counter == 42)
        subscription.cancel()
    }

    @Test func subscriberAddedInsideACallbackStartsWithTheNextState() {
        let store = makeStore()
        let seen = Recorder<String>()
        let added = Lock<Subscription?>(nil)
        let first = store.subscribe { _, new in
            if new.counter == 1 {
                added.withLock {
                    $0 = store.subscribe { old, new in seen.append("added \(old.counter)→\(new.counter)") }
                }
            }
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["added 1→2"])
        first.cancel()
        added.withLock { $0 }?.cancel()
        added.withLock { $0 = nil }
    }

    @Test func middlewareDispatchIsQueuedAfterTheCurrentAction() {
        let order = Recorder<String>()
        let followUp: Middleware<AppState> = { dispatch, _ in
            { next in
                { action in
                    next(action)
                    if case CounterAction.increment? = action as? CounterAction {
                        dispatch(CounterAction.rename("after increment"))
                        order.append("middleware returned")
                    }
                }
            }
        }
        let store = makeStore(middleware: [followUp])
        let subscription = store.subscribe { _, new in order.append("notified \(new.counter) \(new.name ?? "nil")") }
        store.dispatch(CounterAction.increment)
        #expect(
            order.values == [
                "notified 1 nil", "middleware returned", "notified 1 after increment",
            ]
        )
        subscription.cancel()
    }
}

struct ReducerDispatchTests {
    /// A reducer of one store dispatching to another must not run the other store (and its
    /// subscribers, which may read the first store) while the first store's lock is held.
    @Test func dispatchFromAReducerToAnotherStoreRunsAfterTheReducerReturns() {
        let other = makeStore()
        let reducer = Reducer<AppState> { (state, action: CounterAction) in
            if action == .increment {
                state.counter += 1
                other.dispatch(CounterAction.increment)
            }
        }
        let store = Store(initialState: AppState(), reducer: reducer)
        let seen = Recorder<Int>()
        let subscription = other.subscribe { _, _ in seen.append(store.state.counter) }
        store.dispatch(CounterAction.increment)
        #expect(other.state.counter == 1)
        #expect(seen.values == [1])
        subscription.cancel()
    }
}
