/// The last two values of one selection: what an evaluation compares against, and what the
/// callbacks it fires receive as `old` and `new`.
///
/// One cell per evaluation, shared by every group attached to it, so a value is read and compared
/// once per state however many consumers watch it. A group that leaves its store keeps a cell of
/// its own (its members' last value), so it can tell what changed when it comes back.
///
/// Confined to the host drain of its engine, like everything in the engine.
@usableFromInline
final class ValueCell<Value>: @unchecked Sendable {
    // @unchecked: confined to its engine's drain (the engine's entry points check it in debug
    // builds); never crosses threads on its own.

    // `@exclusivity(unchecked)` on both: read for every evaluation and every callback, where the
    // dynamic check costs more than the comparison; confinement to one drain rules out
    // overlapping accesses from two threads, and no access spans a user callback (values are
    // copied out before any call).

    /// The value the members saw last.
    @exclusivity(unchecked) @usableFromInline var last: Value
    /// The value before `last`: the `old` of the callbacks of the evaluation that set `last`.
    @exclusivity(unchecked) @usableFromInline var previous: Value
    /// The memo of a derived value's evaluation (see ``DerivationCache``), kept here so the
    /// evaluation finds it without a lookup.
    @exclusivity(unchecked) @usableFromInline var memo: AnyObject?

    @inlinable
    init(baseline: Value) {
        last = baseline
        previous = baseline
    }

    /// Records `value` as the new last value; returns `true` (the evaluation fired).
    @inlinable
    func advance(to value: Value) -> Bool {
        previous = last
        last = value
        return true
    }
}
