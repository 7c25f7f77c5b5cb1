import Dispatch

extension Store {
    /// Sends `action` like ``dispatch(_:)``, suspending instead of blocking while the store is busy
    /// on another thread: for tasks, whose threads (the cooperative pool's few) must never block.
    ///
    /// Returns once the action was reduced and its subscribers were notified. When the store is
    /// idle the action runs at once on the calling task's thread, as `dispatch` would; otherwise
    /// it joins the store's queue in order, and the task resumes once the thread serving the queue
    /// has run it and is done with the queue (at the latest after 256 more actions, or when a
    /// thousand tasks wait): tasks resumed together cost one wake-up of the pool, not one each. So
    /// a store's callback must not block its thread waiting for a task that sends to the same
    /// store. The call inherits
    /// the caller's isolation (a send from an actor resumes on it without an extra hop). Once
    /// called, the action is processed even if the task is cancelled meanwhile.
    ///
    /// From inside the store's own reducer, middleware or callbacks (where only synchronous code
    /// runs) use ``dispatch(_:)``; a task started there and sending to the store waits for the
    /// action in progress, then for its own: it never deadlocks.
    ///
    /// ```swift
    /// await store.send(CounterAction.increment)
    /// print(store.state.counter)  // 1
    /// ```
    ///
    /// - Parameters:
    ///   - action: What happened.
    ///   - isolation: The caller's isolation; leave the default.
    public func send(_ action: any Action, isolation: isolated (any Actor)? = #isolation) async {
        await send(action, unless: nil)
    }

    /// ``send(_:isolation:)``, dropping the action if `isCancelled` says so when its turn comes
    /// (an effect's send, once the effect was cancelled).
    func send(
        _ action: any Action,
        unless isCancelled: (@Sendable () -> Bool)?,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        if drain.runIfIdle(generation: 0, { if isCancelled?() != true { process(action) } }) {
            return
        }
        // Resumed exactly once: the drain runs the job once, and the job hands `done` to it.
        await withUnsafeContinuation { (done: UnsafeContinuation<Void, Never>) in
            drain.runOrQueue(generation: 0) { [self] in
                if isCancelled?() != true { process(action) }
                drain.resumeAfterJob(done)
            }
        }
    }

    /// Runs `body` as a job of the store's drain, suspending (never blocking) while the store is busy
    /// on another thread: the way tasks change the store's registrations.
    func performAsync(_ body: @escaping @Sendable (Store) -> Void) async {
        if drain.runIfIdle(generation: 0, { body(self) }) {
            return
        }
        // Resumed exactly once: the drain runs the job once, and the job hands `done` to it.
        await withUnsafeContinuation { (done: UnsafeContinuation<Void, Never>) in
            drain.runOrQueue(generation: 0) { [self] in
                body(self)
                drain.resumeAfterJob(done)
            }
        }
    }

    /// Waits until the state satisfies `predicate`, and returns that state.
    ///
    /// Checks the current state first, then every new one (on the thread that processes the store,
    /// so keep `predicate` cheap and pure); returns as soon as one matches.
    ///
    /// ```swift
    /// let ready = try await store.wait(until: { $0.isReady }, timeout: 5)
    /// ```
    ///
    /// - Parameters:
    ///   - predicate: The condition to wait for.
    ///   - timeout: The longest to wait, in seconds; `nil` (the default) or `.infinity` waits as long
    ///     as it takes; zero, a negative value or NaN checks the current state only (the one
    ///     ``state`` returns, even while another thread is processing an action).
    /// - Returns: The first state that satisfies `predicate`.
    /// - Throws: ``StoreWaitError/timedOut(after:)`` when the timeout passes first,
    ///   ``StoreWaitError/storeGone`` when its page is closed first, and `CancellationError` when
    ///   the waiting task is cancelled. The wait keeps the store alive until it returns.
    public func wait(
        until predicate: @escaping @Sendable (State) -> Bool,
        timeout: Double? = nil
    ) async throws -> State {
        try await wait(until: predicate, timeout: timeout, endingWith: [])
    }

