import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A store whose reducer runs `effect` (with the store itself) for `CounterAction.rename(tag)`:
/// for scenarios in which a reducer touches subscriptions and consumers.
private func makeStore(
    effect: @escaping @Sendable (_ store: Store<AppState>, _ tag: String) -> Void
) -> (store: Store<AppState>, release: @Sendable () -> Void) {
    let slot = Lock<Store<AppState>?>(nil)
    let store = Store(
        initialState: AppState(),
        reducer: Reducer { (state: inout AppState, action: any Action) in
            appReducer(&state, action)
            if case .rename(let tag?) = action as? CounterAction, let store = slot.withLock({ $0 }) {
                effect(store, tag)
            }
        })
    slot.withLock { $0 = store }
    return (store, { slot.withLock { $0 = nil } })
}

/// Subscribing, dispatching and adding consumers from inside a reducer: each takes effect once the
/// reducer has returned; cancelling takes effect at once. None of them may hang.
struct ReducerSideEffectTests {
    @Test func subscribingInsideTheStoresOwnReducerTakesEffectAfterTheReducer() {
        let calls = Recorder<Int>()
        let subscriptions = Lock<[Subscription]>([])
        let (store, release) = makeStore { store, _ in
            let subscription = store.subscribe { _, new in calls.append(new.counter) }
            subscriptions.withLock { $0.append(subscription) }
        }
        defer { release() }
        guard finishesWithoutDeadlock({ store.dispatch(CounterAction.rename("subscribe")) }) else { return }
        store.dispatch(CounterAction.increment)
        #expect(store.subscriberCount == 1)
        // Like any subscriber added during an action: the first call comes with the next action.
        #expect(calls.values == [1])
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        #expect(store.subscriberCount == 0)
    }

    /// The same with a closure subscriber already there (the pass then has an old state to hand
    /// out), for a closure and a listener: neither hears the action that registered them.
    @Test func closureAndListenerSubscribedInsideTheReducerStartWithTheNextAction() {
        let calls = Recorder<String>()
        let subscriptions = Lock<[Subscription]>([])
        let (store, release) = makeStore { store, _ in
            let closure = store.subscribe { _, new in calls.append("closure \(new.counter)") }
            let listener = store.observeActions { _ in calls.append("listener") }
            subscriptions.withLock { $0 += [closure, listener] }
        }
        defer { release() }
        let earlier = store.subscribe { _, new in calls.append("earlier \(new.counter)") }
        guard finishesWithoutDeadlock({ store.dispatch(CounterAction.rename("subscribe")) }) else { return }
        #expect(calls.values == ["earlier 0"])
        store.dispatch(CounterAction.increment)
        #expect(calls.values == ["earlier 0", "earlier 1", "closure 1", "listener"])
        earlier.cancel()
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        #expect(store.subscriberCount == 0)
    }

    @Test func cancellingInsideTheStoresOwnReducerStopsBeforeThatActionIsNotified() {
        let calls = Recorder<Int>()
        let subscription = Lock<Subscription?>(nil)
        let (store, release) = makeStore { _, _ in subscription.withLock { $0 }?.cancel() }
        defer { release() }
        subscription.withLock { $0 = store.subscribe { _, new in calls.append(new.counter) } }
        guard finishesWithoutDeadlock({ store.dispatch(CounterAction.rename("cancel")) }) else { return }
        store.dispatch(CounterAction.increment)
        #expect(calls.values.isEmpty)
        #expect(store.subscriberCount == 0)
    }

