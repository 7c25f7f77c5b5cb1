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

    // MARK: - Where a replay stopped

    /// A replay that stops at a skipped action has applied the actions before it, not that one:
    /// `lastIndex` says so, as it does after any other bad line (an unknown action type there
    /// leaves it at the action before), so "stopped after N actions" counts what was applied.
    @Test func aReplayStoppedAtASkippedActionCountsOnlyTheActionsItApplied() throws {
        let text = try recordCounterSession(
            [CounterAction.increment, CounterAction.increment, UnregisteredAction(), CounterAction.increment],
            unregisteredActions: .skip
        )
        let reader = try counterReader(text)
        let dispatched = Recorder<Int>()
        let counting: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    dispatched.append(1)
                    next(action)
                }
            }
        }
        let store = Store(initialState: reader.initialState, reducer: appReducer, middleware: [counting])
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        #expect(error?.code == "skipped-action")
        #expect(error?.line == 5)
        #expect(dispatched.count == 2)
        #expect(store.state.counter == 2)
        #expect(reader.lastIndex == 2, "actions applied: 2, but lastIndex says \(reader.lastIndex)")
        // Asking again throws the same error and moves nothing.
        #expect(throws: ReplayError.self) { try reader.next() }
        #expect(reader.lastIndex == 2)
    }

    // MARK: - Lines that are not JSON

    /// An index with a leading zero is not JSON: the line is refused as it is in any other layout,
    /// whether or not it is laid out as the recorder writes its lines.
    @Test(arguments: [#"{"index":01,"#, #"{"index":001,"#, #"{"index": 01,"#, #"{"index":0,"#, #"{"index":"#])
    func anIndexWithALeadingZeroIsNotJSON(prefix: String) throws {
        let text = try recordCounterSession([CounterAction.increment, CounterAction.increment])
        let bad = text.replacingOccurrences(of: #"{"index":1,"#, with: prefix)
        let reader = try counterReader(bad)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        let expected = prefix.hasSuffix(":0,") ? "corrupted-line" : "not-json"
        #expect(error?.code == expected, "\(error?.description ?? "")")
        #expect(error?.line == 3)
        #expect(store.state == AppState())
    }

    /// A type name with a byte that is not UTF-8, or a raw control character, is not JSON: the
    /// error says so with its column, not "unknown action type" with a replacement character,
    /// whether or not the line is laid out as the recorder writes it.
    @Test(arguments: [[UInt8(0xFF)], [0x09], [0xC3]], [false, true])
    func aTypeNameThatIsNotAJSONStringIsNotJSON(badBytes: [UInt8], isRespaced: Bool) throws {
        let text = try recordCounterSession([CounterAction.increment, CounterAction.increment])
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { Array($0.utf8) }
        let name = try #require(lines[3].firstRange(of: Array("counter".utf8)))
        lines[3].replaceSubrange(name.lowerBound + 2..<name.lowerBound + 3, with: badBytes)
        if isRespaced {
            lines[3].insert(UInt8(ascii: " "), at: 1)
        }
        let reader = try RecordingReader<AppState>(
            bytes: Array(lines.joined(separator: [0x0A])) + [0x0A], codecs: counterCodecs)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        #expect(error?.code == "not-json", "\(error?.description ?? "")")
        #expect(error?.message.contains("\u{FFFD}") == false, "\(error?.description ?? "")")
        #expect(error?.line == 4)
        #expect(store.state.counter == 1)
    }

    // MARK: - Hash names

    /// A hash whose name needs escaping in JSON (a quote, a backslash) is still the recording's
    /// hash: a replay verifies with it, finds a divergence, and refuses a hash of another name.
    @Test(arguments: [#"rev "2""#, #"rev\2"#, "rev\t2"])
    func aHashNameThatNeedsEscapingIsStillVerified(name: String) throws {
        let hash = StateHash<AppState>(name: name) { state in UInt64(bitPattern: Int64(state.counter)) }
        let text = try recordCounterSession([CounterAction.increment, CounterAction.increment], hash: hash)
        let reader = try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: counterCodecs, hash: hash)
        #expect(reader.header.hashName == name)
        // A reducer that counts by two: the replay diverges at the first action.
        let doubling = Reducer<AppState> { (state, action: CounterAction) in
            if action == .increment { state.counter += 2 }
        }
        let store = Store(initialState: reader.initialState, reducer: doubling)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        #expect(error?.code == "diverged")
        #expect(error?.line == 3)

        let other = StateHash<AppState>(name: "other") { _ in 0 }
        let mismatch = #expect(throws: ReplayError.self) {
            try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: counterCodecs, hash: other)
        }
        #expect(mismatch?.code == "hash-function-mismatch")
    }
}
