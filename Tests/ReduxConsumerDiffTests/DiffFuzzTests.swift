import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

// Adversarial tests of ReduxConsumerDiff (recording, replay, StateDiff, ActionLogger) and of
// `consumer-demo replay`. Deterministic: randomness comes from SplitMix64 with fixed seeds.

// MARK: - Fixtures for StateDiff

private final class Link {
    var value: Int
    var next: Link?
    init(_ value: Int) { self.value = value }
}

/// A class whose identity is its hash: legitimate as a set member or dictionary key.
private final class Peer: Hashable {
    var name: String
    var peers: Set<Peer> = []
    init(_ name: String) { self.name = name }
    static func == (lhs: Peer, rhs: Peer) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

private enum Load: Hashable {
    case idle
    case loading(progress: Double)
    case loaded(count: Int, names: [String])
    case failed(String)
}

private struct Point: Hashable {
    var x: Int
    var y: Int
}

private struct WithNaN: Equatable {
    var ratio = Double.nan
    var counter = 0
}

private struct NaNContainers: Equatable {
    var ratios: Set<Double> = [.nan]
    var weights: [String: Double] = ["w": .nan]
    var samples: [Double] = [1, .nan, 3]
    var counter = 0
}

/// Not Equatable: arrays of it are aligned by rendering.
private struct Row {
    var id: Int
    var title: String
}

private enum Mode: CustomStringConvertible {
    case calm, busy
    var description: String { self == .calm ? "calm\n  ~ injected: 0 → 1" : "busy" }
}

private struct NotedAction: Action, CustomStringConvertible {
    var note: String
    var description: String { "note(\(note))" }
}

private struct Tiny: Equatable, Sendable {
    var text = ""
    var count = 0
}

private let tinyReducer = Reducer<Tiny> { (state, action: NotedAction) in
    state.text = action.note
    state.count += 1
}

// MARK: - Fixtures for recordings

/// The actions of the session every recording test mutates.
private let sessionActions: [CounterAction] = [
    .increment, .rename("Kim"), .addWork("doc"), .set(-3), .increment, .rename(nil), .addWork("ünï ✓"),
]

/// The states after 0, 1, 2 … actions of `sessionActions`.
private func sessionStates() -> [AppState] {
    var state = AppState()
    var states = [state]
    for action in sessionActions {
        appReducer(&state, action)
        states.append(state)
    }
    return states
}

private func sessionText(hash: StateHash<AppState>? = .structural, snapshotInterval: Int? = 2) throws -> String {
    try recordCounterSession(sessionActions, hash: hash, snapshotInterval: snapshotInterval)
}

private struct ReplayOutcome {
    var error: ReplayError?
    var state: AppState
    var dispatched: Int
    /// The store was never made: the reader refused the recording up front.
    var refused: Bool
}

/// Replays `bytes` into a fresh store, counting the actions that reach it.
private func replayBytes(_ bytes: [UInt8], initialState: AppState? = nil) -> ReplayOutcome {
    let reader: RecordingReader<AppState>
    do {
        reader = try RecordingReader<AppState>(bytes: bytes, codecs: counterCodecs, initialState: initialState)
    } catch {
        return ReplayOutcome(error: error, state: AppState(), dispatched: 0, refused: true)
    }
    let count = Recorder<Int>()
    let counting: Middleware<AppState> = { _, _ in
        { next in
            { action in
                count.append(1)
                next(action)
            }
        }
    }
    let store = Store(initialState: reader.initialState, reducer: appReducer, middleware: [counting])
    do {
        try reader.replay(into: store)
        return ReplayOutcome(error: nil, state: store.state, dispatched: count.values.count, refused: false)
    } catch {
        return ReplayOutcome(error: error, state: store.state, dispatched: count.values.count, refused: false)
    }
}

private func lines(of text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

private func joined(_ lines: [String]) -> [UInt8] {
    Array((lines.joined(separator: "\n") + "\n").utf8)
}

/// Checks what every failed replay must satisfy: a line inside the file (or just past it), a
/// message, `source:line: error:` and a state that is one the session really went through.
private func expectWellFormed(
    _ outcome: ReplayOutcome,
    lineCount: Int,
    states: [AppState],
    _ comment: Comment,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = outcome.error else { return }
    #expect(
        error.line >= 1 && error.line <= lineCount + 1, "\(comment): line \(error.line)", sourceLocation: sourceLocation
    )
    #expect(!error.message.isEmpty, comment, sourceLocation: sourceLocation)
    #expect(error.description.hasPrefix("recording:\(error.line): error: "), comment, sourceLocation: sourceLocation)
    if case .diverged = error.kind { return }
    if outcome.dispatched < states.count {
        #expect(
            outcome.state == states[outcome.dispatched],
            "\(comment): after \(outcome.dispatched) verified actions the store must hold that state",
            sourceLocation: sourceLocation)
    }
}

