/// What every evaluation cell holds whatever its value's type: the evaluation that compares a state
/// with it, so that a pass calls each selection's evaluation from its cell, without reading the
/// node the cell belongs to (see ``SelectionEngine/evaluate(_:)``).
///
/// Set once, as the cell is made; a later cell of the same selection (``ValueCell/fresh(baseline:)``)
/// takes the same evaluation.
@usableFromInline
class EvaluatedCell: @unchecked Sendable {
    // @unchecked: confined to its engine's drain, like its subclasses (see ``ValueCell``).

    /// Compares the state with this cell and records a change (see ``MemberGroup/Evaluation``); a
    /// constant, so a pass calls it borrowed, without a retain.
    @usableFromInline final let evaluation: MemberGroup.Evaluation

    @inlinable
    init(evaluation: @escaping MemberGroup.Evaluation) {
        self.evaluation = evaluation
    }
}
