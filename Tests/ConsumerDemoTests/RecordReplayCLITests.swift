import ConsumerDemoKit
import Foundation
import Testing

/// `consumer-demo record` and `consumer-demo replay`, run in-process against goldens; each test
/// works in a temporary directory of its own.
struct RecordReplayCLITests {
    @Test func recordingTheTourWritesItsGoldenRecordingAndPrintsTheTourAndTheFinalHash() throws {
        try withTemporaryDirectory { directory in
            let run = runInProcess(["record", "tour.jsonl"], currentDirectory: directory)
            #expect(run.status == .success)
            #expect(run.errors == "")
            expectGolden(run.output, named: "record-tour.txt")
            expectGolden(try recording(in: directory), named: "record-tour.jsonl")
        }
    }

    @Test func recordingAScriptPrintsWhatRunPrintsThenTheRecordingsLastHash() throws {
        try withTemporaryDirectory { directory in
            let record = recordTourScript(in: directory)
            #expect(record.status == .success)
            #expect(record.errors == "")
            let text = try recording(in: directory)
            expectGolden(text, named: "record-tour-script.jsonl")
            let run = runInProcess(["run", "Example/scripts/tour.txt"])
            let lastHash = try #require(lastRecordedHash(text))
            #expect(record.output == run.output + "\nrecorded 18 actions to tour.jsonl; final state hash \(lastHash)\n")
        }
    }

    @Test func replayPrintsTheDiffsRunPrintedAndEndsInTheRecordedState() throws {
        withTemporaryDirectory { directory in
            let record = recordTourScript(in: directory)
            let replay = runInProcess(["replay", "tour.jsonl"], currentDirectory: directory)
            #expect(replay.status == .success)
            #expect(replay.errors == "")
            expectGolden(replay.output, named: "replay-tour.txt")
            // Numbered by action rather than by script line, the changes are the same.
            let run = runInProcess(["run", "Example/scripts/tour.txt"])
            #expect(changeLines(replay.output) == changeLines(run.output))
            #expect(changeLines(run.output).count == 18)
            let hash = { (output: String) in output.split(separator: "final state hash ").last.map(String.init) }
            #expect(hash(replay.output) != nil)
            #expect(hash(replay.output) == hash(record.output))
        }
    }

