/// Where a ``StateConsumer`` reads the current state when a consumer is added: the store it is
/// subscribed to. Holds the store weakly.
struct StateSource<State>: Sendable {
    let id: ObjectIdentifier
    let read: @Sendable () -> State?
}
