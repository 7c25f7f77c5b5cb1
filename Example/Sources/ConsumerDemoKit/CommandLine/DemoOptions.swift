import ReduxConsumer
import ReduxConsumerDiff

/// What the command line asked for, after ``ArgumentParser`` read it.
struct DemoOptions: Equatable {
    enum Command: Equatable {
        /// No command: the built-in tour.
        case tour
        /// `run FILE`, `run -` (`path` is `"-"`) or `run` alone (`path` is `nil`).
        case run(path: String?)
        /// `repl`: the prompt, even when standard input is not a terminal.
        case repl
        /// `record FILE`: the tour, or the script of `--script`, recorded to `FILE`.
        case record(path: String)
        /// `replay FILE`: a recording replayed, or stepped through with `--step`; `replay -` (`path`
        /// is `"-"`) reads it from standard input.
        case replay(path: String)
        /// `--help`, `-h` or `help`.
        case help
        /// `--version`.
        case version
    }

    /// `--color`, `--no-color`, or neither: colors when standard output is a terminal and
    /// `NO_COLOR` is not set.
    enum ColorChoice: Equatable {
        case automatic
        case always
        case never
    }

    var command = Command.tour
    var isJSON = false
    var keepsGoing = false
    var color = ColorChoice.automatic
    var maxValueLength = 80
    /// Options of `record` and `replay`; see ``RecordingOptions``.
    var recording = RecordingOptions()

    /// Whether to color the output, given where it goes.
    func usesColor(in environment: DemoEnvironment) -> Bool {
        switch color {
        case .always: true
        case .never: false
        case .automatic: environment.isOutputTerminal && (environment.variables["NO_COLOR"] ?? "").isEmpty
        }
    }

    func diffFormat(usesColor: Bool) -> DiffFormat {
        DiffFormat(maxValueLength: maxValueLength, usesColor: usesColor)
    }
}
