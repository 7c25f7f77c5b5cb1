import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// Counts decodes of its stand-in, from any thread.
private final class DecodeCounter: Sendable {
    private let count = Lock(0)
    func tick() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// An action that is an object: it must never be dispatched twice.
private final class Ping: Action, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
}

/// A reader reuses the action it decoded from identical payload bytes, and only where parsing the
/// line would have found the same payload.
struct DecodedPayloadsTests {
    private func countingCodecs(_ counter: DecodeCounter) -> ActionCodecs {
        var codecs = ActionCodecs()
        codecs.register(
            CounterAction.self,
            as: "counter",
            encode: { action in
                switch action {
                case .increment: "i"
                case .set(let value): "s\(value)"
                default: "?"
                }
            },
            decode: { (text: String) in
                counter.tick()
                return text == "i" ? CounterAction.increment : CounterAction.set(Int(text.dropFirst()) ?? 0)
            }
        )
        codecs.register(
            Ping.self, as: "ping", encode: { $0.text },
            decode: { text in
                counter.tick()
                return Ping(text)
            })
        return codecs
    }

    /// Records `actions`, replays the recording into a new store; returns how many actions the
    /// replay applied and the state it ended in.
    private func recordAndReplay(_ actions: [any Action], codecs: ActionCodecs) throws -> (Int, AppState) {
        let text = try record(actions, codecs: codecs)
        let reader = try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: codecs)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let replayed = try reader.replay(into: store)
        return (replayed, store.state)
    }

    private func record(_ actions: [any Action], codecs: ActionCodecs) throws -> String {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: codecs, hash: .structural)
        let store = Store(initialState: AppState(), reducer: appReducer, middleware: [recorder.middleware])
        for action in actions { store.dispatch(action) }
        try recorder.close()
        return buffer.text
    }

    @Test func repeatedPayloadsAreDecodedOnceAndReplayTheSame() throws {
        let counter = DecodeCounter()
        let codecs = countingCodecs(counter)
        let actions: [any Action] = (0..<300).map { $0 % 3 == 0 ? CounterAction.set($0 % 4) : CounterAction.increment }
        let text = try record(actions, codecs: codecs)
        let reader = try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: codecs)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 300)
        // `i` and `s0`…`s3`: five payloads.
        #expect(counter.value == 5)
        let expected = Store(initialState: AppState(), reducer: appReducer)
        for action in actions { expected.dispatch(action) }
        #expect(store.state == expected.state)
    }

    @Test func aSessionOfManyDistinctPayloadsDecodesEachOnce() throws {
        let counter = DecodeCounter()
        let codecs = countingCodecs(counter)
        // 200 payloads (`s0`…`s199`), interleaved, three times over: within the table's capacity,
        // so none is decoded twice whatever slots their hashes pick.
        let actions: [any Action] = (0..<600).map { CounterAction.set(($0 * 7) % 200) }
        let (replayed, _) = try recordAndReplay(actions, codecs: codecs)
        #expect(replayed == 600)
        #expect(counter.value == 200)
    }

    @Test func moreDistinctPayloadsThanTheTableHoldsStillReplayExactly() throws {
        let counter = DecodeCounter()
        let codecs = countingCodecs(counter)
        let actions: [any Action] = (0..<2_000).map { CounterAction.set(($0 * 13) % 700) }
        // Every hash is verified, so a wrong reused action would stop the replay.
        let (replayed, state) = try recordAndReplay(actions, codecs: codecs)
        #expect(replayed == 2_000)
        let expected = Store(initialState: AppState(), reducer: appReducer)
        for action in actions { expected.dispatch(action) }
        #expect(state == expected.state)
        #expect(counter.value >= 700)
    }

    @Test func objectsAreDecodedForEveryLine() throws {
        let counter = DecodeCounter()
        let codecs = countingCodecs(counter)
        let text = try record([Ping("a"), Ping("a"), Ping("a")], codecs: codecs)
        let reader = try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: codecs)
        var seen: [Ping] = []
        while let step = try reader.next() {
            seen.append(try #require(step.action as? Ping))
        }
        #expect(counter.value == 3)
        #expect(Set(seen.map(ObjectIdentifier.init)).count == 3)
    }

    @Test(arguments: [
        // A known payload under an unknown type name.
        (#"{"index":2,"type":"countr","action":"i","hash":"HASH"}"#, "unknown-action-type"),
        // A known payload whose line is out of order.
        (#"{"index":3,"type":"counter","action":"i","hash":"HASH"}"#, "corrupted-line"),
        // A known payload followed by a broken hash.
        (#"{"index":2,"type":"counter","action":"i","hash":"HASH!"}"#, "corrupted-line"),
        // A known payload cut short.
        (#"{"index":2,"type":"counter","action":"i"#, "not-json"),
    ])
    func aKnownPayloadOnABadLineIsStillReportedAsTheBadLineItIs(line: String, code: String) throws {
        let counter = DecodeCounter()
        let codecs = countingCodecs(counter)
        let text = try record([CounterAction.increment, CounterAction.increment], codecs: codecs)
        var lines = text.split(separator: "\n").map(String.init)
        let hash = String(lines[3].suffix(18).prefix(16))
        lines[3] = line.replacingOccurrences(of: "HASH", with: hash)
        let reader = try RecordingReader<AppState>(
            bytes: Array((lines.joined(separator: "\n") + "\n").utf8), codecs: codecs)
        #expect(try reader.next()?.index == 1)
        do throws(ReplayError) {
            let step = try reader.next()
            Issue.record("expected \(code), read action \(step?.index ?? 0)")
        } catch {
            #expect(error.code == code)
            #expect(error.line == 4)
        }
    }
}