    @Test func addingAConsumerInsideTheReducerOfTheStoreFeedingItStartsFromTheReducedState() {
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        let (store, release) = makeStore { store, _ in
            _ = store
            consumer.add(\.counter) { old, new in calls.append("\(old)→\(new)") }
        }
        defer { release() }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.set(5))
        guard finishesWithoutDeadlock({ store.dispatch(CounterAction.rename("add")) }) else { return }
        store.dispatch(CounterAction.increment)
        #expect(calls.values == ["5→6"])
        #expect(consumer.count == 1)
        subscription.cancel()
    }

    /// The reducer of `store` adds a consumer to `consumer` while another thread runs a callback of
    /// `consumer` that reads `store.state`: waiting for the consumer inside the reducer (which holds
    /// the store's lock) would deadlock.
    @Test func addingAConsumerInsideAReducerWhileItIsBusyOnAnotherThreadDoesNotDeadlock() {
        let consumer = StateConsumer<AppState>()
        let callbackEntered = DispatchSemaphore(value: 0)
        let reducerEntered = DispatchSemaphore(value: 0)
        let readState = Lock<Int?>(nil)
        let (store, release) = makeStore { _, _ in
            reducerEntered.signal()
            consumer.add(\.name) { _ in }
        }
        defer { release() }
        consumer.add(\.counter) { _ in
            callbackEntered.signal()
            reducerEntered.wait()
            readState.withLock { $0 = store.state.counter }
        }
        consumer.consume(newState: AppState())
        let finished = finishesWithoutDeadlock {
            let feeder = spawn { consumer.consume(newState: AppState(counter: 1)) }
            callbackEntered.wait()
            store.dispatch(CounterAction.rename("add"))
            feeder.wait()
        }
        guard finished else { return }
        #expect(readState.withLock { $0 } == 0)
        #expect(consumer.count == 2)
        consumer.removeAll()  // Its callback holds the store, whose reducer holds the consumer.
    }
}

/// A closure subscriber registered while its store is between reducing an action and notifying it
/// (from a dispatch its reducer made to another store) starts with the next action.
struct SubscribeDuringNotificationTests {
    @Test func closureSubscriberAddedBetweenReduceAndNotifyStartsWithTheNextAction() {
        let other = makeStore()
        let calls = Recorder<Int>()
        let subscriptions = Lock<[Subscription]>([])
        let (store, release) = makeStore { _, tag in
            if tag == "ping" { other.dispatch(CounterAction.increment) }
        }
        defer { release() }
        // Consumers only: the store copies no old state for this action.
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { _ in }
        let feeding = store.subscribe(consumer)
        let back = other.subscribe { _, _ in
            subscriptions.withLock { $0.append(store.subscribe { _, new in calls.append(new.counter) }) }
        }
        store.dispatch(CounterAction.rename("ping"))
        store.dispatch(CounterAction.set(7))
        #expect(calls.values == [7])
        #expect(store.subscriberCount == 2)
        back.cancel()
        feeding.cancel()
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        #expect(store.subscriberCount == 0)
    }

    @Test func subscriptionCancelledInsideTheCallbackThatMadeItIsNeverCalled() {
        let store = makeStore()
        let calls = Recorder<Int>()
        let trigger = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            store.subscribe { _, new in calls.append(new.counter) }.cancel()
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(calls.values.isEmpty)
        #expect(store.subscriberCount == 1)
        trigger.cancel()
        #expect(store.subscriberCount == 0)
    }
}

/// Removing a consumer from inside another consumer's callback while the removed one is busy on a
/// third thread.
struct CrossThreadRemovalTests {
    /// The removal cannot wait for the target's pass (the pass is inside a callback waiting for the
    /// remover), yet the removed member must never be called once `remove` returns.
    @Test func consumerRemovedFromAnotherConsumersCallbackIsNotCalledAfterRemoveReturns() {
        let target = StateConsumer<AppState>()
        let remover = StateConsumer<AppState>()
        let inTargetPass = DispatchSemaphore(value: 0)
        let removed = DispatchSemaphore(value: 0)
        let hasRemoveReturned = Lock(false)
        let lateCalls = Lock(0)
        target.add(\.counter) { _ in
            inTargetPass.signal()
            removed.wait()
        }
        let victim = target.add(\.counter) { _ in
            if hasRemoveReturned.withLock({ $0 }) { lateCalls.withLock { $0 += 1 } }
        }
        remover.add(\.counter) { _ in
            inTargetPass.wait()
            target.remove(victim)
            hasRemoveReturned.withLock { $0 = true }
            removed.signal()
        }
        target.consume(newState: AppState())
        remover.consume(newState: AppState())
        let finished = finishesWithoutDeadlock {
            let feeder = spawn { target.consume(newState: AppState(counter: 1)) }
            remover.consume(newState: AppState(counter: 1))
            feeder.wait()
        }
        guard finished else { return }
        #expect(lateCalls.withLock { $0 } == 0)
        #expect(target.count == 1)
    }
}
