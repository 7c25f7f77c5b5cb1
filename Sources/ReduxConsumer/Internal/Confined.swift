/// A box for state that only the jobs of one ``Drain`` ever touch, so it needs no lock.
///
/// Access is confined to whichever thread is running the owning drain's jobs; drainers hand over
/// through the drain's lock, which orders every access. Read and write it in short, instantaneous
/// accesses (never hold an `inout` to it across a user callback: the callback may re-enter).
final class Confined<Value>: @unchecked Sendable {
    // @unchecked: confined to the owning drain's current drainer (see above).
    // `@exclusivity(unchecked)`: accesses are short and never span a callback (see above), and
    // the dynamic check would be paid on every dispatch.
    @exclusivity(unchecked) var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
