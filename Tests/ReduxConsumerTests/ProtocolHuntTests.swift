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
}
