import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

// Bad input to ReduxConsumerDiff: every problem is a clear error that says what was wrong and
// where, and a replay applies nothing after the line that was bad.

struct BadInputHuntTests {
    // MARK: - A recorder that failed before its first action

    /// The most common recorder failure, an action type with no codec, on the very first action:
    /// the recording holds the header and the `end` line that names the error. A reader must say
    /// that the recorder failed and why, not that the recording lacks an initial state.
    @Test func aRecorderThatFailedAtItsFirstActionIsReportedAsFailedNotAsMissingItsInitialState() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs, hash: .structural)
        let store = Store(initialState: AppState(), reducer: appReducer, middleware: [recorder.middleware])
        store.dispatch(UnregisteredAction())
        #expect(throws: RecordingError.self) { try recorder.close() }

        let error = #expect(throws: ReplayError.self) { try counterReader(buffer.text) }
        #expect(error?.code == "recorder-failed", "\(buffer.text)")
        #expect(error?.line == 2)
        #expect(error?.message.contains("UnregisteredAction") == true, "\(error?.message ?? "")")
    }

    /// The same when the initial state itself cannot be encoded (a `Double.nan` has no JSON).
    @Test func aRecorderThatCouldNotEncodeTheInitialStateIsReportedAsFailed() throws {
        struct Ratio: Codable, Sendable, Equatable {
            var value = Double.nan
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Ratio>(to: .memory(buffer), codecs: counterCodecs, hash: .structural)
        let store = Store(initialState: Ratio(), reducer: Reducer<Ratio> { _, _ in }, middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        #expect(throws: RecordingError.self) { try recorder.close() }

        let error = #expect(throws: ReplayError.self) {
            try RecordingReader<Ratio>(bytes: buffer.bytes, codecs: counterCodecs)
        }
        #expect(error?.code == "recorder-failed", "\(buffer.text)")
        #expect(error?.line == 2)
        #expect(error?.message.contains("nan") == true, "\(error?.message ?? "")")
    }
}
