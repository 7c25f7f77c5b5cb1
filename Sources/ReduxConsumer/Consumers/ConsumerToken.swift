/// Identifies one member added to a ``StateConsumer``; use it to remove that member.
///
/// A token is a handle: keeping or dropping it changes nothing, like every token of this library
/// (see ``Cancellable``). It does not keep its consumer alive; once the consumer is gone, `cancel()`
/// does nothing.
public struct ConsumerToken: Cancellable, Hashable {
    let id: UInt64
    private let identity: ObjectIdentifier
    weak var consumer: (any MemberRemoving)?

    init(id: UInt64, consumer: any MemberRemoving) {
        self.id = id
        identity = ObjectIdentifier(consumer)
        self.consumer = consumer
    }

    /// Removes the member from its ``StateConsumer``; same as `consumer.remove(token)`.
    public func cancel() {
        consumer?.remove(member: id)
    }

    /// Whether two tokens name the same member.
    ///
    /// - Parameters:
    ///   - lhs: A token.
    ///   - rhs: Another token.
    /// - Returns: `true` when both name the same member of the same ``StateConsumer``.
    public static func == (lhs: ConsumerToken, rhs: ConsumerToken) -> Bool {
        lhs.id == rhs.id && lhs.identity == rhs.identity
    }

    /// Hashes the token's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(identity)
    }
}

/// What a token needs of its consumer, whatever the consumer's state type.
protocol MemberRemoving: AnyObject, Sendable {
    func remove(member id: UInt64)
}

extension StateConsumer: MemberRemoving {}
