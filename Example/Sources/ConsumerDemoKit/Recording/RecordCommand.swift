import ReduxConsumer
import ReduxConsumerDiff

/// `consumer-demo record FILE [--script SCRIPT]`: runs the tour, or a script, exactly as `tour` and
/// `run` do, with a `SessionRecorder` installed last on the store, then says what it recorded.
///
/// The recording holds the initial state, every action with the structural hash of the state after
/// it, and a snapshot every `--snapshot-interval` actions. It ends with the hash of the final state,
/// which `replay` prints too:
///
/// ```text
/// recorded 18 actions to tour.jsonl; final state hash 8648da059f193dca
/// ```
struct RecordCommand {
    let console: Console
    let options: DemoOptions
    let environment: DemoEnvironment

    func run(path: String) -> ExitStatus {
        // Read the script first: a missing script must not leave an empty recording behind.
        var nextLine: () -> String? = { nil }
        var scriptName = "<stdin>"
        if let scriptPath = options.recording.scriptPath {
            if scriptPath == "-" {
                nextLine = environment.readLine
            } else {
                let text: String
                do {
                    text = try environment.readFile(scriptPath)
                } catch {
                    console.errorLine("consumer-demo: error: cannot read \(quoted(scriptPath)): \(error.reason)")
                    return .unreadableFile
                }
                var lines = lines(of: text).makeIterator()
                nextLine = { lines.next() }
                scriptName = scriptPath
            }
        }
        if let scriptPath = options.recording.scriptPath {
            let recordingPath = DemoRecording.resolve(path, in: environment)
            let isScript =
                scriptPath == "-"
                ? DemoRecording.isStandardInput(recordingPath, in: environment)
                : DemoRecording.isSameFile(recordingPath, scriptPath)
            if isScript {
                let script = scriptPath == "-" ? "read from standard input" : quoted(scriptPath)
                console.errorLine(
                    "consumer-demo: error: the recording \(quoted(path)) is the script \(script) itself, "
                        + "which recording would overwrite; choose another file for the recording")
                return .usageError
            }
        }
        let recorder: SessionRecorder<AppState>
        do {
            recorder = try SessionRecorder(
                to: .file(atPath: DemoRecording.resolve(path, in: environment)),
                codecs: DemoRecording.codecs,
                hash: .structural,
                snapshotInterval: options.recording.effectiveSnapshotInterval
            )
        } catch {
            return cannotWrite(path, error)
        }
        let status: ExitStatus
        if options.recording.scriptPath != nil {
            var runner = ScriptRunner(console: console, options: options)
            runner.middleware = [recorder.middleware]
            status = runner.run(name: scriptName, nextLine: nextLine)
        } else {
            let format = options.diffFormat(usesColor: console.usesColor)
            status = Tour(console: console, format: format, middleware: [recorder.middleware]).run()
        }
        do {
            try recorder.close()
        } catch {
            return cannotWrite(path, error)
        }
        return summarize(path) ?? status
    }

    /// Reads the recording back and prints how many actions it holds and the hash of the state it
    /// ends in; returns the status of a recording that cannot be read back, `nil` when it can.
    private func summarize(_ path: String) -> ExitStatus? {
        var count = 0
        var finalHash: String
        do {
            let reader = try DemoRecording.open(path, in: environment)
            finalHash = DemoRecording.hashText(of: reader.initialState)
            while let step = try reader.next() {
                count = step.index
                finalHash = step.hash.map(DemoRecording.hashText) ?? "?"
            }
        } catch {
            console.errorLine(DemoRecording.message(for: error))
            return DemoRecording.exitStatus(for: error)
        }
        let summary = "recorded \(count) action\(count == 1 ? "" : "s") to \(path); final state hash \(finalHash)"
        // In JSON mode standard output stays one object per action.
        if options.isJSON {
            console.errorLine(summary)
        } else {
            console.line()
            console.line(summary)
        }
        return nil
    }

    private func cannotWrite(_ path: String, _ error: RecordingError) -> ExitStatus {
        let reason: String
        switch error.kind {
        case .cannotOpen(_, let why), .writeFailed(let why): reason = why
        default: reason = error.description
        }
        console.errorLine("consumer-demo: error: cannot write \(quoted(path)): \(reason)")
        return .unreadableFile
    }
}
