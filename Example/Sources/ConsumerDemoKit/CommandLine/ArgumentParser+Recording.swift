extension ArgumentParser {
    /// The commands that write and read recordings.
    static let recordingCommands = ["record", "replay"]

    /// The options of `record` and `replay`.
    static let recordingOptions: [Option] = [
        Option(name: "--script", valueName: "FILE") { options, value in options.recording.scriptPath = value },
        Option(name: "--snapshot-interval", valueName: "N") { options, value throws(UsageError) in
            options.recording.snapshotInterval = try wholeNumber(value, atLeast: 1, for: "--snapshot-interval")
        },
        Option(name: "--until", valueName: "N") { options, value throws(UsageError) in
            options.recording.lastIndex = try wholeNumber(value, atLeast: 0, for: "--until")
        },
        Option(name: "--step") { options, _ in options.recording.isStepping = true },
    ]

    /// `record FILE` or `replay FILE`.
    static func recordingCommand(_ name: String, operands: ArraySlice<String>) throws(UsageError) -> DemoOptions.Command
    {
        guard let path = operands.first else {
            throw UsageError(message: "'\(name)' needs a file: consumer-demo \(name) FILE")
        }
        if let extra = operands.dropFirst().first {
            throw UsageError(message: "'\(name)' takes one file, found another: \(quoted(extra, limit: 40))")
        }
        guard name == "record" else { return .replay(path: path) }
        if path == "-" {
            // Standard output carries the tour's or the script's own output.
            throw UsageError(
                message:
                    "'record' writes a file, not standard output: name one, e.g. consumer-demo record session.jsonl")
        }
        return .record(path: path)
    }

    /// Rejects recording options given to a command they do not apply to.
    static func checkRecordingOptions(_ options: DemoOptions) throws(UsageError) {
        let recording = options.recording
        var isRecord = false
        var isReplay = false
        switch options.command {
        case .record: isRecord = true
        case .replay: isReplay = true
        default: break
        }
        let misplaced: [(isSet: Bool, name: String, isApplicable: Bool, command: String)] = [
            (recording.scriptPath != nil, "--script", isRecord, "'record'"),
            (recording.snapshotInterval != nil, "--snapshot-interval", isRecord, "'record'"),
            (recording.lastIndex != nil, "--until", isReplay, "'replay'"),
            (recording.isStepping, "--step", isReplay, "'replay'"),
        ]
        for option in misplaced where option.isSet && !option.isApplicable {
            throw UsageError(message: "option '\(option.name)' applies to \(option.command) only")
        }
        if isRecord, recording.scriptPath == nil {
            for (isSet, name) in [(options.isJSON, "--json"), (options.keepsGoing, "--keep-going")] where isSet {
                throw UsageError(
                    message: "option '\(name)' applies to 'record' only with '--script'; the tour has none")
            }
        }
        if isReplay {
            if options.keepsGoing {
                throw UsageError(
                    message: "option '--keep-going' does not apply to 'replay': it stops at the first bad line")
            }
            if recording.isStepping, options.isJSON {
                throw UsageError(message: "option '--json' cannot be combined with '--step'")
            }
            if recording.isStepping, options.command == .replay(path: "-") {
                throw UsageError(
                    message: "option '--step' reads its commands from standard input, so it cannot step through "
                        + "a recording read from there ('-'); replay a file")
            }
            if recording.isStepping, recording.lastIndex != nil {
                throw UsageError(message: "option '--until' cannot be combined with '--step'; type 'jump N' instead")
            }
        }
    }

    private static func wholeNumber(_ value: String, atLeast minimum: Int, for name: String) throws(UsageError) -> Int {
        guard let number = Int(value), number >= minimum else {
            throw UsageError(
                message:
                    "option '\(name)' expects a whole number of at least \(minimum), found \(quoted(value, limit: 40))"
            )
        }
        return number
    }
}
