import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct WaitFirstCheckHuntTests {
    /// "Either way its subscription is gone when it returns or throws": a wait that timed out
    /// while its first check was still queued behind an action on another thread had that check
    /// run its predicate after it threw.
    @Test func aWaitThatTimedOutBeforeItsFirstCheckNeverRunsItsPredicate() async {
        let store = makeStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscription = store.subscribe { old, new in
            guard new.name == "block", old.name != "block" else { return }
            entered.signal()
            release.wait()
        }
        let waiterReturned = Slot(false)
        let calledAfterReturn = Slot(false)
        await finishesWithoutDeadlock(within: 60) {
            let busy = spawn { store.dispatch(CounterAction.rename("block")) }
            await join(entered)
            let outcome = try? await store.wait(
                until: { _ in
                    if waiterReturned.value { calledAfterReturn.value = true }
                    return false
                }, timeout: 0.05)
            waiterReturned.value = true
            #expect(outcome == nil)
            release.signal()
            await join(busy)
            await store.send(CounterAction.increment)
        }
        subscription.cancel()
        #expect(!calledAfterReturn.value, "a wait's predicate ran after the wait returned")
        #expect(store.subscriberCount == 0)
    }

    /// As above, when the waiting task is cancelled while the first check's predicate runs on the
    /// store's thread: the wait threw while its predicate still ran. (A round whose check ran on the
    /// waiting task's thread, because the store was idle by then, proves nothing and is repeated.)
    @Test func aWaitCancelledDuringItsFirstCheckReturnsOnlyOnceThePredicateReturned() async {
        let provingRounds = Slot(0)
        await finishesWithoutDeadlock(within: 60) {
            for _ in 0..<50 where provingRounds.value < 3 {
                if await cancelDuringTheFirstCheck() { provingRounds.value += 1 }
            }
        }
        #expect(provingRounds.value > 0)
    }

    /// One round; returns whether the first check ran on the store's busy thread.
    private func cancelDuringTheFirstCheck() async -> Bool {
        let store = makeStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscription = store.subscribe { old, new in
            guard new.name == "block", old.name != "block" else { return }
            entered.signal()
            release.wait()
        }
        let busyThread = Lock<ObjectIdentifier?>(nil)
        let checkThread = Lock<ObjectIdentifier?>(nil)
        let inPredicate = Lock(false)
        let waiterReturned = Lock(false)
        let checkEntered = DispatchSemaphore(value: 0)
        let busy = spawn {
            busyThread.withLock { $0 = ObjectIdentifier(Thread.current) }
            store.dispatch(CounterAction.rename("block"))
        }
        await join(entered)
        let waiter = Task {
            _ = try? await store.wait(until: { _ in
                let thread = ObjectIdentifier(Thread.current)
                checkThread.withLock { $0 = thread }
                // Held on the busy thread only: on a pool thread it would wait for the test's task, which needs one.
                guard thread == busyThread.withLock({ $0 }) else {
                    checkEntered.signal()
                    return false
                }
                inPredicate.withLock { $0 = true }
                checkEntered.signal()
                // Holds the check until its removal has begun, then until the waiter has returned
                // (bounded: with the fix, the waiter returns only after this call).
                spin { store.subscriberCount <= 1 }
                let deadline = DispatchTime.now().uptimeNanoseconds + 200_000_000
                spin { waiterReturned.withLock { $0 } || DispatchTime.now().uptimeNanoseconds > deadline }
                inPredicate.withLock { $0 = false }
                return false
            })
            let isRunning = inPredicate.withLock { $0 }
            waiterReturned.withLock { $0 = true }
            return isRunning
        }
        for _ in 0..<100 { await Task.yield() }
        release.signal()
        await join(checkEntered)
        let canceller = spawn { waiter.cancel() }
        #expect(await waiter.value == false, "a cancelled wait returned while its predicate ran")
        await join(canceller)
        await join(busy)
        subscription.cancel()
        #expect(store.subscriberCount == 0)
        return checkThread.withLock { $0 } == busyThread.withLock { $0 }
    }
}

/// Waits, off the cooperative pool, for `semaphore`.
private func join(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}
