import ReduxConsumer

extension ActionLogger {
    /// One logged action: the action and the difference between the state before and after it.
    ///
    /// Its `description` is the action's own description on a first line, then one indented line
    /// per change in the logger's ``DiffFormat``:
    ///
    /// ```text
    /// action rename("Kim")
    ///   ~ name: "Lee" → "Kim"
    ///   + works[0]: "write tests"
    /// action logout (no change)
    /// ```
    ///
    /// With ``DiffFormat/usesColor`` the first line is bold and the changes are colored.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The action, as it reached the logger.
        public let action: any Action

        /// What the action changed in the state; empty when the state stayed equal.
        public let diff: StateDiff

        /// How ``description`` renders the changes.
        public let format: DiffFormat

        /// Creates an entry, for example to test a `log` closure.
        ///
        /// - Parameters:
        ///   - action: The action.
        ///   - diff: The difference between the state before and after the action.
        ///   - format: How ``description`` renders the changes.
        public init(action: any Action, diff: StateDiff, format: DiffFormat = DiffFormat()) {
            self.action = action
            self.diff = diff
            self.format = format
        }

        /// The entry as text: the action line, then one line per change indented by two spaces; or
        /// the action line ending in `(no change)` when the diff is empty. Line breaks in the
        /// action's description are written as `\n` (or `\r`, `\u{2028}` …), so it stays on the
        /// first line.
        public var description: String {
            // Escaped so that a description with line breaks cannot pass for change lines.
            var title = "action \(String(describing: action).escapingLineBreaks())"
            if diff.isEmpty {
                title += " (no change)"
            }
            if format.usesColor {
                title = "\u{1B}[1m" + title + "\u{1B}[0m"
            }
            var lines = [title]
            for change in diff.changes {
                lines.append("  " + format.line(for: change))
            }
            return lines.joined(separator: "\n")
        }
    }
}
