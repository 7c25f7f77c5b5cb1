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

    /// Drops `member`'s pending calls and waits for one in progress (see ``DeliveryGate/drop(_:)``).
    func drop(_ member: UInt64) {
        queue?.drop(member)
        actorGate.withLock { $0 }?.drop(member)
    }

    /// Drops every pending call (see ``DeliveryGate/dropAll()``).
    func dropAll() {
        queue?.dropAll()
        actorGate.withLock { $0 }?.dropAll()
    }

    /// Drops everything for good: the consumer is gone.
    func close() {
        queue?.close()
        actorGate.withLock { $0 }?.close()
    }
}
