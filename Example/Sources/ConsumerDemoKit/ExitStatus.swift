/// How a `consumer-demo` run ended; its raw value is the process exit status.
public enum ExitStatus: Int32, Sendable {
    /// Everything ran.
    case success = 0
    /// A script line was malformed or could not be applied; the other lines ran (with
    /// `--keep-going`) or the run stopped there. Also a bad command in `replay --step`.
    case scriptError = 1
    /// The command line was wrong: an unknown option or command, a missing or bad value.
    case usageError = 2
    /// A script or recording could not be read, or a recording (or standard output) could not be
    /// written.
    case unreadableFile = 3
    /// A recording is not valid: not JSON, an unknown action type, another kind of file, a newer
    /// format, a corrupted or truncated line. Nothing after the bad line was replayed.
    case badRecording = 4
    /// The replay did not reproduce the recorded session: a state hash differs.
    case replayDiverged = 5
    /// `service` found work lost: a request, an action, a backend call or an audit entry that the
    /// run cannot account for.
    case serviceLostWork = 6
}
