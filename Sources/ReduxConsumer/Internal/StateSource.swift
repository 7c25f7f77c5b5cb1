/// Where a ``StateConsumer`` reads the current state when a consumer is added: the store it is
/// subscribed to. Holds the store weakly.
struct StateSource<State>: Sendable {
    let id: ObjectIdentifier
    /// Calls the closure with the current state and returns `true`, or returns `false` when the
    /// store is gone. Not `() -> State?`: unspecialised, `Optional<State>` costs a runtime metadata
    /// lookup on every add.
    let read: @Sendable (_ body: (inout State) -> Void) -> Bool
}
