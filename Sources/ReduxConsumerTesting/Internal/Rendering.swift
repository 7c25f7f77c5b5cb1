import ReduxConsumer
import ReduxConsumerDiff

/// The lines of a state mismatch, one per differing path, each with the expected and the actual
/// value: `~ count: expected 11, actual 12`.
///
/// `(none)` stands for a value that is missing on one side: an optional that is `nil`, an array
/// element or dictionary entry that is not there.
func mismatchLines<State: Equatable>(expected: State, actual: State) -> [String] {
    let changes = StateDiff(from: expected, to: actual).changes
    guard !changes.isEmpty else {
        // `==` said no, but reflection found every stored property equal: a custom `==`.
        return [
            "(State's == returned false, but no stored property differs; check its == implementation.)",
            "  expected: \(rendered(expected))",
            "  actual:   \(rendered(actual))",
        ]
    }
    return changes.map { change in
        let marker: String
        switch change.kind {
        case .changed: marker = "~"
        case .added: marker = "+"
        case .removed: marker = "-"
        }
        let expectedValue = change.oldValue ?? "(none)"
        let actualValue = change.newValue ?? "(none)"
        return "\(marker) \(change.path): expected \(expectedValue), actual \(actualValue)"
    }
}

/// Renders a value in the diff engine's Swift-like notation (`"Kim"`, `User(name: "Kim")`,
/// `.loaded(count: 3)`).
func rendered(_ value: Any) -> String {
    // The engine renders the new side of a `nil → value` change whole, in its own notation.
    StateDiff(from: Optional<Any>.none, to: Optional(value)).changes.first?.newValue ?? "\(value)"
}

/// Renders an action for failure messages: `increment`, `refreshed(3)`.
func rendered(action: any Action) -> String {
    String(describing: action)
}
