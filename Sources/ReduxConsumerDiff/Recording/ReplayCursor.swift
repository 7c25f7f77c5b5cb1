import ReduxConsumer

/// Moves through a recording forward and back, one action at a time or straight to any action:
/// Redux DevTools' "jump", for a recorded session.
///
/// ```swift
/// let reader = try RecordingReader<AppState>(contentsOfFile: "session.jsonl", codecs: codecs)
/// let cursor = ReplayCursor(reader: reader, reducer: appReducer)
/// while let step = try cursor.forward() {
///     print(step.index, step.action.map { "\($0)" } ?? "skipped", step.diff)
/// }
/// let step = try cursor.back()          // the step that led to the action before the last
/// try cursor.move(to: 120)              // the state after action 120
/// ```
///
/// The cursor applies actions with the reducer alone (no store, no middleware) and verifies every
/// state the recording fingerprints, as ``RecordingReader/replay(into:through:)`` does. Going back
/// restores the nearest earlier checkpoint (a copy of the state kept every `checkpointInterval`
/// actions) and reads forward from there, so it needs a recording that can be read again: a file
/// or bytes in memory, not a pipe. Memory holds one state per checkpoint.
///
/// Not `Sendable`: use it from one thread.
public final class ReplayCursor<State: Sendable> {
    /// The number of the last action applied; 0 at the initial state.
    public private(set) var index = 0
    /// The state after action ``index``.
    public private(set) var state: State

    private let reader: RecordingReader<State>
    private let reducer: Reducer<State>
    private let checkpointInterval: Int
    private var checkpoints: [Checkpoint]

    private struct Checkpoint {
        let index: Int
        let state: State
        let position: RecordingParser.Position
    }

    /// Creates a cursor at the recording's initial state.
    ///
    /// - Parameters:
    ///   - reader: A reader that has not been read from yet.
    ///   - reducer: The reducer that applies the recorded actions.
    ///   - checkpointInterval: Every how many actions a state is kept for going back: lower is
    ///     faster back, higher uses less memory.
    public init(reader: RecordingReader<State>, reducer: Reducer<State>, checkpointInterval: Int = 1_000) {
        requireProperUse(checkpointInterval > 0, "ReplayCursor: checkpointInterval must be positive")
        requireProperUse(reader.lastIndex == 0, "ReplayCursor: give it a reader that has not been read from")
        self.reader = reader
        self.reducer = reducer
        self.checkpointInterval = checkpointInterval
        state = reader.initialState
        checkpoints = reader.position.map { [Checkpoint(index: 0, state: reader.initialState, position: $0)] } ?? []
    }

    /// Applies the next action.
    ///
    /// - Returns: The step, or `nil` at the end of the recording.
    /// - Throws: ``ReplayError`` at a bad line (the cursor stays where it was, and every later
    ///   call throws it again) or a divergence (the cursor moves to the diverged state).
    @discardableResult
    public func forward() throws(ReplayError) -> ReplayStep<State>? {
        guard let step = try reader.next() else { return nil }
        let old = state
        if let action = step.action {
            reducer(&state, action)
        }
        index = step.index
        if index % checkpointInterval == 0, index > (checkpoints.last?.index ?? 0), let position = reader.position {
            checkpoints.append(Checkpoint(index: index, state: state, position: position))
        }
        if reader.canVerify(step) {
            try reader.verify(state, after: step)
        }
        return ReplayStep(recorded: step, oldState: old, newState: state)
    }

    /// Goes back one action.
    ///
    /// - Returns: The step that led to the new current state, to show what it changed; `nil` when
    ///   the cursor is back at the initial state (or was already there).
    @discardableResult
    public func back() throws(ReplayError) -> ReplayStep<State>? {
        guard index > 0 else { return nil }
        return try move(to: index - 1)
    }

    /// Moves to the state after action `target`, forward or back.
    ///
    /// - Parameter target: The number of the action, 0 for the initial state.
    /// - Returns: The step that led to the new current state, or `nil` at the initial state. When
    ///   the recording ends before `target`, the cursor stops at its last action.
    /// - Throws: ``ReplayError`` from the steps replayed on the way, or
    ///   ``ReplayError/Kind/cannotRewind(reason:)`` going back in a recording that cannot be read
    ///   again.
    @discardableResult
    public func move(to target: Int) throws(ReplayError) -> ReplayStep<State>? {
        requireProperUse(target >= 0, "ReplayCursor: actions are numbered from 1; 0 is the initial state")
        if target <= index {
            try rewind(toAtMost: max(target - 1, 0))
        }
        var step: ReplayStep<State>?
        while index < target, let next = try forward() {
            step = next
        }
        if step == nil, index > 0, target > index {
            // Already at the end: replay the last step again to return it.
            return try move(to: index)
        }
        return step
    }

    /// Restores the latest checkpoint at or before `target`.
    private func rewind(toAtMost target: Int) throws(ReplayError) {
        guard let checkpoint = checkpoints.last(where: { $0.index <= target }), reader.isSeekable else {
            throw ReplayError(
                .cannotRewind(
                    reason: "\(reader.source) cannot be read again (a pipe or standard input); replay a file"),
                line: reader.position?.lineNumber ?? 0,
                source: reader.source
            )
        }
        if checkpoint.index == index, target >= index {
            return
        }
        try reader.seek(to: checkpoint.position)
        state = checkpoint.state
        index = checkpoint.index
    }
}

@available(*, unavailable)
extension ReplayCursor: Sendable {}
