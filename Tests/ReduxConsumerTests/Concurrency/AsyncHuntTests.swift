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
        // The timeout must come while the predicate runs; it fires on time on a timer's thread, so
        // on a slow run (a sanitizer) it may come before the blocking state is even dispatched.
        // Such a round proves nothing: the next one tries again with a timeout four times longer.
        var timeout = 0.05
        while timeout < 30 {
            guard let isRunning = await timedOutWaitRound(timeout: timeout) else {
                timeout *= 4
                continue
            }
            #expect(isRunning == false, "the predicate still ran after the wait threw")
            return
        }
        Issue.record("every wait timed out before its predicate was called")
    }

    /// One round: `nil` when the wait ended before the predicate was called; otherwise whether the
    /// predicate was still running when the wait returned.
    private func timedOutWaitRound(timeout: Double) async -> Bool? {
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
                }, timeout: timeout)
            let isRunning = inPredicate.withLock { $0 }
            waiterReturned.withLock { $0 = true }
            return isRunning
        }
        let outcome = Lock<Bool?>(nil)
        await finishesWithoutDeadlock(within: 60) {
            while store.subscriberCount == 0 && !waiterReturned.withLock({ $0 }) { await Task.yield() }
            let busy = spawn { store.dispatch(CounterAction.rename("block")) }
            await join(busy)
            // Called, or not at all: the wait was over before the dispatch (the predicate returns
            // at once when it is not called for "block").
            let wasCalled = inPredicate.withLock { $0 } || entered.wait(timeout: .now()) == .success
            let isRunning = await waiter.value
            outcome.withLock { $0 = wasCalled ? isRunning : nil }
            #expect(store.subscriberCount == 0)
        }
        return outcome.withLock { $0 }
    }

    /// An effect's `id` is any hashable value, a user object's included; the runner keeps the
    /// first one of a name as its dictionary key, and released that key (the object's last copy,
    /// its `deinit`) under its lock when the last effect of that name ended. Here the `deinit`
    /// asks another thread to cancel effects (which takes that lock) and waits for it.
    @Test func anEffectIDIsReleasedOutsideTheRunnersLock() async {
        let blocked = Slot(false)
        let released = Slot(false)
        let storeSlot = Lock<Store<Int>?>(nil)
        let firstGone = Signal()
        let finishSecond = Signal()
        let keyGone = Signal()
        let effect = Effect<Int>.on(
            KeyedAction.self,
            id: { _ in
                EffectKey {
                    guard let store = storeSlot.withLock({ $0 }) else { return }
                    let cancel = spawn { store.cancelEffects(id: "other") }
                    if cancel.wait(timeout: .now() + .seconds(1)) == .timedOut { blocked.value = true }
                    released.value = true
                    keyGone.fire()
                }
            }
        ) { action, _ in
            switch action {
            case .first:
                await withTaskCancellationHandler {
                    await Signal().wait()
                } onCancel: {
                }
            case .second:
                await finishSecond.wait()
            }
        }
        await finishesWithoutDeadlock(within: 60) {
            let store = Store(initialState: 0, reducer: Reducer { _, _ in }, effects: [effect])
            storeSlot.withLock { $0 = store }
            await store.send(KeyedAction.first(Payload(onDeinit: { firstGone.fire() })))
            await store.send(KeyedAction.second)  // same id: cancels the first
            await firstGone.wait()  // the first effect's task is gone: only the runner keeps its id
            #expect(!released.value)
            finishSecond.fire()
            await keyGone.wait()  // when the second effect ends
            storeSlot.withLock { $0 = nil }
        }
        #expect(released.value)
        #expect(!blocked.value, "an effect's id was released under the effect runner's lock")
    }
}

/// An effect `id` that is an object, every instance equal to every other.
private final class EffectKey: Hashable, Sendable {
    let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }

    static func == (lhs: EffectKey, rhs: EffectKey) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}

private final class Payload: Sendable {
    let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

private enum KeyedAction: Action {
    case first(Payload)
    case second
}

/// `subscriberCount` counts an iteration of `actions` or `states`, or a wait, only once it listens:
/// a test (or a service) that waits for the count before acting never loses that first action (an
/// iteration used to be counted before its registration ran, and an action sent in between was
/// lost: these tests hung without the fix).
struct CountedSubscriptionListensTests {
    @Test func anActionsIterationCountedHearsTheNextAction() async {
        await expectFirstReadAfterTheCount(is: "set(1)") { store in
            var actions = store.actions.makeAsyncIterator()
            return await actions.next().map { "\($0)" }
        }
    }

    @Test func aStatesIterationCountedHearsTheNextAction() async {
        await expectFirstReadAfterTheCount(is: 1) { store in
            var states = store.states(buffering: .unbounded).makeAsyncIterator()
            return await states.next()?.new.counter
        }
    }

    @Test func aChangesIterationCountedHearsTheNextChange() async {
        await expectFirstReadAfterTheCount(is: Change(old: 0, new: 1)) { store in
            var changes = store.changes(of: \.counter, buffering: .unbounded).makeAsyncIterator()
            return await changes.next()
        }
    }

    @Test func aWaitCountedSeesTheNextState() async {
        await expectFirstReadAfterTheCount(is: 1) { store in
            try? await store.wait(until: { $0.counter >= 1 }, timeout: 60).counter
        }
    }

    /// Round after round on a new store: `read` starts in a task, the test waits for the store to
    /// count it, then sets the counter to 1, then 2; what `read` returns must come from the first
    /// (a read that missed it gets the second, or nothing and hangs, which the watchdog reports).
    private func expectFirstReadAfterTheCount<Value: Equatable & Sendable>(
        is expected: Value,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ read: @escaping @Sendable (Store<AppState>) async -> Value?
    ) async {
        let wrong = Slot<String?>(nil)
        await finishesWithoutDeadlock(within: 60) {
            for round in 0..<scaled(2_000, sanitized: 100) {
                let store = makeStore()
                let reader = Task { await read(store) }
                while store.subscriberCount == 0 { await Task.yield() }
                await store.send(CounterAction.set(1))
                await store.send(CounterAction.set(2))
                let first = await reader.value
                if first != expected {
                    wrong.value = "round \(round): \(first.map { "\($0)" } ?? "nothing")"
                    break
                }
            }
        }
        #expect(wrong.value == nil, sourceLocation: sourceLocation)
    }
}
