import ReduxConsumer
import ReduxConsumerDiff

extension TestStore {
    /// Replays a recorded session as a test: sends every recorded action, in order, and fails at
    /// the first step whose state differs from the recording, with the diff.
    ///
    /// Make the test store from the recording's starting point and the reducer alone: the
    /// recording already holds the actions middleware dispatched, so replaying them through the
    /// middleware again would double them.
    ///
    /// ```swift
    /// @Test func bugReport1234StillReproduces() throws {
    ///     let recording = try RecordingReader<AppState>(contentsOfFile: path, codecs: .app)
    ///     let store = TestStore(initialState: recording.initialState, reducer: appReducer)
    ///     store.replay(recording)
    ///     store.finish()
    /// }
    /// ```
    ///
    /// Each step is a ``send(_:fileID:filePath:line:column:_:)``, with the test store's usual
    /// checks: received actions and probed consumer firings left unasserted are reported as for any
    /// other `send` (turn ``exhaustivity`` off to replay with probes). Then the state is compared
    /// with the recording: with `==` against the recorded snapshot where there is one (so every
    /// field is checked), otherwise by the recorded hash. The first difference fails the test, at
    /// the call site, and ends the replay:
    ///
    /// ```text
    /// session.jsonl:9: error: replay diverged after action 7, rename(Optional("Kim")) (recorded → replayed):
    ///   ~ name: "Lee" → "Kim"
    /// ```
    ///
    /// A line that cannot be read (truncated, corrupted, an unknown action type…) fails the test
    /// the same way, with the ``ReplayError``.
    ///
    /// - Parameters:
    ///   - recording: A reader at the start of the recording (its `initialState` should be this
    ///     store's initial state).
    ///   - lastIndex: The last action to replay, or `nil` for all of them.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func replay(
        _ recording: RecordingReader<State>,
        through lastIndex: Int? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        do {
            while lastIndex.map({ recording.lastIndex < $0 }) ?? true {
                guard let step = try recording.next() else { return }
                if let action = step.action {
                    // The recording, not the closure, is the expectation: it is checked below with
                    // a message that names the recorded step.
                    send(action, fileID: fileID, filePath: filePath, line: line, column: column) { [self] expected in
                        expected = state
                    }
                }
                let actual = state
                if let snapshot = step.snapshot {
                    guard snapshot == actual else {
                        reportDivergence(of: step, in: recording, diff: StateDiff(from: snapshot, to: actual), at: site)
                        return
                    }
                } else {
                    try recording.verify(actual, after: step)
                }
            }
        } catch {
            reportFailure("\(error)", at: site)
        }
    }

    private func reportDivergence(
        of step: RecordedStep<State>,
        in recording: RecordingReader<State>,
        diff: StateDiff,
        at site: CallSite
    ) {
        let divergence = ReplayDivergence(
            index: step.index,
            action: step.action,
            actionDescription: step.actionDescription,
            recordedHash: nil,
            replayedHash: nil,
            diff: diff
        )
        reportFailure("\(ReplayError(.diverged(divergence), line: step.line, source: recording.source))", at: site)
    }
}
