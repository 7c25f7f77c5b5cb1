import ReduxConsumer

/// Replays a script file (or standard input) through a ``ScriptSession``: prints each action and
/// its diff, reports bad lines as `file:line:column: error: …`, and ends with the final state.
struct ScriptRunner {
    let console: Console
    let options: DemoOptions
    /// Middleware installed after the logger, innermost: `record` adds its recorder here.
    var middleware: [Middleware<AppState>] = []

    /// Runs the lines `nextLine` returns until it returns `nil`, naming them `name` in messages.
    func run(name: String, nextLine: () -> String?) -> ExitStatus {
        let session = ScriptSession(
            console: console,
            layout: .numbered,
            isJSON: options.isJSON,
            format: options.diffFormat(usesColor: console.usesColor),
            middleware: middleware
        )
        var errorCount = 0
        var lineNumber = 0
        var stoppedEarly = false
        while let line = nextLine() {
            lineNumber += 1
            do throws(ScriptError) {
                if let promptCommand = try session.perform(line, number: lineNumber) {
                    throw ScriptError(
                        column: promptCommand.commandColumn,
                        message: "'\(promptCommand.command)' works only at the interactive prompt (consumer-demo repl)"
                    )
                }
            } catch {
                errorCount += 1
                console.errorLine("\(ScriptDiagnostic(file: name, line: lineNumber, error: error))")
                if !options.keepsGoing {
                    stoppedEarly = true
                    break
                }
            }
        }
        if stoppedEarly {
            console.errorLine("note: stopped at the first error; --keep-going runs the remaining lines")
        } else if errorCount > 0 {
            console.errorLine("\(errorCount) error\(errorCount == 1 ? "" : "s") in \(name)")
        }
        printFinalState(session.store.state, hadErrors: errorCount > 0)
        return errorCount == 0 ? .success : .scriptError
    }

    /// In text mode the final state closes the output; in JSON mode standard output stays pure
    /// JSON, so the state goes to standard error, and only when something went wrong.
    private func printFinalState(_ state: AppState, hadErrors: Bool) {
        let lines = ["final state:"] + stateDump(state)
        if !options.isJSON {
            console.line()
            for line in lines { console.line(line) }
        } else if hadErrors {
            for line in lines { console.errorLine(line) }
        }
    }
}
