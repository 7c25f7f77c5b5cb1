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

/// As ``finishesWithoutDeadlock(within:sourceLocation:_:)``, for an async test whose task waits
/// suspended: it holds no thread of the cooperative pool while the scenario runs. A synchronous
/// test that blocks holds one, and two of them (the pool's two threads on a 2-core machine) leave
/// no thread for work that needs the pool (an effect's, an actor member's) until they end.
@discardableResult
package func finishesWithoutDeadlockSuspended(
    within seconds: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ scenario: @escaping @Sendable () -> Void
) async -> Bool {
    let done = spawn(scenario)
    let finished = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: waitCountingFairTime(for: done, seconds: seconds)) }.start()
    }
    if !finished {
        Issue.record("the scenario did not finish within \(seconds) s: deadlock", sourceLocation: sourceLocation)
    }
    return finished
}

/// Runs `body` on a thread of its own and returns once it is done, suspended meanwhile: a test
/// that drives blocking APIs (a test store's synchronous `receive`, whose effects run in the
/// cooperative pool) holds no thread of the pool while it does.
package func onAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        Thread {
            body()
            continuation.resume()
        }.start()
    }
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
