import Dispatch
import Foundation

/// Waits for `done` until `seconds` of *fair* time have passed: time in which the cooperative
/// pool ran a task promptly. Returns whether `done` was signalled. Call it from a thread of its
/// own, or from a test's own thread for a scenario that runs on a thread of its own.
///
/// Swift Testing starts every test at once, and a task resumed in the middle of a test queues
/// behind the tests not begun yet: on a 2-core machine a scenario that awaits anything may wait
/// for most of the run (about 40 s of a debug run) before its next step. A watchdog that counted
/// wall time would call that a deadlock. This one counts a slice of time only when a probe task
/// posted at its end ran within 100 ms, so the deadline measures time in which the scenario could
/// have run. A scenario that is really stuck while the pool is free still fails after `seconds`;
/// one stuck while the pool never frees (every pool thread blocked for good) fails after the hard
/// limit, five times `seconds` of wall time and at least 300 s.
package func waitCountingFairTime(for done: DispatchSemaphore, seconds: Int) -> Bool {
    let slice: UInt64 = 250_000_000
    let probeLimit: UInt64 = 100_000_000
    let budget = UInt64(seconds) * 1_000_000_000
    let hardLimit = DispatchTime.now() + .seconds(max(5 * seconds, 300))
    var fair: UInt64 = 0
    while fair < budget {
        let sliceStart = DispatchTime.now().uptimeNanoseconds
        if done.wait(timeout: .now() + .nanoseconds(Int(min(slice, budget - fair)))) == .success {
            return true
        }
        if DispatchTime.now() >= hardLimit {
            return done.wait(timeout: .now()) == .success
        }
        let probe = DispatchSemaphore(value: 0)
        Task.detached { probe.signal() }
        if probe.wait(timeout: .now() + .nanoseconds(Int(probeLimit))) == .success {
            fair += DispatchTime.now().uptimeNanoseconds - sliceStart
        }
    }
    return done.wait(timeout: .now()) == .success
}
