import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

// A replay error is one line, `source:line: error: message`, whatever the recording holds: text
// taken from the file (a type name, a hash, the recorder's error, a dictionary key, an action's
// description) shows its line breaks and other control characters escaped.

struct Hunt10ReplayErrorTests {
    private static let header =
        #"{"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","hash":"structural64"}"#

    /// A recording of one `increment`, with its real hash, so that each case below breaks only
    /// the line it means to.
    private static func validLines() throws -> [String] {
        let text = try recordCounterSession([CounterAction.increment])
        return text.split(separator: "\n").map(String.init)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The lines of the recording, each followed by a newline.
        let lines: @Sendable ([String]) -> [String]
        let code: String
        let line: Int
        /// What the message must show, with the control characters escaped.
        let shown: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "an unknown action type",
            lines: { valid in
                [
                    valid[0], valid[1],
                    #"{"index":1,"type":"count\ner\u001b[31m","action":{"increment":{}},"hash":"0000000000000000"}"#,
                ]
                    + valid[3...]
            },
            code: "unknown-action-type", line: 3, shown: #"unknown action type "count\ner\u{1B}[31m""#),
        Case(
            name: "the recorder's error on the end line",
            lines: { valid in Array(valid[0...2]) + [#"{"end":1,"error":"disk\nfull\r\tagain"}"#] },
            code: "recorder-failed", line: 4, shown: #"disk\nfull\r\tagain"#),
        Case(
            name: "a skipped action's type",
            lines: { valid in
                [
                    valid[0], valid[1], #"{"index":1,"skipped":"Secret\nAction","hash":"0000000000000000"}"#,
                    #"{"end":1}"#,
                ]
            },
            code: "skipped-action", line: 3, shown: #"(Secret\nAction)"#),
        Case(
            name: "a bad hash",
            lines: { valid in
                [valid[0], valid[1], #"{"index":1,"type":"counter","action":{"increment":{}},"hash":"12\n45"}"#]
                    + valid[3...]
            },
            code: "corrupted-line", line: 3, shown: #"found "12\n45""#),
        Case(
            name: "a header's format version",
            lines: { _ in [#"{"recording":"ReduxConsumer","format":"1\n0"}"#, #"{"end":0}"#] },
            code: "corrupted-line", line: 1, shown: #""1\n0""#),
        Case(
            name: "a header's hash name",
            lines: { _ in [#"{"recording":"ReduxConsumer","format":"1.0","hash":"struct\nural"}"#, #"{"end":0}"#] },
            code: "hash-function-mismatch", line: 1, shown: #""struct\nural""#),
    ]

    @Test(arguments: cases)
    func replayErrorsStayOnOneLineWithTheFileTextEscaped(_ testCase: Case) throws {
        let lines = testCase.lines(try Self.validLines())
        let text = lines.map { $0 + "\n" }.joined()
        let error = #expect(throws: ReplayError.self) {
            let reader = try counterReader(text)
            try reader.replay(into: makeStore(reader.initialState))
        }
        guard let error else { return }
        #expect(error.code == testCase.code, "\(error)")
        #expect(error.line == testCase.line, "\(error)")
        #expect(isOneLine(error.description), "not one line: \(error.description.debugDescription)")
        #expect(error.description.hasPrefix("recording:\(testCase.line): error: "), "\(error.description)")
        #expect(error.description.contains(testCase.shown), "\(error.description.debugDescription)")
    }

    /// A dictionary key in the path of a value that cannot be decoded comes from the file too.
    @Test func aDictionaryKeyInTheReasonForAnUndecodableStateIsEscaped() {
        struct Scores: Codable, Sendable, Equatable {
            var scores: [String: Int] = [:]
        }
        let text = [
            #"{"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev"}"#,
            #"{"snapshot":0,"state":{"scores":{"a\nb":"x"}}}"#,
            #"{"end":0}"#,
        ].map { $0 + "\n" }.joined()
        let error = #expect(throws: ReplayError.self) {
            try RecordingReader<Scores>(bytes: Array(text.utf8), codecs: counterCodecs)
        }
        #expect(error?.code == "undecodable-state")
        #expect(error?.line == 2)
        #expect(isOneLine(error?.description ?? ""), "\(error?.description.debugDescription ?? "")")
        #expect(error?.description.contains(#"a\nb"#) == true, "\(error?.description.debugDescription ?? "")")
    }

    /// An action whose description shows a field taken from the file: the divergence's first line
    /// (all of it, with no snapshot to diff) names the action with its line breaks escaped.
    @Test func aDivergedActionsDescriptionIsEscaped() throws {
        struct Note: Action, Codable, Equatable, CustomStringConvertible {
            var text: String
            var description: String { "note \(text)" }
        }
        var codecs = ActionCodecs()
        codecs.register(Note.self, as: "note")
        let text = [
            Self.header,
            #"{"snapshot":0,"state":{"counter":0,"works":[]}}"#,
            #"{"index":1,"type":"note","action":{"text":"line one\nline two\u001b[2J"},"hash":"0000000000000000"}"#,
            #"{"end":1}"#,
        ].map { $0 + "\n" }.joined()
        let reader = try RecordingReader<AppState>(bytes: Array(text.utf8), codecs: codecs)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }
        #expect(error?.code == "diverged")
        #expect(error?.line == 3)
        #expect(isOneLine(error?.description ?? ""), "\(error?.description.debugDescription ?? "")")
        #expect(
            error?.description.contains(#"after action 1, note line one\nline two\u{1B}[2J"#) == true,
            "\(error?.description.debugDescription ?? "")")
    }
}

/// Whether `text` has no line break and no other control character.
private func isOneLine(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }
}
