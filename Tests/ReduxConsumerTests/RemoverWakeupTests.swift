import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A remover waiting for a call on another thread to end must be woken when it ends, whatever the
/// timing: the store's thread ends the call without the remover's lock, so its wake-up can land
/// between the remover's check and its wait. Here the next callback blocks until the removal
/// returned, so a lost wake-up would be a deadlock.
struct RemoverWakeupTests {
    @Test func aRemoverWaitingForACallIsWokenWhenItEnds() {
        let failedRound = Slot<Int?>(nil)
        finishesWithoutDeadlock(within: 60) {
            let store = makeStore()
            let remover = Remover()
            var random = SplitMix64(seed: 0xA11_0CA7E)
            for round in 0..<scaled(5_000, sanitized: 500) {
                let spins = Int(random.next() % 30_000)
                let first = store.subscribe { _, _ in
                    remover.start()
                    // Wait for the remover's mark, then end the call at a random moment of its wait.
                    spin { !store.drain.snapshot.removalMarks.isEmpty }
                    busyWork(spins)
                }
                remover.victim.value = first
                // The removal of `first` must return once `first`'s call has ended.
                let second = store.subscribe { _, _ in remover.waitForRemoval() }
                store.dispatch(CounterAction.increment)
                second.cancel()
                if remover.timedOut {
                    failedRound.value = round
                    break
                }
            }
            remover.stop()
        }
        #expect(failedRound.value == nil, "round \(failedRound.value ?? 0): the remover was not woken")
    }

    /// The store's thread names the next listener, then finds it marked for removal and skips it:
    /// a remover that saw it named waits for that "call", and must be woken when the store's thread
    /// gives it up, not at its next call.
    @Test func aRemoverWaitingForASkippedCallIsWoken() {
        let failedRound = Slot<Int?>(nil)
        finishesWithoutDeadlock(within: 60) {
            let store = makeStore()
            let remover = Remover()
            var random = SplitMix64(seed: 0x5_C1_99ED)
            for round in 0..<scaled(10_000, sanitized: 1_000) {
                let spins = Int(random.next() % 8_000)
                let first = store.observeActions { _ in
                    remover.start()
                    // Return at a random moment around the remover's mark, so that the next
                    // listener is named just as the removal marks it.
                    busyWork(spins)
                }
                remover.victim.value = store.observeActions { _ in }
                let third = store.observeActions { _ in remover.waitForRemoval() }
                store.dispatch(CounterAction.increment)
                first.cancel()
                third.cancel()
                if remover.timedOut {
                    failedRound.value = round
                    break
                }
            }
            remover.stop()
        }
        #expect(failedRound.value == nil, "round \(failedRound.value ?? 0): the remover was not woken")
    }
}

/// A thread that cancels `victim` each time it is started, and tells when the cancellation
/// returned.
private final class Remover: Sendable {
    let victim = Slot<Subscription?>(nil)
    private let starts = DispatchSemaphore(value: 0)
    private let removals = DispatchSemaphore(value: 0)
    private let quits = Slot(false)
    private let timeouts = Slot(0)
    private let done: DispatchSemaphore

    init() {
        let (starts, removals, quits, victim) = (starts, removals, quits, victim)
        done = spawn {
            while true {
                starts.wait()
                if quits.value { return }
                victim.value?.cancel()
                removals.signal()
            }
        }
    }

    /// Starts one cancellation of `victim`.
    func start() {
        starts.signal()
    }

    /// Waits for the cancellation started last to return; counts a wait of more than 5 s.
    func waitForRemoval() {
        if removals.wait(timeout: .now() + .seconds(5)) == .timedOut { timeouts.value += 1 }
    }

    /// Whether a removal did not return within 5 s.
    var timedOut: Bool {
        timeouts.value > 0
    }

    /// Ends the thread.
    func stop() {
        quits.value = true
        starts.signal()
        done.wait()
    }
}

/// Work the optimizer keeps, taking a time that grows with `steps`.
private func busyWork(_ steps: Int) {
    var sum = 0
    for step in 0..<steps { sum &+= step &* step }
    blackHole(sum)
}

@inline(never) private func blackHole(_ value: Int) {
    if value == 42 { print("") }
}
