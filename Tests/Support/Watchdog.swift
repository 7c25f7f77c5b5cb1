import Dispatch
import Foundation
import Testing

/// Runs `scenario` on a thread of its own and fails the test, instead of hanging it, when the
/// scenario has not finished within `seconds` (a deadlock) of time in which the cooperative pool
/// was free (see ``waitCountingFairTime(for:seconds:)``: callbacks on actors need it). Returns
/// whether it finished.
///
/// A hung scenario's thread is left blocked: the rest of the run goes on without it.
@discardableResult
package func finishesWithoutDeadlock(
    within seconds: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ scenario: @escaping @Sendable () -> Void
) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        scenario()
        done.signal()
    }
    thread.start()
    guard waitCountingFairTime(for: done, seconds: seconds) else {
        Issue.record("the scenario did not finish within \(seconds) s: deadlock", sourceLocation: sourceLocation)
        return false
    }
    return true
}

/// Starts `body` on a thread of its own; `wait()` the returned semaphore to join it.
package func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}
