import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Features that meet: pages that read and dispatch to the global store while they close, owners
/// released while their members' calls are in flight, bags emptied while members on queues and
/// actors fire, derived values of pages, streams, effects and stores that call into each other.
struct MixedFeaturesHuntTests {
    /// The lifetime rule: "an `owner:` member never keeps its owner alive", and G1: "an `owner:`
    /// member is inert from the moment its owner is released". A member on a busy actor whose call
    /// is already on its way there (posted, the pump waiting for the actor) must neither keep its
    /// owner alive nor be called with it once the owner's last reference is dropped. Before the
    /// fix, the pump took the owner strongly before hopping to the actor: the owner lived on until
    /// the actor was free, and was then handed to the callback.
    @Test func anOwnerReleasedWhileItsMembersCallWaitsForABusyActorIsFreedAndNotCalled() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Int>()
        weak var weakOwner: LoggingOwner?
        var owner: LoggingOwner? = LoggingOwner(log: Recorder())
        weakOwner = owner
        consumer.add(\.counter, owner: owner!, on: MixedHeldActor.shared) { @MixedHeldActor _, _, new in
            calls.append(new)
        }
        let subscription = store.subscribe(consumer)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        MixedHeldActor.queue.async {
            holding.signal()
            release.wait()
        }
        holding.wait()  // the actor is busy from here…
        store.dispatch(CounterAction.increment)
        // The member's call has reached the actor: the pump looked at the owner before it hopped.
        let arrived = waitCountingFairTime(for: MixedHeldActor.executor.jobArrived, seconds: 30)
        #expect(arrived)
        owner = nil
        #expect(weakOwner == nil, "the member's call waiting for the actor keeps its owner alive")
        release.signal()  // …to here
        MixedHeldActor.queue.sync {}  // the call's job, enqueued before this one, has run
        #expect(calls.values == [], "the member was called after its owner was released")
        spin { consumer.count == 0 }  // the member of a gone owner is removed instead of called
        subscription.cancel()
    }
}

/// A global actor whose jobs run on a serial queue a test can hold, signalling each job's arrival.
@globalActor
private actor MixedHeldActor {
    static let shared = MixedHeldActor()
    static let queue = DispatchQueue(label: "MixedFeaturesHuntTests.MixedHeldActor")
    static let executor = SignallingQueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}
