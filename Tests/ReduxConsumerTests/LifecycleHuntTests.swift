import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Consumer and page lifecycles under threads: subscriptions, removals and releases racing the
/// threads that run the stores.
struct LifecycleHuntTests {
    /// A consumer fed by hand on one thread (its callback still running) and subscribed to a store
    /// from inside another store's callback on a second thread: the move off its own host is queued
    /// behind the hand-fed pass, and the store must attach it once the move has run.
    @Test func aConsumerBusyBeingFedByHandIsSubscribedFromAnotherStoresCallback() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        consumer.add(\.counter) { _, new in
            seen.append(new)
            if new == 1 {
                entered.signal()
                proceed.wait()
            }
        }
        let outer = makeStore()
        let target = makeStore(AppState(counter: 10))
        let subscription = Slot<Subscription?>(nil)
        let watcher = outer.subscribe { _, _ in
            // Inside `outer`'s work: the subscription cannot wait for the consumer's own drain.
            subscription.value = target.subscribe(consumer)
        }
        let finished = finishesWithoutDeadlock {
            consumer.consume(newState: AppState())
            let feeder = spawn { consumer.consume(newState: AppState(counter: 1)) }
            entered.wait()
            outer.dispatch(CounterAction.increment)
            proceed.signal()
            feeder.wait()
            target.dispatch(CounterAction.increment)
        }
        guard finished else { return }
        // Fed by hand up to 1, then by `target`: its current state (10), then 11.
        #expect(seen.values == [1, 10, 11])
        #expect(target.subscriberCount == 1)
        watcher.cancel()
        subscription.value?.cancel()
    }

    /// `removeAll()` returns on one thread while the store is busy on another (its removal is
    /// queued there); then the store's thread adds a member to the same consumer from a callback.
    /// The member came after the removal: it must stay, and hear the next change.
    @Test func aMemberAddedAfterRemoveAllReturnedSurvivesTheQueuedRemoval() {
        let store = makeStore()
        let blocker = StateConsumer<AppState>()
        let consumer = StateConsumer<AppState>()
        let old = Recorder<Int>()
        let late = Recorder<Int>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        blocker.add(\.counter) { _, new in
            guard new == 1 else { return }
            entered.signal()
            proceed.wait()
            // `removeAll()` has returned on the other thread: this member comes after it.
            consumer.add(\.counter) { _, new in late.append(new) }
        }
        consumer.add(\.counter) { _, new in old.append(new) }
        let subscriptions = [store.subscribe(blocker), store.subscribe(consumer)]
        let finished = whileTheStoreIsBusy(store, entered: entered, proceed: proceed) { consumer.removeAll() }
        guard finished else { return }
        #expect(old.values == [])
        #expect(late.values == [2])
        #expect(consumer.count == 1)
        for subscription in subscriptions { subscription.cancel() }
    }

    /// A consumer's subscription is cancelled on one thread while the store is busy on another
    /// (the removal is queued there); then the store's thread subscribes the consumer to the same
    /// store again from a callback. The new subscription must feed it.
    @Test func aConsumerResubscribedOnTheStoresThreadAfterItsCancellationReturned() {
        let store = makeStore()
        let blocker = StateConsumer<AppState>()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let second = Slot<Subscription?>(nil)
        blocker.add(\.counter) { _, new in
            guard new == 1 else { return }
            entered.signal()
            proceed.wait()
            // The cancellation has returned on the other thread: this is a new subscription.
            second.value = store.subscribe(consumer)
        }
        consumer.add(\.counter) { _, new in seen.append(new) }
        let blocking = store.subscribe(blocker)
        let first = store.subscribe(consumer)
        let finished = whileTheStoreIsBusy(store, entered: entered, proceed: proceed) { first.cancel() }
        guard finished else { return }
        #expect(seen.values.last == 2)
        #expect(store.subscriberCount == 2)
        blocking.cancel()
        second.value?.cancel()
        #expect(store.subscriberCount == 0)
    }
}

/// Dispatches an increment on a thread of its own, runs `meanwhile` once the store's thread is
/// inside a callback (which signals `entered`, then waits for `proceed`), lets that callback go
/// on, and dispatches one more increment; `false` if it deadlocked.
private func whileTheStoreIsBusy(
    _ store: Store<AppState>, entered: DispatchSemaphore, proceed: DispatchSemaphore,
    _ meanwhile: @escaping @Sendable () -> Void
) -> Bool {
    finishesWithoutDeadlock {
        let dispatcher = spawn { store.dispatch(CounterAction.increment) }
        entered.wait()
        meanwhile()
        proceed.signal()
        dispatcher.wait()
        store.dispatch(CounterAction.increment)
    }
}
