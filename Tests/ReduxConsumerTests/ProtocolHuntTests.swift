import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Wake-ups the store's threads owe each other, whatever the timing: each scenario has a callback
/// wait (with a timeout) for a thread that should have been woken, so a missed wake-up shows as a
/// failure instead of a hang.
struct ProtocolHuntTests {
    /// Two threads wait for their dispatches on a busy store; the later one may take the store
    /// over and run the earlier one's action first. The earlier one must return once its action
    /// has run, not only when the later one lets the store go.
    @Test func aWaiterWhoseActionRanOnAnotherThreadReturnsAtOnce() {
        let failedRound = Slot<Int?>(nil)
        finishesWithoutDeadlock(within: 60) {
            for round in 0..<scaled(1_000, sanitized: 100) {
                let store = makeStore()
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                let firstReturned = DispatchSemaphore(value: 0)
                let timedOut = Slot(false)
                let subscription = store.subscribe { _, new in
                    switch new.counter {
                    case 1:
                        holding.signal()
                        release.wait()
                    case 3:
                        // The earlier waiter's action (2) has run: its dispatch must have returned.
                        if firstReturned.wait(timeout: .now() + .seconds(2)) == .timedOut { timedOut.value = true }
                    default:
                        break
                    }
                }
                let holder = spawn { store.dispatch(CounterAction.set(1)) }
                holding.wait()
                let first = spawn {
                    store.dispatch(CounterAction.set(2))
                    firstReturned.signal()
                }
                spin { store.drain.snapshot.waitingThreads == 1 }
                let second = spawn { store.dispatch(CounterAction.set(3)) }
                spin { store.drain.snapshot.waitingThreads == 2 }
                release.signal()
                holder.wait()
                first.wait()
                second.wait()
                subscription.cancel()
                if timedOut.value {
                    failedRound.value = round
                    break
                }
            }
        }
        #expect(failedRound.value == nil, "round \(failedRound.value ?? 0): the first waiter was not woken")
    }

    /// A queued member's pending call keeps the state it was posted with; a newer change merged
    /// into it replaces that state, and the state's last copy (a user object's `deinit`) must be
    /// released outside the delivery gate's lock. Here the `deinit` asks another thread to take
    /// that lock (a removal of another member) and waits for it.
    @Test func aMergedQueuedCallReleasesTheStateItReplacesOutsideTheLock() {
        let blocked = Slot(false)
        let released = Slot(false)
        finishesWithoutDeadlock(within: 30) {
            let queue = DispatchQueue(label: "ProtocolHuntTests.queued")
            let holdQueue = DispatchSemaphore(value: 0)
            queue.async { holdQueue.wait() }
            let store = Store(initialState: TrackedState(), reducer: trackedReducer)
            let consumer = StateConsumer<TrackedState>(deliveringOn: queue)
            consumer.add(\.count) { (_: Int, _: Int, _: TrackedState) in }
            let other = consumer.add(\.count) { (_: Int, _: Int) in }
            let subscription = store.subscribe(consumer)
            // Posted with the state that holds the tracker; the next action drops it from the
            // state without a change of `count`; the one after merges a new change into the call.
            store.dispatch(
                TrackedAction.step(
                    Tracker {
                        // On the store's thread, as the merge lets go of the tracker: another
                        // thread's removal takes the gate's lock.
                        let removal = spawn { consumer.remove(other) }
                        if removal.wait(timeout: .now() + .seconds(2)) == .timedOut { blocked.value = true }
                        released.value = true
                    }))
            store.dispatch(TrackedAction.step(nil))
            store.dispatch(TrackedAction.increment)
            holdQueue.signal()
            queue.sync {}
            subscription.cancel()
        }
        #expect(released.value)
        #expect(!blocked.value, "a merged call released the state it replaced under the gate's lock")
    }
}

private final class Tracker: Sendable {
    let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

private struct TrackedState: Sendable {
    var count = 0
    var tracker: Tracker?
}

private enum TrackedAction: Action {
    case step(Tracker?)
    case increment
}

private let trackedReducer = Reducer<TrackedState> { (state, action: TrackedAction) in
    switch action {
    case .step(let tracker):
        if tracker != nil { state.count += 1 }
        state.tracker = tracker
    case .increment:
        state.count += 1
    }
}
