/// A registration with a store: a closure subscriber, a consumer's subscription or an action
/// listener.
///
/// A subscription is a handle, like every token of this library (see ``Cancellable``): keeping or
/// dropping it changes nothing; the registration lasts until ``cancel()`` is called, directly or by
/// the ``ConsumerBag`` holding it, or until its store is gone.
public final class Subscription: Cancellable {
    private let ending: Lock<RunOnce<@Sendable () -> Void>>

    /// Creates a subscription that runs `onCancel` once, on the first `cancel()`.
    ///
    /// - Parameter onCancel: What ends the registration.
    public init(onCancel: @escaping @Sendable () -> Void) {
        ending = Lock(RunOnce(onCancel))
    }

    /// Ends the registration. Once `cancel()` returns, the subscriber is never called again (a call
    /// already running on another thread finishes first, unless that thread is waiting for this
    /// one). Calling it again ends nothing more; a call made while another thread's first call is
    /// still ending the registration returns once that one is done (at once from inside it).
    public func cancel() {
        ending.runOnce(\.self) { end in end() }
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool {
        ending.withLock { $0.hasStarted }
    }

    /// Whether a ``cancel()`` has returned: another would do nothing.
    var isSettled: Bool {
        ending.withLock { $0.isDone }
    }

    /// How many `cancel()` calls wait for the first one to finish (for tests).
    var waitingCancellers: Int {
        ending.withLock { $0.waitingCount }
    }
}

extension Subscription: Settling {}
