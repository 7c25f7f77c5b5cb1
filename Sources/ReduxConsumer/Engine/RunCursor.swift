/// Where a pass of a ``SelectionEngine`` is: the call order of the run being called (0 before the
/// first; earlier runs are done). A reference, so that a delivery loop compiled for a group's types
/// (``TypedGroup/deliverGroups(_:state:drain:level:pass:engine:cursor:)``) moves it on as it goes,
/// and a consumer leaving from inside a callback sees where the pass is.
///
/// Confined to the engine's drain, like the engine.
@usableFromInline
final class RunCursor {
    // `@exclusivity(unchecked)`: confined like its engine (whose entry points check the drain in
    // debug builds), and each access is a single load or store, never across a call.
    @exclusivity(unchecked) @usableFromInline var order: UInt64 = 0

    @usableFromInline
    init() {}
}
