import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

struct AsyncDispatchTests {
    @Test func sendReturnsOnceTheActionWasReducedAndItsSubscribersNotified() async {
        let store = makeStore()
        let seen = Recorder<Int>()
        let subscription = store.subscribe { _, new in seen.append(new.counter) }
        await store.send(CounterAction.increment)
        #expect(store.state.counter == 1)
        #expect(seen.values == [1])
        subscription.cancel()
    }

    @Test func concurrentTasksEachSeeTheirOwnWriteAndNothingIsLost() async {
        let store = makeStore()
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask {
                    await store.send(CounterAction.addWork("task \(index)"))
                    return store.state.works.contains("task \(index)")
                }
            }
            for await sawItsWrite in group {
                #expect(sawItsWrite)
            }
        }
        #expect(store.state.works.count == 100)
        #expect(Set(store.state.works).count == 100)
    }

    /// While a callback holds the store busy on a plain thread, many tasks send to it: they must
    /// suspend, not block the cooperative pool, so an unrelated task still runs. (A blocking `send`
    /// would take every thread of the pool and the unrelated task would never run: the wait below
    /// turns that into a failure, not a hang.)
    @Test func sendSuspendsInsteadOfBlockingTheCooperativePool() async {
        let store = makeStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscription = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            entered.signal()
            release.wait()
        }
        let holder = spawn { store.dispatch(CounterAction.increment) }
        #expect(await wait(for: entered))
        let senderCount = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let sendersDone = DispatchSemaphore(value: 0)
        for _ in 0..<senderCount {
            Task.detached {
                await store.send(CounterAction.decrement)
                sendersDone.signal()
            }
        }
        let unrelatedDone = DispatchSemaphore(value: 0)
        Task.detached { unrelatedDone.signal() }
        // Waited for on a thread of its own, not on this test's pool thread (two tests blocking
        // theirs at once would take a two-thread pool whole). Generous: other tests may hold pool
        // threads for a while, under a sanitizer for long; a blocking `send` never lets go.
        #expect(await wait(for: unrelatedDone))
        // The increment is published (its subscriber is running), and every send still waits.
        #expect(store.state.counter == 1)
        release.signal()
        #expect(await wait(for: holder))
        for _ in 0..<senderCount {
            #expect(await wait(for: sendersDone))
        }
        #expect(store.state.counter == 1 - senderCount)
        subscription.cancel()
    }

    /// More tasks queue sends than the thread serving the store holds before it resumes them (it
    /// resumes finished senders when it lets go of the store, or a thousand at a time from a task
    /// of its own): every one is resumed, and every action counted once.
    @Test func moreQueuedSendersThanTheServingThreadHoldsAreAllResumed() async {
        let store = makeStore()
        let busy = await holdBusy(store)
        let senderCount = Drain.maxHeldSenders + Drain.maxHeldSenders / 2
        let sendersDone = DispatchSemaphore(value: 0)
        for _ in 0..<senderCount {
            Task.detached {
                await store.send(CounterAction.decrement)
                sendersDone.signal()
            }
        }
        // Every send is queued before the store is let go, so one thread runs them all.
        await waitUntil(store, hasQueued: senderCount)
        await busy.letGo()
        #expect(await wait(for: sendersDone, times: senderCount))
        #expect(store.state.counter == 1 - senderCount)
        busy.subscription.cancel()
    }

    /// A task whose send was queued is resumed after a bounded number of further actions even
    /// when the store never goes idle: here the last queued action waits, holding the store, for
    /// the first sender to be resumed (it would wait forever if finished senders were only resumed
    /// when the store goes idle). The holder may hand the tail of the queue to another thread
    /// (``DrainStateMachine/maxJobsBeyondOwn``), so the test waits for the last action itself.
    @Test func aQueuedSenderIsResumedWhileTheStoreStaysBusy() async {
        let store = makeStore()
        let firstSenderResumed = DispatchSemaphore(value: 0)
        let lastActionDone = DispatchSemaphore(value: 0)
        let extra = Drain.maxJobsHoldingSenders + 10
        let lastActionSawTheSender = Recorder<Bool>()
        let busy = await holdBusy(store) { state in
            guard state.counter == 2 + extra else { return }
            lastActionSawTheSender.append(waitCountingFairTime(for: firstSenderResumed, seconds: 60))
            lastActionDone.signal()
        }
        Task.detached {
            await store.send(CounterAction.increment)
            firstSenderResumed.signal()
        }
        await waitUntil(store, hasQueued: 1)
        for _ in 0..<extra {
            Task.detached { await store.send(CounterAction.increment) }
        }
        await waitUntil(store, hasQueued: 1 + extra)
        await busy.letGo()
        #expect(await wait(for: lastActionDone))
        #expect(lastActionSawTheSender.values == [true])
        #expect(store.state.counter == 2 + extra)
        busy.subscription.cancel()
    }

    @Test func sendFromAnActorResumesOnIt() async {
        actor Counter {
            let store = makeStore()
            var sends = 0

            func sendTwice() async -> Int {
                await store.send(CounterAction.increment)
                sends += 1
                await store.send(CounterAction.increment)
                sends += 1
                return store.state.counter
            }
        }
        let counter = Counter()
        #expect(await counter.sendTwice() == 2)
    }

    @Test func aTaskStartedInsideACallbackSendsAfterTheActionInProgress() async {
        let store = makeStore()
        let done = Lock<Task<Void, Never>?>(nil)
        let subscription = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            done.withLock { $0 = Task { await store.send(CounterAction.set(10)) } }
        }
        store.dispatch(CounterAction.increment)
        await done.withLock { $0 }?.value
        #expect(store.state.counter == 10)
        subscription.cancel()
    }
}

