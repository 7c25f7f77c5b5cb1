import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

// The structural hash walks the state as the recorder's snapshots do, and so has their limit: a
// state nested deeper than a recording can hold is a clear error, never a stack overflow, whether
// the recorder hashes it, a replay hashes it, or a caller asks for its hash.

struct Hunt10StateHashDepthTests {
    /// A linked list: every entry is two JSON levels, `{"entry":{"_0":1,"_1":…}}`.
    fileprivate indirect enum History: Codable, Sendable {
        case empty
        case entry(Int, History)

        /// `count` entries, built without recursion.
        static func of(_ count: Int) -> History {
            var history = History.empty
            for value in 0..<count {
                history = .entry(value, history)
            }
            return history
        }
    }

    fileprivate struct Undo: Codable, Sendable {
        var history = History.empty
    }

    fileprivate struct Grow: Action, Codable {
        var entries: Int
    }

    /// Nested arrays, one JSON level each: `[[[]]]` for a depth of 2, encoded without recursion
    /// of its own.
    fileprivate struct Nesting: Encodable, Sendable {
        var depth: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for _ in 0..<depth {
                container = container.nestedUnkeyedContainer()
            }
        }
    }

    /// Arrays in arrays, `levels` deep, each encoding the next as its element: the encoding
    /// recurses once per level, as a recursive state's does, with no tree to build or free.
    fileprivate struct Recursion: Encodable, Sendable {
        var levels: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            if levels > 1 {
                try container.encode(Recursion(levels: levels - 1))
            }
        }
    }

    /// A value that encodes the next in its single-value container: a chain of wrappers, one
    /// inside another, all at one level of the output (which is only the innermost `null`).
    fileprivate struct Wrapping: Encodable, Sendable {
        var levels: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if levels > 1 {
                try container.encode(Wrapping(levels: levels - 1))
            } else {
                try container.encodeNil()
            }
        }
    }

    /// Wrappers a million deep: the hash and the snapshot stop with an error instead of recursing
    /// once per wrapper until the stack overflows; a few wrappers are still fine.
    @Test func wrappersNestedInSingleValueContainersWithoutBoundAreAnError() throws {
        #expect(throws: Never.self) { try StateHash<Wrapping>.structural(Wrapping(levels: 100)) }
        let error = #expect(throws: (any Error).self) {
            try StateHash<Wrapping>.structural(Wrapping(levels: 1_000_000))
        }
        #expect(String(describing: error).contains("single-value"), "\(String(describing: error))")

        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Wrapping>(to: .memory(buffer), codecs: counterCodecs, hash: nil)
        let store = Store(
            initialState: Wrapping(levels: 1_000_000), reducer: Reducer<Wrapping> { (_, _: CounterAction) in },
            middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        let recordingError = #expect(throws: RecordingError.self) { try recorder.close() }
        #expect(recordingError?.description.contains("single-value") == true, "\(String(describing: recordingError))")
    }

    /// A state far deeper than any stack holds: an error that says it is too deep.
    @Test(arguments: [5_000, 1_000_000])
    func theHashOfAStateThousandsOfLevelsDeepIsAnErrorNotAStackOverflow(levels: Int) {
        let error = #expect(throws: (any Error).self) {
            try StateHash<Recursion>.structural(Recursion(levels: levels))
        }
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("deeper than"), "\(String(describing: error))")
    }

    /// The hash refuses exactly the states that a snapshot cannot hold, at the same depth.
    @Test func theHashRefusesAStateAtTheSameDepthAsTheRecordersSnapshots() throws {
        var outcomes: [String] = []
        for depth in 505...515 {
            let hashes = (try? StateHash<Nesting>.structural(Nesting(depth: depth))) != nil
            let buffer = RecordingBuffer()
            let recorder = try SessionRecorder<Nesting>(to: .memory(buffer), codecs: counterCodecs, hash: nil)
            let store = Store(
                initialState: Nesting(depth: depth), reducer: Reducer<Nesting> { (_, _: CounterAction) in },
                middleware: [recorder.middleware])
            store.dispatch(CounterAction.increment)
            let snapshots = (try? recorder.close()) != nil
            if hashes != snapshots {
                outcomes.append(
                    "depth \(depth): hash \(hashes ? "accepts" : "refuses"), snapshot \(snapshots ? "accepts" : "refuses")"
                )
            }
        }
        #expect(outcomes.isEmpty, "\(outcomes)")
    }

    /// Recording with hashes and no snapshots: the state becomes too deep in an action; the
    /// recorder stops with an error naming that action, and the replay says the recorder failed
    /// there, after applying the actions before.
    @Test func aRecorderHashingAStateTooDeepStopsWithAnErrorAtThatAction() throws {
        var codecs = ActionCodecs()
        codecs.register(Grow.self, as: "grow")
        let reducer = Reducer<Undo> { (state, action: Grow) in
            state.history = .of(action.entries)
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Undo>(to: .memory(buffer), codecs: codecs, hash: .structural)
        let store = Store(initialState: Undo(), reducer: reducer, middleware: [recorder.middleware])
        store.dispatch(Grow(entries: 3))
        store.dispatch(Grow(entries: 5_000))
        let recordingError = #expect(throws: RecordingError.self) { try recorder.close() }
        #expect(recordingError?.actionIndex == 2)
        #expect(recordingError?.description.contains("deeper than") == true, "\(String(describing: recordingError))")

        let reader = try RecordingReader<Undo>(bytes: buffer.bytes, codecs: codecs)
        let replayed = Store(initialState: reader.initialState, reducer: reducer)
        let replayError = #expect(throws: ReplayError.self) { try reader.replay(into: replayed) }
        #expect(replayError?.code == "recorder-failed", "\(String(describing: replayError))")
        #expect(reader.lastIndex == 1)
    }
}
