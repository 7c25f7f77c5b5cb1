import ReduxConsumerDiff

/// Prints an action as `run` and `replay` do: its number and description, then one line per change
/// (or `(no change)`) indented under it.
///
/// ```text
///  19  removeWork(at: 1)
///        - works[1]: "read the seed"
/// ```
func printNumbered(_ number: Int, action: String, diff: StateDiff, format: DiffFormat, console: Console) {
    console.line(rightAligned(String(number), width: 3) + "  " + console.bold(action))
    for change in changeLines(diff, format: format, console: console) {
        console.line("       " + change)
    }
}

/// The lines of `diff` as ``changeLines(_:format:)`` renders them, or a dimmed `(no change)`.
func changeLines(_ diff: StateDiff, format: DiffFormat, console: Console) -> [String] {
    diff.isEmpty ? [console.dim("(no change)")] : changeLines(diff, format: format)
}
