import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct ReplayTests {
    /// The recording (see ``counterSessionLines()``).
    private func sessionLines() throws -> [String] {
        try counterSessionLines()
    }

    private var stateAfterTwoActions: AppState { AppState(counter: 1, name: "Kim") }

    /// The 16-digit hash at the end of an action line.
    private func recordedHash(_ line: String) -> String {
        String(line.suffix(18).prefix(16))
    }

    /// Replays `text` into a fresh store; returns the error and the state the store reached.
    private func replay(_ text: String, reducer: Reducer<AppState> = appReducer) -> (
        error: ReplayError?, state: AppState
    ) {
        let store = makeStore()
        do {
            let reader = try counterReader(text)
            let replayed = Store(initialState: reader.initialState, reducer: reducer)
            try reader.replay(into: replayed)
            return (nil, replayed.state)
        } catch {
            return (error, store.state)
        }
    }

    /// Replays `text` and expects it to stop with `code` at `line`, after exactly the actions
    /// before that line.
    private func expectStop(
        _ text: String,
        code: String,
        line: Int,
        message: String? = nil,
        stateBefore: AppState,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let reader = try counterReader(text)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self, sourceLocation: sourceLocation) { try reader.replay(into: store) }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.line == line, sourceLocation: sourceLocation)
        if let message {
            #expect(error?.message == message, sourceLocation: sourceLocation)
        }
        #expect(store.state == stateBefore, "nothing after the bad line is applied", sourceLocation: sourceLocation)
    }

    // MARK: Replaying

    @Test func replaysIntoAStoreAndEndsInTheRecordedState() throws {
        let actions: [CounterAction] = [.increment, .rename("Kim"), .addWork("a"), .addWork("b"), .clearWorks, .set(9)]
        let text = try recordCounterSession(actions, snapshotInterval: 3)
        let reader = try counterReader(text)
        #expect(reader.header == RecordingHeader(hashName: "structural64", snapshotInterval: 3))
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let seen = Recorder<String>()
        let subscription = store.subscribe { _, new in seen.append("\(new.counter) \(new.works)") }
        #expect(try reader.replay(into: store) == 6)
        #expect(store.state == AppState(counter: 9, name: "Kim"))
        #expect(seen.values == ["1 []", "1 []", "1 [\"a\"]", "1 [\"a\", \"b\"]", "1 []", "9 []"])
        #expect(try reader.next() == nil)
        subscription.cancel()
    }

    @Test func replayStopsAfterTheRequestedAction() throws {
        let reader = try counterReader(try sessionLines().joined(separator: "\n") + "\n")
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store, through: 2) == 2)
        #expect(store.state == stateAfterTwoActions)
        #expect(try reader.replay(into: store) == 4)
    }

    @Test func readsFromAFileAndFromAPipe() throws {
        let text = try sessionLines().joined(separator: "\n") + "\n"
        try withTemporaryPath { path in
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let reader = try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            let store = Store(initialState: reader.initialState, reducer: appReducer)
            #expect(try reader.replay(into: store) == 4)
        }
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let written = text.utf8CString.withUnsafeBufferPointer { write(descriptors[1], $0.baseAddress, $0.count - 1) }
        #expect(written == text.utf8.count)
        _ = close(descriptors[1])
        defer { _ = close(descriptors[0]) }
        let reader = try RecordingReader<AppState>(fileDescriptor: descriptors[0], codecs: counterCodecs)
        #expect(reader.source == "fd \(descriptors[0])")
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 4)
    }

    @Test func readsSnapshotsLongerThanTheReadBuffer() throws {
        let works = (0..<20_000).map { "work \($0)" }
        try withTemporaryPath { path in
            let recorder = try SessionRecorder<AppState>(
                to: .file(atPath: path), codecs: counterCodecs, hash: .structural, snapshotInterval: 1
            )
            let store = makeStore(AppState(works: works), middleware: [recorder.middleware])
            store.dispatch(CounterAction.addWork("last"))
            try recorder.close()
            let reader = try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            #expect(reader.initialState.works.count == 20_000)
            #expect(try reader.next()?.snapshot?.works.last == "last")
        }
    }

    // MARK: Divergence

    @Test func aDivergenceNamesTheActionAndShowsTheDiffFromTheSnapshot() throws {
        let doublingSet = Reducer<AppState> { (state, action: CounterAction) in
            if case .set(let value) = action {
                state.counter = value * 2
            } else {
                appReducer(&state, action)
            }
        }
        let lines = try sessionLines()
        let (error, _) = replay(lines.joined(separator: "\n") + "\n", reducer: doublingSet)
        let stopped = try #require(error)
        #expect(stopped.code == "diverged")
        #expect(stopped.line == 7)
        guard case .diverged(let divergence) = stopped.kind else {
            Issue.record("expected a divergence")
            return
        }
        #expect(divergence.index == 4)
        #expect(divergence.action as? CounterAction == .set(-3))
        #expect(divergence.diff?.rendered() == "~ counter: -3 → -6")
        #expect(
            stopped.description == """
                recording:7: error: replay diverged after action 4, set(-3): state hash \(recordedHash(lines[6])) recorded, \
                \(String(divergence.replayedHash ?? 0, radix: 16)) replayed (recorded → replayed):
                  ~ counter: -3 → -6
                """
        )
    }

    @Test func aDivergenceWithoutASnapshotSaysSo() throws {
        let skippingWorks = Reducer<AppState> { (state, action: CounterAction) in
            if case .addWork = action { return }
            appReducer(&state, action)
        }
        let lines = try sessionLines()
        let (error, _) = replay(lines.joined(separator: "\n") + "\n", reducer: skippingWorks)
        let stopped = try #require(error)
        #expect(stopped.line == 6)
        #expect(
            stopped.message.hasPrefix(
                "replay diverged after action 3, addWork(\"doc\"): state hash \(recordedHash(lines[5])) recorded"))
        #expect(stopped.message.hasSuffix("(no snapshot was recorded after this action to show what differs)"))
    }

    @Test func withoutHashesSnapshotsAreComparedWholeByDiff() throws {
        let text = try recordCounterSession(
            [CounterAction.set(1), CounterAction.set(2)], hash: nil, snapshotInterval: 1)
        let plusOne = Reducer<AppState> { (state, action: CounterAction) in
            if case .set(let value) = action { state.counter = value + 1 }
        }
        let (error, _) = replay(text, reducer: plusOne)
        #expect(error?.line == 3)
        #expect(
            error?.message == """
                replay diverged after action 1, set(1) (recorded → replayed):
                  ~ counter: 1 → 2
                """
        )
    }

    @Test func aReplayErrorEncodesToJSON() throws {
        let lines = try sessionLines()
        var broken = lines
        broken[5] = broken[5].replacingOccurrences(of: "\"counter\"", with: "\"countr\"")
        let (error, _) = replay(broken.joined(separator: "\n") + "\n")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(try #require(error)), as: UTF8.self)
        #expect(
            json
                == #"{"code":"unknown-action-type","line":6,"message":"unknown action type \"countr\": register it in the ActionCodecs given to the reader","source":"recording"}"#
        )
    }

    // MARK: Bad input, one case each

    @Test func aLineCutShortIsATruncatedFile() throws {
        let lines = try sessionLines()
        let text = lines[0..<5].joined(separator: "\n") + "\n" + lines[5].prefix(20)
        try expectStop(
            text,
            code: "truncated",
            line: 6,
            message: "truncated recording: the last line is cut short (it does not end with a newline)",
            stateBefore: stateAfterTwoActions
        )
    }

    @Test func aRecordingWithoutItsEndLineIsTruncated() throws {
        let lines = try sessionLines()
        try expectStop(
            lines.dropLast().joined(separator: "\n") + "\n",
            code: "truncated",
            line: 9,
            message: "truncated recording: the recording ends after action 4 without its end line "
                + "(the recorder was not closed; the process may have stopped)",
            stateBefore: AppState(counter: -3, name: "Kim", works: ["doc"])
        )
    }

    @Test func aLineWithoutItsActionIsCorrupted() throws {
        var lines = try sessionLines()
        lines[5] = #"{"index":3,"type":"counter","hash":"0000000000000000"}"#
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "corrupted-line",
            line: 6,
            message: "corrupted line: an action line needs an \"action\" member",
            stateBefore: stateAfterTwoActions
        )
    }

    @Test func missingActionsAreACorruptedLine() throws {
        var lines = try sessionLines()
        lines.remove(at: 5)
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "corrupted-line",
            line: 6,
            message: "corrupted line: action 4 follows action 2: actions 3…3 are missing",
            stateBefore: stateAfterTwoActions
        )
    }

    @Test func contentAfterTheEndIsACorruptedLine() throws {
        let lines = try sessionLines()
        try expectStop(
            (lines + [lines[2]]).joined(separator: "\n") + "\n",
            code: "corrupted-line",
            line: 10,
            message: "corrupted line: content after the end of the recording",
            stateBefore: AppState(counter: -3, name: "Kim", works: ["doc"])
        )
    }

    @Test func aForeignFileIsNotARecording() throws {
        for (text, reason) in [
            ("#!/bin/sh\necho hello\n", "its first line is not JSON"),
            (
                "{\"name\":\"package.json\"}\n",
                "its first line is not a recording header (\"recording\":\"ReduxConsumer\")"
            ),
            ("", "it is empty"),
            ("\u{89}PNG\r\n\u{1A}\n", "its first line is not JSON"),
        ] {
            #expect {
                _ = try counterReader(text)
            } throws: { error in
                let error = error as? ReplayError
                return error?.code == "not-a-recording" && error?.line == 1
                    && error?.message == "not a ReduxConsumer recording: \(reason)"
            }
        }
    }

    @Test func anUnknownActionTypeIsNamed() throws {
        var lines = try sessionLines()
        lines[5] = lines[5].replacingOccurrences(of: "\"counter\"", with: "\"countr\"")
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "unknown-action-type",
            line: 6,
            message: "unknown action type \"countr\": register it in the ActionCodecs given to the reader",
            stateBefore: stateAfterTwoActions
        )
    }

    @Test func aLineThatIsNotJSONGivesItsColumn() throws {
        var lines = try sessionLines()
        lines[5] = #"{"index":3,"type":"counter","action":{'addWork':{"_0":"doc"}}}"#
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "not-json",
            line: 6,
            message: "column 39: not JSON: unexpected character '''; expected a member name in quotes",
            stateBefore: stateAfterTwoActions
        )
    }

    @Test func anEditedHashIsADivergence() throws {
        var lines = try sessionLines()
        lines[5] = lines[5].replacingOccurrences(of: recordedHash(lines[5]), with: "0000000000000000")
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "diverged",
            line: 6,
            stateBefore: AppState(counter: 1, name: "Kim", works: ["doc"])
        )
    }

    @Test func anUndecodableActionNamesItsTypeAndPath() throws {
        var lines = try sessionLines()
        lines[6] = #"{"index":4,"type":"counter","action":{"set":{"_0":"minus three"}}}"#
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "undecodable-action",
            line: 7,
            message: "cannot decode the \"counter\" action: at set._0: expected an integer, found a string",
            stateBefore: AppState(counter: 1, name: "Kim", works: ["doc"])
        )
    }

    @Test func anUndecodableSnapshotIsReported() throws {
        var lines = try sessionLines()
        lines[4] = #"{"snapshot":2,"state":{"counter":"one","works":[]}}"#
        try expectStop(
            lines.joined(separator: "\n") + "\n",
            code: "undecodable-state",
            line: 5,
            message: "cannot decode the recorded state: at counter: expected an integer, found a string",
            stateBefore: AppState(counter: 1, name: "Kim")
        )
    }

    @Test func aReplayedStateThatCannotBeHashedStopsTheReplayAtItsLine() throws {
        /// Refuses to encode a negative value.
        struct Measured: Codable, Equatable, Sendable {
            var value = 1

            init() {}

            init(from decoder: any Decoder) throws {
                value = try decoder.singleValueContainer().decode(Int.self)
            }

            func encode(to encoder: any Encoder) throws {
                guard value >= 0 else {
                    throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "negative"))
                }
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Measured>(to: .memory(buffer), codecs: counterCodecs, hash: .structural)
        let recorded = Store(
            initialState: Measured(), reducer: Reducer { state, _ in state.value += 1 },
            middleware: [recorder.middleware]
        )
        recorded.dispatch(CounterAction.increment)
        recorded.dispatch(CounterAction.increment)
        try recorder.close()

        let reader = try RecordingReader<Measured>(bytes: Array(buffer.text.utf8), codecs: counterCodecs)
        // The second action makes a state that cannot be encoded, so not hashed either.
        let replayed = Store(
            initialState: reader.initialState,
            reducer: Reducer { (state: inout Measured, _: CounterAction) in
                state.value = state.value >= 2 ? -1 : state.value + 1
            }
        )
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: replayed) }
        #expect(error?.code == "undecodable-state")
        #expect(error?.line == 4)
        #expect(error?.message.contains("the replayed state cannot be hashed") == true)
        #expect(replayed.state.value == -1, "the replay stops after the action whose state cannot be hashed")
        #expect(reader.lastIndex == 2)
    }

    @Test func aNewerMajorFormatIsRefusedAndANewerMinorRead() throws {
        var lines = try sessionLines()
        lines[0] = lines[0].replacingOccurrences(of: "\"1.0\"", with: "\"2.0\"")
        #expect {
            _ = try counterReader(lines.joined(separator: "\n") + "\n")
        } throws: { error in
            (error as? ReplayError)?.description
                == "recording:1: error: the recording uses format 2.0, newer than this reader supports (1.x); "
                + "replay it with a newer version of ReduxConsumer"
        }
        lines[0] = lines[0].replacingOccurrences(of: "\"2.0\"", with: "\"1.7\"").replacingOccurrences(
            of: "}", with: ",\"future\":[1]}")
        #expect(replay(lines.joined(separator: "\n") + "\n").error == nil)
    }

    @Test func aSkippedActionStopsTheReplayByDefault() throws {
        let text = try recordCounterSession(
            [CounterAction.increment, UnregisteredAction(), CounterAction.increment],
            unregisteredActions: .skip
        )
        try expectStop(
            text,
            code: "skipped-action",
            line: 4,
            message:
                "action 2 (ReduxConsumerDiffTests.UnregisteredAction) was skipped when recording (it had no codec), "
                + "so the replay cannot reproduce it; replay with skippedActions: .verifyAndContinue to go on "
                + "if it did not change the state",
            stateBefore: AppState(counter: 1)
        )
    }

    @Test func aSkippedActionThatChangedNothingIsVerifiedAndPassed() throws {
        let text = try recordCounterSession(
            [CounterAction.increment, UnregisteredAction(), CounterAction.increment],
            unregisteredActions: .skip
        )
        let reader = try counterReader(text, skippedActions: .verifyAndContinue)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 3)
        #expect(store.state.counter == 2)
    }

    @Test func aSkippedActionThatChangedTheStateStopsTheReplayThere() throws {
        struct Bump: Action {}
        let bumping = Reducer<AppState>.combine(appReducer, Reducer { (state, _: Bump) in state.counter += 10 })
        let text = try recordCounterSession(
            [CounterAction.increment, Bump(), CounterAction.increment],
            unregisteredActions: .skip,
            reducer: bumping
        )
        let reader = try counterReader(text, skippedActions: .verifyAndContinue)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        #expect(error?.code == "diverged")
        #expect(error?.line == 4)
        #expect(error?.message.hasPrefix("replay diverged after action 2, skipped ReduxConsumerDiffTests.") == true)
    }

    @Test func aRecorderFailureStopsTheReplayAtItsEndLine() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        store.dispatch(UnregisteredAction())
        _ = try? recorder.close()
        try expectStop(
            buffer.text,
            code: "recorder-failed",
            line: 4,
            stateBefore: AppState(counter: 1)
        )
    }

    @Test func hashesNeedTheFunctionTheRecordingNames() throws {
        let custom = StateHash<AppState>(name: "counter-only") { UInt64(bitPattern: Int64($0.counter)) }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs, hash: custom)
        makeStore(middleware: [recorder.middleware]).dispatch(CounterAction.increment)
        try recorder.close()
        #expect {
            _ = try RecordingReader<AppState>(bytes: buffer.bytes, codecs: counterCodecs)
        } throws: { error in
            (error as? ReplayError)?.message
                == "the recording's hashes come from StateHash \"counter-only\"; pass it to the reader"
        }
        #expect {
            _ = try RecordingReader<AppState>(bytes: buffer.bytes, codecs: counterCodecs, hash: .structural)
        } throws: { error in
            (error as? ReplayError)?.message
                == "the recording's hashes come from StateHash \"counter-only\", not \"structural64\""
        }
        let reader = try RecordingReader<AppState>(bytes: buffer.bytes, codecs: counterCodecs, hash: custom)
        #expect(try reader.replay(into: Store(initialState: reader.initialState, reducer: appReducer)) == 1)
    }

    @Test func aStateThatIsNotCodableReplaysFromAGivenInitialState() throws {
        struct Plain: Equatable, Sendable {
            var counter = 0
        }
        let reducer = Reducer<Plain> { (state, action: CounterAction) in
            if case .increment = action { state.counter += 1 }
        }
        let hash = StateHash<Plain>(name: "plain-counter") { UInt64($0.counter) }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Plain>(to: .memory(buffer), codecs: counterCodecs, hash: hash)
        let store = Store(initialState: Plain(), reducer: reducer, middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        try recorder.close()
        #expect {
            _ = try RecordingReader<Plain>(bytes: buffer.bytes, codecs: counterCodecs, hash: hash)
        } throws: { error in
            (error as? ReplayError)?.code == "no-initial-state" && (error as? ReplayError)?.line == 2
        }
        let reader = try RecordingReader<Plain>(
            bytes: buffer.bytes, codecs: counterCodecs, hash: hash, initialState: Plain())
        let replayed = Store(initialState: reader.initialState, reducer: reducer)
        #expect(try reader.replay(into: replayed) == 2)
        #expect(replayed.state.counter == 2)
    }
}
