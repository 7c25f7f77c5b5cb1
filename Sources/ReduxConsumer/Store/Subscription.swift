/// A live registration with a store; the registration ends when it is cancelled or deinitialised.
///
/// Keep it as long as you want to be notified, typically in a ``ConsumerBag`` or a property of the
/// owner. Dropping it cancels the registration, so ignoring the result of `subscribe` is a mistake
/// the compiler warns about.
public final class Subscription: Cancellable {
    private let onCancel: Lock<(@Sendable () -> Void)?>

    /// Creates a subscription that runs `onCancel` once, on the first `cancel()` or at deinit.
    ///
    /// - Parameter onCancel: What ends the registration.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Lock(onCancel)
    }

    deinit {
        cancel()
    }

    /// Ends the registration. After `cancel()` returns, the subscriber is not called again
    /// (unless `cancel()` is called from inside another store's callback while this store is busy
    /// on another thread; then it ends right after that store's current action).
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
