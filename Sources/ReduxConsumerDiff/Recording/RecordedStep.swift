import ReduxConsumer

/// One recorded action, as a ``RecordingReader`` reads it: the action, the hash of the state it
/// led to, and that state whole when a snapshot was recorded right after it.
public struct RecordedStep<State: Sendable>: Sendable {
    /// What the recording holds for the action.
    public enum Content: Sendable {
        /// The action, decoded by its codec.
        case action(any Action)
        /// An action the recorder skipped because its type had no codec; `actionType` is the Swift
        /// type's name at recording time.
        case skipped(actionType: String)
    }

    /// The number of the action, from 1.
    public let index: Int
    /// The line of the recording that holds it, from 1.
    public let line: Int
    /// The action, or the name of a skipped action's type.
    public let content: Content
    /// The recorded hash of the state after the action, if the recording has hashes.
    public let hash: UInt64?
    /// The recorded state after the action, when a snapshot follows it.
    public let snapshot: State?

    /// The action, or `nil` for a skipped one.
    public var action: (any Action)? {
        if case .action(let action) = content { action } else { nil }
    }

    /// The action's description, or `skipped MyApp.AnalyticsAction`.
    public var actionDescription: String {
        switch content {
        case .action(let action): String(describing: action)
        case .skipped(let actionType): "skipped \(actionType)"
        }
    }
}
