import Dispatch
import ReduxConsumer

/// Runs `operation` in a task of its own and waits for it, without blocking a thread, at most
/// `seconds`; returns whether it finished in time.
///
/// The operation is not cancelled when the time is up (it may not be cancellable, as
/// `effectsIdle()` is not): its task finishes on its own, later.
func finishes(within seconds: Double, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let outcome = FirstOutcome()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        outcome.start(continuation)
        Task {
            await operation()
            outcome.settle(true)
        }
        let timer = Task {
            guard (try? await Task.sleep(nanoseconds: nanoseconds(seconds))) != nil else { return }
            outcome.settle(false)
        }
        outcome.onSettle { timer.cancel() }
    }
}

extension TestStore {
    /// Waits, blocking the calling thread, until the subject runs no effect, at most `seconds`;
    /// returns whether its effects ended in time. The waiting task finishes on its own, later, if
    /// they did not.
    func effectsEnd(within seconds: Double) -> Bool {
        let ended = DispatchSemaphore(value: 0)
        let idle = subject.effectsIdle
        Task {
            await idle()
            ended.signal()
        }
        return ended.wait(timeout: .now() + Deadline.clamped(seconds)) == .success
    }
}

/// `seconds` as nanoseconds, for `Task.sleep`, clamped like a synchronous wait's deadline: the
/// longest is a day (`.infinity` included), negative values and NaN are 0.
func nanoseconds(_ seconds: Double) -> UInt64 {
    UInt64(Deadline.clamped(seconds) * 1_000_000_000)
}

/// The first of several results to come, handed to one continuation; later ones are ignored.
private final class FirstOutcome: Sendable {
    private let state = Lock(State())

    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var result: Bool?
        var cleanup: (@Sendable () -> Void)?
    }

    func start(_ continuation: CheckedContinuation<Bool, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `cleanup` once there is a result (at once if there is one already).
    func onSettle(_ cleanup: @escaping @Sendable () -> Void) {
        let isSettled = state.withLock { state -> Bool in
            guard state.result == nil else { return true }
            state.cleanup = cleanup
            return false
        }
        if isSettled { cleanup() }
    }

    func settle(_ result: Bool) {
        let (continuation, cleanup) = state.withLock { state in
            guard state.result == nil else {
                return (nil, nil) as (CheckedContinuation<Bool, Never>?, (@Sendable () -> Void)?)
            }
            state.result = result
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(returning: result)
        cleanup?()
    }
}
