import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// A seeded differential fuzz of the recording decoder.
///
/// The reader reads action lines laid out as the recorder writes them with a byte scanner and a
/// cache of decoded payloads, and every other layout with its JSON parser. Inserting whitespace
/// where JSON allows it (after the opening brace, after the closing one) keeps a line's meaning
/// and sends it down the general path. So each mutated recording, and the same recording with its
/// lines re-spaced, must end the same way: the same error code on the same line (or none), the same
/// number of actions dispatched and the same state. Each run also checks what every replay must
/// satisfy: a line inside the file, a message, and no action dispatched from a line at or after a
/// bad one (a divergence is found after its action, on its line).
struct RecordingDecoderFuzzHuntTests {
    private static let seed: UInt64 = 0x0B4D_1A9E_2026_1126

    private struct Outcome: Equatable {
        var code: String?
        var line: Int?
        var state: AppState
        var dispatchedLines: [Int]
        var message: String?

        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.code == rhs.code && lhs.line == rhs.line && lhs.state == rhs.state
                && lhs.dispatchedLines.count == rhs.dispatchedLines.count
        }
    }

    /// Replays `bytes` through `RecordingReader.next()`, as a replay loop does, noting the line of
    /// every action dispatched.
    private func replay(_ bytes: [UInt8]) -> Outcome {
        let reader: RecordingReader<AppState>
        do {
            reader = try RecordingReader<AppState>(bytes: bytes, codecs: counterCodecs)
        } catch {
            return Outcome(
                code: error.code, line: error.line, state: AppState(), dispatchedLines: [], message: error.message)
        }
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        var dispatchedLines: [Int] = []
        do {
            while let step = try reader.next() {
                if let action = step.action {
                    store.dispatch(action)
                    dispatchedLines.append(step.line)
                }
                try reader.verify(store.state, after: step)
            }
            return Outcome(code: nil, line: nil, state: store.state, dispatchedLines: dispatchedLines, message: nil)
        } catch {
            return Outcome(
                code: error.code, line: error.line, state: store.state, dispatchedLines: dispatchedLines,
                message: error.message)
        }
    }

    /// The payloads mutations put in action lines: the session's own (so the cache of decoded
    /// payloads is hit), valid ones the session never used, and wrong ones.
    private static let payloads: [String] = [
        #"{"increment":{}}"#, #"{"decrement":{}}"#, #"{"set":{"_0":-3}}"#, #"{"rename":{"_0":"Kim"}}"#,
        #"{"rename":{}}"#, #"{"addWork":{"_0":"doc"}}"#, #"{"clearWorks":{}}"#, #"{"set":{"_0":1e2}}"#,
        #"{"set":{"_0":1.5}}"#, #"{"set":{"_0":9223372036854775808}}"#, #"{"set":{"_0":-0}}"#,
        #"{"set":{"_0":"1"}}"#, #"{"increment":{},"decrement":{}}"#, #""increment""#, "null", "[]", "{}",
        #"{"rename":{"_0":"\u00e9\ud83d\ude00"}}"#, #"{"rename":{"_0":"a\"b\\c\n"}}"#, #"{"addWork":{"_0":"ünï ✓"}}"#,
        #"{"increment":[]}"#, #"{"set":{"_0":01}}"#, #"{"set":{"_0":1,"_0":2}}"#, #"{"increment":{}} "#,
    ]

    private static let types = [#""counter""#, #""Counter""#, #""count\u0065r""#, "1", "null", #""""#]

    private static let otherLines: [String] = [
        #"{"snapshot":0,"state":{"counter":0,"works":[]}}"#, #"{"snapshot":2,"state":{"counter":7,"works":[]}}"#,
        #"{"end":0}"#, #"{"end":2,"error":"boom"}"#, #"{"end":"2"}"#, #"{"index":2,"skipped":"Foo"}"#,
        #"{"index":1,"type":"counter","action":{"increment":{}},"hash":"0000000000000000"}"#,
        #"{"recording":"ReduxConsumer","format":"1.0"}"#, "{}", "[]", #"{"index":-1}"#,
        #"{"index":9223372036854775807,"type":"counter","action":{"increment":{}}}"#,
    ]

    private func session() throws -> [String] {
        let text = try recordCounterSession(
            [
                CounterAction.increment, .rename("Kim"), .increment, .addWork("doc"), .set(-3), .increment,
                .rename(nil), .increment, .addWork("ünï ✓"), .increment,
            ],
            snapshotInterval: 3
        )
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// `line` with whitespace where JSON allows it, so it is no longer in the recorder's layout.
    private func respaced(_ line: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        guard line.first == UInt8(ascii: "{") else { return line }
        var result = line
        if random.next() % 2 == 0 || line.last != UInt8(ascii: "}") {
            result.insert(UInt8(ascii: " "), at: 1)
        } else {
            result.append(UInt8(ascii: "\t"))
        }
        return result
    }

    private func mutate(_ original: [String], _ random: inout SplitMix64) -> [[UInt8]] {
        var lines = original.map { Array($0.utf8) }
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        for _ in 0...(random.next() % 3) {
            let actionLines = lines.indices.filter { lines[$0].starts(with: Array(#"{"index":"#.utf8)) }
            guard !actionLines.isEmpty, !lines.isEmpty else { break }
            let at = Int(random.next() % UInt64(lines.count))
            switch random.next() % 8 {
            case 0, 1:
                // A different payload in an action line, in the recorder's layout.
                let target = pick(actionLines)
                let text = String(decoding: lines[target], as: UTF8.self)
                guard let start = text.range(of: #","action":"#), let end = text.range(of: #","hash":"#) else { break }
                lines[target] = Array((text[..<start.upperBound] + pick(Self.payloads) + text[end.lowerBound...]).utf8)
            case 2:
                let target = pick(actionLines)
                let text = String(decoding: lines[target], as: UTF8.self)
                lines[target] = Array(text.replacingOccurrences(of: #""counter""#, with: pick(Self.types)).utf8)
            case 3:
                lines.insert(Array(pick(Self.otherLines).utf8), at: at)
            case 4:
                lines.insert(lines[pick(actionLines)], at: at)
            case 5:
                lines.remove(at: at)
            case 6:
                // A hash digit changed: a divergence, or a hash that is not hexadecimal.
                let target = pick(actionLines)
                let offset = lines[target].count - 3 - Int(random.next() % 16)
                guard offset > 0 else { break }
                lines[target][offset] = pick(Array("0f9aAZ-".utf8))
            default:
                if !lines[at].isEmpty {
                    lines[at][Int(random.next() % UInt64(lines[at].count))] ^= UInt8(truncatingIfNeeded: random.next())
                }
            }
        }
        return lines
    }

    private func joined(_ lines: [[UInt8]]) -> [UInt8] {
        Array(lines.joined(separator: [0x0A])) + [0x0A]
    }

    @Test func theRecordersLayoutAndAnyOtherLayoutOfTheSameLinesReplayAlike() throws {
        let original = try session()
        var random = SplitMix64(seed: Self.seed)
        for round in 0..<2_000 {
            let lines = mutate(original, &random)
            let bytes = joined(lines)
            let spaced = joined(lines.map { respaced($0, &random) })
            let compact = replay(bytes)
            let general = replay(spaced)
            let context = "seed 0x\(String(Self.seed, radix: 16)), round \(round)"
            #expect(
                compact == general,
                """
                \(context): the recorder's layout and the re-spaced one end differently
                compact: \(compact.code ?? "ok") at \(compact.line ?? 0), \(compact.dispatchedLines.count) dispatched, \
                \(compact.message ?? "")
                general: \(general.code ?? "ok") at \(general.line ?? 0), \(general.dispatchedLines.count) dispatched, \
                \(general.message ?? "")
                \(String(decoding: bytes, as: UTF8.self))
                """)
            for outcome in [compact, general] {
                guard let code = outcome.code, let line = outcome.line else { continue }
                #expect(line >= 1 && line <= lines.count + 1, "\(context): \(code) at line \(line)")
                #expect(outcome.message?.isEmpty == false, "\(context)")
                let last = outcome.dispatchedLines.last ?? 0
                if code == "diverged" {
                    #expect(last == line, "\(context): a divergence is found on the line of its action")
                } else {
                    #expect(
                        last < line, "\(context): action from line \(last) dispatched, at or after bad line \(line)")
                }
            }
        }
    }
}