    @Test func replayUntilStopsAfterThatAction() throws {
        withTemporaryDirectory { directory in
            _ = recordTourScript(in: directory)
            let replay = runInProcess(["replay", "tour.jsonl", "--until", "5"], currentDirectory: directory)
            #expect(replay.status == .success)
            #expect(
                replay.output == """
                      1  increment
                           ~ counter: 0 → 1
                      2  increment
                           ~ counter: 1 → 2
                      3  decrement
                           ~ counter: 2 → 1
                      4  set(41)
                           ~ counter: 1 → 41
                      5  increment
                           ~ counter: 41 → 42

                    final state:
                      counter: 42
                      name: nil
                      works: []
                      auth: AuthState(user: nil)
                      foreground: false

                    replayed 5 actions from tour.jsonl; final state hash 5a12c083e0261095

                    """
            )
            let untilZero = runInProcess(["replay", "tour.jsonl", "--until=0"], currentDirectory: directory)
            #expect(untilZero.output.hasPrefix("\nfinal state:\n  counter: 0\n"))
        }
    }

    @Test func replayJSONPrintsOneObjectPerActionWithItsNumberAndLine() throws {
        withTemporaryDirectory { directory in
            _ = recordTourScript(in: directory)
            let replay = runInProcess(["replay", "tour.jsonl", "--json", "--until", "10"], currentDirectory: directory)
            #expect(replay.status == .success)
            let lines = replay.output.split(separator: "\n")
            #expect(lines.count == 10)
            #expect(
                lines.first
                    == #"{"action":"increment","changes":[{"kind":"changed","new":"1","old":"0","path":"counter"}],"index":1,"line":3}"#
            )
            // Line 13 of the recording is the snapshot after action 10, so action 10 is on line 12.
            #expect(lines.last?.hasSuffix(#""index":10,"line":12}"#) == true)
            #expect(replay.errors == "replayed 10 actions from tour.jsonl; final state hash 0a24900e09111416\n")
        }
    }

    @Test func stepMovesForwardBackAndJumpsWithCommandsFromAPipe() throws {
        withTemporaryDirectory { directory in
            _ = recordTourScript(in: directory)
            let step = runInProcess(
                ["replay", "tour.jsonl", "--step"],
                input: [
                    "next", "n", "", "jump 13", "back", "state", "jump 99", "next", "jump 0", "back", "quit", "next",
                ],
                currentDirectory: directory
            )
            #expect(step.status == .success)
            #expect(step.errors == "")
            expectGolden(step.output, named: "replay-step.txt")
        }
    }

    @Test func stepReportsBadCommandsWithTheirLineAndGoesOn() throws {
        withTemporaryDirectory { directory in
            _ = recordTourScript(in: directory)
            let step = runInProcess(
                ["replay", "tour.jsonl", "--step"],
                input: ["nxt", "jump", "jump -1", "jump 2 3", "back 1", "next"],
                currentDirectory: directory
            )
            #expect(step.status == .scriptError)
            #expect(
                step.errors == """
                    <stdin>:1: error: unknown step command "nxt"; did you mean 'next'?
                    <stdin>:2: error: expected an action number after 'jump', as in 'jump 3'
                    <stdin>:3: error: expected an action number (0, 1, 2, …) after 'jump', found "-1"
                    <stdin>:4: error: 'jump' takes one number, found another: "3"
                    <stdin>:5: error: 'back' takes no argument, found "1"

                    """
            )
            #expect(step.output == "  0  (initial state)\n  1  increment\n       ~ counter: 0 → 1\n")
        }
    }

    @Test func stepOnATerminalShowsABannerAndAPrompt() throws {
        withTemporaryDirectory { directory in
            _ = recordTourScript(in: directory)
            let step = runInProcess(
                ["replay", "tour.jsonl", "--step"], input: ["help", "q"], isInputTerminal: true,
                currentDirectory: directory)
            #expect(step.status == .success)
            #expect(step.output.hasPrefix("consumer-demo \(demoVersion): stepping through tour.jsonl;"))
            #expect(step.output.contains("step> Step commands, one per line:\n"))
            #expect(step.output.hasSuffix("step> "))
        }
    }

    @Test func stepStopsBeforeADivergenceAndKeepsTheEarlierStatesReachable() throws {
        try withTemporaryDirectory { directory in
            var lines = try recordingLines(recordingIn: directory)
            lines[6] = lines[6].replacingOccurrences(of: "5a12c083e0261095", with: "5a12c083e0261096")
            try write(lines, to: "diverged.jsonl", in: directory)
            let step = runInProcess(
                ["replay", "diverged.jsonl", "--step"],
                input: ["jump 4", "next", "next", "jump 9", "back"],
                currentDirectory: directory
            )
            #expect(step.status == .replayDiverged)
            #expect(
                step.errors == """
                    diverged.jsonl:7: error: replay diverged after action 5, increment: state hash 5a12c083e0261096 \
                    recorded, 5a12c083e0261095 replayed (no snapshot was recorded after this action to show what differs)

                    """
            )
            #expect(
                step.output == """
                      0  (initial state)
                      4  set(41)
                           ~ counter: 1 → 41
                      (the replay cannot go past action 4: see the error above)
                      (the replay cannot go past action 4: see the error above)
                      4  set(41)
                           ~ counter: 1 → 41
                      (the replay cannot go past action 4: see the error above)
                      3  decrement
                           ~ counter: 2 → 1

                    """
            )
        }
    }
}

// MARK: - Bad input

extension RecordReplayCLITests {
    /// A way to spoil the good recording of `Example/scripts/tour.txt`, and what replaying it says.
    struct BadRecording: Sendable, CustomTestStringConvertible {
        var name: String
        var spoil: @Sendable (inout [String]) -> Void
        var message: String
        var status: ConsumerDemoKit.ExitStatus
        /// The counter in the final state printed: the state before the bad line (4 actions give 41).
        var counter: Int?

