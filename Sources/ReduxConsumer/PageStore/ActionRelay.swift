/// A middleware that tells listeners about every action its store reduced: how page stores receive
/// chosen global actions (``PageStore/forwardActions(from:where:)``).
///
/// Install it once on the global store, as its innermost middleware, so it sees exactly the actions
/// that reach the reducer:
///
/// ```swift
/// let relay = ActionRelay()
/// let appStore = Store(initialState: AppState(), reducer: appReducer)
/// appStore.addMiddleware(relay.middleware())
///
/// let subscription = relay.subscribe { action in print("reduced:", action) }
/// ```
///
/// ## Order and threads
/// A listener is called after the store reduced the action and notified its subscribers, on the
/// thread that processes the store, in the order listeners subscribed. Listeners run outside any
/// lock of the relay, so they may dispatch, subscribe or cancel. A listener being cancelled while
/// another thread is publishing may still receive that one action.
///
/// A relay installed on several stores relays the actions of all of them.
public final class ActionRelay: Sendable {
    private let listeners = Lock(Listeners())

    private struct Listeners {
        var entries = OrderedSlots<@Sendable (any Action) -> Void>()
        var nextID: UInt64 = 0
    }

    /// Creates a relay with no listener.
    public init() {}

    /// The middleware to install on the store whose actions are relayed.
    ///
    /// It passes each action on unchanged, then publishes it to the listeners.
    ///
    /// - Returns: A middleware for a store of any state type.
    public func middleware<State>() -> Middleware<State> {
        { _, _ in
            { next in
                { [self] action in
                    next(action)
                    publish(action)
                }
            }
        }
    }

    /// Calls `listener` with every action the store reduces from now on.
    ///
    /// - Parameter listener: Called with each action, after it was reduced.
    /// - Returns: The subscription; the listener is dropped when it is cancelled or released.
    public func subscribe(_ listener: @escaping @Sendable (_ action: any Action) -> Void) -> Subscription {
        let id = listeners.withLock { listeners in
            listeners.nextID += 1
            listeners.entries.append(listener, identifier: listeners.nextID)
            return listeners.nextID
        }
        return Subscription { [weak self] in
            self?.listeners.withLock { _ = $0.entries.remove(id) }
        }
    }

    /// The number of live listeners. Useful in leak tests.
    public var listenerCount: Int {
        listeners.withLock { $0.entries.count }
    }

    private func publish(_ action: any Action) {
        let snapshot = listeners.withLock { $0.entries.slots }
        for listener in snapshot {
            listener?(action)
        }
    }
}
