import Testing

@testable import ConsumerDemoKit

struct ArgumentParserTests {
    @Test func noArgumentsIsTheTour() throws {
        #expect(try ArgumentParser.parse([]) == DemoOptions())
    }

    @Test(arguments: [
        ["run", "--max-value-length=40", "a.txt"],
        ["run", "--max-value-length", "40", "a.txt"],
        ["--max-value-length", "40", "run", "a.txt"],
        ["run", "a.txt", "--max-value-length=40"],
    ])
    func valuesFollowTheirOptionWithAnEqualsSignOrAsTheNextArgument(arguments: [String]) throws {
        var expected = DemoOptions()
        expected.command = .run(path: "a.txt")
        expected.maxValueLength = 40
        #expect(try ArgumentParser.parse(arguments) == expected)
    }

    @Test func flagsCombineInAnyOrder() throws {
        let options = try ArgumentParser.parse(["--keep-going", "run", "--json", "-", "--no-color"])
        #expect(options.command == .run(path: "-"))
        #expect(options.isJSON)
        #expect(options.keepsGoing)
        #expect(options.color == .never)
    }

    @Test func doubleDashEndsOptions() throws {
        let options = try ArgumentParser.parse(["run", "--", "--json"])
        #expect(options.command == .run(path: "--json"))
        #expect(!options.isJSON)
    }

    @Test func helpWinsOverEverythingElse() throws {
        #expect(try ArgumentParser.parse(["run", "x.txt", "--json", "-h"]).command == .help)
        #expect(try ArgumentParser.parse(["--version", "--help"]).command == .help)
        #expect(try ArgumentParser.parse(["help"]).command == .help)
        #expect(try ArgumentParser.parse(["--version"]).command == .version)
    }

    @Test(arguments: [
        (["--jsn"], #"unknown option "--jsn"; did you mean '--json'?"#),
        (["--colour"], #"unknown option "--colour"; did you mean '--color'?"#),
        (["--keepgoing"], #"unknown option "--keepgoing"; did you mean '--keep-going'?"#),
        (["--frobnicate"], #"unknown option "--frobnicate""#),
        (["-json"], #"unknown option "-json"; did you mean '--json'?"#),
        (["-x"], #"unknown option "-x"; options are spelled with two dashes, as in '--json'"#),
        (["--max-value-length"], "option '--max-value-length' needs a value: --max-value-length N"),
        (["--max-value-length", "--json"], "option '--max-value-length' needs a value: --max-value-length N"),
        (
            ["--max-value-length=zero"],
            #"option '--max-value-length' expects a whole number of at least 1, found "zero""#
        ),
        (["--max-value-length=0"], #"option '--max-value-length' expects a whole number of at least 1, found "0""#),
        (["--json=yes", "run"], "option '--json' takes no value"),
        (["rnu"], #"unknown command "rnu"; did you mean 'run'?"#),
        (["tour.txt"], #"unknown command "tour.txt"; to replay a script, use 'consumer-demo run tour.txt'"#),
        (["run", "a.txt", "b.txt"], #"'run' takes one file, found another: "b.txt""#),
        (["repl", "x"], #"'repl' takes no argument, found "x""#),
        (["--keep-going"], "option '--keep-going' applies to 'run' and 'repl', not to the tour"),
    ])
    func rejectsBadCommandLinesWithAHint(arguments: [String], message: String) {
        #expect(throws: UsageError(message: message)) {
            try ArgumentParser.parse(arguments)
        }
    }

    @Test(arguments: [
        ("json", "json", 0),
        ("jsn", "json", 1),
        ("", "abc", 3),
        ("kitten", "sitting", 3),
        ("rnu", "run", 1),
        ("abcd", "badc", 2),
        ("김연아", "김연", 1),
    ])
    func editDistanceCountsCharacterEdits(source: String, target: String, distance: Int) {
        #expect(editDistance(source, target) == distance)
    }
}
