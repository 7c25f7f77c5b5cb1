import ReduxConsumer

/// How long the async tests wait for what an effect sends, in seconds: far longer than any wait
/// for a pool thread while other tests run in parallel (under ThreadSanitizer too), and never
/// waited out by a passing test.
let patience: Double = 120

/// A one-shot signal an effect waits on and the test opens: effects in these tests run exactly as
/// far as the test lets them, without sleeps.
///
/// Waiting ends when the gate opens or the waiting task is cancelled; `wait()` says which.
final class Gate: Sendable {
    private let state = Lock(State())

    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastID: UInt64 = 0
    }

    /// Lets every waiter through, now and from now on.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the gate opens; returns `false` if the task was cancelled first.
    @discardableResult
    func wait() async -> Bool {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOver = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if isOver { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
        return state.withLock { $0.isOpen }
    }
}

/// A flag set from any task, read by the test.
final class Flag: Sendable {
    private let value = Lock(false)

    func set() { value.withLock { $0 = true } }

    var isSet: Bool { value.withLock { $0 } }
}
