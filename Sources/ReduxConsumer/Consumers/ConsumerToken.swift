/// Identifies one consumer added to a ``StateConsumer``; use it to remove that consumer.
///
/// A token does not keep its consumer alive or remove it when dropped: ignore it if you remove
/// consumers with ``StateConsumer/removeAll()``, or put it in a ``ConsumerBag``.
public struct ConsumerToken: Cancellable, Hashable {
    let id: UInt64
    private let owner: ObjectIdentifier
    private let remove: @Sendable (UInt64) -> Void

    init(id: UInt64, owner: ObjectIdentifier, remove: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.owner = owner
        self.remove = remove
    }

    /// Removes the consumer from its ``StateConsumer``; same as `consumer.remove(token)`.
    public func cancel() {
        remove(id)
    }

    /// Whether two tokens name the same consumer.
    ///
    /// - Parameters:
    ///   - lhs: A token.
    ///   - rhs: Another token.
    /// - Returns: `true` when both name the same consumer of the same ``StateConsumer``.
    public static func == (lhs: ConsumerToken, rhs: ConsumerToken) -> Bool {
        lhs.id == rhs.id && lhs.owner == rhs.owner
    }

    /// Hashes the token's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(owner)
    }
}
