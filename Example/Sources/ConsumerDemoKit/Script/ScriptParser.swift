/// Parses the demo's script language, one line at a time.
///
/// ```text
/// increment | decrement        counter ± 1
/// set N                        counter = N
/// rename NAME | rename nil     name = NAME, or nil
/// add-work TEXT                append to works
/// remove-work INDEX            remove works[INDEX]
/// login USER | logout          auth.user = USER, or nil
/// foreground on|off            foreground = true or false
/// # a comment, and blank lines
/// ```
///
/// Text arguments are a bare word (`Kim`) or a quoted string (`"Kim Lee"`, with `\"` and `\\`).
/// `help`, `state` and `quit` are parsed here and obeyed only at the prompt.
enum ScriptParser {
    /// The commands, in the order `help` lists them.
    static let commandNames = [
        "increment", "decrement", "set", "rename", "add-work", "remove-work", "login", "logout", "foreground",
        "help", "state", "quit", "exit",
    ]

    /// Parses one line; `nil` for a blank line or a comment.
    static func parse(_ line: some StringProtocol) throws(ScriptError) -> Statement? {
        let tokens = try ScriptToken.tokenize(line)
        guard let command = tokens.first else {
            return nil
        }
        let arguments = Array(tokens.dropFirst())
        let argumentColumn = arguments.first?.column ?? command.column
        guard !command.isQuoted else {
            throw ScriptError(
                column: command.column,
                message: "expected a command, found the string \(quoted(command.text, limit: 40))")
        }
        func statement(_ instruction: Statement.Instruction) -> Statement {
            Statement(
                instruction: instruction,
                command: command.text,
                commandColumn: command.column,
                argumentColumn: argumentColumn
            )
        }
        switch command.text {
        case "increment":
            try expectNoArgument(after: command, arguments)
            return statement(.action(.increment))
        case "decrement":
            try expectNoArgument(after: command, arguments)
            return statement(.action(.decrement))
        case "set":
            let value = try number(after: command, arguments)
            return statement(.action(.set(value)))
        case "rename":
            let name = try argument(after: command, arguments, describedAs: "a name (or nil)")
            return statement(.action(.rename(name.isQuoted || name.text != "nil" ? name.text : nil)))
        case "add-work":
            let work = try argument(after: command, arguments, describedAs: "a work, such as \"write tests\"")
            return statement(.action(.addWork(work.text)))
        case "remove-work":
            let index = try index(after: command, arguments)
            return statement(.action(.removeWork(at: index)))
        case "login":
            let user = try argument(after: command, arguments, describedAs: "a user name")
            guard !user.text.isEmpty else {
                throw ScriptError(column: user.column, message: "expected a user name after 'login', found \"\"")
            }
            return statement(.action(.login(user.text)))
        case "logout":
            try expectNoArgument(after: command, arguments)
            return statement(.action(.logout))
        case "foreground":
            let isForeground = try onOff(after: command, arguments)
            return statement(.action(.setForeground(isForeground)))
        case "help":
            try expectNoArgument(after: command, arguments)
            return statement(.help)
        case "state":
            try expectNoArgument(after: command, arguments)
            return statement(.state)
        case "quit", "exit":
            try expectNoArgument(after: command, arguments)
            return statement(.quit)
        default:
            var message = "unknown command \(quoted(command.text, limit: 40))"
            if let suggestion = closestMatch(to: command.text, in: commandNames) {
                message += "; did you mean '\(suggestion)'?"
            } else {
                message +=
                    "; expected one of increment, decrement, set, rename, add-work, remove-work, login, "
                    + "logout, foreground"
            }
            throw ScriptError(column: command.column, message: message)
        }
    }

    private static func expectNoArgument(after command: ScriptToken, _ arguments: [ScriptToken]) throws(ScriptError) {
        if let extra = arguments.first {
            throw ScriptError(
                column: extra.column,
                message: "'\(command.text)' takes no argument, found \(quoted(extra.text, limit: 40))"
            )
        }
    }

    /// The single argument of `command`, described as `expected` in messages.
    private static func argument(
        after command: ScriptToken,
        _ arguments: [ScriptToken],
        describedAs expected: String
    ) throws(ScriptError) -> ScriptToken {
        guard let argument = arguments.first else {
            throw ScriptError(column: command.endColumn, message: "expected \(expected) after '\(command.text)'")
        }
        if arguments.count > 1 {
            let extra = arguments[1]
            var message = "'\(command.text)' takes one argument, found another: \(quoted(extra.text, limit: 40))"
            if !argument.isQuoted {
                message += "; quote text that contains spaces"
            }
            throw ScriptError(column: extra.column, message: message)
        }
        return argument
    }

    private static func number(after command: ScriptToken, _ arguments: [ScriptToken]) throws(ScriptError) -> Int {
        let token = try argument(after: command, arguments, describedAs: "a number")
        if let value = Int(token.text) {
            return value
        }
        throw ScriptError(column: token.column, message: numberProblem(token, expected: "a number", after: command))
    }

    private static func index(after command: ScriptToken, _ arguments: [ScriptToken]) throws(ScriptError) -> Int {
        let expected = "an index (0, 1, 2, …)"
        let token = try argument(after: command, arguments, describedAs: expected)
        if let value = Int(token.text), value >= 0 {
            return value
        }
        throw ScriptError(column: token.column, message: numberProblem(token, expected: expected, after: command))
    }

    private static func numberProblem(_ token: ScriptToken, expected: String, after command: ScriptToken) -> String {
        let digits = token.text.drop { $0 == "-" || $0 == "+" }
        if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), token.text.count > 18 {
            return "number \(quoted(token.text, limit: 40)) after '\(command.text)' is out of range "
                + "(\(Int.min)...\(Int.max))"
        }
        return "expected \(expected) after '\(command.text)', found \(quoted(token.text, limit: 40))"
    }

    private static func onOff(after command: ScriptToken, _ arguments: [ScriptToken]) throws(ScriptError) -> Bool {
        let token = try argument(after: command, arguments, describedAs: "'on' or 'off'")
        switch token.text {
        case "on": return true
        case "off": return false
        default:
            throw ScriptError(
                column: token.column,
                message: "expected 'on' or 'off' after '\(command.text)', found \(quoted(token.text, limit: 40))"
            )
        }
    }
}
