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
/// Safe to use from any thread. An emptying (``removeAll()``, or the bag's release) made from a
/// thread that runs none of the library's work returns only once every emptying begun before it on
/// another thread is done: a service whose request teardown and session shutdown empty one bag at
/// once sees everything in it removed when either returns (guarantee 1).
public final class ConsumerBag: Sendable {
    private let contents = Lock(Contents())

    private struct Contents {
        var items: [any Cancellable] = []
        /// The number of items at which an insertion next lets go of the settled ones: twice what
        /// the last look kept, so that each item is looked at O(1) times on average.
        var nextLook = ConsumerBag.firstLook
        /// The emptyings in progress, each still cancelling what it took.
        var emptyings: [Emptying] = []
        var nextEmptying: UInt64 = 0

        /// Takes out the items a cancellation would do nothing more for, keeping the others in order;
        /// returns them, to release once the lock is left.
        ///
        /// Runs under the bag's lock: it asks only the library's own handles (``Settling``), whose
        /// answers take their own short locks and call no user code.
        mutating func letGoOfSettledItems() -> [any Cancellable] {
            var settled: [any Cancellable] = []
            var kept = 0
            for index in items.indices {
                if let item = items[index] as? any Settling, item.isSettled {
                    settled.append(items[index])
                } else {
                    items.swapAt(kept, index)
                    kept += 1
                }
            }
            items.removeLast(items.count - kept)
            nextLook = Swift.max(ConsumerBag.firstLook, 2 * kept)
            return settled
        }
    }

    /// One emptying in progress: the thread running it, and the emptyings that wait for it.
    private struct Emptying {
        let id: UInt64
        let thread: ObjectIdentifier
        var waiters: [DispatchSemaphore] = []
    }

    /// The fewest items an insertion looks over for settled ones.
    static let firstLook = 64

    /// Creates an empty bag.
    public init() {}

    deinit {
        removeAll()
    }

    /// Adds `item`; it is cancelled by ``removeAll()`` or when the bag deinitialises.
    ///
    /// A bag that lives long (a session's, a service's) while what it holds ends one by one does
    /// not grow with everything it ever held: from time to time an insertion lets go of the items
    /// for which a cancellation would do nothing more — a ``Subscription`` whose ``Subscription/cancel()``
    /// has returned, a ``ConsumerToken`` whose consumer is gone (and had no queue or actor a call of
    /// it could still be running on). Every other item, your own ``Cancellable`` types included,
    /// stays until the bag is emptied.
    ///
    /// - Parameter item: A token or subscription to own.
    public func insert(_ item: any Cancellable) {
        let settled = contents.withLock { contents -> [any Cancellable] in
            contents.items.append(item)
            guard contents.items.count >= contents.nextLook else { return [] }
            return contents.letGoOfSettledItems()
        }
        // Released here, with no lock held.
        _ = settled
    }

    /// Cancels everything in the bag, in the order it was inserted, and empties it.
    ///
    /// Returns once what it took is cancelled and, when made from a thread that runs none of the
    /// library's work, once every emptying begun earlier on another thread is done too. One made
    /// from inside the library's work (a callback, a queued delivery, a page's close, a
    /// cancellation of another emptying) does not wait for other emptyings: they may be waiting
    /// for it.
    public func removeAll() {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        // Nothing can wait for a thread that runs none of the library's work: its wait closes no
        // cycle. Any other thread may be what an earlier emptying waits for.
        let waitsForEarlier = !context.mayBeWaitedFor && context.emptyingDepth == 0
        let (id, taken, earlier) = contents.withLock { contents in
            let id = contents.nextEmptying
            contents.nextEmptying += 1
            var earlier: [DispatchSemaphore] = []
            let others = waitsForEarlier ? contents.emptyings.indices : 0..<0
            for index in others where contents.emptyings[index].thread != thread {
                let semaphore = DispatchSemaphore(value: 0)
                contents.emptyings[index].waiters.append(semaphore)
                earlier.append(semaphore)
            }
            contents.emptyings.append(Emptying(id: id, thread: thread))
            defer {
                contents.items.removeAll()
                contents.nextLook = ConsumerBag.firstLook
            }
            return (id, contents.items, earlier)
        }
        context.emptyingDepth += 1
        for item in taken {
            item.cancel()
        }
        assert(context.emptyingDepth > 0, "a bag's emptying ended on a thread that was not running one")
        context.emptyingDepth -= 1
        let waiters = contents.withLock { contents -> [DispatchSemaphore] in
            guard let index = contents.emptyings.firstIndex(where: { $0.id == id }) else { return [] }
            return contents.emptyings.remove(at: index).waiters
        }
        for waiter in waiters {
            waiter.signal()
        }
        for semaphore in earlier {
            semaphore.wait()
        }
    }

    /// How many emptyings wait for an earlier one to be done, for tests.
    var waitingEmptyings: Int {
        contents.withLock { $0.emptyings.reduce(0) { $0 + $1.waiters.count } }
    }

    /// The number of items the bag holds: those inserted since it was last emptied, less any it
    /// let go of as settled (see ``insert(_:)``).
    public var count: Int {
        contents.withLock { $0.items.count }
    }

    /// Whether the bag holds nothing.
    public var isEmpty: Bool {
        count == 0
    }
}
