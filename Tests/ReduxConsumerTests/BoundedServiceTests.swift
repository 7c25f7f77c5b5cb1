import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A thread that runs a store serves the work queued behind its own for a bounded time: jobs that
/// nobody waits for (actions another store's processing dispatched into this one while it was
/// busy, forwarded actions, tasks' sends) are handed to a thread of no caller's once the owner has
/// run a few hundred of them after its own, so the owner's `dispatch` returns, while the rest are
/// still reduced, in order.
@Suite struct BoundedServiceTests {
    private struct Count: Sendable {
        var value = 0
    }

    private enum Bump: Action {
        case once
    }

    private static let reducer = Reducer<Count> { (state, _: Bump) in state.value += 1 }

    /// `store`, whose first action's subscriber call holds it until `go` is signalled (`started`
    /// says it does), and `other`, each of whose actions dispatches `queued` actions into `store`
    /// from its processing: queued without waiting, as `store` is busy on another thread.
    /// `allReduced` is signalled once `store` has reduced them all; `onState` sees every value.
    private struct HeldStore {
        let store = Store(initialState: Count(), reducer: BoundedServiceTests.reducer)
        let other = Store(initialState: Count(), reducer: BoundedServiceTests.reducer)
        let started = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let allReduced = DispatchSemaphore(value: 0)
        private var subscriptions: [Subscription] = []

        init(queued: Int, onState: @escaping @Sendable (Int) -> Void = { _ in }) {
            let (store, started, go, allReduced) = (store, started, go, allReduced)
            subscriptions.append(
                store.subscribe { _, new in
                    onState(new.value)
                    if new.value == 1 {
                        // The first dispatch's own call: holds the store while the others queue up.
                        started.signal()
                        go.wait()
                    }
                    if new.value == queued + 1 { allReduced.signal() }
                })
            subscriptions.append(
                other.subscribe { _, _ in
                    for _ in 0..<queued { store.dispatch(Bump.once) }
                })
        }

        func cancel() {
            for subscription in subscriptions { subscription.cancel() }
        }
    }

    @Test func aDispatchReturnsWhileActionsQueuedByAnotherStoreAreStillBeingServed() {
        let queued = 2_000
        let returned = DispatchSemaphore(value: 0)
        let hasReturned = DispatchSemaphore(value: 0)
        let seen = Recorder<Int>()
        let held = HeldStore(queued: queued) { value in
            seen.append(value)
            if value == 1 + 512 {
                // Served past the few hundred the first dispatch's thread may run after its own:
                // by then it must have returned (without the hand-over, it would wait here).
                #expect(hasReturned.wait(timeout: .now() + 30) == .success, "the first dispatch returned")
            }
        }
        let seenAtReturn = Box(0)
        DispatchQueue.global().async {
            held.store.dispatch(Bump.once)
            seenAtReturn.value = seen.count
            returned.signal()
            hasReturned.signal()
        }
        #expect(held.started.wait(timeout: .now() + 30) == .success)
        held.other.dispatch(Bump.once)
        held.go.signal()
        #expect(returned.wait(timeout: .now() + 30) == .success, "the first dispatch returns")
        #expect(held.allReduced.wait(timeout: .now() + 30) == .success, "every queued action is reduced")
        #expect(seenAtReturn.value <= 1 + 512, "the dispatch returned before serving the whole queue")
        #expect(seen.values == Array(1...(queued + 1)), "each state once, in order")
        held.cancel()
    }

    /// The handed-over queue is served on a thread of its own, not on Dispatch's global pool: a
    /// program whose blocks fill that pool, each waiting for the store to serve its queue, does not
    /// wait forever (it did when the queue went to the pool).
    @Test func theHandedOverQueueIsServedWhileDispatchsGlobalPoolIsFull() {
        let queued = 1_000
        let held = HeldStore(queued: queued)
        let holder = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            held.store.dispatch(Bump.once)
            holder.signal()
        }
        #expect(held.started.wait(timeout: .now() + 30) == .success)
        held.other.dispatch(Bump.once)
        // Blocks that take the pool's threads until the queue has been served (or a timeout, so
        // that a failure here does not stall the other tests for good).
        let served = DispatchSemaphore(value: 0)
        let blockers = 64
        for _ in 0..<blockers {
            DispatchQueue.global().async {
                if served.wait(timeout: .now() + 30) == .success { served.signal() }
            }
        }
        held.go.signal()
        #expect(held.allReduced.wait(timeout: .now() + 20) == .success, "every queued action is reduced")
        served.signal()
        #expect(holder.wait(timeout: .now() + 60) == .success, "the first dispatch returns")
        #expect(held.store.state.value == queued + 1)
        held.cancel()
    }
}
