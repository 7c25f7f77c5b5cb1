/// A command of `consumer-demo replay --step`, read from one line of standard input.
enum StepCommand: Equatable {
    /// `next` or `n`: apply the next action.
    case next
    /// `back` or `b`: go back one action.
    case back
    /// `jump N` or `j N`: go to the state after action N (0 is the initial state).
    case jump(Int)
    /// `state`: print the current state.
    case state
    /// `help`: list the commands.
    case help
    /// `quit`, `q` or `exit`: stop stepping.
    case quit

    /// The commands as `help` lists them.
    static let helpLines = [
        "Step commands, one per line:",
        "  next, n                     apply the next action and show its diff",
        "  back, b                     go back one action and show the diff that led there",
        "  jump N, j N                 go to the state after action N (0: the initial state)",
        "  state                       print the current state",
        "  help, quit (or q, exit)",
    ]

    private static let names = ["next", "back", "jump", "state", "help", "quit", "exit"]

    /// Parses one line; `nil` for a blank line.
    static func parse(_ line: String) throws(UsageError) -> StepCommand? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let name = words.first else { return nil }
        let arguments = words.dropFirst()
        let command: StepCommand
        switch name {
        case "next", "n": command = .next
        case "back", "b": command = .back
        case "state": command = .state
        case "help": command = .help
        case "quit", "q", "exit": command = .quit
        case "jump", "j":
            guard let argument = arguments.first else {
                throw UsageError(message: "expected an action number after '\(name)', as in 'jump 3'")
            }
            guard let target = Int(argument), target >= 0 else {
                throw UsageError(
                    message:
                        "expected an action number (0, 1, 2, …) after '\(name)', found \(quoted(argument, limit: 40))"
                )
            }
            if let extra = arguments.dropFirst().first {
                throw UsageError(message: "'\(name)' takes one number, found another: \(quoted(extra, limit: 40))")
            }
            return .jump(target)
        default:
            var message = "unknown step command \(quoted(name, limit: 40))"
            if let suggestion = closestMatch(to: name, in: names) {
                message += "; did you mean '\(suggestion)'?"
            } else {
                message += "; expected next, back, jump N, state, help or quit"
            }
            throw UsageError(message: message)
        }
        if let extra = arguments.first {
            throw UsageError(message: "'\(name)' takes no argument, found \(quoted(extra, limit: 40))")
        }
        return command
    }
}
