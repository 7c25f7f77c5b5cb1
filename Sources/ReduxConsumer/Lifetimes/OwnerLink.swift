/// The weak tie between a member added with `owner:` and its owner.
///
/// The callback gets the owner as an argument instead of capturing it, so the member never keeps
/// its owner alive. Once the owner is gone the member is inert: its callback is never called again,
/// the consumer's `count` leaves it out, and it removes itself the next time its value changes
/// (until then it costs its slot and its evaluation). The link holds its consumer weakly too: no
/// path leads from a member back to its consumer, so nothing here can form a cycle.
@usableFromInline
final class OwnerLink<Owner: AnyObject & Sendable>: OwnerTracking, Sendable {
    @usableFromInline weak let owner: Owner?
    /// The owner's identity when the member was added (another object may take it once the owner
    /// is gone).
    @usableFromInline let ownerIdentifier: ObjectIdentifier
    /// The member's token, which holds its consumer weakly.
    private let token = Lock<ConsumerToken?>(nil)

    @usableFromInline
    init(_ owner: Owner) {
        self.owner = owner
        ownerIdentifier = ObjectIdentifier(owner)
    }

    /// Names the member once it is known (the token is made after the callback).
    @usableFromInline
    func attach(_ token: ConsumerToken) {
        self.token.withLock { $0 = token }
    }

    @usableFromInline
    var isOwnerGone: Bool {
        owner == nil
    }

    /// Removes the member; from its own callback, where removal takes effect at once.
    @usableFromInline
    func removeMember() {
        let token = token.withLock { token in
            defer { token = nil }
            return token
        }
        token?.cancel()
    }

    /// Wraps `callback` so it gets the owner while there is one, and removes its member once the
    /// owner is gone.
    @usableFromInline
    func forwarding<Value>(
        _ callback: @escaping @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> @Sendable (_ old: Value, _ new: Value) -> Void {
        { [self] old, new in
            guard let owner else {
                removeMember()
                return
            }
            callback(owner, old, new)
        }
    }
}

/// A member's owner, seen by its consumer, whatever the owner's type.
@usableFromInline
protocol OwnerTracking: AnyObject, Sendable {
    /// The owner's identity when the member was added.
    var ownerIdentifier: ObjectIdentifier { get }
    /// Whether the owner is gone.
    var isOwnerGone: Bool { get }
    func removeMember()
}
