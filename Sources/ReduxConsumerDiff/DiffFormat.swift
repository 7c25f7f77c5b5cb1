import ReduxConsumer

/// How ``StateDiff/rendered(_:)`` turns changes into text.
///
/// Each change is one line, a marker, the path and the values:
///
/// ```text
/// ~ auth.user.name: "Kim" → "Lee"
/// + works[2]: Work(title: "Dune")
/// - tags["draft"]: true
/// ~ (root): 1 → 2
/// ```
///
/// `~` marks a changed value, `+` an added one and `-` a removed one; `(root)` stands for the
/// diffed values themselves. Values longer than ``maxValueLength`` are cut and end with `…`.
public struct DiffFormat: Sendable, Hashable {
    /// The longest a rendered value may be, in characters, before it is cut to this length with
    /// a trailing `…`. Values shorter than 1 count as 1; use `Int.max` to keep values whole.
    public var maxValueLength: Int

    /// Whether lines are wrapped in ANSI color codes: green for `+`, red for `-`, yellow for `~`.
    ///
    /// Off by default; turn it on only when writing to a terminal.
    public var usesColor: Bool

    /// Creates a format.
    ///
    /// - Parameters:
    ///   - maxValueLength: The longest a rendered value may be before it is shortened with `…`.
    ///   - usesColor: Whether to color lines with ANSI escape codes.
    public init(maxValueLength: Int = 80, usesColor: Bool = false) {
        self.maxValueLength = maxValueLength
        self.usesColor = usesColor
    }

    func line(for change: StateDiff.Change) -> String {
        let path = change.path.description
        let line: String
        switch change.kind {
        case .added:
            line = "+ \(path): \(shortened(change.newValue))"
        case .removed:
            line = "- \(path): \(shortened(change.oldValue))"
        case .changed:
            line = "~ \(path): \(shortened(change.oldValue)) → \(shortened(change.newValue))"
        }
        guard usesColor else {
            return line
        }
        return Self.colorCode(for: change.kind) + line + Self.resetCode
    }

    private func shortened(_ value: String?) -> String {
        let value = value ?? "nil"
        let limit = max(maxValueLength, 1)
        guard value.count > limit else {
            return value
        }
        return value.prefix(limit - 1) + "…"
    }

    private static let resetCode = "\u{1B}[0m"

    private static func colorCode(for kind: StateDiff.Change.Kind) -> String {
        switch kind {
        case .added: "\u{1B}[32m"
        case .removed: "\u{1B}[31m"
        case .changed: "\u{1B}[33m"
        }
    }
}
