import ReduxConsumer

/// A value shared with `@Sendable` closures that run on any thread.
package final class Slot<Value>: @unchecked Sendable {
    // @unchecked: the value is only reached through `lock`.
    private let lock: Lock<Value>

    package init(_ value: Value) {
        lock = Lock(value)
    }

    package var value: Value {
        get { lock.withLock { $0 } }
        set { lock.withLock { $0 = newValue } }
    }
}
