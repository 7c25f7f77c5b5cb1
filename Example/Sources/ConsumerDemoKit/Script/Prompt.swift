import ReduxConsumer

/// The interactive mode: reads script commands at a `> ` prompt, prints each diff at once, and
/// obeys `help`, `state` and `quit`.
///
/// A bad line is reported and the session goes on (there is nothing to keep going past). With a
/// terminal, the report points at the column under the line just typed. The session ends with
/// `quit`, `exit` or the end of input, with status 1 if any line failed, as `run --keep-going`.
struct Prompt {
    let console: Console
    let options: DemoOptions
    /// Whether to print the banner and the `> ` prompt: only when a person is typing.
    let isInteractive: Bool

    func run(nextLine: () -> String?) -> ExitStatus {
        let session = ScriptSession(
            console: console,
            layout: .prompt,
            isJSON: options.isJSON,
            format: options.diffFormat(usesColor: console.usesColor)
        )
        if isInteractive {
            console.line("consumer-demo \(demoVersion): type a command; 'help' lists them, 'quit' leaves.")
        }
        var lineNumber = 0
        var hadErrors = false
        while true {
            if isInteractive {
                console.write("> ")
            }
            guard let line = nextLine() else {
                if isInteractive { console.line() }
                break
            }
            lineNumber += 1
            do throws(ScriptError) {
                guard let statement = try session.perform(line, number: lineNumber) else {
                    continue
                }
                switch statement.instruction {
                case .help:
                    for line in HelpText.scriptCommands { console.line(line) }
                case .state:
                    for line in stateDump(session.store.state) { console.line(line) }
                case .quit:
                    return hadErrors ? .scriptError : .success
                case .action:
                    break
                }
            } catch {
                hadErrors = true
                if isInteractive {
                    console.line(String(repeating: " ", count: 1 + error.column) + console.bold("^"))
                    console.errorLine("error: \(error.message)")
                } else {
                    console.errorLine("\(ScriptDiagnostic(file: "<stdin>", line: lineNumber, error: error))")
                }
            }
        }
        return hadErrors ? .scriptError : .success
    }
}
