/// Collects consumer tokens and subscriptions, and cancels them all at once.
///
/// An owner (a screen, a request, a session) keeps one bag; everything it registered goes into the
/// bag, and when the owner goes away the bag goes with it and cancels everything:
///
/// ```swift
/// final class CounterScreen {
///     let bag = ConsumerBag()
///     init(store: Store<AppState>) {
///         let consumer = StateConsumer<AppState>()
///         consumer.add(\.counter) { old, new in print("counter: \(old) → \(new)") }.store(in: bag)
///         store.subscribe(consumer).store(in: bag)
///     }
/// }
/// ```
///
/// Safe to use from any thread.
public final class ConsumerBag: Sendable {
    private let items = Lock<[any Cancellable]>([])

    /// Creates an empty bag.
    public init() {}

    deinit {
        removeAll()
    }

    /// Adds `item`; it is cancelled by ``removeAll()`` or when the bag deinitialises.
    ///
    /// - Parameter item: A token or subscription to own.
    public func insert(_ item: any Cancellable) {
        items.withLock { $0.append(item) }
    }

    /// Cancels everything in the bag, in the order it was inserted, and empties it.
    public func removeAll() {
        let taken = items.withLock { items in
            defer { items.removeAll() }
            return items
        }
        for item in taken {
            item.cancel()
        }
    }

    /// The number of items the bag holds.
    public var count: Int {
        items.withLock { $0.count }
    }

    /// Whether the bag holds nothing.
    public var isEmpty: Bool {
        count == 0
    }
}