/// Waits for `semaphore` (`times` signals) on a thread of its own, so that the test's pool thread
/// stays free (two tests blocking theirs at once would take a two-thread pool whole). Generous:
/// other tests may hold pool threads for a while, under a sanitizer for long.
private func wait(for semaphore: DispatchSemaphore, times: Int = 1, seconds: Int = 120) async -> Bool {
    await withCheckedContinuation { (verdict: CheckedContinuation<Bool, Never>) in
        Thread {
            let deadline = DispatchTime.now() + .seconds(seconds)
            verdict.resume(returning: (0..<times).allSatisfy { _ in semaphore.wait(timeout: deadline) == .success })
        }.start()
    }
}

/// A store held busy on a thread of its own (see ``holdBusy(_:onState:)``).
private struct BusyStore {
    let release: DispatchSemaphore
    let holder: DispatchSemaphore
    let subscription: Subscription

    /// Lets the store go and waits until its holding thread is done, on a thread of its own: the
    /// holding thread may wait for a task (a resumed sender) that needs a pool thread, and this
    /// test's must stay free for it.
    func letGo() async {
        release.signal()
        #expect(await wait(for: holder))
    }
}

/// Holds `store` busy: a thread dispatches an increment, whose subscriber call (at counter 1)
/// waits until ``BusyStore/letGo()``; `onState` sees every later state. Returns once the store is
/// busy.
private func holdBusy(
    _ store: Store<AppState>, onState: @escaping @Sendable (AppState) -> Void = { _ in }
) async -> BusyStore {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let subscription = store.subscribe { _, new in
        guard new.counter == 1 else { return onState(new) }
        entered.signal()
        release.wait()
    }
    let holder = spawn { store.dispatch(CounterAction.increment) }
    #expect(await wait(for: entered))
    return BusyStore(release: release, holder: holder, subscription: subscription)
}

/// Returns once at least `count` jobs wait in `store`'s queue.
private func waitUntil(_ store: Store<AppState>, hasQueued count: Int) async {
    while store.drain.snapshot.queuedCount < count {
        await Task.yield()
    }
}
