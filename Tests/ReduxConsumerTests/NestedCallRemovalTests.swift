import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Guarantee 1 ("a removed callback is never called again, and is not running when the removal
/// returns") when callbacks nest: a consumer subscribed from inside a callback is fed at once, so
/// its first callback runs inside the outer one, on the same store. A removal of the outer
/// callback from another thread must wait for the outer call, not only for the inner one.
struct NestedCallRemovalTests {
    @Test func removalWaitsForTheOuterCallWhileAnInnerOneRuns() {
        let store = makeStore()
        let outer = StateConsumer<AppState>()
        let inner = StateConsumer<AppState>()
        let log = Recorder<String>()
        let remover = Box<Thread?>(nil)
        let token = Box<ConsumerToken?>(nil)
        let kept = Box<[Subscription]>([])
        inner.add(\.counter, options: .instantly) { _, _ in
            guard remover.value == nil, let outerToken = token.value else { return }
            let thread = Thread {
                outerToken.cancel()
                log.append("removed")
            }
            remover.value = thread
            thread.start()
            while store.drain.snapshot.removalMarks.isEmpty { sched_yield() }
        }
        token.value = outer.add(\.counter) { _, new in
            guard new == 1 else { return }
            kept.value.append(store.subscribe(inner))
            // The inner call is over; this one is not. Give a remover that did not wait every
            // chance to finish now.
            for _ in 0..<2_000 { sched_yield() }
            log.append("outer returns")
        }
        kept.value.append(store.subscribe(outer))

        store.dispatch(CounterAction.increment)
        while remover.value?.isFinished == false { sched_yield() }

        #expect(log.values == ["outer returns", "removed"])
        for subscription in kept.value { subscription.cancel() }
    }
}
