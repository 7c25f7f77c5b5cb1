import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct EffectHuntTests {
    /// Guarantee 4, "no user code under a library lock": an effect's `id` is a user value, and its
    /// `hash(into:)` ran under the effect runner's lock when the effect started. Here it asks
    /// another thread to cancel effects (which takes that lock) and waits for it.
    @Test func anEffectIDIsHashedOutsideTheRunnersLock() async {
        let blocked = Slot(false)
        let probed = Slot(false)
        let storeSlot = Lock<Store<Int>?>(nil)
        let probe: @Sendable () -> Void = {
            guard let store = storeSlot.withLock({ $0 }) else { return }
            let cancel = spawn { store.cancelEffects(id: "other") }
            if cancel.wait(timeout: .now() + .seconds(1)) == .timedOut { blocked.value = true }
            probed.value = true
        }
        let effect = Effect<Int>.on(ProbeAction.self, id: { _ in ProbedKey(onHash: probe) }) { _, _ in }
        await finishesWithoutDeadlock(within: 60) {
            let store = Store(initialState: 0, reducer: Reducer { _, _ in }, effects: [effect])
            storeSlot.withLock { $0 = store }
            await store.send(ProbeAction.go)
            await store.effectsIdle()
            storeSlot.withLock { $0 = nil }
        }
        #expect(probed.value)
        #expect(!blocked.value, "an effect's id was hashed under the effect runner's lock")
    }

    /// As above, for `==`: a second effect with the id of a running one compares the two ids.
    @Test func anEffectIDIsComparedOutsideTheRunnersLock() async {
        let blocked = Slot(false)
        let probed = Slot(false)
        let storeSlot = Lock<Store<Int>?>(nil)
        let probe: @Sendable () -> Void = {
            guard let store = storeSlot.withLock({ $0 }) else { return }
            let cancel = spawn { store.cancelEffects(id: "other") }
            if cancel.wait(timeout: .now() + .seconds(1)) == .timedOut { blocked.value = true }
            probed.value = true
        }
        let finishFirst = Signal()
        let effect = Effect<Int>.on(
            ProbeAction.self,
            id: { _ in ProbedKey(onEqual: probe) }
        ) { action, _ in
            if action == .first { await finishFirst.wait() }
        }
        await finishesWithoutDeadlock(within: 60) {
            let store = Store(initialState: 0, reducer: Reducer { _, _ in }, effects: [effect])
            storeSlot.withLock { $0 = store }
            await store.send(ProbeAction.first)
            await store.send(ProbeAction.go)  // same id: compared with the running one's
            finishFirst.fire()
            await store.effectsIdle()
            storeSlot.withLock { $0 = nil }
        }
        #expect(probed.value)
        #expect(!blocked.value, "an effect's id was compared under the effect runner's lock")
    }

    /// "Sends after cancellation are ignored", and an `id` means the latest request wins: an
    /// effect that sent its result while its store was busy with the action that replaces it had
    /// that result reduced after the replacement, once it was cancelled: a stale answer after the
    /// new request.
    @Test func aReplacedEffectsQueuedSendIsIgnored() async {
        let sendQueued = DispatchSemaphore(value: 0)
        let sender = QueueingSender(afterEachJob: { sendQueued.signal() })
        let releaseFirst = Signal()
        let effect = Effect<[SearchStep]>.on(
            SearchStep.self,
            when: { if case .query = $0 { true } else { false } },
            id: { _ in "search" }
        ) { action, context in
            guard action == .query(1) else { return }
            await releaseFirst.wait()
            await sender.send(.results(1), via: context)
        }
        let reducer = Reducer<[SearchStep]> { (state, action: SearchStep) in
            state.append(action)
            if action == .query(2) {
                // The first search answers now, while this action is in progress: its send queues.
                releaseFirst.fire()
                sendQueued.wait()
            }
        }
        await finishesWithoutDeadlock(within: 60) {
            let store = Store(initialState: [], reducer: reducer, effects: [effect])
            await store.send(SearchStep.query(1))
            let second = spawn { store.dispatch(SearchStep.query(2)) }  // replaces the first search
            await join(second)
            await store.effectsIdle()
            #expect(store.state == [.query(1), .query(2)], "the replaced search's answer came after the new query")
        }
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

private enum ProbeAction: Action, Equatable {
    case first
    case go
}

private enum SearchStep: Action, Equatable {
    case query(Int)
    case results(Int)
}

/// An effect `id` that runs a probe when it is hashed or compared; every instance is equal.
private final class ProbedKey: Hashable, Sendable {
    let onHash: (@Sendable () -> Void)?
    let onEqual: (@Sendable () -> Void)?

    init(onHash: (@Sendable () -> Void)? = nil, onEqual: (@Sendable () -> Void)? = nil) {
        self.onHash = onHash
        self.onEqual = onEqual
    }

    static func == (lhs: ProbedKey, rhs: ProbedKey) -> Bool {
        lhs.onEqual?()
        return true
    }

    func hash(into hasher: inout Hasher) {
        onHash?()
    }
}

/// An actor whose jobs run on a thread of its own, calling `afterEachJob` after each: a task's
/// job ends when it suspends, so a send that had to queue has queued when it is called.
private actor QueueingSender {
    private let executor: SignallingExecutor

    init(afterEachJob: @escaping @Sendable () -> Void) {
        executor = SignallingExecutor(afterEachJob: afterEachJob)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    func send(_ action: SearchStep, via context: EffectContext<[SearchStep]>) async {
        await context.send(action)
    }
}

private final class SignallingExecutor: SerialExecutor {
    private let queue = DispatchQueue(label: "EffectHuntTests.SignallingExecutor")
    private let afterEachJob: @Sendable () -> Void

    init(afterEachJob: @escaping @Sendable () -> Void) {
        self.afterEachJob = afterEachJob
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            job.runSynchronously(on: asUnownedSerialExecutor())
            afterEachJob()
        }
    }
}
