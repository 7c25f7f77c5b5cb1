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
            let start = DispatchSemaphore(value: 0)
            let removed = DispatchSemaphore(value: 0)
            let victim = Slot<Subscription?>(nil)
            let quit = Slot(false)
            let timedOut = Slot(0)
            let remover = spawn {
                while true {
                    start.wait()
                    if quit.value { return }
                    victim.value?.cancel()
                    removed.signal()
                }
            }
            var random = SplitMix64(seed: 0xA11_0CA7E)
            for round in 0..<scaled(5_000, sanitized: 500) {
                let spins = Int(random.next() % 30_000)
                let first = store.subscribe { _, _ in
                    start.signal()
                    // Wait for the remover's mark, then end the call at a random moment of its wait.
                    spin { !store.drain.snapshot.removalMarks.isEmpty }
                    var sum = 0
                    for step in 0..<spins { sum &+= step &* step }
                    blackHole(sum)
                }
                victim.value = first
                let second = store.subscribe { _, _ in
                    // The removal of `first` must return once `first`'s call has ended.
                    if removed.wait(timeout: .now() + .seconds(5)) == .timedOut { timedOut.value += 1 }
                }
                store.dispatch(CounterAction.increment)
                second.cancel()
                if timedOut.value > 0 {
                    failedRound.value = round
                    break
                }
            }
            quit.value = true
            start.signal()
            remover.wait()
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
            let start = DispatchSemaphore(value: 0)
            let removed = DispatchSemaphore(value: 0)
            let victim = Slot<Subscription?>(nil)
            let quit = Slot(false)
            let timedOut = Slot(0)
            let remover = spawn {
                while true {
                    start.wait()
                    if quit.value { return }
                    victim.value?.cancel()
                    removed.signal()
                }
            }
            var random = SplitMix64(seed: 0x5_C1_99ED)
            for round in 0..<scaled(10_000, sanitized: 1_000) {
                let spins = Int(random.next() % 8_000)
                let first = store.observeActions { _ in
                    start.signal()
                    // Return at a random moment around the remover's mark, so that the next
                    // listener is named just as the removal marks it.
                    var sum = 0
                    for step in 0..<spins { sum &+= step &* step }
                    blackHole(sum)
                }
                let second = store.observeActions { _ in }
                victim.value = second
                let third = store.observeActions { _ in
                    if removed.wait(timeout: .now() + .seconds(5)) == .timedOut { timedOut.value += 1 }
                }
                store.dispatch(CounterAction.increment)
                first.cancel()
                third.cancel()
                if timedOut.value > 0 {
                    failedRound.value = round
                    break
                }
            }
            quit.value = true
            start.signal()
            remover.wait()
        }
        #expect(failedRound.value == nil, "round \(failedRound.value ?? 0): the remover was not woken")
    }
}

@inline(never) private func blackHole(_ value: Int) {
    if value == 42 { print("") }
}