    /// ``wait(until:timeout:)``, also ending with every one of `teardowns` (a page's).
    func wait(
        until predicate: @escaping @Sendable (State) -> Bool,
        timeout: Double?,
        endingWith teardowns: [Teardown]
    ) async throws -> State {
        if let timeout, Self.sleepNanoseconds(timeout) == 0 {
            // No time to wait: the current state only, read as `state` reads it, without queuing
            // behind an action in progress on another thread (whose end the wait could not see).
            try Task.checkCancellation()
            let current = state
            if predicate(current) { return current }
            if teardown.isDone || teardowns.contains(where: \.isDone) { throw StoreWaitError.storeGone }
            throw StoreWaitError.timedOut(after: timeout)
        }
        let outcome = WaitOutcome<State>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<State, any Error>) in
                guard outcome.start(continuation) else { return }
                // The subscriber is made and registered, and the current state checked, in one
                // job: no state is missed between the two, and `subscriberCount` counts the wait
                // once it listens. Queued, not waited for: a task never blocks here.
                drain.runOrQueue(generation: 0) { [self] in
                    let (registration, subscription, tag) = closureSubscription { _, new in
                        if predicate(new) { outcome.finish(.success(new)) }
                    }
                    outcome.onFinish { subscription.cancel() }
                    registration(self)
                    // Not once the wait is over (it timed out or was cancelled while this job was
                    // queued); and as a call of the subscription, so that the wait, ending on
                    // another thread meanwhile, returns only once this check did.
                    guard !outcome.isFinished else { return }
                    let current = state
                    var isMatch = false
                    _ = callAsSubscriber(tag: tag) { isMatch = predicate(current) }
                    if isMatch { outcome.finish(.success(current)) }
                }
                for teardown in [self.teardown] + teardowns {
                    if let id = teardown.add({ outcome.finish(.failure(StoreWaitError.storeGone)) }) {
                        outcome.onFinish { teardown.remove(id) }
                    }
                }
                if let timeout, let nanoseconds = Self.sleepNanoseconds(timeout) {
                    // A dispatch timer, not a task in `Task.sleep`: the runtime keeps a cancelled
                    // sleep's task until its deadline (about 400 bytes each), so every wait that
                    // ended early left memory behind for as long as its timeout.
                    let timer = WaitTimer(after: nanoseconds) {
                        outcome.finish(.failure(StoreWaitError.timedOut(after: timeout)))
                    }
                    outcome.onFinish { timer.cancel() }
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }
}

/// A wait's timeout: runs its handler once, on a global queue, unless cancelled first. Cancelling it
/// releases it (and its handler) at once.
final class WaitTimer: Sendable {
    // `nonisolated(unsafe)`: a dispatch source is thread-safe (its `cancel()` may come from any
    // thread); the reference is set once, in `init`, and only cancelled after.
    private nonisolated(unsafe) let source: any DispatchSourceTimer

    /// Starts the timer: `handler` runs after `nanoseconds` unless ``cancel()`` came first.
    init(after nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.setEventHandler(handler: handler)
        source.schedule(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        // Resumed at once: a dispatch source must not be released while suspended.
        source.resume()
    }

    /// Stops the timer (its handler does not run if it has not started) and releases the handler.
    func cancel() {
        source.cancel()
        assert(source.isCancelled, "a cancelled wait timer is still armed")
    }
}

extension Store {
    /// A wait's timeout as nanoseconds to sleep: 0 for a negative one or one that is not a number
    /// (it times out at once), `nil` for one longer than any sleep (`.infinity`, or more than about
    /// 584 years: no timer, as with no timeout). Converting those to `UInt64` would trap.
    static func sleepNanoseconds(_ seconds: Double) -> UInt64? {
        guard !seconds.isNaN, seconds > 0 else { return 0 }
        let nanoseconds = seconds * 1_000_000_000
        guard nanoseconds < Double(UInt64.max) else { return nil }
        return UInt64(nanoseconds)
    }
}

/// Why ``Store/wait(until:timeout:)`` gave up.
public enum StoreWaitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The timeout, in seconds, passed before the state matched.
    case timedOut(after: Double)
    /// The page was closed before the state matched (a wait keeps a plain store alive).
    case storeGone

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .timedOut(let seconds): "the state did not match within \(seconds) s"
        case .storeGone: "the page was closed before the state matched"
        }
    }
}

/// The one result of a wait, from whichever of its sources comes first, and the cleanup of the
/// others.
final class WaitOutcome<Value: Sendable>: Sendable {
    private let state = Lock(State())

    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var result: Result<Value, any Error>?
        var cleanup: [@Sendable () -> Void] = []
    }

    /// Installs the continuation; returns `false` (resuming it at once) if a result came first
    /// (the task was cancelled before it started waiting).
    func start(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let result = state.withLock { state -> Result<Value, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        guard let result else { return true }
        continuation.resume(with: result)
        return false
    }

    /// Registers cleanup to run once the outcome is known (at once if it is).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let isFinished = state.withLock { state -> Bool in
            guard state.result == nil else { return true }
            state.cleanup.append(cleanup)
            return false
        }
        if isFinished { cleanup() }
    }

    /// Whether the outcome is known.
    var isFinished: Bool {
        state.withLock { $0.result != nil }
    }

    /// Settles the outcome; later calls do nothing.
    func finish(_ result: Result<Value, any Error>) {
        let (continuation, cleanup) = state.withLock { state in
            guard state.result == nil else {
                return (nil, []) as (CheckedContinuation<Value, any Error>?, [@Sendable () -> Void])
            }
            state.result = result
            defer {
                state.continuation = nil
                state.cleanup = []
            }
            return (state.continuation, state.cleanup)
        }
        // Cleaned up first: the waiter returns only once its subscription is gone (a removal
        // waits for a predicate call running on another thread).
        for undo in cleanup { undo() }
        continuation?.resume(with: result)
    }
}
