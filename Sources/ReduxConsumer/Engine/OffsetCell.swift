/// The cell of a stored property read at a fixed byte offset (``Selection/offset(_:)``), which
/// keeps the offset: the evaluation reads it here instead of from a closure context of its own.
///
/// A pass over many stored properties reads, for each one, its node and its cell and nothing
/// else; and adding a consumer on a new property allocates no closure context. Every cell an
/// offset evaluation is given is one of these (see ``TypedGroup/evaluator(_:)``): the group's
/// first cell is made for its selection, a shared node's cell by a group with the same key (the
/// same offset and type), and every later cell by ``fresh(baseline:)``.
@usableFromInline
final class OffsetCell<Value>: ValueCell<Value>, @unchecked Sendable {
    // @unchecked: as its superclass, confined to its engine's drain.

    /// Where the value sits in the state.
    @usableFromInline let offset: Int

    @inlinable
    init(baseline: Value, offset: Int, evaluation: @escaping MemberGroup.Evaluation) {
        self.offset = offset
        super.init(baseline: baseline, evaluation: evaluation)
    }

    @inlinable
    override func fresh(baseline: Value) -> ValueCell<Value> {
        OffsetCell(baseline: baseline, offset: offset, evaluation: evaluation)
    }
}
