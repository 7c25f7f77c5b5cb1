/// The version `consumer-demo --version` prints; the one place it is defined.
public let demoVersion = "0.1.0-dev"

/// Runs `consumer-demo` with `arguments` (without the program name) in `environment`, and returns
/// how it ended.
///
/// This is the whole program: `main.swift` only calls it with the real process and exits with
/// the result, and tests call it in-process with their own ``DemoEnvironment``.
///
/// - Parameters:
///   - arguments: The command line after the program name, such as `["run", "tour.txt"]`.
///   - environment: Standard streams, files and environment variables.
/// - Returns: The exit status; see ``ExitStatus``.
public func runDemo(arguments: [String], environment: DemoEnvironment) -> ExitStatus {
    let status = runCommand(arguments: arguments, environment: environment)
    // Output that could not be written (a full disk, a closed pipe) is lost output: say so, and do
    // not end as if everything ran. A recording being written is finished all the same.
    guard let reason = environment.outputError() else { return status }
    environment.writeError("consumer-demo: error: cannot write to standard output: \(reason)\n")
    return status == .success ? .unreadableFile : status
}

private func runCommand(arguments: [String], environment: DemoEnvironment) -> ExitStatus {
    // `service` has options of its own (see Service/ServiceOptions.swift).
    if arguments.first == "service" {
        return runServiceCommandBlocking(arguments: Array(arguments.dropFirst()), environment: environment)
    }
    let options: DemoOptions
    do {
        options = try ArgumentParser.parse(arguments)
    } catch {
        environment.writeError("consumer-demo: error: \(error.message)\nRun 'consumer-demo --help' for usage.\n")
        return .usageError
    }
    let console = Console(environment: environment, usesColor: options.usesColor(in: environment))
    switch options.command {
    case .help:
        console.line(HelpText.full)
        return .success
    case .version:
        console.line("consumer-demo \(demoVersion)")
        return .success
    case .tour:
        return Tour(console: console, format: options.diffFormat(usesColor: console.usesColor)).run()
    case .repl:
        let prompt = Prompt(console: console, options: options, isInteractive: environment.isInputTerminal)
        return prompt.run(nextLine: environment.readLine)
    case .record(let path):
        return RecordCommand(console: console, options: options, environment: environment).run(path: path)
    case .replay(let path):
        return ReplayCommand(console: console, options: options, environment: environment).run(path: path)
    case .run(path: nil) where environment.isInputTerminal:
        return Prompt(console: console, options: options, isInteractive: true).run(nextLine: environment.readLine)
    case .run(path: nil), .run(path: "-"):
        return ScriptRunner(console: console, options: options).run(name: "<stdin>", nextLine: environment.readLine)
    case .run(path: let path?):
        let text: String
        do {
            text = try environment.readFile(path)
        } catch {
            console.errorLine("consumer-demo: error: cannot read \(quoted(path)): \(error.reason)")
            return .unreadableFile
        }
        var lines = lines(of: text).makeIterator()
        return ScriptRunner(console: console, options: options).run(name: path) { lines.next() }
    }
}

/// The lines of `text`, split at `\n` (a `\r` before it is left for the parser to skip as
/// whitespace); a final line break does not start another line.
func lines(of text: String) -> [String] {
    var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
        String(Substring($0))
    }
    if lines.last == "" {
        lines.removeLast()
    }
    return lines
}
