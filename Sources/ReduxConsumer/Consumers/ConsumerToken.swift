/// Identifies one member added to a ``StateConsumer``; use it to remove that member.
///
/// A token is a handle: keeping or dropping it changes nothing, like every token of this library
/// (see ``Cancellable``). It does not keep its consumer alive; once the consumer is gone, `cancel()`
/// has nothing left to remove, and only waits for a call of the member that may still be running
/// on the consumer's queue or on an actor (see ``cancel()``).
public struct ConsumerToken: Cancellable, Hashable {
    // Two words: a token is kept per member by users who keep tokens, so its size is part of a
    // member's cost (issue 10's M3 budget).
    let id: UInt64
    /// Its consumer's link, shared by all the consumer's tokens: the token's identity, stable
    /// after the consumer is gone.
    let link: ConsumerLink

    init(id: UInt64, link: ConsumerLink) {
        self.id = id
        self.link = link
    }

    /// The consumer, while it lives.
    var consumer: (any MemberRemoving)? {
        link.consumer
    }

    /// Removes the member from its ``StateConsumer``; same as `consumer.remove(token)`.
    ///
    /// Once it returns, the member's callback is never started again, and a call of it that was
    /// running on another thread has returned (unless that thread waits for this one, see
    /// ``StateConsumer/remove(_:)``): you may free what the callback uses. That holds after the
    /// consumer is gone too: its members are never started again from the moment it goes, but a
    /// call it had begun on its queue (`deliveringOn:`) or on an actor (`add(_:on:)`) runs to its
    /// end, and `cancel()` waits for it.
    public func cancel() {
        guard let consumer = link.consumer else {
            link.routes.drop(id, onActors: true)
            return
        }
        consumer.remove(member: id)
    }

    /// Whether a `cancel()` would do nothing: the consumer is gone, and it had no queue or actor
    /// on which a call of the member could still be running (where `cancel()` would wait for it).
    var isSettled: Bool {
        link.consumer == nil && link.routes.isInert
    }

    /// Whether two tokens name the same member.
    ///
    /// - Parameters:
    ///   - lhs: A token.
    ///   - rhs: Another token.
    /// - Returns: `true` when both name the same member of the same ``StateConsumer``.
    public static func == (lhs: ConsumerToken, rhs: ConsumerToken) -> Bool {
        lhs.id == rhs.id && lhs.link === rhs.link
    }

    /// Hashes the token's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(ObjectIdentifier(link))
    }
}

extension ConsumerToken: Settling {}

/// What a token needs of its consumer, whatever the consumer's state type.
/// A consumer as its tokens see it: one per consumer, held weakly, so that tokens keep neither the
/// consumer alive nor an identity that could be reused once it is gone.
final class ConsumerLink: @unchecked Sendable {
    // @unchecked: `consumer` is written once, by the consumer's `init` before the consumer is
    // shared with anyone, and only read afterwards (a weak reference loads atomically); the
    // `didSet` check fails in debug builds if it is ever written twice.
    weak var consumer: (any MemberRemoving)? {
        didSet {
            assert(!isSet, "a consumer link set twice")
            isSet = true
        }
    }
    private var isSet = false
    /// The consumer's queue and actor gates: a call they began may outlive the consumer, and a
    /// token cancelled after the consumer went waits for it there. Closed by the consumer's
    /// `deinit`, they keep no callback beyond the call in progress.
    let routes: DeliveryRoutes

    init(routes: DeliveryRoutes) {
        self.routes = routes
    }
}

protocol MemberRemoving: AnyObject, Sendable {
    func remove(member id: UInt64)
}

extension StateConsumer: MemberRemoving {}
