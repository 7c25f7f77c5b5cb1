import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Dispatch from many threads at once. These run again under ThreadSanitizer in `.ci/run`.
struct ConcurrencyTests {
    @Test func fourThreadsDispatchingReachTheSequentialResult() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Lock((count: 0, inOrder: true))
        consumer.add(\.counter) { old, new in
            calls.withLock { calls in
                calls.count += 1
                if new != old + 1 { calls.inOrder = false }
            }
        }
        let subscription = store.subscribe(consumer)
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 4) { _ in
                    for _ in 0..<10_000 {
                        store.dispatch(CounterAction.increment)
                    }
                }
            })
        else { return }
        #expect(store.state.counter == 40_000)
        let result = calls.withLock { $0 }
        #expect(result.count == 40_000)
        #expect(result.inOrder, "every consumer call must see strictly increasing values, one step at a time")
        subscription.cancel()
    }

    @Test func dispatchReturnsOnlyAfterItsActionWasNotified() {
        let store = makeStore()
        let lastNotified = Lock(0)
        let subscription = store.subscribe { _, new in lastNotified.withLock { $0 = max($0, new.counter) } }
        let violations = Lock(0)
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 4) { thread in
                    for step in 0..<2_000 {
                        let value = thread * 10_000 + step
                        store.dispatch(CounterAction.set(value))
                        if lastNotified.withLock({ $0 }) < value && store.state.counter == value {
                            violations.withLock { $0 += 1 }
                        }
                    }
                }
            })
        else { return }
        #expect(violations.withLock { $0 } == 0)
        subscription.cancel()
    }

    @Test func subscribingAndCancellingWhileOthersDispatch() {
        let store = makeStore()
        let start = store.subscriberCount
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 4) { thread in
                    for _ in 0..<1_000 {
                        if thread < 2 {
                            store.dispatch(CounterAction.increment)
                        } else {
                            let consumer = StateConsumer<AppState>()
                            consumer.add(\.counter) { old, new in #expect(new > old) }
                            let subscriptions = [store.subscribe(consumer), store.subscribe { _, _ in }]
                            for subscription in subscriptions { subscription.cancel() }
                        }
                    }
                }
            })
        else { return }
        #expect(store.state.counter == 2_000)
        #expect(store.subscriberCount == start)
    }

    /// Two stores that dispatch into each other from their callbacks, driven from two threads: the
    /// drain never blocks a thread that is already running a store, so this cannot deadlock.
    @Test func storesDispatchingIntoEachOtherFromTwoThreadsDoNotDeadlock() {
        let left = makeStore()
        let right = makeStore()
        // Each store answers a change of its counter (not the other's rename) so the ping-pong ends.
        let toRight = left.subscribe { old, new in
            if old.counter != new.counter, new.counter.isMultiple(of: 2) {
                right.dispatch(CounterAction.rename("from left"))
            }
        }
        let toLeft = right.subscribe { old, new in
            if old.counter != new.counter, new.counter.isMultiple(of: 2) {
                left.dispatch(CounterAction.rename("from right"))
            }
        }
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 2) { thread in
                    let store = thread == 0 ? left : right
                    for _ in 0..<2_000 {
                        store.dispatch(CounterAction.increment)
                    }
                }
            })
        else { return }
        #expect(left.state.counter == 2_000)
        #expect(right.state.counter == 2_000)
        // Each store's subscriber holds the other store: cancel to break the cycle.
        toRight.cancel()
        toLeft.cancel()
    }

    @Test func consumerFedByHandFromSeveralThreadsRunsOnePassAtATime() {
        let consumer = StateConsumer<AppState>()
        let active = Lock((now: 0, maximum: 0, calls: 0))
        consumer.add(\.counter, options: .pulse) { _, _ in
            active.withLock {
                $0.now += 1
                $0.maximum = max($0.maximum, $0.now)
                $0.calls += 1
            }
            active.withLock { $0.now -= 1 }
        }
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 4) { thread in
                    for step in 0..<1_000 {
                        consumer.consume(newState: AppState(counter: thread * 1_000 + step))
                    }
                }
            })
        else { return }
        let result = active.withLock { $0 }
        #expect(result.maximum == 1)
        // The first state only sets the starting value.
        #expect(result.calls == 3_999)
    }
}

struct DrainOrderTests {
    /// A store's thread waits for a consumer that is busy on another thread (a consumer's drain is
    /// above a store's in the wait order), so `dispatch` returns only after the consumer's pass.
    @Test func dispatchWaitsForAConsumerBusyOnAnotherThread() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        consumer.add(\.counter) { _, new in seen.append(new) }
        let subscription = store.subscribe(consumer)
        guard
            finishesWithoutDeadlock({
                DispatchQueue.concurrentPerform(iterations: 2) { thread in
                    for step in 0..<500 {
                        if thread == 0 {
                            store.dispatch(CounterAction.increment)
                            #expect(seen.values.last == step + 1)
                        } else {
                            // Keeps the consumer's drain busy from another thread.
                            consumer.add(\.name) { _, _ in }.cancel()
                        }
                    }
                }
            })
        else { return }
        #expect(seen.values == Array(1...500))
        subscription.cancel()
    }
}
