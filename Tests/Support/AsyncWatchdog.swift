import Dispatch
import Foundation
import Testing

/// The async form of ``finishesWithoutDeadlock(within:sourceLocation:_:)``: runs `scenario` in a
/// task of its own and fails the test, instead of hanging it, when the scenario has not finished
/// within `seconds` of time in which the cooperative pool was free to run it (see
/// ``waitCountingFairTime(for:seconds:)``: a scenario queued behind the rest of the run is not
/// deadlocked). Returns whether it finished.
///
/// The timer waits on a thread of its own and the test awaits its verdict, so no thread of the
/// cooperative pool is blocked meanwhile. A scenario must not block the pool either: await
/// completion signals (an `AsyncStream`, a task's value) rather than waiting on semaphores.
@discardableResult
package func finishesWithoutDeadlock(
    within seconds: Int = 120,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ scenario: @escaping @Sendable () async -> Void
) async -> Bool {
    let done = DispatchSemaphore(value: 0)
    Task {
        await scenario()
        done.signal()
    }
    let finished = await withCheckedContinuation { (verdict: CheckedContinuation<Bool, Never>) in
        Thread { verdict.resume(returning: waitCountingFairTime(for: done, seconds: seconds)) }.start()
    }
    if !finished {
        Issue.record("the scenario did not finish within \(seconds) s: deadlock", sourceLocation: sourceLocation)
    }
    return finished
}

/// Runs `body`, which may block (joins, semaphores, a close that waits for callbacks), on a thread
/// of its own and returns its result once it is done: the calling task's pool thread stays free
/// meanwhile, for the tasks that `body`'s waits may need. Call it inside the watchdog above, so
/// that a body that never returns fails the test instead of hanging it.
package func onAThreadOfItsOwn<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (done: CheckedContinuation<Result, Never>) in
        Thread { done.resume(returning: body()) }.start()
    }
}
