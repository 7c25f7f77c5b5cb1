/// A value that only the thread running one ``Drain`` may touch: the drain's
/// confined state, in the spirit of SwiftNIO's `NIOLoopBound`.
///
/// Drains change hands through their lock, which orders every access, so the value needs no lock
/// of its own. Debug builds check the confinement on every access; release builds trust it.
final class DrainBound<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: `storage` is only touched by the thread that runs `drain`; debug
    // builds check it on every access (`value`).
    private let storage: Value
    let drain: Drain

    init(_ value: Value, drain: Drain) {
        storage = value
        self.drain = drain
    }

    /// Changes the value while its owner is still being built, before any other thread can reach
    /// it (the drain is idle then).
    func setUp(_ body: (Value) -> Void) {
        assert(drain.snapshot.owner == nil, "\(Self.self).setUp called while its drain runs")
        body(storage)
    }

    /// The value, without the confinement check: for its owner while it is being built, before any
    /// other thread can reach it.
    func value(unchecked: Void) -> Value {
        storage
    }

    /// The value; the calling thread must be running ``drain``.
    /// Calls `body` with the value, borrowed: no retain and release around a long use (the
    /// dispatch path, where that pair is two atomic operations per action).
    @inline(__always)
    func withValue<Result>(_ body: (Value) -> Result) -> Result {
        assert(drain.isAccessibleFromCurrentThread, "\(Self.self) touched outside its drain")
        // `Unmanaged` without a retain: `storage` is a constant of this object, which the caller
        // keeps alive for the call.
        return Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef(body)
    }

    var value: Value {
        @inline(__always) get {
            assert(drain.isAccessibleFromCurrentThread, "\(Self.self) touched outside its drain")
            return storage
        }
    }
}
