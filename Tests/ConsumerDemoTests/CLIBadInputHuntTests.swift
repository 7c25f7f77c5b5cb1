import ConsumerDemoKit
import Foundation
import Testing

/// `consumer-demo` on bad input: a clear message on standard error and a non-zero exit, never a
/// crash, and the note after a failed replay counts exactly the actions that were applied.
struct CLIBadInputHuntTests {
    /// Records the tour in `directory` and returns its lines.
    private func recordedTour(in directory: String) throws -> [String] {
        let record = runInProcess(["record", "tour.jsonl"], currentDirectory: directory)
        #expect(record.status == .success, "\(record.errors)")
        let text = try String(contentsOfFile: directory + "/tour.jsonl", encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    private func write(_ lines: [String], to path: String) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aReplayStoppedAtASkippedActionSaysHowManyActionsItReallyApplied() throws {
        try withTemporaryDirectory { directory in
            var all = try recordedTour(in: directory)
            let third = try #require(all.firstIndex { $0.hasPrefix(#"{"index":3,"#) })
            // What a recorder with `unregisteredActions: .skip` writes for an action it had no codec for.
            let hash = String(all[third].suffix(18).prefix(16))
            all[third] = #"{"index":3,"skipped":"Foo","hash":"\#(hash)"}"#
            try write(all, to: directory + "/skipped.jsonl")
            let run = runInProcess(["replay", "skipped.jsonl"], currentDirectory: directory)
            #expect(run.status == .badRecording)
            #expect(run.errors.contains("skipped.jsonl:\(third + 1): error: action 3 (Foo) was skipped"), "\(run.errors)")
            #expect(
                run.errors.contains("note: the replay stopped at line \(third + 1) after 2 actions;"), "\(run.errors)")
        }
    }
}
