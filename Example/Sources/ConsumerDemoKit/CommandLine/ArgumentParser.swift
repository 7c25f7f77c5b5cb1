/// Reads `consumer-demo`'s command line into ``DemoOptions``, by hand and strictly.
///
/// - Options may come before or after the command and the file: `run --json tour.txt` and
///   `--json run tour.txt` are the same.
/// - A value follows its option as `--max-value-length=40` or `--max-value-length 40`.
/// - `--` ends the options: what follows is a file name even if it starts with `-`. A lone `-` is
///   the file name for standard input.
/// - An unknown option is rejected with the closest known one (`did you mean '--json'?`); a
///   missing value, a value given to a flag, or an option that does not apply to the command are
///   rejected too.
enum ArgumentParser {
    struct Option: Sendable {
        var name: String
        var valueName: String?
        var apply: @Sendable (inout DemoOptions, String) throws(UsageError) -> Void
    }

    private static let options: [Option] = generalOptions + recordingOptions

    private static let generalOptions: [Option] = [
        Option(name: "--json") { options, _ in options.isJSON = true },
        Option(name: "--keep-going") { options, _ in options.keepsGoing = true },
        Option(name: "--color") { options, _ in options.color = .always },
        Option(name: "--no-color") { options, _ in options.color = .never },
        Option(name: "--max-value-length", valueName: "N") { options, value throws(UsageError) in
            guard let length = Int(value), length >= 1 else {
                throw UsageError(
                    message: "option '--max-value-length' expects a whole number of at least 1, "
                        + "found \(quoted(value, limit: 40))"
                )
            }
            options.maxValueLength = length
        },
        // Read after everything else, so `--help` wins over a command and its options.
        Option(name: "--help") { _, _ in },
        Option(name: "--version") { _, _ in },
    ]

    /// The commands, for suggestions.
    static let commands = ["tour", "run", "repl", "help"] + recordingCommands

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> DemoOptions {
        var result = DemoOptions()
        var positionals: [String] = []
        var wantsHelp = false
        var wantsVersion = false
        var index = arguments.startIndex
        var isEndOfOptions = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if isEndOfOptions || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                isEndOfOptions = true
                continue
            }
            if argument == "-h" {
                wantsHelp = true
                continue
            }
            let (name, inlineValue) = split(argument)
            guard let option = options.first(where: { $0.name == name }) else {
                throw unknownOption(name)
            }
            var value = ""
            if let valueName = option.valueName {
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError(message: "option '\(name)' needs a value: \(name) \(valueName)")
                }
            } else if inlineValue != nil {
                throw UsageError(message: "option '\(name)' takes no value")
            }
            try option.apply(&result, value)
            wantsHelp = wantsHelp || name == "--help"
            wantsVersion = wantsVersion || name == "--version"
        }
        try readCommand(positionals, into: &result)
        if wantsHelp {
            result.command = .help
        } else if wantsVersion {
            result.command = .version
        }
        try checkApplicable(result)
        return result
    }

    /// `--name=value` → (`--name`, `value`); `--name` → (`--name`, `nil`).
    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard let equals = argument.firstIndex(of: "=") else {
            return (argument, nil)
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func unknownOption(_ name: String) -> UsageError {
        let known = options.map(\.name)
        var message = "unknown option \(quoted(name, limit: 40))"
        if let suggestion = closestMatch(to: name, in: known) {
            message += "; did you mean '\(suggestion)'?"
        } else if !name.hasPrefix("--") {
            message += "; options are spelled with two dashes, as in '--json'"
        }
        return UsageError(message: message)
    }

    private static func readCommand(_ positionals: [String], into result: inout DemoOptions) throws(UsageError) {
        guard let name = positionals.first else {
            return
        }
        let operands = positionals.dropFirst()
        switch name {
        case "tour", "repl", "help":
            if let extra = operands.first {
                throw UsageError(message: "'\(name)' takes no argument, found \(quoted(extra, limit: 40))")
            }
            result.command = name == "tour" ? .tour : name == "repl" ? .repl : .help
        case "run":
            if let extra = operands.dropFirst().first {
                throw UsageError(message: "'run' takes one file, found another: \(quoted(extra, limit: 40))")
            }
            result.command = .run(path: operands.first)
        case _ where recordingCommands.contains(name):
            result.command = try recordingCommand(name, operands: operands)
        default:
            var message = "unknown command \(quoted(name, limit: 40))"
            if let suggestion = closestMatch(to: name, in: commands) {
                message += "; did you mean '\(suggestion)'?"
            } else if name.contains(".") || name.contains("/") {
                message += "; to replay a script, use 'consumer-demo run \(name)'"
            }
            throw UsageError(message: message)
        }
    }

    private static func checkApplicable(_ options: DemoOptions) throws(UsageError) {
        try checkRecordingOptions(options)
        guard options.command == .tour else {
            return
        }
        for (isSet, name) in [(options.isJSON, "--json"), (options.keepsGoing, "--keep-going")] where isSet {
            throw UsageError(message: "option '\(name)' applies to 'run' and 'repl', not to the tour")
        }
    }
}
