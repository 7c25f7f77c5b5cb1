import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Guarantee 1: a removal made from a thread that runs none of the library's work (no callback, no
/// queued delivery, no page's close: no thread can be waiting for it) waits for the removed
/// callback to return, even while that callback's thread waits inside the library for a third
/// thread. Only a removal that could close a cycle of waits gives way. (Found by a red-team run:
/// the removal returned at once whenever the callback's thread waited for anyone.)
struct RemovalWaitsForAParkedCallTests {
    @Test func aRemovalFromAPlainThreadWaitsForACallbackWhoseThreadWaitsForAnother() {
        let other = makeStore()
        let store = makeStore()
        let events = Recorder<String>()
        let isInOtherCallback = DispatchSemaphore(value: 0)
        let releaseOther = DispatchSemaphore(value: 0)
        let otherConsumer = StateConsumer<AppState>()
        let otherToken = otherConsumer.add(\.counter) { _ in
            isInOtherCallback.signal()
            releaseOther.wait()
        }
        let otherSubscription = other.subscribe(otherConsumer)
        let isInCallback = DispatchSemaphore(value: 0)
        let consumer = StateConsumer<AppState>()
        let token = consumer.add(\.counter) { _ in
            isInCallback.signal()
            // Waits (parked) for the other store's callback, on a third thread: not for the remover.
            otherToken.cancel()
            events.append("callback returned")
        }
        let subscription = store.subscribe(consumer)
        let finished = finishesWithoutDeadlock(within: 60) {
            let otherDispatcher = spawn { other.dispatch(CounterAction.increment) }
            isInOtherCallback.wait()
            let dispatcher = spawn { store.dispatch(CounterAction.increment) }
            isInCallback.wait()
            spin { store.drain.snapshot.isOwnerParked }
            let returned = DispatchSemaphore(value: 0)
            let remover = spawn {
                token.cancel()
                events.append("removal returned")
                returned.signal()
            }
            // The removal must not return while the callback runs: give it time to (wrongly) do so,
            // then let the callback finish. Passes whatever the timing when the rule holds.
            _ = returned.wait(timeout: .now() + .milliseconds(200))
            releaseOther.signal()
            remover.wait()
            dispatcher.wait()
            otherDispatcher.wait()
        }
        guard finished else { return }
        #expect(events.values == ["callback returned", "removal returned"])
        subscription.cancel()
        otherSubscription.cancel()
    }
}
