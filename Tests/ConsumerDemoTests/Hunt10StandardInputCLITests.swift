import ConsumerDemoKit
import Foundation
import Testing

/// `-` as a file name means standard input, as Unix users expect: `replay -` replays a recording
/// piped in, and `record --script -` records a script piped in.
struct Hunt10StandardInputCLITests {
    /// The golden recording of `Example/scripts/tour.txt`.
    private func tourRecording() throws -> [UInt8] {
        let url = packageRoot.appendingPathComponent("Tests/ConsumerDemoTests/Golden/record-tour-script.jsonl")
        return Array(try Data(contentsOf: url))
    }

    @Test func replayDashReplaysTheRecordingOnStandardInputAsItWouldTheFile() throws {
        let bytes = try tourRecording()
        try withTemporaryDirectory { directory in
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/tour.jsonl"))
            let fromFile = runInProcess(["replay", "tour.jsonl"], currentDirectory: directory)
            let fromInput = runInProcess(["replay", "-"], inputBytes: bytes, currentDirectory: directory)
            #expect(fromInput.status == .success, "\(fromInput.errors)")
            #expect(fromInput.errors == "")
            #expect(fromFile.status == .success)
            #expect(
                fromInput.output
                    == fromFile.output.replacingOccurrences(of: "from tour.jsonl;", with: "from <stdin>;"))
            #expect(fromInput.output.contains("replayed 18 actions from <stdin>; final state hash "))
        }
    }

    @Test func replayDashWithJSONAndUntilReadsStandardInputToo() throws {
        let replay = runInProcess(["replay", "-", "--json", "--until", "2"], inputBytes: try tourRecording())
        #expect(replay.status == .success, "\(replay.errors)")
        #expect(replay.output.split(separator: "\n").count == 2)
        #expect(replay.errors.hasPrefix("replayed 2 actions from <stdin>; "), "\(replay.errors)")
    }

    /// A bad recording on standard input is named `<stdin>` with its line, as `run -` names a
    /// script, and stops with the status of a bad recording.
    @Test func aBadRecordingOnStandardInputIsNamedWithItsLine() throws {
        var lines = String(decoding: try tourRecording(), as: UTF8.self).components(separatedBy: "\n")
        lines[4] = #"{"index":3,"type":"page","action":{}}"#
        let replay = runInProcess(["replay", "-"], inputBytes: Array(lines.joined(separator: "\n").utf8))
        #expect(replay.status == .badRecording)
        #expect(
            replay.errors.hasPrefix(
                #"<stdin>:5: error: unknown action type "page": consumer-demo replays its own actions only (type "app")"#
                    + "\nnote: the replay stopped at line 5 after 2 actions; nothing after that line was applied\n"),
            "\(replay.errors)")
    }

    @Test func anEmptyStandardInputIsNotARecording() {
        let replay = runInProcess(["replay", "-"], inputBytes: [])
        #expect(replay.status == .badRecording)
        #expect(replay.errors.hasPrefix("<stdin>:1: error: not a ReduxConsumer recording: it is empty\n"))
    }

    /// `--step` reads its commands from standard input: it cannot also read the recording there.
    @Test func stepRefusesARecordingOnStandardInput() {
        let step = runInProcess(["replay", "-", "--step"], input: ["next"])
        #expect(step.status == .usageError)
        #expect(step.errors.contains("'--step'"), "\(step.errors)")
        #expect(step.errors.contains("'-'"), "\(step.errors)")
    }

    @Test func recordReadsItsScriptFromStandardInputWithDash() throws {
        try withTemporaryDirectory { directory in
            let record = runInProcess(
                ["record", "session.jsonl", "--script", "-"], input: ["increment", "rename \"Kim\""],
                currentDirectory: directory)
            #expect(record.status == .success, "\(record.errors)")
            #expect(record.output.contains("recorded 2 actions to session.jsonl; final state hash "))
            let replay = runInProcess(
                ["replay", "-"],
                inputBytes: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/session.jsonl"))))
            #expect(replay.status == .success, "\(replay.errors)")
            #expect(replay.output.contains("replayed 2 actions from <stdin>; "))
        }
    }

    @Test func theHelpSaysThatDashReadsStandardInputForReplay() {
        let help = runInProcess(["--help"])
        #expect(
            help.output.contains("consumer-demo replay FILE   replay a recording, printing each diff; FILE - reads"))
    }
}
