import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Guarantee 1 for every caller of `cancel()`, not only the first: a cancellation that finds
/// another one still ending the registration (waiting for a callback running on a third thread)
/// returns only once that callback has ended, and never waits for itself.
struct SecondCancelTests {
    @Test func aSecondCancelOfASubscriptionWaitsForTheCallbackTheFirstWaitsFor() {
        let store = makeStore()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let running = Slot(false)
        let subscription = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            running.value = true
            entered.signal()
            proceed.wait()
            running.value = false
        }
        let runningWhenSecondReturned = Slot<Bool?>(nil)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            let first = spawn { subscription.cancel() }
            spin { subscription.isCancelled }
            let secondReturned = Slot(false)
            let second = spawn {
                subscription.cancel()
                runningWhenSecondReturned.value = running.value
                secondReturned.value = true
            }
            // The second call either returned at once, or waits for the first one.
            spin { secondReturned.value || subscription.waitingCancellers == 1 }
            proceed.signal()
            busy.wait()
            first.wait()
            second.wait()
        }
        guard finished else { return }
        #expect(runningWhenSecondReturned.value == false)
    }

    @Test func aSecondCancelOfASubscriptionFromInsideTheCallbackTheFirstWaitsForReturns() {
        let store = makeStore()
        let entered = DispatchSemaphore(value: 0)
        let handle = Slot<Subscription?>(nil)
        let calls = Slot(0)
        let subscription = store.subscribe { _, new in
            calls.value += 1
            guard new.counter == 1 else { return }
            entered.signal()
            spin { handle.value?.isCancelled == true }
            // The first cancellation waits for this very call: this one must not wait for it.
            handle.value?.cancel()
        }
        handle.value = subscription
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            subscription.cancel()
            busy.wait()
            store.dispatch(CounterAction.increment)
        }
        guard finished else { return }
        #expect(calls.value == 1)
        #expect(store.subscriberCount == 0)
    }

    @Test func aCancelFromInsideTheSubscriptionsOwnEndDoesNotWaitForItself() {
        let handle = Slot<Subscription?>(nil)
        let ends = Slot(0)
        let subscription = Subscription {
            ends.value += 1
            handle.value?.cancel()
        }
        handle.value = subscription
        let finished = finishesWithoutDeadlock { subscription.cancel() }
        guard finished else { return }
        #expect(ends.value == 1)
        #expect(subscription.isCancelled)
        #expect(subscription.waitingCancellers == 0)
    }

    @Test func aSecondCancelOfATokenWaitsForTheCallbackTheFirstWaitsFor() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let running = Slot(false)
        let token = consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            running.value = true
            entered.signal()
            proceed.wait()
            running.value = false
        }
        let subscription = store.subscribe(consumer)
        let runningWhenSecondReturned = Slot<Bool?>(nil)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            let first = spawn { token.cancel() }
            spin { store.drain.snapshot.removalMarks.count == 1 }
            let secondReturned = Slot(false)
            let second = spawn {
                token.cancel()
                runningWhenSecondReturned.value = running.value
                secondReturned.value = true
            }
            // The second call either returned at once, or marked its own removal and waits.
            spin { secondReturned.value || store.drain.snapshot.removalMarks.count == 2 }
            proceed.signal()
            busy.wait()
            first.wait()
            second.wait()
        }
        guard finished else { return }
        #expect(runningWhenSecondReturned.value == false)
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test func aSecondCancelOfATokenFromInsideTheCallbackTheFirstWaitsForReturns() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let entered = DispatchSemaphore(value: 0)
        let handle = Slot<ConsumerToken?>(nil)
        let calls = Slot(0)
        let token = consumer.add(\.counter) { _, _ in
            calls.value += 1
            entered.signal()
            // The first removal marked this member under the consumer's lock, before `count`
            // dropped.
            spin { consumer.count == 0 }
            handle.value?.cancel()
        }
        handle.value = token
        let subscription = store.subscribe(consumer)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            token.cancel()
            busy.wait()
            store.dispatch(CounterAction.increment)
        }
        guard finished else { return }
        #expect(calls.value == 1)
        subscription.cancel()
    }
}
