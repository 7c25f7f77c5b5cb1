import ReduxConsumer

/// What a recorder shares between the dispatching thread and callers of `flush()` and
/// `close()`, always under its lock: the buffered lines, the channel and the progress.
struct RecorderOutput {
    var channel: OutputChannel
    /// Lines encoded but not yet written.
    var pending: [UInt8]
    var recordedActionCount = 0
    var failure: RecordingError?
    var phase = Phase.recording
    /// Whether the first action was recorded (with the initial snapshot before it).
    var hasStarted = false
    /// Whether an action (or `close()`) has taken on recording the initial snapshot.
    var isInitialStateClaimed = false
    /// The encoders, when no action has borrowed them.
    var scratch: RecorderScratch?

    enum Phase {
        case recording
        /// An error stopped the recording; `close()` may still write the end line.
        case stopped
        /// A write failed: nothing more is written, not even the end line.
        case broken
        case closed
    }

    /// Lends the encoders to the next action, or returns `nil` when nothing is recorded any
    /// more.
    mutating func lease(wantsInitialState: Bool) -> RecorderLease? {
        guard phase == .recording else { return nil }
        let lease = RecorderLease(
            index: recordedActionCount + 1,
            wantsInitialState: wantsInitialState && !hasStarted,
            scratch: scratch ?? RecorderScratch()
        )
        isInitialStateClaimed = isInitialStateClaimed || lease.wantsInitialState
        scratch = nil
        return lease
    }

    /// Lends the encoders to `close()` for the initial snapshot of a recording that no action
    /// reached, or returns `nil` when an action records it (or nothing is recorded any more).
    mutating func leaseForInitialState() -> RecorderLease? {
        guard phase == .recording, !hasStarted, !isInitialStateClaimed else { return nil }
        isInitialStateClaimed = true
        let lease = RecorderLease(index: 0, wantsInitialState: true, scratch: scratch ?? RecorderScratch())
        scratch = nil
        return lease
    }

    /// Takes the initial snapshot `close()` built, or the error it met.
    mutating func commitInitialState(_ lease: RecorderLease, failure: RecordingError?) {
        _ = accept(lease, failure: failure)
    }

    /// Gets the encoders back and takes the lines `lease` built, or the error it met (which stops
    /// the recording); returns whether it took lines.
    private mutating func accept(_ lease: RecorderLease, failure: RecordingError?) -> Bool {
        scratch = lease.scratch
        // Closed (or stopped) while the lines were being encoded: they are not recorded.
        guard phase == .recording else { return false }
        if let failure {
            self.failure = failure
            phase = .stopped
            return false
        }
        pending.append(contentsOf: lease.scratch.json.bytes)
        return true
    }

    /// Takes the lines an action built, or the error it met, and gets the encoders back.
    mutating func commit(_ lease: RecorderLease, failure: RecordingError?, flushThreshold: Int) {
        guard accept(lease, failure: failure) else { return }
        recordedActionCount = lease.index
        hasStarted = true
        if pending.count >= flushThreshold {
            writePending(actionIndex: lease.index)
        }
    }

    /// Writes the pending lines; returns the error that stopped the recording, if any.
    mutating func flush() -> RecordingError? {
        if phase == .recording || phase == .stopped {
            writePending(actionIndex: nil)
        }
        return failure
    }

    /// Ends the recording; returns the error that stopped it, if any.
    mutating func close() -> RecordingError? {
        guard phase != .closed else { return failure }
        if phase != .broken {
            let end = JSONBytes()
            end.appendEnd(actionCount: recordedActionCount, error: failure?.description)
            pending.append(contentsOf: end.bytes)
            writePending(actionIndex: nil)
        }
        channel.close()
        phase = .closed
        return failure
    }

    private mutating func writePending(actionIndex: Int?) {
        guard !pending.isEmpty else { return }
        do {
            try channel.write(pending)
            pending.removeAll(keepingCapacity: true)
        } catch {
            failure = failure ?? RecordingError(error.kind, actionIndex: actionIndex)
            phase = .broken
            pending = []
        }
    }
}

/// One action's loan of a recorder's encoders, and where it stands in the recording.
struct RecorderLease {
    let index: Int
    let wantsInitialState: Bool
    let scratch: RecorderScratch
}
