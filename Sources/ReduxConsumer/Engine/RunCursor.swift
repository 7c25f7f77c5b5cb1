/// Where a pass of a ``SelectionEngine`` is: the call order of the run being called (0 before the
/// first; earlier runs are done). A reference, so that a delivery loop compiled for a group's types
/// (``TypedGroup/deliverGroups(_:entries:state:drain:level:pass:engine:cursor:)``) moves it on as it goes,
/// and a consumer leaving from inside a callback sees where the pass is.
///
/// Confined to the engine's drain, like the engine.
@usableFromInline
final class RunCursor {
    // `@exclusivity(unchecked)`: confined like its engine (whose entry points check the drain in
    // debug builds), and each access is a single load or store, never across a call.
    @exclusivity(unchecked) @usableFromInline var order: UInt64 = 0
    /// The last pass of the engine in which a group was marked skipped (see
    /// ``MemberGroup/isSkipped(inPass:of:)``): a delivery loop asks each group only during such a
    /// pass, and otherwise never reads the group object.
    @exclusivity(unchecked) @usableFromInline var skipPass: UInt64 = 0

    @usableFromInline
    init() {}
}
