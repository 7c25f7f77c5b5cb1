import ReduxConsumer
import ReduxConsumerDiff

/// Renders a value in the notation of ``StateDiff`` (`"Kim"`, `["a", "b"]`, `AuthState(user: nil)`),
/// so consumer lines, diffs and state dumps all read the same.
///
/// `StateDiff` renders the values it reports; a value that appears where there was none is reported
/// whole, which is the rendering wanted here.
func valueText<Value>(_ value: Value) -> String {
    let diff = StateDiff(from: Value?.none, to: Value?.some(value))
    return diff.changes.first?.newValue ?? "nil"
}
