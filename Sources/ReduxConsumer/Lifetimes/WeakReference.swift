/// A weak reference that closures capture strongly: a `[weak object]` capture is a mutable box,
/// and every read of it pays a dynamic exclusivity check, where this `let` pays only the load.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
