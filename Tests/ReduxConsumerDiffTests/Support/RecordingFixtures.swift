import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport

/// The codecs of the counter fixtures: `CounterAction` as "counter".
let counterCodecs: ActionCodecs = {
    var codecs = ActionCodecs()
    codecs.register(CounterAction.self, as: "counter")
    return codecs
}()

/// An action type no codec knows.
struct UnregisteredAction: Action, Equatable {}

/// Records `actions` dispatched to a counter store into memory and returns the recording's text.
func recordCounterSession(
    _ actions: [any Action],
    from state: AppState = AppState(),
    hash: StateHash<AppState>? = .structural,
    snapshotInterval: Int? = nil,
    unregisteredActions: SessionRecorder<AppState>.UnregisteredActions = .fail,
    reducer: Reducer<AppState> = appReducer
) throws -> String {
    let buffer = RecordingBuffer()
    let recorder = try SessionRecorder<AppState>(
        to: .memory(buffer),
        codecs: counterCodecs,
        hash: hash,
        snapshotInterval: snapshotInterval,
        unregisteredActions: unregisteredActions
    )
    let store = Store(initialState: state, reducer: reducer, middleware: [recorder.middleware])
    for action in actions {
        store.dispatch(action)
    }
    try recorder.close()
    return buffer.text
}

/// The recording the bad-input tests start from, one line per element:
///
///     1 header            4 action 2 (rename)   7 action 4 (set -3)
///     2 snapshot 0        5 snapshot 2          8 snapshot 4
///     3 action 1 (incr.)  6 action 3 (addWork)  9 end
func counterSessionLines() throws -> [String] {
    let text = try recordCounterSession(
        [
            CounterAction.increment, CounterAction.rename("Kim"), CounterAction.addWork("doc"),
            CounterAction.set(-3),
        ],
        snapshotInterval: 2
    )
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

/// A reader of `text`, with the counter codecs.
func counterReader(
    _ text: String,
    initialState: AppState? = nil,
    skippedActions: RecordingReader<AppState>.SkippedActions = .stop
) throws(ReplayError) -> RecordingReader<AppState> {
    try RecordingReader<AppState>(
        bytes: Array(text.utf8),
        codecs: counterCodecs,
        initialState: initialState,
        skippedActions: skippedActions
    )
}

/// A path for a temporary file, removed by `body` returning.
func withTemporaryPath<Result>(_ body: (String) throws -> Result) rethrows -> Result {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("redux-consumer-\(UUID().uuidString).jsonl").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}
