/// Options for one consumer added to a ``StateConsumer``.
public struct ConsumeOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options from raw bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Fire once as soon as the value is known, with `old == new` (like SwiftUI's
    /// `onChange(of:initial: true)`).
    ///
    /// When the ``StateConsumer`` is subscribed to a store, this happens inside `add`, except for
    /// a member added inside a callback (of the store's pass, or of the calls a subscription makes
    /// as it feeds the consumer its first state), whose call comes at the end of that pass, after
    /// the members added before it; otherwise it happens when the consumer first sees a state.
    /// It happens once in the member's life, at its first state: subscribing the consumer again
    /// (to the same store or after a cancellation) does not repeat it. A member delivered on a
    /// queue or an actor that falls behind gets this call merged with the changes that follow, as
    /// any of its calls (the first `old`, the latest `new`).
    public static let instantly = ConsumeOptions(rawValue: 1 << 0)

    /// Fire for every new state, even when the selected value is equal to the last one
    /// (ReactorKit's `Pulse`): for one-shot events such as the same error shown twice.
    ///
    /// `.pulse` wins over the `isEqual` of an `add(_:isEqual:options:_:)` member: with `.pulse`,
    /// `isEqual` is not consulted and the member fires for every new state.
    public static let pulse = ConsumeOptions(rawValue: 1 << 1)
}
