import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// When a subscription ends, the calls its store posted to the consumer's queue and not made yet
/// are withdrawn (guarantee 1), and only those: a subscription that begins at the same time on
/// another thread keeps its own calls (guarantee 3).
struct WithdrawOnLeaveTests {
    private struct Call: Equatable, Sendable {
        let old: Int
        let new: Int
    }

    @Test func subscriptionsEndingAndBeginningOnTwoThreadsKeepEachMembersChain() {
        let queue = DispatchQueue(label: "withdraw-on-leave")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let log = Recorder<Call>()
        consumer.add(\.counter, options: .instantly) { old, new in log.append(Call(old: old, new: new)) }
        let isDispatching = Lock(true)
        let finished = finishesWithoutDeadlock(within: scaled(60, sanitized: 300)) {
            let dispatcher = spawn {
                for _ in 0..<scaled(20_000, sanitized: 2_000) { store.dispatch(CounterAction.increment) }
                isDispatching.withLock { $0 = false }
            }
            // Two threads each hold a handle for a moment: the subscription ends whenever both let
            // go, and begins again with the next one, often on the other thread at the same time.
            let renewers = (0..<2).map { _ in
                spawn {
                    while isDispatching.withLock({ $0 }) {
                        let subscription = store.subscribe(consumer)
                        subscription.cancel()
                    }
                }
            }
            dispatcher.wait()
            for renewer in renewers { renewer.wait() }
        }
        guard finished else { return }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        queue.sync {}
        let calls = log.values
        let final = store.state.counter
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.new == $1.old }, "\(Self.breaks(in: calls))")
        #expect(calls.dropFirst().allSatisfy { $0.old < $0.new })
        #expect(calls.last?.new == final, "last calls \(calls.suffix(3)), counter \(final)")
        subscription.cancel()
        #expect(store.subscriberCount == 0)
    }

    @Test func aQueuedRemovalWithdrawsTheCallsPendingBeforeItReturns() {
        // The store's drain is busy on another thread (a callback waits), so the removal is
        // queued there; the call already posted to the consumer's queue is withdrawn all the same
        // before `cancel()` returns, and the queue never makes it.
        let queue = DispatchQueue(label: "withdraw-queued-removal")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Int>()
        consumer.add(\.counter) { _, new in calls.append(new) }
        let subscription = store.subscribe(consumer)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            entered.signal()
            release.wait()
        }
        queue.suspend()
        let finished = finishesWithoutDeadlock(within: 30) {
            let dispatcher = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            // The consumer's call for counter 1 is posted (its queue is suspended); the closure
            // subscriber after it holds the drain.
            subscription.cancel()
            queue.resume()
            queue.sync {}
            #expect(calls.values.isEmpty, "called after cancel() returned: \(calls.values)")
            release.signal()
            dispatcher.wait()
        }
        guard finished else { return }
        store.dispatch(CounterAction.increment)
        queue.sync {}
        #expect(calls.values.isEmpty)
        blocker.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// An `.instantly` call still waiting on the queue when the subscription ends is withdrawn
    /// with the other waiting calls, and not made again when the consumer comes back (it fires once
    /// in the member's life, at its first value); the member hears the next change from there.
    @Test func anInstantCallWaitingOnTheQueueIsWithdrawnWithTheSubscription() {
        let queue = DispatchQueue(label: "withdraw-instant-call")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        var subscription = store.subscribe(consumer)
        queue.suspend()
        consumer.add(\.counter, options: .instantly) { old, new in calls.append(Call(old: old, new: new)) }
        subscription.cancel()
        queue.resume()
        queue.sync {}
        #expect(calls.values.isEmpty, "called after cancel() returned: \(calls.values)")
        subscription = store.subscribe(consumer)
        queue.sync {}
        #expect(calls.values.isEmpty, "the instant call came back with the subscription: \(calls.values)")
        store.dispatch(CounterAction.increment)
        queue.sync {}
        #expect(calls.values == [Call(old: 0, new: 1)])
        subscription.cancel()
    }

    /// Where a member's chain breaks: the pairs whose `new` is not the next call's `old`.
    private static func breaks(in calls: [Call]) -> [String] {
        zip(calls, calls.dropFirst()).filter { $0.new != $1.old }.prefix(5).map { "\($0) then \($1)" }
    }
}
