import ReduxConsumer
import ReduxConsumerDiff

/// The lines of `diff` in `format`, one per change, each rendered exactly as
/// `StateDiff.rendered(_:)` renders it; empty for an empty diff.
func changeLines(_ diff: StateDiff, format: DiffFormat) -> [String] {
    diff.changes.map { change in
        var single = diff
        single.changes = [change]
        return single.rendered(format)
    }
}
