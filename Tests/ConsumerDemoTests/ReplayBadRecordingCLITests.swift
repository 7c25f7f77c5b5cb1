import ConsumerDemoKit
import Foundation
import Testing

/// `consumer-demo replay` on damaged recordings, run in-process: exit status 4, the error names
/// the file and the line, and the state reached before the bad line is kept; `--step` never goes
/// past the bad line.
struct ReplayBadRecordingCLITests {
    @Test func replayOfABadRecordingExitsFourNamingTheLineAndKeepsTheStateReached() throws {
        try withTemporaryDirectory { directory in
            let record = runInProcess(["record", "tour.jsonl"], currentDirectory: directory)
            #expect(record.status == .success, "\(record.errors)")
            let all = lines(of: try String(contentsOfFile: directory + "/tour.jsonl", encoding: .utf8))
            let firstAction = try #require(all.firstIndex { $0.hasPrefix(#"{"index":1,"#) })
            // Each case: its name, the file's bytes, what the error says, the line it names.
            var cases: [(String, [UInt8], String, Int)] = []
            cases.append(
                (
                    "cut", Array(all[0...(firstAction + 1)].joined(separator: "\n").utf8.dropLast(5)),
                    "truncated recording", firstAction + 2
                ))
            var garbage = all
            garbage.insert("\u{7F}garbage", at: firstAction + 1)
            cases.append(("garbage", joined(garbage), "not JSON", firstAction + 2))
            var nonUTF8 = joined(all)
            let start = all[0...firstAction].reduce(0) { $0 + $1.utf8.count + 1 }
            nonUTF8[start] = 0xC0
            cases.append(("non-UTF-8", nonUTF8, "not JSON", firstAction + 2))
            var unknown = all
            unknown[firstAction + 1] = unknown[firstAction + 1].replacingOccurrences(
                of: #""type":"app""#, with: #""type":"ap\u0070x""#)
            cases.append(("unknown type", joined(unknown), "unknown action type \"appx\"", firstAction + 2))
            cases.append(("empty", [], "not a ReduxConsumer recording", 1))
            for (name, bytes, message, line) in cases {
                try Data(bytes).write(to: URL(fileURLWithPath: directory + "/bad.jsonl"))
                let run = runInProcess(["replay", "bad.jsonl"], currentDirectory: directory)
                #expect(run.status == .badRecording, "\(name): status \(run.status)")
                #expect(run.errors.contains("bad.jsonl:\(line): error: "), "\(name): \(run.errors)")
                #expect(run.errors.contains(message), "\(name): \(run.errors)")
                if line > 1 {
                    #expect(run.output.contains("final state:"), "\(name)")
                    #expect(run.output.contains("counter: 1"), "\(name): the first action was applied\n\(run.output)")
                }
            }
        }
    }

    @Test func stepStopsAtABadLineAndDoesNotGoPastItWithJumpOrNext() throws {
        try withTemporaryDirectory { directory in
            _ = runInProcess(["record", "tour.jsonl"], currentDirectory: directory)
            var all = lines(of: try String(contentsOfFile: directory + "/tour.jsonl", encoding: .utf8))
            let third = try #require(all.firstIndex { $0.hasPrefix(#"{"index":3,"#) })
            all.insert("not json", at: third)
            try Data(joined(all)).write(to: URL(fileURLWithPath: directory + "/bad.jsonl"))
            let run = runInProcess(
                ["replay", "bad.jsonl", "--step"],
                input: ["jump 10", "next", "back", "next", "next", "jump 12", "state", "quit"],
                currentDirectory: directory)
            #expect(run.status == .badRecording, "\(run.errors)")
            #expect(run.errors.contains("bad.jsonl:\(third + 1): error: column 1: not JSON"), "\(run.errors)")
            #expect(!run.output.contains("\n  3  "), "action 3, after the bad line, was shown:\n\(run.output)")
        }
    }
}

/// The lines of a recording, without the empty one after its last line break.
private func lines(of text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

/// A recording's bytes from its lines.
private func joined(_ lines: [String]) -> [UInt8] {
    Array((lines.joined(separator: "\n") + "\n").utf8)
}
