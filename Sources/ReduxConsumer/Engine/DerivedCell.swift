/// The cell of a derived value (``Selection/derived(_:)``), which keeps the memo its evaluation
/// reads the value through, so that it is found without a lookup (see ``DerivationCache``).
///
/// Only derived values have a memo, so only their cells carry the word: the cells that a pass
/// over many plain selections reads stay smaller. Every cell a derived selection's evaluation is
/// given is one of these: its first cell is made for its selection (see
/// ``StateConsumer/cell(for:state:cache:evaluation:)``), a shared node's cell by a group with the
/// same key (the same derived definition), and every later cell by ``fresh(baseline:)``.
@usableFromInline
final class DerivedCell<Value>: ValueCell<Value>, @unchecked Sendable {
    // @unchecked: as its superclass, confined to its engine's drain.

    /// The memo of the derived value's evaluation; `nil` until the first read through this cell
    /// that needs it (a fresh cell looks it up again). `@exclusivity(unchecked)` as the values of
    /// ``ValueCell``: read and written by every evaluation, confined to one drain.
    @exclusivity(unchecked) @usableFromInline final var memo: AnyObject?

    @inlinable
    init(baseline: Value, memo: AnyObject?, evaluation: @escaping MemberGroup.Evaluation) {
        self.memo = memo
        super.init(baseline: baseline, evaluation: evaluation)
    }

    @inlinable
    override func fresh(baseline: Value) -> ValueCell<Value> {
        DerivedCell(baseline: baseline, memo: nil, evaluation: evaluation)
    }
}
