/// How a `consumer-demo` run ended; its raw value is the process exit status.
public enum ExitStatus: Int32, Sendable {
    /// Everything ran.
    case success = 0
    /// A script line was malformed or could not be applied; the other lines ran (with
    /// `--keep-going`) or the run stopped there.
    case scriptError = 1
    /// The command line was wrong: an unknown option or command, a missing or bad value.
    case usageError = 2
    /// The script file could not be read.
    case unreadableFile = 3
    /// `service` found work lost: a request, an action, a backend call or an audit entry that the
    /// run cannot account for.
    case serviceLostWork = 6
}
