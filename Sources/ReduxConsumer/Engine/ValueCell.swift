/// The last two values of one selection: what an evaluation compares against, and what the
/// callbacks it fires receive as `old` and `new`.
///
/// One cell per evaluation, shared by every group attached to it, so a value is read and compared
/// once per state however many consumers watch it. A group that leaves its store keeps a cell of
/// its own (its members' last value), so it can tell what changed when it comes back.
///
/// A cell of a stored property or of a closure selector is an ``OffsetCell`` or a ``SelectorCell``,
/// which also keep how the value is read, so that the evaluation's closure captures nothing; a
/// derived value's is a ``DerivedCell``, which keeps its memo.
///
/// Each cell also holds the evaluation that compares a state with it (see ``EvaluatedCell``).
///
/// Confined to the host drain of its engine, like everything in the engine.
@usableFromInline
class ValueCell<Value>: EvaluatedCell, @unchecked Sendable {
    // @unchecked: confined to its engine's drain (the engine's entry points check it in debug
    // builds); never crosses threads on its own.

    // `@exclusivity(unchecked)` on both: read for every evaluation and every callback, where the
    // dynamic check costs more than the comparison; confinement to one drain rules out
    // overlapping accesses from two threads, and no access spans a user callback (values are
    // copied out before any call).

    /// The value the members saw last.
    @exclusivity(unchecked) @usableFromInline final var last: Value
    /// The value before `last`: the `old` of the callbacks of the evaluation that set `last`.
    @exclusivity(unchecked) @usableFromInline final var previous: Value

    @inlinable
    init(baseline: Value, evaluation: @escaping MemberGroup.Evaluation) {
        last = baseline
        previous = baseline
        super.init(evaluation: evaluation)
    }

    /// Records `value` as the new last value; returns `true` (the evaluation fired).
    @inlinable
    final func advance(to value: Value) -> Bool {
        previous = last
        last = value
        return true
    }

    /// A new cell of the same kind (and selection) as this one, starting from `baseline`: a group's
    /// own cell as it leaves its node, a member's as it catches up.
    @inlinable
    func fresh(baseline: Value) -> ValueCell<Value> {
        ValueCell(baseline: baseline, evaluation: evaluation)
    }
}
