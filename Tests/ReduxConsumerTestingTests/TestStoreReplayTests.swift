import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import ReduxConsumerTesting
import Testing

/// The counter fixtures of `ReduxConsumerTestSupport` (this target has an `AppState` of its own).
private typealias CounterState = ReduxConsumerTestSupport.AppState
private let counterReducer = ReduxConsumerTestSupport.appReducer

struct TestStoreReplayTests {
    private let codecs: ActionCodecs = {
        var codecs = ActionCodecs()
        codecs.register(CounterAction.self, as: "counter")
        return codecs
    }()

    /// A recording of the counter fixtures' session, made with `reducer`.
    private func recording(
        _ actions: [CounterAction],
        snapshotInterval: Int? = nil,
        reducer: Reducer<CounterState> = counterReducer
    ) throws -> RecordingReader<CounterState> {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<CounterState>(
            to: .memory(buffer), codecs: codecs, hash: .structural, snapshotInterval: snapshotInterval
        )
        let store = Store(initialState: CounterState(), reducer: reducer, middleware: [recorder.middleware])
        actions.forEach(store.dispatch)
        try recorder.close()
        return try RecordingReader<CounterState>(bytes: buffer.bytes, codecs: codecs)
    }

    /// The fixtures' reducer with a bug: `set` stores one more than it was given.
    private let buggyReducer = Reducer<CounterState> { (state, action: CounterAction) in
        counterReducer(&state, action)
        if case .set = action { state.counter += 1 }
    }

    @Test func aRecordingThatStillReproducesPasses() throws {
        let reader = try recording(
            [.increment, .rename("Kim"), .addWork("doc"), .set(5), .clearWorks], snapshotInterval: 2)
        let store = TestStore(initialState: reader.initialState, reducer: counterReducer)
        store.replay(reader)
        #expect(store.state == CounterState(counter: 5, name: "Kim"))
        store.finish()
    }

    @Test func aDivergenceFailsAtTheReplayWithTheDiffFromTheSnapshot() throws {
        let reader = try recording([.increment, .set(5), .increment], snapshotInterval: 1)
        let store = TestStore(initialState: reader.initialState, reducer: buggyReducer)
        let line = #line + 8
        expectFailure(
            """
            recording:5: error: replay diverged after action 2, set(5) (recorded → replayed):
              ~ counter: 5 → 6
            """,
            atLine: line
        ) {
            store.replay(reader)
        }
        #expect(store.state.counter == 6, "the replay stops at the first divergence")
        store.finish()
    }

    @Test func aDivergenceWithoutASnapshotFailsWithTheHashes() throws {
        let reader = try recording([.increment, .set(5), .increment])
        let store = TestStore(initialState: reader.initialState, reducer: buggyReducer)
        withKnownIssue {
            store.replay(reader)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("recording:4: error: replay diverged after action 2, set(5): state hash ")
                && text.hasSuffix("(no snapshot was recorded after this action to show what differs)")
        }
        #expect(store.state.counter == 6)
        store.finish()
    }

    @Test func aBadLineFailsTheTestWithItsError() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<CounterState>(to: .memory(buffer), codecs: codecs)
        let live = Store(initialState: CounterState(), reducer: counterReducer, middleware: [recorder.middleware])
        live.dispatch(CounterAction.increment)
        try recorder.flush()
        let reader = try RecordingReader<CounterState>(bytes: buffer.bytes, codecs: codecs)
        let store = TestStore(initialState: reader.initialState, reducer: counterReducer)
        expectFailure(
            "recording:4: error: truncated recording: the recording ends after action 1 without its end line "
                + "(the recorder was not closed; the process may have stopped)"
        ) {
            store.replay(reader)
        }
        #expect(store.state.counter == 1)
        store.finish()
    }

    /// A snapshot that disagrees with the hash on its action's line is a damaged recording, not a
    /// divergence of the reducer: the test fails with the reader's error, before that action.
    @Test func aSnapshotThatDisagreesWithItsHashFailsAsADamagedLine() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<CounterState>(
            to: .memory(buffer), codecs: codecs, hash: .structural, snapshotInterval: 1)
        let live = Store(initialState: CounterState(), reducer: counterReducer, middleware: [recorder.middleware])
        live.dispatch(CounterAction.increment)
        live.dispatch(CounterAction.set(5))
        try recorder.close()
        let original = #"{"snapshot":2,"state":{"counter":5,"works":[]}}"#
        #expect(buffer.text.contains(original))
        let edited = buffer.text.split(separator: "\n").map {
            $0 == original ? #"{"snapshot":2,"state":{"counter":6,"works":[]}}"# : $0
        }
        let reader = try RecordingReader<CounterState>(
            bytes: Array((edited.joined(separator: "\n") + "\n").utf8), codecs: codecs)
        let store = TestStore(initialState: reader.initialState, reducer: counterReducer)
        withKnownIssue {
            store.replay(reader)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("recording:5: error: corrupted line: action 2 records the state hash ")
                && text.contains(", but the snapshot after it (line 6) hashes to ")
                && text.hasSuffix(": one of the two lines is damaged")
        }
        #expect(store.state.counter == 1, "action 2 is not applied")
        store.finish()
    }

    @Test func replaysOnlyUpToTheRequestedAction() throws {
        let reader = try recording([.increment, .increment, .set(9)])
        let store = TestStore(initialState: reader.initialState, reducer: buggyReducer)
        store.replay(reader, through: 2)
        #expect(store.state.counter == 2)
        store.finish()
    }
}
