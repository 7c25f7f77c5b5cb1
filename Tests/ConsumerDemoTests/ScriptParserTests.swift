import ReduxConsumerTestSupport
import Testing

@testable import ConsumerDemoKit

struct ScriptParserTests {
    @Test(arguments: [
        ("increment", AppAction.increment),
        ("  decrement\t", .decrement),
        ("set 5", .set(5)),
        ("set -12", .set(-12)),
        ("set +3", .set(3)),
        ("rename Kim", .rename("Kim")),
        (#"rename "Kim Lee""#, .rename("Kim Lee")),
        (#"rename "say \"hi\" \\o/""#, .rename(#"say "hi" \o/"#)),
        ("rename nil", .rename(nil)),
        (#"rename "nil""#, .rename("nil")),
        (#"rename """#, .rename("")),
        (##"rename "# not a comment""##, .rename("# not a comment")),
        ("rename 김연아", .rename("김연아")),
        (#"add-work "write tests""#, .addWork("write tests")),
        ("remove-work 0", .removeWork(at: 0)),
        ("login alice", .login("alice")),
        ("logout", .logout),
        ("foreground on", .setForeground(true)),
        ("foreground off # back", .setForeground(false)),
        ("increment\r", .increment),
    ])
    func parsesEachCommand(line: String, action: AppAction) throws {
        let statement = try ScriptParser.parse(line)
        #expect(statement?.instruction == .action(action))
    }

    @Test(arguments: ["", "   ", "# a comment", "   # indented comment", "\t"])
    func blankLinesAndCommentsAreNothing(line: String) throws {
        #expect(try ScriptParser.parse(line) == nil)
    }

    @Test func promptCommandsAreParsedWithTheirColumn() throws {
        let statement = try #require(try ScriptParser.parse("   exit"))
        #expect(statement.instruction == .quit)
        #expect(statement.command == "exit")
        #expect(statement.commandColumn == 4)
    }

    @Test(arguments: [
        ("set five", 5, #"expected a number after 'set', found "five""#),
        ("set", 4, "expected a number after 'set'"),
        ("set 1 2", 7, #"'set' takes one argument, found another: "2"; quote text that contains spaces"#),
        (
            "set 99999999999999999999", 5,
            #"number "99999999999999999999" after 'set' is out of range (-9223372036854775808...9223372036854775807)"#
        ),
        (#"rename "Kim"#, 8, #"unterminated string; expected a closing '"'"#),
        (#"rename "Kim\"#, 8, #"unterminated string; expected a closing '"'"#),
        (#"rename "a\qb""#, 10, #"unknown escape '\q' in a string; only \" and \\ are escapes"#),
        (#"rename "Kim"Lee"#, 13, #"expected a space after the closing '"'"#),
        (#"rename Ki"m"#, 10, #"unexpected '"' inside a word; quote the whole word: "like this""#),
        ("rename Kim Lee", 12, #"'rename' takes one argument, found another: "Lee"; quote text that contains spaces"#),
        ("incremnt", 1, #"unknown command "incremnt"; did you mean 'increment'?"#),
        (
            "fly", 1,
            #"unknown command "fly"; expected one of increment, decrement, set, rename, add-work, remove-work, "#
                + "login, logout, foreground"
        ),
        (#""increment""#, 1, #"expected a command, found the string "increment""#),
        ("logout now", 8, #"'logout' takes no argument, found "now""#),
        ("remove-work -1", 13, #"expected an index (0, 1, 2, …) after 'remove-work', found "-1""#),
        ("foreground maybe", 12, #"expected 'on' or 'off' after 'foreground', found "maybe""#),
        (#"login """#, 7, #"expected a user name after 'login', found """#),
        ("add-work", 9, #"expected a work, such as "write tests" after 'add-work'"#),
        ("set \u{1B}[31m", 5, #"expected a number after 'set', found "\u{1B}[31m""#),
    ])
    func reportsWhatWasExpectedAndWhere(line: String, column: Int, message: String) {
        #expect(throws: ScriptError(column: column, message: message)) {
            try ScriptParser.parse(line)
        }
    }

    @Test func longTokensAreCutInMessages() {
        let line = "set " + String(repeating: "x", count: 10_000)
        #expect(
            throws: ScriptError(
                column: 5, message: "expected a number after 'set', found \"\(String(repeating: "x", count: 40))\"…")
        ) {
            try ScriptParser.parse(line)
        }
    }

    @Test func neverCrashesOnRandomInput() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet: [Character] = ["\"", "\\", " ", "\t", "#", "a", "1", "-", "é", "\u{0}", "\u{1B}", "\r", "n"]
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            var line = ""
            for _ in 0..<length {
                line.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            let words = ScriptParser.commandNames
            if generator.next() % 2 == 0 {
                line = words[Int(generator.next() % UInt64(words.count))] + " " + line
            }
            do {
                _ = try ScriptParser.parse(line)
            } catch {
                #expect(error.column >= 1)
                #expect(error.column <= line.count + 1)
            }
        }
    }
}
