import Dispatch

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
/// Safe to use from any thread. An emptying (``removeAll()``, or the bag's release) returns only
/// once every emptying begun before it on another thread is done: a service whose request
/// teardown and session shutdown empty one bag at once sees everything in it removed when either
/// returns (guarantee 1).
public final class ConsumerBag: Sendable {
    private let contents = Lock(Contents())

    private struct Contents {
        var items: [any Cancellable] = []
        /// The emptyings in progress, each still cancelling what it took.
        var emptyings: [Emptying] = []
        var nextEmptying: UInt64 = 0
    }

    /// One emptying in progress: the thread running it, and the emptyings that wait for it.
    private struct Emptying {
        let id: UInt64
        let thread: ObjectIdentifier
        var waiters: [DispatchSemaphore] = []
    }

    /// Creates an empty bag.
    public init() {}

    deinit {
        removeAll()
    }

    /// Adds `item`; it is cancelled by ``removeAll()`` or when the bag deinitialises.
    ///
    /// - Parameter item: A token or subscription to own.
    public func insert(_ item: any Cancellable) {
        contents.withLock { $0.items.append(item) }
    }

    /// Cancels everything in the bag, in the order it was inserted, and empties it.
    ///
    /// Returns once what it took is cancelled and every emptying begun earlier on another thread
    /// is done too (an emptying on the calling thread is the one this call is made from, inside a
    /// cancellation: it does not wait for itself).
    public func removeAll() {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        let (id, taken, earlier) = contents.withLock { contents in
            let id = contents.nextEmptying
            contents.nextEmptying += 1
            var earlier: [DispatchSemaphore] = []
            for index in contents.emptyings.indices where contents.emptyings[index].thread != thread {
                let semaphore = DispatchSemaphore(value: 0)
                contents.emptyings[index].waiters.append(semaphore)
                earlier.append(semaphore)
            }
            contents.emptyings.append(Emptying(id: id, thread: thread))
            defer { contents.items.removeAll() }
            return (id, contents.items, earlier)
        }
        // Later emptyings may wait for this thread now: its removals give way to a parked callback,
        // as a page's close does (see `ThreadContext.mayBeWaitedFor`).
        context.runOnceDepth += 1
        for item in taken {
            item.cancel()
        }
        assert(context.runOnceDepth > 0, "a bag's emptying ended on a thread that was not running one")
        context.runOnceDepth -= 1
        let waiters = contents.withLock { contents -> [DispatchSemaphore] in
            guard let index = contents.emptyings.firstIndex(where: { $0.id == id }) else { return [] }
            return contents.emptyings.remove(at: index).waiters
        }
        for waiter in waiters {
            waiter.signal()
        }
        // Parked: an earlier emptying may be waiting for a callback this thread is running.
        for semaphore in earlier {
            context.parked { semaphore.wait() }
        }
    }

    /// How many emptyings wait for an earlier one to be done, for tests.
    var waitingEmptyings: Int {
        contents.withLock { $0.emptyings.reduce(0) { $0 + $1.waiters.count } }
    }

    /// The number of items the bag holds.
    public var count: Int {
        contents.withLock { $0.items.count }
    }

    /// Whether the bag holds nothing.
    public var isEmpty: Bool {
        count == 0
    }
}