        var testDescription: String { name }
    }

    static let badRecordings: [BadRecording] = [
        BadRecording(
            name: "truncated",
            spoil: { lines in lines = Array(lines[..<8]) + [#"{"index":7,"type":"app","act"#] },
            message: "truncated.jsonl:9: error: truncated recording: the last line is cut short "
                + "(it does not end with a newline)",
            status: .badRecording,
            counter: 42
        ),
        BadRecording(
            name: "without-end",
            spoil: { lines in lines = Array(lines[..<9]) + [""] },
            message: "without-end.jsonl:10: error: truncated recording: the recording ends after action 7 without "
                + "its end line (the recorder was not closed; the process may have stopped)",
            status: .badRecording,
            counter: 42
        ),
        BadRecording(
            name: "corrupted",
            spoil: { lines in lines[6] = lines[6].replacingOccurrences(of: #""index":5"#, with: #""index":7"#) },
            message: "corrupted.jsonl:7: error: corrupted line: action 7 follows action 4: actions 5…6 are missing",
            status: .badRecording,
            counter: 41
        ),
        BadRecording(
            name: "foreign",
            spoil: { lines in lines = [#"{"name":"consumer-demo","version":"1.0"}"#, ""] },
            message: "foreign.jsonl:1: error: not a ReduxConsumer recording: its first line is not a recording header "
                + #"("recording":"ReduxConsumer")"#,
            status: .badRecording,
            counter: nil
        ),
        BadRecording(
            name: "unknown-action-type",
            spoil: { lines in lines[6] = lines[6].replacingOccurrences(of: #""type":"app""#, with: #""type":"page""#) },
            message: #"unknown-action-type.jsonl:7: error: unknown action type "page": consumer-demo replays its "#
                + #"own actions only (type "app")"#,
            status: .badRecording,
            counter: 41
        ),
        // The library's messages for these end with advice to a program (register a codec, pass
        // an argument to the reader); the command says what its user can do instead.
        BadRecording(
            name: "skipped-action",
            spoil: { lines in lines[6] = #"{"index":5,"skipped":"Other.Action","hash":"5a12c083e0261095"}"# },
            message: "skipped-action.jsonl:7: error: action 5 (Other.Action) was skipped when recording (it had no "
                + "codec), so the replay cannot reproduce it",
            status: .badRecording,
            counter: 41
        ),
        BadRecording(
            name: "other-hash",
            spoil: { lines in
                lines[0] = lines[0].replacingOccurrences(of: #""hash":"structural64""#, with: #""hash":"sha256""#)
            },
            message: #"other-hash.jsonl:1: error: the recording's hashes come from StateHash "sha256": "#
                + #"consumer-demo verifies "structural64" hashes only"#,
            status: .badRecording,
            counter: nil
        ),
        BadRecording(
            name: "no-initial-state",
            spoil: { lines in lines.remove(at: 1) },
            message: "no-initial-state.jsonl:2: error: the recording has no initial state (a snapshot 0); "
                + "consumer-demo needs one",
            status: .badRecording,
            counter: nil
        ),
        BadRecording(
            name: "not-json",
            spoil: { lines in lines[6] = "increment" },
            message: "not-json.jsonl:7: error: column 1: not JSON: unexpected character 'i'; expected a value",
            status: .badRecording,
            counter: 41
        ),
        BadRecording(
            name: "unclosed-object",
            spoil: { lines in
                lines[6] = lines[6].replacingOccurrences(of: #"{"increment":{}}"#, with: #"{"increment":{}"#)
            },
            message: "unclosed-object.jsonl:7: error: column 76: not JSON: unexpected end of line; expected ',' or '}'",
            status: .badRecording,
            counter: 41
        ),
        BadRecording(
            name: "hash-mismatch",
            spoil: { lines in lines[6] = lines[6].replacingOccurrences(of: "5a12c083e0261095", with: "5a12c083e0261096")
            },
            message: "hash-mismatch.jsonl:7: error: replay diverged after action 5, increment: state hash "
                + "5a12c083e0261096 recorded, 5a12c083e0261095 replayed (no snapshot was recorded after this action "
                + "to show what differs)",
            status: .replayDiverged,
            counter: 42
        ),
        BadRecording(
            name: "newer-major-version",
            spoil: { lines in lines[0] = lines[0].replacingOccurrences(of: #""format":"1.0""#, with: #""format":"2.0""#)
            },
            message:
                "newer-major-version.jsonl:1: error: the recording uses format 2.0, newer than this reader supports "
                + "(1.x); replay it with a newer version of ReduxConsumer",
            status: .badRecording,
            counter: nil
        ),
    ]

    @Test(arguments: badRecordings)
    func badRecordingStopsAtItsLineWithItsExitStatusAndAppliesNothingAfter(_ bad: BadRecording) throws {
        try withTemporaryDirectory { directory in
            var lines = try recordingLines(recordingIn: directory)
            bad.spoil(&lines)
            try write(lines, to: "\(bad.name).jsonl", in: directory)
            let replay = runInProcess(["replay", "\(bad.name).jsonl"], currentDirectory: directory)
            #expect(replay.status == bad.status)
            #expect(replay.errors.hasPrefix(bad.message + "\n"))
            if let counter = bad.counter {
                #expect(replay.errors.contains("note: the replay stopped at line "))
                #expect(replay.errors.contains("; nothing after that line was applied\n"))
                #expect(replay.output.contains("final state:\n  counter: \(counter)\n"))
                #expect(!replay.output.contains("final state hash"))
            } else {
                #expect(replay.output == "")
            }
        }
    }

    @Test func aChangedActionDivergesWithTheDiffAgainstTheSnapshotAfterIt() throws {
        try withTemporaryDirectory { directory in
            var lines = try recordingLines(recordingIn: directory)
            // Action 10 is followed by snapshot 10: the divergence shows what differs.
            lines[11] = lines[11].replacingOccurrences(of: "write tests", with: "write docs")
            try write(lines, to: "changed.jsonl", in: directory)
            let replay = runInProcess(["replay", "changed.jsonl"], currentDirectory: directory)
            #expect(replay.status == .replayDiverged)
            #expect(
                replay.errors == """
                    changed.jsonl:12: error: replay diverged after action 10, addWork("write docs"): state hash \
                    0a24900e09111416 recorded, f5ee742d0380e9f9 replayed (recorded → replayed):
                      ~ works[0]: "write tests" → "write docs"
                    note: the replay stopped at line 12 after 10 actions; nothing after that line was applied

                    """
            )
            #expect(
                replay.output.hasSuffix(
                    #"  works: ["write docs"]"# + "\n  auth: AuthState(user: nil)\n  foreground: false\n"))
        }
    }

    @Test func aMissingRecordingExitsWithStatus3() throws {
        withTemporaryDirectory { directory in
            for arguments in [["replay", "missing.jsonl"], ["replay", "missing.jsonl", "--step"]] {
                let replay = runInProcess(arguments, currentDirectory: directory)
                #expect(replay.status == .unreadableFile)
                #expect(replay.output == "")
                #expect(
                    replay.errors
                        == "consumer-demo: error: cannot read \"missing.jsonl\": No such file or directory (errno 2)\n")
            }
        }
    }

    @Test func recordingWhereNoFileCanBeWrittenExitsWithStatus3() throws {
        withTemporaryDirectory { directory in
            let record = runInProcess(["record", "no/such/directory/tour.jsonl"], currentDirectory: directory)
            #expect(record.status == .unreadableFile)
            #expect(record.output == "")
            #expect(record.errors.hasPrefix("consumer-demo: error: cannot write \"no/such/directory/tour.jsonl\": "))
            let missingScript = runInProcess(
                ["record", "tour.jsonl", "--script", "Example/scripts/missing.txt"], currentDirectory: directory)
            #expect(missingScript.status == .unreadableFile)
            #expect(!FileManager.default.fileExists(atPath: directory + "/tour.jsonl"))
        }
    }

    @Test func recordingAScriptThatFailsKeepsTheActionsBeforeTheBadLine() throws {
        withTemporaryDirectory { directory in
            let record = runInProcess(
                ["record", "errors.jsonl", "--script", "Example/scripts/errors.txt"], currentDirectory: directory)
            #expect(record.status == .scriptError)
            #expect(record.output.contains("\nrecorded 1 action to errors.jsonl; final state hash "))
            let replay = runInProcess(["replay", "errors.jsonl"], currentDirectory: directory)
            #expect(replay.status == .success)
            #expect(replay.output.contains("replayed 1 action from errors.jsonl"))
        }
    }

    @Test(arguments: [
        (["record"], "'record' needs a file: consumer-demo record FILE"),
        (
            ["record", "-"],
            "'record' writes a file, not standard output: name one, e.g. consumer-demo record session.jsonl"
        ),
        (["replay", "a.jsonl", "b.jsonl"], #"'replay' takes one file, found another: "b.jsonl""#),
        (["replay", "a.jsonl", "--script", "x.txt"], "option '--script' applies to 'record' only"),
        (["run", "x.txt", "--until", "3"], "option '--until' applies to 'replay' only"),
        (["record", "a.jsonl", "--step"], "option '--step' applies to 'replay' only"),
        (
            ["replay", "a.jsonl", "--until", "-1"],
            #"option '--until' expects a whole number of at least 0, found "-1""#
        ),
        (
            ["record", "a.jsonl", "--snapshot-interval=0"],
            #"option '--snapshot-interval' expects a whole number of at least 1, found "0""#
        ),
        (
            ["record", "a.jsonl", "--json"],
            "option '--json' applies to 'record' only with '--script'; the tour has none"
        ),
        (["replay", "a.jsonl", "--step", "--json"], "option '--json' cannot be combined with '--step'"),
        (
            ["replay", "a.jsonl", "--step", "--until", "3"],
            "option '--until' cannot be combined with '--step'; type 'jump N' instead"
        ),
        (
            ["replay", "a.jsonl", "--keep-going"],
            "option '--keep-going' does not apply to 'replay': it stops at the first bad line"
        ),
        (["replay-it"], #"unknown command "replay-it"; did you mean 'replay'?"#),
    ])
    func recordingUsageErrorsExitWithStatus2(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usageError)
        #expect(run.errors == "consumer-demo: error: \(message)\nRun 'consumer-demo --help' for usage.\n")
    }
}

// MARK: - Helpers

/// Records `Example/scripts/tour.txt` to `tour.jsonl` in `directory`.
private func recordTourScript(in directory: String) -> DemoRun {
    runInProcess(["record", "tour.jsonl", "--script", "Example/scripts/tour.txt"], currentDirectory: directory)
}

/// The recording `tour.jsonl` in `directory`.
private func recording(in directory: String, named name: String = "tour.jsonl") throws -> String {
    try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
}

/// The lines of a fresh recording of `Example/scripts/tour.txt`, the last one empty (the file
/// ends with a line break).
private func recordingLines(recordingIn directory: String) throws -> [String] {
    let record = recordTourScript(in: directory)
    try #require(record.status == .success)
    return try recording(in: directory).components(separatedBy: "\n")
}

private func write(_ lines: [String], to name: String, in directory: String) throws {
    try lines.joined(separator: "\n").write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
}

/// The hash of the last action line of a recording.
private func lastRecordedHash(_ recording: String) -> String? {
    recording.split(separator: "\n").last { $0.hasPrefix(#"{"index":"#) }?
        .split(separator: #""hash":""#).last?.prefix(16).description
}

/// The change lines of `run` or `replay` output: the lines under each numbered action.
private func changeLines(_ output: String) -> [Substring] {
    output.split(separator: "\n").filter { $0.hasPrefix("       ") }
}
