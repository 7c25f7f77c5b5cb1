import ConsumerDemoKit
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
            #expect(
                run.errors.contains("skipped.jsonl:\(third + 1): error: action 3 (Foo) was skipped"), "\(run.errors)")
            #expect(
                run.errors.contains("note: the replay stopped at line \(third + 1) after 2 actions;"), "\(run.errors)")
        }
    }

    /// `back` on a recording read from a pipe cannot be done, and says so; but the recording is
    /// not bad: `next` still moves forward through it, and the exit status is that of a bad
    /// `--step` command (1), not of a bad recording (4).
    @Test func stepBackOnAPipeIsABadCommandAndTheReplayStillMovesForward() throws {
        try withTemporaryDirectory { directory in
            let all = try recordedTour(in: directory)
            let fifo = directory + "/tour.fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            let written = DispatchSemaphore(value: 0)
            // Opening a FIFO for writing waits for its reader: the replay below.
            Thread {
                let bytes = Array((all.joined(separator: "\n") + "\n").utf8)
                let descriptor = open(fifo, O_WRONLY)
                if descriptor >= 0 {
                    #if canImport(Glibc)
                        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                        Glibc.close(descriptor)
                    #else
                        _ = bytes.withUnsafeBytes { Darwin.write(descriptor, $0.baseAddress, $0.count) }
                        Darwin.close(descriptor)
                    #endif
                }
                written.signal()
            }.start()
            let run = runInProcess(
                ["replay", "tour.fifo", "--step"], input: ["next", "back", "next", "next"], currentDirectory: directory)
            written.wait()
            #expect(run.errors.contains("<stdin>:2: error: cannot step back"), "\(run.errors)")
            #expect(!run.output.contains("cannot go past"), "\(run.output)")
            #expect(run.output.contains("  3  "), "the replay went on to action 3\n\(run.output)")
            #expect(run.status == .scriptError, "\(run.status)")
        }
    }

    /// Seeded random scripts (known commands, odd arguments, quotes, escapes, control and
    /// non-ASCII characters) end with status 0 or 1 and, on 1, an error that names its line and
    /// column; never a crash.
    @Test func randomScriptsEndWithAClearErrorOrSuccess() {
        let seed: UInt64 = 0x5C41_B7D0_2026_1126
        var random = SplitMix64(seed: seed)
        let words = [
            "increment", "decrement", "set", "rename", "add-work", "remove-work", "login", "logout", "foreground",
            "background", "nil", "-1", "0", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
            "\"Kim\"", "\"", "\"a\\\"b\"", "\"\\n\"", "#", "é", "\u{301}", "\u{2028}", "\r", "\t", "\u{0}", "\"\u{301}",
            "🇰🇷", "true", "1e3", "--json",
        ]
        for round in 0..<300 {
            let lines = (0..<(1 + random.next() % 4)).map { _ in
                (0..<(random.next() % 5)).map { _ in words[Int(random.next() % UInt64(words.count))] }
                    .joined(separator: random.next() % 4 == 0 ? "\t" : " ")
            }
            let run = runInProcess(["run", "-", "--keep-going"], input: lines)
            let context = "seed 0x\(String(seed, radix: 16)), round \(round): \(lines)"
            #expect(run.status == .success || run.status == .scriptError, "\(context): \(run.status)")
            if run.status == .scriptError {
                #expect(run.errors.contains("<stdin>:"), "\(context): \(run.errors)")
            }
        }
    }

    /// `record FILE --script SCRIPT` where FILE is the script itself (by the same path or another
    /// link to it) would overwrite the script with the recording: refused, and the script kept.
    /// Also through a symbolic link, either way round (found by a red-team run: links were not
    /// followed), and with the script read from standard input redirected from the recording.
    @Test(arguments: ["same path", "hard link", "symbolic link to the script", "script is a symbolic link"])
    func recordingOverItsOwnScriptIsRefusedAndTheScriptKept(how: String) throws {
        try withTemporaryDirectory { directory in
            let script = directory + "/session.txt"
            let text = "increment\nrename \"Kim\"\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: script))
            var target = script
            var scriptArgument = script
            switch how {
            case "hard link":
                target = directory + "/link.txt"
                #expect(link(script, target) == 0)
            case "symbolic link to the script":
                target = directory + "/link.jsonl"
                #expect(symlink(script, target) == 0)
            case "script is a symbolic link":
                scriptArgument = directory + "/script-link.txt"
                #expect(symlink(script, scriptArgument) == 0)
            default:
                break
            }
            let run = runInProcess(["record", target, "--script", scriptArgument])
            #expect(run.status == .usageError, "\(run.status): \(run.errors)")
            #expect(run.errors.contains("script"), "\(run.errors)")
            #expect(try String(contentsOfFile: script, encoding: .utf8) == text, "the script was overwritten")
        }
    }

    @Test func recordingOverTheFileStandardInputReadsIsRefusedAndTheFileKept() throws {
        try withTemporaryDirectory { directory in
            let script = directory + "/session.txt"
            let text = "increment\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: script))
            let input = open(script, O_RDONLY)
            #expect(input >= 0)
            defer { close(input) }
            var environment = DemoEnvironment.process
            environment.standardInputDescriptor = input
            let errors = Lock("")
            environment.write = { _ in }
            environment.writeError = { text in errors.withLock { $0 += text } }
            let status = runDemo(arguments: ["record", script, "--script", "-"], environment: environment)
            #expect(status == .usageError, "\(status): \(errors.withLock { $0 })")
            #expect(errors.withLock { $0 }.contains("standard input"))
            #expect(try String(contentsOfFile: script, encoding: .utf8) == text, "the script was overwritten")
        }
    }

    /// Standard output that cannot be written (a closed pipe, a full disk: see `.ci/run` for the
    /// real process) is reported, and the run does not end as a success; a recording being written
    /// is finished all the same.
    @Test func outputThatCannotBeWrittenIsReportedAndTheRecordingFinished() throws {
        try withTemporaryDirectory { directory in
            let script = directory + "/session.txt"
            try Data("increment\nrename \"Kim\"\n".utf8).write(to: URL(fileURLWithPath: script))
            let recording = directory + "/session.jsonl"
            let errors = Lock("")
            var environment = DemoEnvironment(
                variables: [:], isInputTerminal: false, isOutputTerminal: false, readLine: { nil },
                readFile: { path throws(FileReadError) in
                    guard let data = FileManager.default.contents(atPath: path) else {
                        throw FileReadError(reason: "No such file or directory")
                    }
                    return String(decoding: data, as: UTF8.self)
                },
                write: { _ in }, writeError: { text in errors.withLock { $0 += text } })
            environment.outputError = { "Broken pipe" }
            let status = runDemo(arguments: ["record", recording, "--script", script], environment: environment)
            #expect(status == .unreadableFile)
            #expect(errors.withLock { $0 }.contains("cannot write to standard output: Broken pipe"))
            let replayed = runInProcess(["replay", recording])
            #expect(replayed.status == .success, "\(replayed.errors)")
            #expect(replayed.output.contains("replayed 2 actions"), "\(replayed.output)")
        }
    }

    /// A script that never ends (`run /dev/zero`) is refused after 64 MiB, not read until memory
    /// runs out.
    @Test func aScriptThatNeverEndsIsRefused() {
        #expect {
            _ = try DemoEnvironment.process.readFile("/dev/zero")
        } throws: { error in
            (error as? FileReadError)?.reason.contains("larger than 64 MiB") == true
        }
    }

    /// A script with no action records a recording that opens and replays (to the initial state).
    @Test func recordingAScriptWithNoActionGivesAReplayableRecording() throws {
        try withTemporaryDirectory { directory in
            let script = directory + "/empty.txt"
            try Data("# nothing yet\n".utf8).write(to: URL(fileURLWithPath: script))
            let recording = directory + "/empty.jsonl"
            let recorded = runInProcess(["record", recording, "--script", script])
            #expect(recorded.status == .success, "\(recorded.errors)")
            #expect(recorded.output.contains("recorded 0 actions"), "\(recorded.output)")
            let replayed = runInProcess(["replay", recording])
            #expect(replayed.status == .success, "\(replayed.errors)")
        }
    }
}
