import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A removal from another thread takes effect at once: from the moment it is marked, the owner
/// skips the consumer's members. Those it skipped did not hear the change, so they hear it when
/// the consumer comes back (README, Consumers: "a consumer that comes back to a store hears what
/// changed while it was away").
struct CatchUpAfterMarkedRemovalTests {
    @Test func membersSkippedWhileTheirConsumerWasLeavingHearTheChangeWhenItComesBack() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        let handle = Box<Subscription?>(nil)
        let remover = Box<Thread?>(nil)
        consumer.add(\.counter) { old, new in
            seen.append("first \(old)→\(new)")
            guard remover.value == nil else { return }
            // Cancelled from another thread while this callback runs: the remover marks the
            // subscription, then waits for this call to return.
            let subscription = handle.value
            let thread = Thread { subscription?.cancel() }
            remover.value = thread
            thread.start()
            while store.drain.snapshot.removalMarks.isEmpty { sched_yield() }
        }
        consumer.add(\.counter) { old, new in seen.append("second \(old)→\(new)") }
        handle.value = store.subscribe(consumer)

        store.dispatch(CounterAction.increment)
        while remover.value?.isFinished == false { sched_yield() }
        seen.append("back")
        let subscription = store.subscribe(consumer)

        #expect(seen.values == ["first 0→1", "back", "second 0→1"])
        subscription.cancel()
    }
}
