/// One parsed script line: an action to dispatch, or a prompt command.
struct Statement: Equatable {
    enum Instruction: Equatable {
        case action(AppAction)
        /// `help`: list the commands (prompt only).
        case help
        /// `state`: print the current state (prompt only).
        case state
        /// `quit` or `exit`: leave the prompt.
        case quit
    }

    var instruction: Instruction
    /// The command as written (`exit` for ``Instruction/quit`` when so written).
    var command: String
    /// Where the command starts.
    var commandColumn: Int
    /// Where the first argument starts, or the command when it has none: where to point when the
    /// action cannot be applied (`remove-work 9` with two works).
    var argumentColumn: Int
}
