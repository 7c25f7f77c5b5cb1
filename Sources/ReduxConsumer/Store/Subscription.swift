/// A registration with a store: a closure subscriber, a consumer's subscription or an action
/// listener.
///
/// A subscription is a handle, like every token of this library (see ``Cancellable``): keeping or
/// dropping it changes nothing; the registration lasts until ``cancel()`` is called, directly or by
/// the ``ConsumerBag`` holding it, or until its store is gone.
public final class Subscription: Cancellable {
    private let onCancel: Lock<(@Sendable () -> Void)?>

    /// Creates a subscription that runs `onCancel` once, on the first `cancel()`.
    ///
    /// - Parameter onCancel: What ends the registration.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Lock(onCancel)
    }

    /// Ends the registration. Once `cancel()` returns, the subscriber is never called again (a call
    /// already running on another thread finishes first, unless that thread is waiting for this
    /// one). Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether ``cancel()`` has run.
    public var isCancelled: Bool {
        onCancel.withLock { $0 == nil }
    }
}
