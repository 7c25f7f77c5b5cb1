import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Waits, off the cooperative pool, for `semaphore`.
private func join(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}

struct AsyncHuntTests {
    /// "Either way its subscription is gone when it returns or throws": a wait that timed out while
    /// its predicate ran on the store's thread returned (the waiter resumed) before its removal,
    /// which waits for that call, was over: the predicate still ran after the wait threw.
    @Test func aTimedOutWaitReturnsOnlyOnceItsPredicateCanNoLongerRun() async {
        let store = makeStore()
        let inPredicate = Lock(false)
        let waiterReturned = Lock(false)
        let entered = DispatchSemaphore(value: 0)
        let waiter = Task {
            _ = try? await store.wait(
                until: { state in
                    guard state.name == "block" else { return false }
                    inPredicate.withLock { $0 = true }
                    entered.signal()
                    // Holds the call until its removal has begun, then until the waiter has returned
                    // (bounded: with the fix, the waiter returns only after this call).
                    spin { store.subscriberCount == 0 }
                    let deadline = DispatchTime.now().uptimeNanoseconds + 200_000_000
                    spin { waiterReturned.withLock { $0 } || DispatchTime.now().uptimeNanoseconds > deadline }
                    inPredicate.withLock { $0 = false }
                    return false
                }, timeout: 0.05)
            let isRunning = inPredicate.withLock { $0 }
            waiterReturned.withLock { $0 = true }
            return isRunning
        }
        await finishesWithoutDeadlock(within: 10) {
            while store.subscriberCount == 0 { await Task.yield() }
            let busy = spawn { store.dispatch(CounterAction.rename("block")) }
            await join(entered)
            #expect(await waiter.value == false)
            await join(busy)
            #expect(store.subscriberCount == 0)
        }
    }
}
