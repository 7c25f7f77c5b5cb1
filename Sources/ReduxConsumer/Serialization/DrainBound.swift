/// A value that only the thread running one ``Drain`` may touch: the drain's
/// confined state, in the spirit of SwiftNIO's `NIOLoopBound`.
///
/// Drains change hands through their lock, which orders every access, so the value needs no lock
/// of its own. Debug builds check the confinement on every access; release builds trust it.
final class DrainBound<Value>: @unchecked Sendable {
    // @unchecked: `storage` is only touched by the thread that runs `drain`; debug
    // builds check it on every access (`value`).
    // `@exclusivity(unchecked)`: one thread at a time (checked as above), and callers keep their
    // accesses short (a reference-type value is read once, then used).
    @exclusivity(unchecked) private var storage: Value
    let drain: Drain

    init(_ value: Value, drain: Drain) {
        storage = value
        self.drain = drain
    }

    /// Changes the value while its owner is still being built, before any other thread can reach
    /// it (the drain is idle then).
    func setUp(_ body: (inout Value) -> Void) {
        assert(drain.snapshot.owner == nil, "\(Self.self).setUp called while its drain runs")
        body(&storage)
    }

    /// The value, without the confinement check: for its owner while it is being built, before any
    /// other thread can reach it.
    func value(unchecked: Void) -> Value {
        storage
    }

    /// The value; the calling thread must be running ``drain``.
    var value: Value {
        @inline(__always) get {
            assert(drain.isAccessibleFromCurrentThread, "\(Self.self) touched outside its drain")
            return storage
        }
        @inline(__always) _modify {
            assert(drain.isAccessibleFromCurrentThread, "\(Self.self) touched outside its drain")
            yield &storage
        }
    }
}