struct DiffFuzzTests {
    // MARK: - Recordings: cut, empty, header

    /// Every prefix of a good recording (cut at every byte) is refused or stops with an error,
    /// never succeeds, never crashes; the store holds exactly the state after the actions whose
    /// lines were complete.
    @Test func everyPrefixOfARecordingStopsCleanlyWithTheStateOfItsCompleteActions() throws {
        let text = try sessionText()
        let bytes = Array(text.utf8)
        let states = sessionStates()
        let allLines = lines(of: text)
        // Byte offset at which each line ends (its newline), and how many actions precede it.
        var lineEnds: [Int] = []
        var offset = 0
        for line in allLines {
            offset += line.utf8.count
            lineEnds.append(offset)
            offset += 1
        }
        for length in 0..<bytes.count {
            let outcome = replayBytes(Array(bytes[0..<length]))
            let error = try #require(outcome.error, "a recording cut after \(length) bytes replayed without error")
            // The line the cut falls in (1-based); a cut right after a newline is the next line.
            let cutLine = (lineEnds.firstIndex(where: { length <= $0 }) ?? allLines.count) + 1
            let completeActions = allLines.prefix(cutLine - 1).filter { $0.hasPrefix(#"{"index""#) }.count
            if cutLine == 1 {
                #expect(["not-a-recording", "truncated"].contains(error.code), "cut at \(length): \(error)")
            } else {
                #expect(error.code == "truncated", "cut at \(length): \(error)")
                #expect(error.line == cutLine, "cut at \(length): \(error)")
                #expect(outcome.state == states[completeActions], "cut at \(length)")
                #expect(outcome.dispatched == completeActions, "cut at \(length)")
            }
        }
    }

    @Test func anEmptyRecordingOrOneOfBlankLinesIsNotARecording() throws {
        for bytes in [[], [0x0A], [0x0A, 0x0A, 0x0A], Array("   \n".utf8), [0xEF, 0xBB, 0xBF, 0x0A]] as [[UInt8]] {
            let outcome = replayBytes(bytes)
            #expect(outcome.refused)
            #expect(outcome.error?.code == "not-a-recording", "\(bytes)")
            #expect(outcome.error?.line == 1)
        }
        withTemporaryPath { path in
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            let error = #expect(throws: ReplayError.self) {
                try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            }
            #expect(error?.code == "not-a-recording")
            #expect(error?.description == "\(path):1: error: not a ReduxConsumer recording: it is empty")
        }
    }

    @Test(arguments: [
        ("2.0", "newer-format"), ("10.3", "newer-format"), ("1", "corrupted-line"), ("1.0.0", "corrupted-line"),
        ("one.zero", "corrupted-line"), ("", "corrupted-line"), ("1.x", "corrupted-line"),
        ("-1.0", "corrupted-line"), ("+1.0", "corrupted-line"),
    ])
    func aHeaderWithABadFormatVersionIsRefusedAtLineOne(version: String, code: String) throws {
        var all = lines(of: try sessionText())
        all[0] = all[0].replacingOccurrences(of: #""format":"1.0""#, with: "\"format\":\"\(version)\"")
        let outcome = replayBytes(joined(all))
        #expect(outcome.refused, "format \"\(version)\" was accepted")
        #expect(outcome.error?.code == code, "format \"\(version)\": \(String(describing: outcome.error))")
        #expect(outcome.error?.line == 1)
    }

    @Test func aHeaderWithAMistypedFormatOrANumberVersionIsCorrupted() throws {
        var all = lines(of: try sessionText())
        all[0] = all[0].replacingOccurrences(of: #""format":"1.0""#, with: #""format":1.0"#)
        let outcome = replayBytes(joined(all))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == 1)
        #expect(outcome.error?.message.contains("format") == true)
    }

    // MARK: - Recordings: lines that are not valid

    @Test func aBlankLineBetweenActionsIsNotJSONAtColumnOne() throws {
        var all = lines(of: try sessionText())
        all.insert("", at: 3)  // between action 1 (line 3) and action 2
        let outcome = replayBytes(joined(all))
        #expect(outcome.error?.code == "not-json")
        #expect(outcome.error?.line == 4)
        #expect(outcome.error?.message.hasPrefix("column 1: not JSON") == true)
        #expect(outcome.state == sessionStates()[1])
    }

    @Test func bytesThatAreNotUTF8OutsideStringsAreNotJSONWithTheirColumn() throws {
        var bytes = Array(try sessionText().utf8)
        let all = lines(of: try sessionText())
        // Replace the first byte of line 4 (action 2) with 0xFF.
        let lineStart = all[0..<3].reduce(0) { $0 + $1.utf8.count + 1 }
        bytes[lineStart] = 0xFF
        let outcome = replayBytes(bytes)
        #expect(outcome.error?.code == "not-json")
        #expect(outcome.error?.line == 4)
        #expect(outcome.error?.message == "column 1: not JSON: unexpected byte 0xff; expected a value")
        #expect(outcome.state == sessionStates()[1])
    }

    /// RFC 8259 text is UTF-8; a string with an invalid byte is not the string that was recorded.
    /// Without hashes nothing else would notice, so the reader must.
    @Test func aStringWithAByteThatIsNotUTF8IsAnErrorNotAReplacementCharacter() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: nil))
        let index = try #require(all.firstIndex { $0.contains(#""Kim""#) })
        var bytes = joined(all)
        let lineStart = all[0..<index].reduce(0) { $0 + $1.utf8.count + 1 }
        let kim = try #require(all[index].utf8.firstRange(of: Array("Kim".utf8)))
        bytes[lineStart + all[index].utf8.distance(from: all[index].utf8.startIndex, to: kim.lowerBound) + 1] = 0xFF
        all = []  // (bytes hold the recording now)
        let outcome = replayBytes(bytes)
        #expect(
            outcome.error != nil,
            "invalid UTF-8 was accepted; the name became \(String(reflecting: outcome.state.name))")
        #expect(outcome.error?.line == index + 1)
        #expect(outcome.state.name != "K\u{FFFD}m")
    }

    @Test func aLoneSurrogateEscapeIsAnErrorNotAReplacementCharacter() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: nil))
        let index = try #require(all.firstIndex { $0.contains(#""Kim""#) })
        all[index] = all[index].replacingOccurrences(of: #""Kim""#, with: #""K\ud800m""#)
        let outcome = replayBytes(joined(all))
        #expect(
            outcome.error != nil,
            "a lone surrogate was accepted; the name became \(String(reflecting: outcome.state.name))")
        #expect(outcome.error?.line == index + 1)
    }

    @Test func aHugeLineFromAFileIsNotJSONWithItsExactColumn() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: nil))
        let filler = String(repeating: "x", count: 300_000)  // several 64 KiB read chunks
        let line = #"{"index":2,"type":"counter","action":{"addWork":{"_0":""# + filler + #""}}}"#
        all[3] = line + "]"  // one byte too many after the JSON value
        try withTemporaryPath { path in
            try Data(joined(all)).write(to: URL(fileURLWithPath: path))
            let reader = try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            let store = Store(initialState: reader.initialState, reducer: appReducer)
            let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
            #expect(error?.code == "not-json")
            #expect(error?.line == 4)
            #expect(
                error?.message
                    == "column \(line.utf8.count + 1): not JSON: unexpected character ']' after the JSON value")
            #expect(store.state == sessionStates()[1])
        }
    }

    @Test func aHugeValidActionLineReplays() throws {
        let big = String(repeating: "ab", count: 200_000)
        let text = try recordCounterSession([CounterAction.addWork(big), .increment], snapshotInterval: 1)
        try withTemporaryPath { path in
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let reader = try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            let store = Store(initialState: reader.initialState, reducer: appReducer)
            #expect(try reader.replay(into: store) == 2)
            #expect(store.state == AppState(counter: 1, works: [big]))
        }
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotAStackOverflow() throws {
        var all = lines(of: try sessionText())
        all[3] = #"{"index":2,"type":"counter","action":"# + String(repeating: "[", count: 200_000)
        let outcome = replayBytes(joined(all))
        #expect(outcome.error?.code == "not-json")
        #expect(outcome.error?.line == 4)
        #expect(outcome.error?.message.contains("nested deeper than") == true)
        #expect(outcome.state == sessionStates()[1])
    }

    @Test func duplicatedAndSwappedActionLinesAreCorruptedAtTheSecondOccurrence() throws {
        let all = lines(of: try sessionText(snapshotInterval: nil))  // 1 header, 2 snapshot 0, 3… actions
        var duplicated = all
        duplicated.insert(all[3], at: 4)  // action 2 twice
        var outcome = replayBytes(joined(duplicated))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == 5)
        #expect(
            outcome.error?.message
                == "corrupted line: action 2 comes after action 2: lines are repeated or out of order")
        #expect(outcome.state == sessionStates()[2])

        var swapped = all
        swapped.swapAt(3, 4)  // action 3 before action 2
        outcome = replayBytes(joined(swapped))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == 4)
        #expect(outcome.error?.message == "corrupted line: action 3 follows action 1: actions 2…2 are missing")
        #expect(outcome.state == sessionStates()[1])

        var renumbered = all
        renumbered[2] = renumbered[2].replacingOccurrences(of: #"{"index":1,"#, with: #"{"index":0,"#)
        outcome = replayBytes(joined(renumbered))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == 3)
        #expect(outcome.state == AppState())

        var negative = all
        negative[2] = negative[2].replacingOccurrences(of: #"{"index":1,"#, with: #"{"index":-1,"#)
        outcome = replayBytes(joined(negative))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == 3)
    }

    @Test func twoRecordingsJoinedStopAtTheSecondHeader() throws {
        let text = try sessionText()
        var all = lines(of: text)
        all.removeLast()  // drop the end line of the first
        let outcome = replayBytes(joined(all + lines(of: text)))
        #expect(outcome.error?.code == "corrupted-line")
        #expect(outcome.error?.line == all.count + 1)
        #expect(outcome.state == sessionStates().last)
    }

    @Test func anUnknownActionTypeWithOddBytesIsNamedAndStopsThere() throws {
        var all = lines(of: try sessionText())
        all[3] = all[3].replacingOccurrences(of: #""type":"counter""#, with: #""type":"count\"er\n""#)
        let outcome = replayBytes(joined(all))
        #expect(outcome.error?.code == "unknown-action-type")
        #expect(outcome.error?.line == 4)
        // The line break comes from the file: escaped, so the message stays one line.
        #expect(outcome.error?.message.hasPrefix(#"unknown action type "count"er\n""#) == true)
        #expect(outcome.state == sessionStates()[1])
    }

    /// A hash is "16 hexadecimal digits" (RecordingFormat); a sign is not a digit.
    @Test func aHashWithASignIsACorruptedLineNotADivergence() throws {
        var all = lines(of: try sessionText(snapshotInterval: nil))
        let line = all[2]
        let hash = String(line.suffix(18).prefix(16))
        all[2] = line.replacingOccurrences(of: hash, with: "+" + hash.dropFirst())
        let outcome = replayBytes(joined(all))
        #expect(outcome.error?.code == "corrupted-line", "\(String(describing: outcome.error))")
        #expect(outcome.error?.line == 3)
    }

    @Test func aHashWithUppercaseDigitsIsTheSameHash() throws {
        var all = lines(of: try sessionText(snapshotInterval: nil))
        all[2] = all[2].uppercased().replacingOccurrences(of: #""INDEX""#, with: #""index""#)
        all[2] = String(all[2].prefix(all[2].count - 18)).lowercased() + String(all[2].suffix(18))
        let outcome = replayBytes(joined(all))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.state == sessionStates().last)
    }

    /// Without hashes the recording is verified by its snapshots ("when the recording has no
    /// hashes, with the recorded snapshot"): a snapshot whose members are in another order is
    /// still JSON of the same snapshot and must be compared, or refused.
    @Test func aSnapshotLaidOutDifferentlyIsStillVerified() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: 1))
        // Lines: 1 header, 2 snapshot 0, 3 action 1, 4 snapshot 1, 5 action 2, 6 snapshot 2 …
        #expect(all[5].hasPrefix(#"{"snapshot":2,"#))
        all[5] = #"{"state":{"counter":99,"name":"Kim","works":[]},"snapshot":2}"#
        let outcome = replayBytes(joined(all))
        #expect(
            outcome.error?.code == "diverged",
            "a contradicting snapshot was ignored: \(String(describing: outcome.error))")
        #expect(outcome.error?.line == 5)
    }

    @Test func aSnapshotWithALeadingSpaceThatCannotBeDecodedIsReported() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: 1))
        all[5] = #" {"snapshot":2,"state":{"counter":"two","works":[]}}"#
        let outcome = replayBytes(joined(all))
        #expect(
            outcome.error?.code == "undecodable-state",
            "an undecodable snapshot was ignored: \(String(describing: outcome.error))")
        #expect(outcome.error?.line == 6)
    }

    @Test func aRepeatedSnapshotThatContradictsTheFirstIsReported() throws {
        var all = lines(of: try sessionText(hash: nil, snapshotInterval: 2))
        // 1 header, 2 snapshot 0, 3 action 1, 4 action 2, 5 snapshot 2, …
        #expect(all[4].hasPrefix(#"{"snapshot":2,"#))
        all.insert(#"{"snapshot":2,"state":{"counter":-50,"works":[]}}"#, at: 5)
        let outcome = replayBytes(joined(all))
        #expect(outcome.error != nil, "a second, contradicting snapshot 2 was ignored")
        #expect(outcome.error?.line == 6)
    }

    /// "Nothing after that line is delivered": asking again after an error must not go on past
    /// the bad line.
    @Test func aReaderDoesNotDeliverActionsAfterABadLineWhenAskedAgain() throws {
        var all = lines(of: try sessionText(snapshotInterval: nil))
        all.insert("this is not json", at: 4)  // after action 2 (line 4)
        let reader = try RecordingReader<AppState>(bytes: joined(all), codecs: counterCodecs)
        #expect(try reader.next()?.index == 1)
        #expect(try reader.next()?.index == 2)
        let first = #expect(throws: ReplayError.self) { try reader.next() }
        #expect(first?.line == 5)
        var delivered: [Int] = []
        for _ in 0..<3 {
            if let step = try? reader.next() { delivered.append(step.index) }
        }
        #expect(delivered.isEmpty, "actions \(delivered) after the bad line 5 were delivered")
    }

    @Test func aCursorCannotMovePastABadLine() throws {
        var all = lines(of: try sessionText(snapshotInterval: nil))
        all.insert("{}", at: 4)
        let reader = try RecordingReader<AppState>(bytes: joined(all), codecs: counterCodecs)
        let cursor = ReplayCursor(reader: reader, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try cursor.move(to: 5) }
        #expect(error?.code == "corrupted-line")
        #expect(error?.line == 5)
        #expect(cursor.index == 2)
        #expect(cursor.state == sessionStates()[2])
        _ = try? cursor.move(to: 5)
        #expect(cursor.index <= 2, "the cursor moved past the bad line to action \(cursor.index)")
        #expect(cursor.state == sessionStates()[cursor.index])
    }

    /// Seeded mutations of a good recording: bytes flipped, lines deleted, duplicated, swapped,
    /// cut, garbage inserted. Every replay ends in success with the recorded final state, or a
    /// well-formed error; the store never holds a state the session did not reach (hashes are
    /// checked after every action).
    @Test func seededMutationsNeverCrashAndNeverLeaveAStateTheSessionDidNotReach() throws {
        let text = try sessionText(snapshotInterval: 3)
        let original = Array(text.utf8)
        let states = sessionStates()
        let allLines = lines(of: text)
        var random = SplitMix64(seed: 0xD1FF_F022)
        let garbage: [[UInt8]] = [
            Array("{}".utf8), Array("[]".utf8), Array("null".utf8), [0xFF, 0xFE], Array(#"{"index":"1"}"#.utf8),
            Array(#"{"end":-1}"#.utf8), Array(#"{"snapshot":1e3,"state":{}}"#.utf8), Array("\u{0}".utf8),
            Array(#"{"index":1e0,"type":"counter","action":"increment"}"#.utf8), [0xC3], Array("\r".utf8),
        ]
        for round in 0..<3_000 {
            var bytes = original
            var lineList = allLines.map { Array($0.utf8) }
            let kind = Int(random.next() % 7)
            switch kind {
            case 0:
                for _ in 0...(random.next() % 3) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    bytes[at] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
                }
            case 1:
                lineList.remove(at: Int(random.next() % UInt64(lineList.count)))
                bytes = Array(lineList.joined(separator: [0x0A])) + [0x0A]
            case 2:
                let at = Int(random.next() % UInt64(lineList.count))
                lineList.insert(lineList[at], at: Int(random.next() % UInt64(lineList.count)))
                bytes = Array(lineList.joined(separator: [0x0A])) + [0x0A]
            case 3:
                let a = Int(random.next() % UInt64(lineList.count))
                let b = Int(random.next() % UInt64(lineList.count))
                lineList.swapAt(a, b)
                bytes = Array(lineList.joined(separator: [0x0A])) + [0x0A]
            case 4:
                let at = Int(random.next() % UInt64(bytes.count))
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(random.next() % 40)))
            case 5:
                let at = Int(random.next() % UInt64(lineList.count + 1))
                lineList.insert(garbage[Int(random.next() % UInt64(garbage.count))], at: at)
                bytes = Array(lineList.joined(separator: [0x0A])) + [0x0A]
            default:
                let at = Int(random.next() % UInt64(bytes.count))
                bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
            }
            let outcome = replayBytes(bytes)
            if outcome.error == nil {
                #expect(outcome.state == states.last, "round \(round) (mutation \(kind)) replayed to a wrong state")
            }
            let lineCount = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
            expectWellFormed(outcome, lineCount: lineCount, states: states, "round \(round) (mutation \(kind))")
        }
    }

    // MARK: - StateDiff: references and cycles

    @Test func classCyclesTerminateAndReportTheChangeOnce() throws {
        let a1 = Link(1)
        let b1 = Link(2)
        a1.next = b1
        b1.next = a1
        let a2 = Link(1)
        let b2 = Link(3)
        a2.next = b2
        b2.next = a2
        let diff = StateDiff(from: a1, to: a2)
        #expect(diff.changes.map(\.path.description) == ["next.value"])
        #expect(diff.rendered() == "~ next.value: 2 → 3")
        let data = try JSONEncoder().encode(diff)
        #expect(String(decoding: data, as: UTF8.self).contains("next.value"))
        // A cycle rendered whole (nil → cycle) terminates too.
        let added = StateDiff(from: Link?.none, to: a2)
        #expect(added.changes.count == 1)
        #expect(added.changes.first?.kind == .added)
        #expect(added.rendered().contains("Link(…)"))
        // Self-loop against a longer loop.
        let single = Link(1)
        single.next = single
        #expect(!StateDiff(from: single, to: a2).isEmpty)
        // The cycles are the test's own: broken so that LeakSanitizer sees nothing left over.
        for link in [a1, b1, a2, b2, single] { link.next = nil }
    }

    /// Hashable classes in a set that (through the set) contain themselves: a diff and its
    /// rendering must terminate ("Reference cycles are followed once").
    @Test func aCycleThroughASetOfObjectsTerminates() {
        let old = Peer("a")
        let new = Peer("a")
        new.peers = [new]
        let diff = StateDiff(from: old, to: new)
        #expect(!diff.isEmpty)
        #expect(!diff.rendered().isEmpty)
        new.peers = []  // the test's own cycle, broken for LeakSanitizer
    }

    @Test func aCycleThroughDictionaryKeysTerminates() {
        let peer = Peer("k")
        peer.peers = [peer]
        let diff = StateDiff(from: [Peer: Int](), to: [peer: 1])
        #expect(!diff.isEmpty)
        #expect(!diff.rendered().isEmpty)
        peer.peers = []  // the test's own cycle, broken for LeakSanitizer
    }

    // MARK: - StateDiff: optionals, enums, tuples

    @Test func deeplyNestedOptionalsTellNilApartAtEveryLevel() throws {
        typealias Deep = Int????
        let values: [Deep] = [.none, .some(.none), .some(.some(.none)), .some(.some(.some(.none))), 5]
        for (i, old) in values.enumerated() {
            for (j, new) in values.enumerated() {
                let diff = StateDiff(from: old, to: new)
                #expect(diff.isEmpty == (i == j), "\(String(describing: old)) → \(String(describing: new))")
                _ = try JSONEncoder().encode(diff)
            }
        }
        #expect(StateDiff(from: Deep.none, to: 5).rendered() == "+ (root): 5")
        #expect(StateDiff(from: Deep(5), to: Deep.none).rendered() == "- (root): 5")
        #expect(StateDiff(from: Deep(5), to: Deep(6)).rendered() == "~ (root): 5 → 6")
    }

    @Test func nilToValueTransitionsInsideStructs() throws {
        struct User: Equatable {
            var name: String?
            var tags: [String]?
        }
        let diff = StateDiff(from: User(name: nil, tags: ["a"]), to: User(name: "Kim", tags: nil))
        #expect(diff.rendered() == "+ name: \"Kim\"\n- tags: [\"a\"]")
        let json = String(decoding: try JSONEncoder().encode(diff.changes), as: UTF8.self)
        #expect(json.contains(#""kind":"added""#) && json.contains(#""kind":"removed""#))
        #expect(!json.contains(#""old":"nil""#))
    }

    @Test func enumsChangingCaseAndPayload() throws {
        var diff = StateDiff(from: Load.loading(progress: 0.5), to: Load.failed("boom"))
        #expect(diff.rendered() == "~ (root): .loading(progress: 0.5) → .failed(\"boom\")")
        diff = StateDiff(from: Load.idle, to: Load.loaded(count: 1, names: ["a"]))
        #expect(diff.rendered() == "~ (root): .idle → .loaded(count: 1, names: [\"a\"])")
        diff = StateDiff(
            from: Load.loaded(count: 1, names: ["a", "b"]), to: Load.loaded(count: 1, names: ["a", "x", "b"]))
        #expect(diff.rendered() == "+ loaded.names[1]: \"x\"")
        diff = StateDiff(from: Load.failed("a"), to: Load.failed("b"))
        #expect(diff.rendered() == "~ failed: \"a\" → \"b\"")
        diff = StateDiff(from: Load.loaded(count: 1, names: []), to: Load.idle)
        #expect(diff.changes.count == 1)
        _ = try JSONEncoder().encode(diff)
    }

    @Test func tuplesLabeledAndUnlabeled() throws {
        let diff = StateDiff(from: (1, name: "a", (true, 2.5)), to: (1, name: "b", (false, 2.5)))
        #expect(diff.rendered() == "~ name: \"a\" → \"b\"\n~ 2.0: true → false")
        _ = try JSONEncoder().encode(diff)
    }

    // MARK: - StateDiff: NaN

    /// "Values and elements whose bytes are identical count as unchanged, even a Double.nan": a
    /// NaN field that an action did not touch must not show as changed when another field does.
    @Test func anUntouchedNaNFieldIsNotReportedWhenAnotherFieldChanges() {
        var state = WithNaN()
        let old = state
        state.counter += 1
        let diff = StateDiff(from: old, to: state)
        #expect(diff.rendered() == "~ counter: 0 → 1")
    }

    @Test func untouchedNaNsInsideSetsDictionariesAndArraysAreNotReported() {
        var state = NaNContainers()
        let old = state
        state.counter = 1
        let diff = StateDiff(from: old, to: state)
        #expect(diff.rendered() == "~ counter: 0 → 1")
    }

    @Test func aNaNThatStaysNaNAcrossActionsLogsNoChangeForever() {
        let entries = Recorder<String>()
        let logger = ActionLogger<WithNaN>(omitsUnchangedState: false) { entries.append("\($0)") }
        let reducer = Reducer<WithNaN> { (state, action: NotedAction) in
            if action.note == "bump" { state.counter += 1 }
            state.ratio = .nan  // written again, bits unchanged
        }
        let store = Store(initialState: WithNaN(), reducer: reducer, middleware: [logger.middleware])
        store.dispatch(NotedAction(note: "noop"))
        store.dispatch(NotedAction(note: "bump"))
        store.dispatch(NotedAction(note: "noop"))
        #expect(
            entries.values == [
                "action note(noop) (no change)", "action note(bump)\n  ~ counter: 0 → 1",
                "action note(noop) (no change)",
            ])
    }

    @Test func aRealChangeToNaNIsReported() {
        #expect(StateDiff(from: WithNaN(ratio: 1), to: WithNaN()).rendered() == "~ ratio: 1.0 → nan")
        #expect(StateDiff(from: [1.0, 2.0], to: [1.0, .nan]).rendered() == "~ [1]: 2.0 → nan")
    }

    // MARK: - StateDiff: dictionaries and sets

    @Test func dictionariesWithNonStringKeys() throws {
        var diff = StateDiff(from: [1: "a", 2: "b", 10: "c"], to: [1: "a", 2: "B", 9: "n"])
        #expect(diff.rendered() == "- [10]: \"c\"\n~ [2]: \"b\" → \"B\"\n+ [9]: \"n\"")
        diff = StateDiff(from: [Point(x: 1, y: 2): true], to: [Point(x: 1, y: 2): false, Point(x: 0, y: 0): true])
        #expect(diff.rendered() == "+ [Point(x: 0, y: 0)]: true\n~ [Point(x: 1, y: 2)]: true → false")
        diff = StateDiff(from: [Load.idle: 1], to: [Load.failed("x"): 1])
        #expect(diff.changes.map(\.kind) == [.added, .removed] || diff.changes.map(\.kind) == [.removed, .added])
        diff = StateDiff(from: [true: 1, false: 0], to: [true: 1])
        #expect(diff.rendered() == "- [false]: 0")
        let json = String(decoding: try JSONEncoder().encode(diff), as: UTF8.self)
        #expect(json.contains(#""path":"[false]""#))
    }

    @Test func setsReportAddedAndRemovedMembersAtTheSetsPath() throws {
        struct Tags: Equatable { var tags: Set<String> }
        let diff = StateDiff(from: Tags(tags: ["a", "b", "c"]), to: Tags(tags: ["b", "c", "d", "e"]))
        #expect(diff.rendered() == "- tags: \"a\"\n+ tags: \"d\"\n+ tags: \"e\"")
        _ = try JSONEncoder().encode(diff)
        #expect(StateDiff(from: Set([Point(x: 1, y: 1)]), to: Set<Point>()).rendered() == "- (root): Point(x: 1, y: 1)")
    }

    // MARK: - StateDiff: long arrays

    /// One insertion in the middle is one `added`, whatever the length and element type; ten
    /// times the length gives the same single change (linear work: no edit script over the whole).
    @Test(arguments: [1_000, 10_000, 100_000])
    func oneInsertionInTheMiddleOfALongArrayIsOneAddition(count: Int) throws {
        let ints = Array(0..<count)
        var inserted = ints
        inserted.insert(-1, at: count / 2)
        #expect(StateDiff(from: ints, to: inserted).rendered() == "+ [\(count / 2)]: -1")

        // Long strings, built separately: the same values in different storage.
        let old = (0..<count).map { "element number \($0) with a long tail" }
        var new = (0..<count).map { "element number \($0) with a long tail" }
        new.insert("new", at: count / 2)
        #expect(StateDiff(from: old, to: new).rendered() == "+ [\(count / 2)]: \"new\"")
        // Removal from a copy (shared prefix storage).
        var removed = old
        removed.remove(at: count / 3)
        #expect(StateDiff(from: old, to: removed).changes.map(\.kind) == [.removed])
    }

    @Test(arguments: [1_000, 10_000])
    func oneInsertionInALongArrayOfNonEquatableStructsIsOneAddition(count: Int) throws {
        let old = (0..<count).map { Row(id: $0, title: "row \($0) with a title long enough for the heap") }
        var new = (0..<count).map { Row(id: $0, title: "row \($0) with a title long enough for the heap") }
        new.insert(Row(id: -1, title: "x"), at: count / 2)
        let diff = StateDiff(from: old, to: new)
        #expect(diff.changes.count == 1)
        #expect(diff.rendered() == "+ [\(count / 2)]: Row(id: -1, title: \"x\")")
        _ = try JSONEncoder().encode(diff)
    }

    @Test func arraysOfStructsReportFieldPaths() throws {
        struct Item: Equatable {
            var name: String
            var done: Bool
        }
        let old = [Item(name: "a", done: false), Item(name: "b", done: false)]
        let new = [Item(name: "a", done: false), Item(name: "b", done: true), Item(name: "c", done: false)]
        let diff = StateDiff(from: old, to: new)
        #expect(diff.rendered() == "~ [1].done: false → true\n+ [2]: Item(name: \"c\", done: false)")
    }

    @Test func seededRandomArrayEditsGiveDiffsWhoseAddsAndRemovesMatchTheLengths() {
        var random = SplitMix64(seed: 42)
        for round in 0..<300 {
            let old = (0..<Int(random.next() % 60)).map { _ in Int(random.next() % 8) }
            var new = old
            for _ in 0..<Int(random.next() % 6) {
                switch random.next() % 3 {
                case 0: new.insert(Int(random.next() % 8), at: Int(random.next() % UInt64(new.count + 1)))
                case 1 where !new.isEmpty: new.remove(at: Int(random.next() % UInt64(new.count)))
                default: if !new.isEmpty { new[Int(random.next() % UInt64(new.count))] = Int(random.next() % 8) }
                }
            }
            let diff = StateDiff(from: old, to: new)
            let added = diff.changes.filter { $0.kind == .added }.count
            let removed = diff.changes.filter { $0.kind == .removed }.count
            #expect(added - removed == new.count - old.count, "round \(round)")
            #expect(diff.isEmpty == (old == new), "round \(round)")
            // Applying the script rebuilds the new array.
            var rebuilt = old
            for change in diff.changes.filter({ $0.kind == .removed }).reversed() {
                if case .index(let i)? = change.path.components.last { rebuilt.remove(at: i) }
            }
            for change in diff.changes where change.kind != .removed {
                guard case .index(let i)? = change.path.components.last, let value = Int(change.newValue ?? "") else {
                    continue
                }
                if change.kind == .added { rebuilt.insert(value, at: i) } else { rebuilt[i] = value }
            }
            #expect(rebuilt == new, "round \(round): \(diff.rendered())")
        }
    }

    // MARK: - Rendering: one change, one line

    /// "Each change is one line": a value whose description holds a newline must not split it.
    @Test func aValueWhoseDescriptionHasANewlineRendersOnOneLine() throws {
        struct Screen { var mode: Mode }
        let diff = StateDiff(from: Screen(mode: .calm), to: Screen(mode: .busy))
        let rendered = diff.rendered()
        #expect(!rendered.contains("\n"), "one change rendered on several lines:\n\(rendered)")
    }

    @Test func stringsWithNewlinesAndNonASCIIAreEscapedAndCutOnCharacters() throws {
        let diff = StateDiff(from: "a\nb", to: "ünï\r\n✓👩‍👩‍👧")
        #expect(diff.rendered() == #"~ (root): "a\nb" → "ünï\r\n✓👩‍👩‍👧""#)
        let cut = diff.rendered(DiffFormat(maxValueLength: 5))
        #expect(!cut.contains("\n"))
        let data = try JSONEncoder().encode(diff)
        let decoded = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(decoded != nil)
        let keys = StateDiff(from: ["a\nb": 1], to: ["a\nb": 2]).rendered()
        #expect(keys == #"~ ["a\nb"]: 1 → 2"#)
    }

    // MARK: - ActionLogger

    /// "Its description is the action's own description on a first line, then one indented line
    /// per change": an action whose description holds a newline must not forge change lines.
    @Test func anActionDescriptionWithNewlinesStaysOnTheFirstLine() {
        let entries = Recorder<ActionLogger<Tiny>.Entry>()
        let logger = ActionLogger<Tiny> { entries.append($0) }
        let store = Store(initialState: Tiny(), reducer: tinyReducer, middleware: [logger.middleware])
        store.dispatch(NotedAction(note: "x\n  ~ count: 0 → 99"))
        let entry = entries.values.first
        let lines = entry?.description.split(separator: "\n", omittingEmptySubsequences: false) ?? []
        #expect(lines.count == 1 + (entry?.diff.changes.count ?? 0), "\(entry?.description ?? "")")
        #expect(
            lines.filter { $0.hasPrefix("  ~ count") }.count == 1, "a forged change line:\n\(entry?.description ?? "")")
    }

    @Test func anActionWithNonASCIIDescriptionIsLoggedIntact() {
        let entries = Recorder<String>()
        let logger = ActionLogger<Tiny>(format: DiffFormat(maxValueLength: 4)) { entries.append("\($0)") }
        let store = Store(initialState: Tiny(), reducer: tinyReducer, middleware: [logger.middleware])
        store.dispatch(NotedAction(note: "ünï ✓ 👩‍👩‍👧"))
        #expect(entries.values == ["action note(ünï ✓ 👩‍👩‍👧)\n  ~ text: \"\" → \"ün…\n  ~ count: 0 → 1"])
    }
}
