import ReduxConsumer

/// Weak references to objects a test expects to be freed: build the graph in a scope of its own,
/// ``track(_:)`` what must go, and check ``survivors`` after the scope.
package final class LeakWatch: Sendable {
    private let objects = Lock<[(name: String, reference: WeakReference)]>([])

    package init() {}

    /// Watches `object`; returns it, for use in expressions.
    @discardableResult
    package func track<Object: AnyObject>(_ object: Object) -> Object {
        objects.withLock { $0.append(("\(type(of: object))", WeakReference(object))) }
        return object
    }

    /// The type names of watched objects still alive.
    package var survivors: [String] {
        objects.withLock { $0.filter { $0.reference.object != nil }.map(\.name) }
    }
}

private struct WeakReference: @unchecked Sendable {
    // @unchecked: the reference is written once, in init, and only read afterwards (weak loads
    // are atomic).
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}
