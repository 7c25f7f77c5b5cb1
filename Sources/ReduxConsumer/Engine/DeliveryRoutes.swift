/// Where a consumer's members are called when they are not called in place: the consumer's queue
/// (`deliveringOn:`), and the actors of members added with `on:`.
@usableFromInline
final class DeliveryRoutes: Sendable {
    /// The queue gate, for a consumer made with a queue.
    @usableFromInline let queue: DeliveryGate?
    /// The actor gate, made when the first member on an actor is posted.
    private let actorGate = Lock<DeliveryGate?>(nil)

    init(queue: DeliveryGate?) {
        self.queue = queue
    }

    /// The gate of the consumer's members on actors, made if needed.
    @usableFromInline
    var actors: DeliveryGate {
        actorGate.withLock { gate in
            if let gate { return gate }
            let made = DeliveryGate(pump: .tasks)
            gate = made
            return made
        }
    }

    /// Drops `member`'s pending calls and waits for one in progress (see ``DeliveryGate/drop(_:)``);
    /// at the actors' gate too when `onActors` (the consumer has had members on actors).
    func drop(_ member: UInt64, onActors: Bool) {
        queue?.drop(member)
        if onActors {
            actorGate.withLock { $0 }?.drop(member)
        }
    }

    /// Drops the pending calls of the members up to `last` (see ``DeliveryGate/drop(through:)``);
    /// at the actors' gate too when `onActors`.
    func drop(through last: UInt64, onActors: Bool) {
        queue?.drop(through: last)
        if onActors {
            actorGate.withLock { $0 }?.drop(through: last)
        }
    }

    /// Drops every pending call of members that stay (see ``DeliveryGate/withdrawAll()``).
    func withdrawAll() {
        queue?.withdrawAll()
        actorGate.withLock { $0 }?.withdrawAll()
    }

    /// Drops every pending call of members that stay, without waiting for a call in progress
    /// (see ``DeliveryGate/withdrawPending()``).
    /// Returns what it dropped, to release once the caller holds no lock.
    func withdrawPending() -> [any Sendable] {
        (queue?.withdrawPending() ?? []) + (actorGate.withLock { $0 }?.withdrawPending() ?? [])
    }

    /// Waits until no call runs on another thread (see ``DeliveryGate/waitForCallInProgress()``).
    func waitForCallsInProgress() {
        queue?.waitForCallInProgress()
        actorGate.withLock { $0 }?.waitForCallInProgress()
    }

    /// Whether calls were withdrawn and their members did not take them back yet.
    var hasWithdrawn: Bool {
        queue?.hasWithdrawn == true || actorGate.withLock { $0 }?.hasWithdrawn == true
    }

    /// The value `member` heard last before its calls were withdrawn, if they were: the earlier
    /// of the two gates' (a member is posted to one gate only).
    func takeWithdrawn(_ member: UInt64) -> (any Sendable)? {
        let queued = queue?.takeWithdrawn(member)
        let isolated = actorGate.withLock { $0 }?.takeWithdrawn(member)
        return queued ?? isolated
    }

    /// Whether no member was ever called here: the consumer has no queue, and none of its members
    /// was posted to an actor.
    var isInert: Bool {
        queue == nil && actorGate.withLock { $0 } == nil
    }

    /// Drops everything for good: the consumer is gone.
    func close() {
        queue?.close()
        actorGate.withLock { $0 }?.close()
    }
}
