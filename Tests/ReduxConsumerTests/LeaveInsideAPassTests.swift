import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A consumer whose subscription ends from inside one of its own callbacks leaves its store in
/// the middle of a pass that is still walking its members: until that pass is over, whatever
/// other threads do to the consumer goes through the store, so guarantee 1 holds for them (a
/// removal waits for the call in progress) and nothing touches the members beside the pass.
struct LeaveInsideAPassTests {
    @Test func aRemovalOnAnotherThreadWaitsForTheCallbackThatCancelledTheSubscription() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let left = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let running = Slot(false)
        let removed = Slot(false)
        let lateCalls = Slot(0)
        let subscription = Slot<Subscription?>(nil)
        consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            running.value = true
            subscription.value?.cancel()
            left.signal()
            proceed.wait()
            running.value = false
        }
        consumer.add(\.counter) { _, _ in
            if removed.value { lateCalls.value += 1 }
        }
        subscription.value = store.subscribe(consumer)
        let runningWhenRemovalReturned = Slot<Bool?>(nil)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            left.wait()
            let remover = spawn {
                consumer.removeAll()
                runningWhenRemovalReturned.value = running.value
                removed.value = true
            }
            // The removal either returned (the bug), or marked itself on the store and waits for
            // the callback in progress.
            spin { removed.value || store.drain.snapshot.removalMarks.count == 1 }
            proceed.signal()
            busy.wait()
            remover.wait()
            consumer.consume(newState: AppState(counter: 5))
            store.dispatch(CounterAction.increment)
        }
        guard finished else { return }
        #expect(runningWhenRemovalReturned.value == false)
        #expect(lateCalls.value == 0)
        #expect(consumer.count == 0)
    }

    @Test func aConsumerSubscribedElsewhereWhileItLeavesJoinsOnceThePassIsOver() {
        let first = makeStore()
        let second = makeStore(AppState(counter: 100))
        let consumer = StateConsumer<AppState>()
        let left = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let subscription = Slot<Subscription?>(nil)
        let heard = Recorder<(Int, Int)>()
        consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            subscription.value?.cancel()
            left.signal()
            proceed.wait()
        }
        consumer.add(\.counter) { old, new in heard.append((old, new)) }
        subscription.value = first.subscribe(consumer)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { first.dispatch(CounterAction.increment) }
            left.wait()
            let elsewhere = spawn {
                _ = second.subscribe(consumer)
                second.dispatch(CounterAction.set(200))
            }
            elsewhere.wait()
            proceed.signal()
            busy.wait()
            second.dispatch(CounterAction.set(300))
        }
        guard finished else { return }
        // The second member never heard the first store's change (its consumer left before it),
        // and hears the second store's values as one chain, each once.
        let values = heard.values
        #expect(values.first?.0 == 0)
        #expect(values.last?.1 == 300)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.1 == $1.0 })
        #expect(!values.contains { $0.1 == 1 })
    }

    @Test func aStateFedByHandRightAfterLeavingInsideACallbackIsConsumedAfterThePass() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = Slot<Subscription?>(nil)
        let heard = Recorder<(Int, Int)>()
        consumer.add(\.counter) { old, new in
            heard.append((old, new))
            guard new == 1 else { return }
            subscription.value?.cancel()
            consumer.consume(newState: AppState(counter: 7))
            consumer.consume(newState: AppState(counter: 8))
        }
        subscription.value = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        consumer.consume(newState: AppState(counter: 9))
        #expect(heard.values.map { [$0.0, $0.1] } == [[0, 1], [1, 7], [7, 8], [8, 9]])
        #expect(store.subscriberCount == 0)
    }
}
