import ReduxConsumer

/// One step of a replay: the recorded action and the states before and after it.
public struct ReplayStep<State: Sendable>: Sendable {
    /// The step as the recording holds it.
    public let recorded: RecordedStep<State>
    /// The replayed state before the action.
    public let oldState: State
    /// The replayed state after the action (unchanged for a skipped action).
    public let newState: State

    /// Creates a step.
    ///
    /// - Parameters:
    ///   - recorded: The recorded step.
    ///   - oldState: The state before it.
    ///   - newState: The state after it.
    public init(recorded: RecordedStep<State>, oldState: State, newState: State) {
        self.recorded = recorded
        self.oldState = oldState
        self.newState = newState
    }

    /// The number of the action, from 1.
    public var index: Int { recorded.index }

    /// The action, or `nil` for an action the recorder skipped.
    public var action: (any Action)? { recorded.action }

    /// What the action changed, as ``ActionLogger`` and `consumer-demo run` print it.
    ///
    /// - Complexity: A ``StateDiff`` of the two states, computed on each access.
    public var diff: StateDiff {
        StateDiff(from: oldState, to: newState)
    }
}
