import ConsumerDemoKit
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct DemoCLITests {
    @Test func builtInTourMatchesItsGolden() {
        let run = runInProcess([])
        #expect(run.status == .success)
        #expect(run.errors == "")
        expectGolden(run.output, named: "tour.txt")
    }

    @Test func tourScriptMatchesItsGolden() {
        let run = runInProcess(["run", "Example/scripts/tour.txt"])
        #expect(run.status == .success)
        #expect(run.errors == "")
        expectGolden(run.output, named: "run-tour.txt")
    }

    @Test func errorsScriptStopsAtTheFirstErrorAndKeepsTheStateReached() {
        let run = runInProcess(["run", "Example/scripts/errors.txt"])
        #expect(run.status == .scriptError)
        #expect(
            run.errors == """
                Example/scripts/errors.txt:5:5: error: expected a number after 'set', found "five"
                note: stopped at the first error; --keep-going runs the remaining lines

                """
        )
        expectGolden(run.output, named: "run-errors.txt")
    }

    @Test func errorsScriptWithKeepGoingReportsEveryBadLineWithItsColumn() {
        let run = runInProcess(["run", "--keep-going", "Example/scripts/errors.txt"])
        #expect(run.status == .scriptError)
        expectGolden(run.errors, named: "run-errors-keep-going.stderr.txt")
        expectGolden(run.output, named: "run-errors-keep-going.txt")
    }

    @Test func standardInputIsReadWithADash() {
        let run = runInProcess(["run", "-"], input: ["increment", "", "rename \"Kim\"  # hi"])
        #expect(run.status == .success)
        #expect(
            run.output == """
                  1  increment
                       ~ counter: 0 → 1
                  3  rename("Kim")
                       + name: "Kim"

                final state:
                  counter: 1
                  name: "Kim"
                  works: []
                  auth: AuthState(user: nil)
                  foreground: false

                """
        )
    }

    @Test func longScriptsReportWorksByTheirPositionAcrossChunks() {
        // Just over one chunk of the demo's `ChunkedList` (1,024 works).
        let script = (0..<1_040).map { #"add-work "work \#($0)""# } + ["remove-work 1030", "remove-work 0"]
        let run = runInProcess(["run", "-"], input: script)
        #expect(run.status == .success)
        #expect(
            run.output.contains(
                """
                1040  addWork("work 1039")
                       + works[1039]: "work 1039"
                1041  removeWork(at: 1030)
                       - works[1030]: "work 1030"
                1042  removeWork(at: 0)
                       - works[0]: "work 0"

                final state:
                  counter: 0
                  name: nil
                  works: ["work 1", "work 2", "work 3",
                """
            )
        )
    }

    @Test func runWithoutAFileReadsStandardInputWhenItIsNotATerminal() {
        let run = runInProcess(["run", "--json"], input: ["set 3"])
        #expect(
            run.output
                == #"{"action":"set(3)","changes":[{"kind":"changed","new":"3","old":"0","path":"counter"}],"line":1}"#
                + "\n")
    }

    @Test func jsonModePrintsOneObjectPerActionThatParsesBack() throws {
        let run = runInProcess(["run", "--json", "Example/scripts/tour.txt"])
        #expect(run.status == .success)
        #expect(run.errors == "")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 18)
        var objects: [[String: Any]] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            objects.append(try #require(object as? [String: Any]))
        }
        #expect(
            objects.map { $0["line"] as? Int } == [5, 6, 7, 8, 9, 11, 12, 13, 14, 16, 17, 18, 19, 21, 22, 23, 24, 25])
        let rename = try #require(objects.first { $0["line"] as? Int == 11 })
        #expect(rename["action"] as? String == #"rename("Kim")"#)
        let changes = try #require(rename["changes"] as? [[String: String]])
        #expect(changes == [["path": "name", "kind": "added", "new": #""Kim""#]])
        let unchanged = try #require(objects.first { $0["line"] as? Int == 23 })
        #expect((unchanged["changes"] as? [Any])?.isEmpty == true)
    }

    @Test func jsonModeKeepsStandardOutputPureAndReportsTheStateOnStandardError() {
        let run = runInProcess(["run", "-", "--json"], input: ["increment", "set x"])
        #expect(run.status == .scriptError)
        #expect(run.output.split(separator: "\n").count == 1)
        #expect(run.errors.hasPrefix("<stdin>:2:5: error: expected a number after 'set', found \"x\"\n"))
        #expect(run.errors.contains("final state:\n  counter: 1\n"))
    }

    @Test func unreadableFileExitsWithStatus3() {
        let run = runInProcess(["run", "Example/scripts/missing.txt"])
        #expect(run.status == .unreadableFile)
        #expect(run.output == "")
        #expect(
            run.errors
                == "consumer-demo: error: cannot read \"Example/scripts/missing.txt\": No such file or directory\n"
        )
    }

    @Test func unreadableFileThroughTheRealProcessEnvironmentNamesTheReason() {
        var environment = DemoEnvironment.process
        let errors = Lock("")
        environment.writeError = { text in errors.withLock { $0 += text } }
        environment.write = { _ in }
        let status = ConsumerDemoKit.runDemo(arguments: ["run", "/nonexistent/script.txt"], environment: environment)
        #expect(status == .unreadableFile)
        #expect(errors.withLock { $0 }.contains("No such file or directory"))
        let directory = ConsumerDemoKit.runDemo(arguments: ["run", "/"], environment: environment)
        #expect(directory == .unreadableFile)
        #expect(errors.withLock { $0 }.contains("Is a directory"))
    }

    @Test(arguments: [
        (["--jsn"], "consumer-demo: error: unknown option \"--jsn\"; did you mean '--json'?"),
        (["rnu"], "consumer-demo: error: unknown command \"rnu\"; did you mean 'run'?"),
        (
            ["--max-value-length"],
            "consumer-demo: error: option '--max-value-length' needs a value: --max-value-length N"
        ),
        (["--json"], "consumer-demo: error: option '--json' applies to 'run' and 'repl', not to the tour"),
    ])
    func usageErrorsExitWithStatus2AndAHint(arguments: [String], message: String) {
        let run = runInProcess(arguments)
        #expect(run.status == .usageError)
        #expect(run.output == "")
        #expect(run.errors == message + "\nRun 'consumer-demo --help' for usage.\n")
    }

    @Test func helpListsCommandsOptionsExitCodesAndExamples() {
        let run = runInProcess(["--help"])
        #expect(run.status == .success)
        expectGolden(run.output, named: "help.txt")
    }

    @Test func versionIsDefinedInOnePlace() {
        #expect(runInProcess(["--version"]).output == "consumer-demo \(demoVersion)\n")
        #expect(demoVersion == "0.1.0-dev")
    }

    @Test func promptAnswersCommandsHelpStateAndQuit() {
        let run = runInProcess(
            ["repl"],
            input: ["increment", "set five", "rename Kim", "state", "quit", "increment"],
            isInputTerminal: true
        )
        #expect(run.status == .scriptError)
        #expect(
            run.output == """
                consumer-demo \(demoVersion): type a command; 'help' lists them, 'quit' leaves.
                >   ~ counter: 0 → 1
                >       ^
                >   + name: "Kim"
                >   counter: 1
                  name: "Kim"
                  works: []
                  auth: AuthState(user: nil)
                  foreground: false
                > 
                """
        )
        #expect(run.errors == "error: expected a number after 'set', found \"five\"\n")
    }

    @Test func runWithoutAFileOnATerminalOpensThePrompt() {
        let run = runInProcess(["run"], input: ["help"], isInputTerminal: true)
        #expect(run.status == .success)
        #expect(run.output.contains("Script commands, one per line:"))
        #expect(run.output.hasSuffix("> \n"))
    }

    @Test(
        arguments: [
            ([], true, [:], true),
            ([], false, [:], false),
            ([], true, ["NO_COLOR": "1"], false),
            ([], true, ["NO_COLOR": ""], true),
            (["--no-color"], true, [:], false),
            (["--color"], false, ["NO_COLOR": "1"], true),
            (["--color", "--no-color"], true, [:], false),
        ] as [([String], Bool, [String: String], Bool)])
    func colorsFollowTheTerminalNoColorAndTheFlags(
        flags: [String],
        isOutputTerminal: Bool,
        variables: [String: String],
        isColored: Bool
    ) {
        let run = runInProcess(
            ["run", "-"] + flags,
            input: ["increment"],
            isOutputTerminal: isOutputTerminal,
            variables: variables
        )
        #expect(run.output.contains("\u{1B}[33m~ counter: 0 → 1\u{1B}[0m") == isColored)
        #expect(run.output.contains("\u{1B}") == isColored)
    }

    @Test func maxValueLengthCutsLongValues() {
        let run = runInProcess(["run", "-", "--max-value-length=6"], input: ["rename \"a long name\""])
        #expect(run.output.contains("+ name: \"a lo…\n"))
    }
}

extension DemoCLITests {
    @Test func neverCrashesOnRandomBytesLongLinesOrUnterminatedQuotes() {
        var generator = SplitMix64(seed: 42)
        var lines: [String] = []
        for _ in 0..<300 {
            let bytes = (0..<Int(generator.next() % 60)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        lines += [
            "rename \"" + String(repeating: "a", count: 200_000),
            "add-work " + String(repeating: "\\", count: 100_000),
            "set " + String(repeating: "9", count: 100_000),
            String(repeating: "\"", count: 10_001),
            "remove-work 0",
            "rename \"unterminated \\\"",
        ]
        for arguments in [["run", "-", "--keep-going"], ["run", "-", "--keep-going", "--json"], ["repl"]] {
            let run = runInProcess(arguments, input: lines)
            #expect(run.status == .scriptError)
            #expect(run.errors.count < 200_000, "messages stay short even for huge lines")
        }
    }
}
