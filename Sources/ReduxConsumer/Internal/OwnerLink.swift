/// The weak tie between a consumer added with `owner:` and its owner, plus the token that lets the
/// consumer remove itself once the owner is gone.
///
/// The token is only known after `register` returns, so it is set afterwards; a callback that
/// finds the owner gone before that simply does nothing and the next one removes the consumer.
final class OwnerLink<Owner: AnyObject & Sendable>: Sendable {
    weak let owner: Owner?
    private let token = Lock<ConsumerToken?>(nil)

    init(_ owner: Owner) {
        self.owner = owner
    }

    func attach(_ token: ConsumerToken) {
        self.token.withLock { $0 = token }
    }

    /// Removes the consumer; called from its own callback, where removal takes effect at once.
    func removeConsumer() {
        let token = token.withLock { token in
            defer { token = nil }
            return token
        }
        token?.cancel()
    }

    /// Wraps `callback` so it gets the owner while there is one, and removes its consumer once the
    /// owner is gone.
    func forwarding<Value>(
        _ callback: @escaping @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> @Sendable (_ old: Value, _ new: Value) -> Void {
        { [self] old, new in
            guard let owner else {
                removeConsumer()
                return
            }
            callback(owner, old, new)
        }
    }
}
