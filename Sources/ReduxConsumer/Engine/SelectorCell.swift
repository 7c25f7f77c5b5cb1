/// The cell of a closure selector (``Selection/closure(_:)``), which keeps the selector: the
/// evaluation calls it from here instead of from a closure context of its own.
///
/// A pass over many closure selectors reads, for each one, its node, its cell and the selector's
/// own context; and adding one allocates no closure context besides. Every cell a closure
/// evaluation is given is one of these (see ``TypedGroup/evaluator(_:)``): a closure selector's
/// group never shares its node, its first cell is made for its selection, and every later cell by
/// ``fresh(baseline:)``.
@usableFromInline
final class SelectorCell<State: Sendable, Value: Sendable>: ValueCell<Value>, @unchecked Sendable {
    // @unchecked: as its superclass, confined to its engine's drain.

    /// The selector. A stored closure, not a case of an enum: a call through a constant stored
    /// property of a borrowed object retains nothing, while binding an enum's payload copies it
    /// (a retain and a release of the selector's context per evaluation).
    @usableFromInline let select: @Sendable (State) -> Value

    @inlinable
    init(
        baseline: Value, select: @escaping @Sendable (State) -> Value, evaluation: @escaping MemberGroup.Evaluation
    ) {
        self.select = select
        super.init(baseline: baseline, evaluation: evaluation)
    }

    @inlinable
    override func fresh(baseline: Value) -> ValueCell<Value> {
        SelectorCell(baseline: baseline, select: select, evaluation: evaluation)
    }
}
