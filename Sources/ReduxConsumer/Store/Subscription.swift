import Dispatch

/// A registration with a store: a closure subscriber, a consumer's subscription or an action
/// listener.
///
/// A subscription is a handle, like every token of this library (see ``Cancellable``): keeping or
/// dropping it changes nothing; the registration lasts until ``cancel()`` is called, directly or by
/// the ``ConsumerBag`` holding it, or until its store is gone.
public final class Subscription: Cancellable {
    private let state: Lock<CancelState>

    /// Where a subscription is in its one cancellation.
    private enum CancelState {
        case active(@Sendable () -> Void)
        /// The first `cancel()` runs the registration's end on the thread `by` names (its
        /// context's identity); later calls wait on their semaphores until it is done.
        case cancelling(by: ObjectIdentifier, waiters: [DispatchSemaphore])
        case cancelled
    }

    /// Creates a subscription that runs `onCancel` once, on the first `cancel()`.
    ///
    /// - Parameter onCancel: What ends the registration.
    public init(onCancel: @escaping @Sendable () -> Void) {
        state = Lock(.active(onCancel))
    }

    /// Ends the registration. Once `cancel()` returns, the subscriber is never called again (a call
    /// already running on another thread finishes first, unless that thread is waiting for this
    /// one). Calling it again ends nothing more; a call made while another thread's first call is
    /// still ending the registration returns once that one is done (at once from inside it).
    public func cancel() {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        let step = state.withLock { state -> CancelStep in
            switch state {
            case .active(let end):
                state = .cancelling(by: thread, waiters: [])
                return .end(end)
            case .cancelling(let canceller, var waiters):
                // From inside the end it runs (a callback it waits for, on this thread): it cannot
                // wait for itself.
                guard canceller != thread else { return .done }
                let semaphore = DispatchSemaphore(value: 0)
                waiters.append(semaphore)
                state = .cancelling(by: canceller, waiters: waiters)
                return .wait(semaphore)
            case .cancelled:
                return .done
            }
        }
        switch step {
        case .end(let end):
            end()
            let waiters = state.withLock { state -> [DispatchSemaphore] in
                defer { state = .cancelled }
                guard case .cancelling(_, let waiters) = state else { return [] }
                return waiters
            }
            for waiter in waiters {
                waiter.signal()
            }
        case .wait(let semaphore):
            // Parked: the first call may be waiting for a callback this thread is running.
            context.parked { semaphore.wait() }
        case .done:
            break
        }
    }

    /// What a call of `cancel()` does once it has looked at the state.
    private enum CancelStep {
        case end(@Sendable () -> Void)
        case wait(DispatchSemaphore)
        case done
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool {
        state.withLock {
            if case .active = $0 { false } else { true }
        }
    }

    /// How many `cancel()` calls wait for the first one to finish (for tests).
    var waitingCancellers: Int {
        state.withLock {
            if case .cancelling(_, let waiters) = $0 { waiters.count } else { 0 }
        }
    }
}
