import ReduxConsumer
import ReduxConsumerDiff

/// `consumer-demo replay FILE --step`: moves through a recording with a `ReplayCursor`, one
/// command per line of standard input (`next`, `back`, `jump N`, `state`, `quit`), and after each
/// move shows where it stands: the action that led to the current state and its diff, as `run`
/// prints it, or `0  (initial state)`.
///
/// Works the same whether a person types at a terminal (with a `step> ` prompt) or the commands
/// come from a pipe. A bad line or a divergence is reported on standard error with its line, and
/// the cursor stays before it: no later action is applied, and the states before it stay
/// reachable.
struct StepSession {
    let console: Console
    let format: DiffFormat
    /// Whether to print the banner and the prompt: only when a person is typing.
    let isInteractive: Bool

    /// Where stepping stands: the furthest action a move may reach after an error, and the error.
    private struct Progress {
        var failure: ReplayError?
        var limit: Int?
        var hadBadCommands = false
    }

    func run(_ cursor: ReplayCursor<AppState>, path: String, nextLine: () -> String?) -> ExitStatus {
        if isInteractive {
            console.line("consumer-demo \(demoVersion): stepping through \(path); 'help' lists the commands.")
        }
        showPosition(nil)
        var progress = Progress()
        var lineNumber = 0
        while true {
            if isInteractive {
                console.write("step> ")
            }
            guard let line = nextLine() else {
                if isInteractive { console.line() }
                break
            }
            lineNumber += 1
            let command: StepCommand
            do throws(UsageError) {
                guard let parsed = try StepCommand.parse(line) else { continue }
                command = parsed
            } catch {
                progress.hadBadCommands = true
                console.errorLine(
                    isInteractive ? "error: \(error.message)" : "<stdin>:\(lineNumber): error: \(error.message)")
                continue
            }
            if command == .quit {
                break
            }
            perform(command, on: cursor, path: path, progress: &progress) { message in
                isInteractive ? "error: \(message)" : "<stdin>:\(lineNumber): error: \(message)"
            }
        }
        if let failure = progress.failure {
            return DemoRecording.exitStatus(for: failure)
        }
        return progress.hadBadCommands ? .scriptError : .success
    }

    private func perform(
        _ command: StepCommand, on cursor: ReplayCursor<AppState>, path: String, progress: inout Progress,
        commandError: (String) -> String
    ) {
        do throws(ReplayError) {
            switch command {
            case .next:
                if let limit = progress.limit, cursor.index >= limit {
                    console.line("  (the replay cannot go past action \(limit): see the error above)")
                } else if let step = try cursor.forward() {
                    showPosition(step)
                } else {
                    console.line("  (end of the recording, after action \(cursor.index))")
                }
            case .back:
                if cursor.index == 0 {
                    console.line("  (already at the initial state)")
                } else {
                    showPosition(try cursor.back())
                }
            case .jump(let target):
                let reachable = min(target, progress.limit ?? target)
                showPosition(try cursor.move(to: reachable))
                if reachable < target {
                    console.line("  (the replay cannot go past action \(reachable): see the error above)")
                } else if cursor.index < target {
                    console.line("  (the recording ends at action \(cursor.index))")
                }
            case .state:
                for line in stateDump(cursor.state) { console.line(line) }
            case .help:
                for line in StepCommand.helpLines { console.line(line) }
            case .quit:
                break
            }
        } catch {
            if case .cannotRewind = error.kind {
                // Only this command cannot be done: the cursor did not move, and the recording
                // is not bad, so the replay goes on forward.
                progress.hadBadCommands = true
                console.errorLine(commandError(error.message))
                return
            }
            let failure = DemoRecording.naming(error, path)
            console.errorLine("\(failure)")
            progress.failure = failure
            if case .diverged = error.kind, cursor.index > 0 {
                // The cursor applied the diverging action: step back to the last state the
                // recording confirms (reading lines before the bad one only).
                _ = try? cursor.move(to: cursor.index - 1)
            }
            progress.limit = cursor.index
            console.line("  (the replay cannot go past action \(cursor.index): see the error above)")
        }
    }

    /// The action that led to the current state and its diff, or the initial state.
    private func showPosition(_ step: ReplayStep<AppState>?) {
        guard let step else {
            console.line(rightAligned("0", width: 3) + "  " + console.dim("(initial state)"))
            return
        }
        printNumbered(
            step.index, action: step.recorded.actionDescription, diff: step.diff, format: format, console: console)
    }
}
