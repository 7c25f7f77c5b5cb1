import Foundation
import ReduxConsumer
import ReduxConsumerDiff

/// `consumer-demo replay FILE [--until N] [--json]`: replays a recording (`-` reads it from standard
/// input) into a store whose
/// logging middleware prints every action's diff as `run` does, verifying the recorded state hash
/// after each action.
///
/// It stops at the first bad line or divergence, printing the error (`FILE:LINE: error: …`) on
/// standard error: nothing after that line is applied. Then, like `run`, it prints the state
/// reached, and on success the hash of that state, to compare with the one `record` printed.
struct ReplayCommand {
    let console: Console
    let options: DemoOptions
    let environment: DemoEnvironment

    /// Replays the recording at `path`, or on standard input when `path` is `-`.
    func run(path: String) -> ExitStatus {
        let isStandardInput = path == "-"
        // Messages name the file as the user typed it, and standard input as `run -` does.
        let path = isStandardInput ? DemoRecording.standardInputName : path
        let reader: RecordingReader<AppState>
        do {
            reader =
                try isStandardInput
                ? DemoRecording.openStandardInput(in: environment) : DemoRecording.open(path, in: environment)
        } catch {
            console.errorLine(DemoRecording.message(for: error))
            return DemoRecording.exitStatus(for: error)
        }
        if options.recording.isStepping {
            let session = StepSession(
                console: console,
                format: options.diffFormat(usesColor: console.usesColor),
                isInteractive: environment.isInputTerminal
            )
            return session.run(
                ReplayCursor(reader: reader, reducer: appReducer), path: path, nextLine: environment.readLine)
        }
        let entries = Lock<[ActionLogger<AppState>.Entry]>([])
        let logger = ActionLogger<AppState>(format: options.diffFormat(usesColor: console.usesColor)) { entry in
            entries.withLock { $0.append(entry) }
        }
        let store = Store(initialState: reader.initialState, reducer: appReducer, middleware: [logger.middleware])
        var failure: ReplayError?
        do {
            while options.recording.lastIndex.map({ reader.lastIndex < $0 }) ?? true, let step = try reader.next() {
                if let action = step.action {
                    store.dispatch(action)
                }
                let logged = entries.withLock { entries in
                    defer { entries.removeAll() }
                    return entries
                }
                for entry in logged {
                    show(entry, step: step)
                }
                if reader.canVerify(step) {
                    try reader.verify(store.state, after: step)
                }
            }
        } catch {
            failure = DemoRecording.naming(error, path)
        }
        return finish(store.state, replayed: reader.lastIndex, path: path, failure: failure)
    }

    private func show(_ entry: ActionLogger<AppState>.Entry, step: RecordedStep<AppState>) {
        if options.isJSON {
            let record = ReplayRecord(
                index: step.index, line: step.line, action: "\(entry.action)", changes: entry.diff.changes)
            console.line(record.encoded())
        } else {
            printNumbered(
                step.index, action: "\(entry.action)", diff: entry.diff, format: entry.format, console: console)
        }
    }

    /// Reports the error, if any, and prints the state reached and, on success, its hash. In JSON
    /// mode standard output stays one object per action: the state goes to standard error, and
    /// only after an error, as with `run`.
    private func finish(_ state: AppState, replayed count: Int, path: String, failure: ReplayError?) -> ExitStatus {
        let actions = "\(count) action\(count == 1 ? "" : "s")"
        if let failure {
            console.errorLine(DemoRecording.message(for: failure))
            console.errorLine(
                "note: the replay stopped at line \(failure.line) after \(actions); nothing after that line was applied"
            )
        }
        let finalState = ["final state:"] + stateDump(state)
        let summary = "replayed \(actions) from \(path); final state hash \(DemoRecording.hashText(of: state))"
        if !options.isJSON {
            console.line()
            for line in finalState { console.line(line) }
            if failure == nil {
                console.line()
                console.line(summary)
            }
        } else if failure != nil {
            for line in finalState { console.errorLine(line) }
        } else {
            console.errorLine(summary)
        }
        return failure.map(DemoRecording.exitStatus) ?? .success
    }
}

/// One replayed action in `--json` mode:
/// `{"action":"increment","changes":[…],"index":1,"line":3}`, where `index` is the action's number
/// and `line` its line in the recording.
struct ReplayRecord: Encodable {
    var index: Int
    var line: Int
    var action: String
    var changes: [StateDiff.Change]

    /// One line of JSON with sorted keys, so the output is the same on every run.
    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else {
            return #"{"error":"unencodable record"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
