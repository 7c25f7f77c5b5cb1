/// An object that runs a closure when it goes: put in a state, it tells when the store released
/// it, and its closure is user code the store runs then.
package final class RunsOnDeinit: Sendable {
    private let onDeinit: @Sendable () -> Void

    package init(_ onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}
