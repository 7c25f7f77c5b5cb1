import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// The timer of `wait(until:timeout:)`. It used to be a task in `Task.sleep`, cancelled when the
/// wait ended early; the runtime keeps a cancelled sleep's task until its deadline (about 400 bytes
/// each, not an object a test can watch), so a service waiting with long timeouts grew by that much
/// per wait until the timeouts passed (a driver of 10,000 waits that matched at once with
/// `timeout: 3600`: 1.8 MB still allocated after they all returned; none now). These check what the
/// fix relies on: a cancelled timer lets go of its handler at once, and never calls it.
struct WaitTimerTests {
    private final class Marker: Sendable {}

    @Test func aCancelledTimerLetsGoOfItsHandlerAtOnceWithoutCallingIt() async {
        let watch = LeakWatch()
        let calls = Lock(0)
        do {
            let marker = watch.track(Marker())
            let timer = WaitTimer(after: 3_600_000_000_000) {
                withExtendedLifetime(marker) {}
                calls.withLock { $0 += 1 }
            }
            timer.cancel()
        }
        // The source drops its handler once the cancellation is processed on its queue.
        await finishesWithoutDeadlock { await onAThreadOfItsOwn { spin { watch.survivors.isEmpty } } }
        #expect(watch.survivors.isEmpty)
        #expect(calls.withLock { $0 } == 0)
    }

    @Test func aTimerThatIsDueCallsItsHandlerOnceThenLetsGoOfItWhenCancelled() async {
        let watch = LeakWatch()
        let calls = Lock(0)
        let timer = Lock<WaitTimer?>(nil)
        do {
            let marker = watch.track(Marker())
            timer.withLock { timer in
                timer = WaitTimer(after: 0) {
                    withExtendedLifetime(marker) {}
                    calls.withLock { $0 += 1 }
                }
            }
        }
        await finishesWithoutDeadlock { await onAThreadOfItsOwn { spin { calls.withLock { $0 } == 1 } } }
        // A wait cancels its timer when it ends, from the handler too: that releases the handler.
        timer.withLock { $0?.cancel() }
        await finishesWithoutDeadlock { await onAThreadOfItsOwn { spin { watch.survivors.isEmpty } } }
        #expect(calls.withLock { $0 } == 1)
        #expect(watch.survivors.isEmpty)
    }
}
