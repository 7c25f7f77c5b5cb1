import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// A JSON object in a recording whose members share a name is refused where it is, with the name:
/// RFC 8259 leaves its meaning open, and decoding it kept the first value and dropped the other
/// without a word (found by a red-team run). Two spellings of one name (`"a"` and `"\u0061"`)
/// are the same name; objects of any size are checked in linear time.
struct DuplicateMemberNameTests {
    /// A recording of `set(5)` then `increment`, with the structural hash.
    private static func recording() throws -> String {
        try recordCounterSession([CounterAction.set(5), CounterAction.increment])
    }

    /// Replays `text` into a fresh store and returns the error and the store's state after it.
    private static func replayError(_ text: String) throws -> (error: ReplayError?, state: AppState) {
        let reader = try counterReader(text)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        return (error, store.state)
    }

    @Test(arguments: [
        (#"{"_0":5,"_0":6}"#, 8),
        (#"{"_0":5,"\u005F0":6}"#, 8),
        (#"{"\u005f0":5, "_0" :6}"#, 14),
    ])
    func anActionPayloadWithARepeatedMemberNameIsRefusedAtTheRepeat(payload: String, offsetInPayload: Int) throws {
        let text = try Self.recording()
        let line = try #require(text.split(separator: "\n").first { $0.contains(#""set""#) })
        let bad = text.replacingOccurrences(
            of: String(line), with: line.replacingOccurrences(of: #"{"_0":5}"#, with: payload))
        let (error, state) = try Self.replayError(bad)
        #expect(error?.code == "not-json", "\(error?.description ?? "")")
        #expect(error?.line == 3)
        #expect(error?.message.contains("appears twice") == true, "\(error?.description ?? "")")
        let payloadColumn = try #require(line.firstRange(of: #"{"_0":5}"#)).lowerBound.utf16Offset(in: line) + 1
        #expect(
            error?.description.contains("column \(payloadColumn + offsetInPayload)") == true,
            "\(error?.description ?? "")")
        #expect(state == AppState())
    }

    @Test func aSnapshotWithARepeatedMemberNameIsRefused() throws {
        let text = try Self.recording()
        let bad = text.replacingOccurrences(of: #"{"counter":0,"#, with: #"{"counter":0,"counter":9,"#)
        #expect(bad != text)
        #expect {
            _ = try counterReader(bad)
        } throws: { error in
            guard let error = error as? ReplayError else { return false }
            return error.line == 2 && error.message.contains(#""counter" appears twice"#)
        }
    }

    /// Past the pairwise limit the names go through a set: a repeat among many names is found,
    /// as is a repeat nested inside a member's value, and many distinct names are accepted.
    @Test(arguments: [9, 100, 5_000])
    func largeObjectsAreCheckedWhole(members: Int) throws {
        let distinct = (0..<members).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let good = try Self.recording().replacingOccurrences(
            of: #"{"_0":5}"#, with: #"{"_0":5,"extra":{"# + distinct + "}}")
        let reader = try counterReader(good)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 2)
        #expect(store.state.counter == 6)

        let repeated = distinct + #","k\#(members / 2)":0"#
        let bad = try Self.recording().replacingOccurrences(
            of: #"{"_0":5}"#, with: #"{"_0":5,"extra":{"# + repeated + "}}")
        let (error, state) = try Self.replayError(bad)
        #expect(error?.code == "not-json", "\(error?.description ?? "")")
        #expect(error?.message.contains(#""k\#(members / 2)" appears twice"#) == true, "\(error?.description ?? "")")
        #expect(state == AppState())
    }

    @Test func aLongRepeatedNameIsQuotedShortened() throws {
        let name = String(repeating: "n", count: 200)
        let bad = try Self.recording().replacingOccurrences(
            of: #"{"_0":5}"#, with: #"{"_0":5,"\#(name)":1,"\#(name)":2}"#)
        let (error, _) = try Self.replayError(bad)
        let message = try #require(error?.message)
        #expect(message.contains("…\" appears twice") == false)
        #expect(message.contains("… appears twice"))
        #expect(!message.contains(String(repeating: "n", count: 61)), "\(message)")
    }
}
