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
}
