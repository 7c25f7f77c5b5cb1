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

    // MARK: - What the recorder writes, the reader reads

    fileprivate indirect enum History: Codable, Equatable, Sendable {
        case empty
        case entry(Int, History)
    }

    fileprivate struct Undo: Codable, Equatable, Sendable {
        var history = History.empty
    }

    fileprivate struct Push: Action, Codable {
        var value: Int
    }

    /// A state deeper than the reader accepts (a linked list of 300 entries is 600 JSON levels):
    /// the recorder must not write a recording that no reader can read. Either the recording
    /// replays, or recording it failed with an error that says why.
    @Test func aRecordingOfAStateTooDeepForTheReaderIsRefusedWhenRecording() throws {
        var codecs = ActionCodecs()
        codecs.register(Push.self, as: "push")
        let reducer = Reducer<Undo> { (state, action: Push) in
            state.history = .entry(action.value, state.history)
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Undo>(
            to: .memory(buffer), codecs: codecs, hash: .structural, snapshotInterval: 100)
        let store = Store(initialState: Undo(), reducer: reducer, middleware: [recorder.middleware])
        for value in 1...300 {
            store.dispatch(Push(value: value))
        }
        let recordingError: RecordingError?
        do {
            try recorder.close()
            recordingError = nil
        } catch {
            recordingError = error
        }
        var replayError: ReplayError?
        do {
            let reader = try RecordingReader<Undo>(bytes: buffer.bytes, codecs: codecs)
            let replayed = Store(initialState: reader.initialState, reducer: reducer)
            try reader.replay(into: replayed)
        } catch {
            replayError = error
        }
        if let recordingError {
            #expect(recordingError.description.contains("deep"), "\(recordingError)")
            #expect(replayError?.code == "recorder-failed", "\(replayError?.description ?? "")")
        } else {
            #expect(
                replayError == nil, "the recorder wrote without error a recording that cannot be read: \(replayError!)")
        }
    }

    /// Nested arrays, one JSON level each: `[[[]]]` for a depth of 2.
    fileprivate struct Nesting: Codable, Equatable, Sendable {
        var depth = 0

        init(depth: Int) {
            self.depth = depth
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd {
                container = try container.nestedUnkeyedContainer()
                depth += 1
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for _ in 0..<depth {
                container = container.nestedUnkeyedContainer()
            }
        }
    }

    /// At the limit exactly: every state the recorder writes, the reader reads, and the deepest it
    /// refuses is only one level deeper.
    @Test func theDeepestStateTheRecorderWritesReplays() throws {
        var codecs = ActionCodecs()
        codecs.register(Push.self, as: "push")
        let reducer = Reducer<Nesting> { (_, _: Push) in }
        var outcomes: [Int: Bool] = [:]
        for depth in 505...515 {
            let buffer = RecordingBuffer()
            let recorder = try SessionRecorder<Nesting>(to: .memory(buffer), codecs: codecs, hash: .structural)
            let store = Store(initialState: Nesting(depth: depth), reducer: reducer, middleware: [recorder.middleware])
            store.dispatch(Push(value: 1))
            let recorded = (try? recorder.close()) != nil
            outcomes[depth] = recorded
            guard recorded else { continue }
            #expect(throws: Never.self, "a state \(depth) levels deep was recorded") {
                let reader = try RecordingReader<Nesting>(bytes: buffer.bytes, codecs: codecs)
                #expect(reader.initialState == Nesting(depth: depth))
                try reader.replay(into: Store(initialState: reader.initialState, reducer: reducer))
            }
        }
        let deepestRecorded = outcomes.filter(\.value).keys.max()
        #expect(deepestRecorded != nil && deepestRecorded! < 515, "\(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.filter { !$0.value }.keys.min() == deepestRecorded.map { $0 + 1 })
    }

    // MARK: - Reused payloads

    fileprivate final class Box: Codable, @unchecked Sendable {
        // Unchecked: the test mutates a box only from inside one store's reducer.
        var value: Int

        init(_ value: Int) {
            self.value = value
        }
    }

    fileprivate struct Shelf: Encodable, Sendable {
        var boxes: [Box] = []
    }

    /// A value-type action that holds an object: the session kept a new object per action.
    fileprivate enum ShelfAction: Action, Codable {
        case add(Box)
        case bumpFirst
    }

    /// "Only value-type actions are kept, so a replay never dispatches one object twice": an
    /// action that is a value but holds an object is decoded again for every line, so two
    /// identical lines give two objects, as in the session.
    @Test func aReusedPayloadNeverHandsTheSameObjectToTwoActions() throws {
        var codecs = ActionCodecs()
        codecs.register(ShelfAction.self, as: "shelf")
        let reducer = Reducer<Shelf> { (state, action: ShelfAction) in
            switch action {
            case .add(let box): state.boxes.append(box)
            case .bumpFirst: state.boxes[0].value += 1
            }
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Shelf>(to: .memory(buffer), codecs: codecs, hash: .structural)
        let store = Store(initialState: Shelf(), reducer: reducer, middleware: [recorder.middleware])
        store.dispatch(ShelfAction.add(Box(0)))
        store.dispatch(ShelfAction.add(Box(0)))
        store.dispatch(ShelfAction.bumpFirst)
        try recorder.close()
        #expect(store.state.boxes.map(\.value) == [1, 0])

        let reader = try RecordingReader<Shelf>(bytes: buffer.bytes, codecs: codecs, initialState: Shelf())
        let replayed = Store(initialState: reader.initialState, reducer: reducer)
        #expect(throws: Never.self) { try reader.replay(into: replayed) }
        #expect(replayed.state.boxes.map(\.value) == [1, 0])
        #expect(replayed.state.boxes.count == 2 && replayed.state.boxes[0] !== replayed.state.boxes[1])
    }

    /// The header says whether the actions carry hashes, and the recorder writes a hash on every
    /// action line exactly when it names one. A header or a line whose `hash` member was damaged
    /// must not turn verification off in silence: a replay with a reducer that diverges would
    /// pass. It is a corrupted line.
    @Test func aDamagedHashMemberIsACorruptedLineNotAnUnverifiedReplay() throws {
        let text = try recordCounterSession([CounterAction.increment, CounterAction.increment, CounterAction.increment])
        let doubling = Reducer<AppState> { (state, action: CounterAction) in
            if action == .increment { state.counter += 2 }
        }
        func replay(_ text: String) -> ReplayError? {
            do {
                let reader = try counterReader(text)
                try reader.replay(into: Store(initialState: reader.initialState, reducer: doubling))
                return nil
            } catch {
                return error
            }
        }
        #expect(replay(text)?.code == "diverged")
        let damagedHeader = text.replacingOccurrences(of: #""hash":"structural64""#, with: #""hasj":"structural64""#)
        let headerError = replay(damagedHeader)
        #expect(headerError?.code == "corrupted-line", "\(headerError?.description ?? "replayed")")
        #expect(headerError?.line == 3)
        var lines = text.split(separator: "\n").map(String.init)
        lines[2] = lines[2].replacingOccurrences(of: #""hash":"#, with: #""hasj":"#)
        let lineError = replay(lines.joined(separator: "\n") + "\n")
        #expect(lineError?.code == "corrupted-line", "\(lineError?.description ?? "replayed")")
        #expect(lineError?.line == 3)
    }
}
