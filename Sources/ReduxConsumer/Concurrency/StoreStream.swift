/// An asynchronous sequence of a store's changes, states or actions, read by one task.
///
/// Made by `changes(of:)`, ``Store/states`` and ``Store/actions`` (and their `PageStore`
/// counterparts). Each iteration is a subscription of its own, made when the iteration asks for its
/// first element (without ever blocking the task's thread) and removed when it ends, following
/// the consumer rules (a change fires only when the value changed; `.instantly` makes the first
/// element the starting value, with `old == new`, unless a reader that is already behind when it
/// comes gets it merged with the changes after it, as `.coalescing` merges any element). Elements
/// come in the store's order; how a reader that falls behind is served is the sequence's
/// ``StreamBuffering``.
///
/// The sequence finishes when its store is released (or its page closed); cancelling the task
/// that iterates removes its subscription (``Store/subscriberCount`` is back where it was) at once
/// while the task waits for an element, and otherwise when it next asks for one (a task busy in
/// its loop's body is out of the sequence's reach): nothing new is buffered after that, what was
/// buffered already is still returned, then the iteration ends. The sequence does not keep its
/// store alive.
public struct StoreStream<Element: Sendable>: AsyncSequence, Sendable {
    /// How the sequence buffers for a reader that falls behind.
    public let buffering: StreamBuffering
    /// Subscribes, feeding the channel; finishes it at once if the store is gone.
    @usableFromInline let start: @Sendable (StreamChannel<Element>) async -> Void

    init(
        buffering: StreamBuffering,
        start: @escaping @Sendable (StreamChannel<Element>) async -> Void
    ) {
        self.buffering = buffering
        self.start = start
    }

    /// Starts an iteration; it subscribes when it is first asked for an element.
    ///
    /// - Returns: The iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: StreamChannel<Element>(buffering: buffering), start: start)
    }

    /// Reads one iteration of a ``StoreStream``.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let channel: StreamChannel<Element>
        @usableFromInline let ending: Ending
        @usableFromInline var start: (@Sendable (StreamChannel<Element>) async -> Void)?
        /// The elements taken from the channel and not yet returned, from `index` on.
        @usableFromInline var batch: [Element] = []
        @usableFromInline var index = 0
        /// When the channel last handed over elements (monotonic nanoseconds; 0 before the first).
        @usableFromInline var lastTake: UInt64 = 0

        @inlinable
        init(channel: StreamChannel<Element>, start: @escaping @Sendable (StreamChannel<Element>) async -> Void) {
            self.channel = channel
            self.start = start
            ending = Ending(channel)
        }

        /// The next element, waiting for one; `nil` once the store is gone or the task cancelled
        /// and the elements buffered before are read.
        ///
        /// - Returns: The next element, or `nil` at the end.
        @inlinable
        public mutating func next() async -> Element? {
            while batch.isEmpty {
                if let start {
                    self.start = nil
                    // Copies of an iterator share its channel: the first to ask subscribes for all.
                    // A cancellation while the store is busy finishes the channel at once: the
                    // subscription, made when the store gets to it, is then cancelled there.
                    if channel.claimStart() {
                        await withTaskCancellationHandler {
                            await start(channel)
                        } onCancel: { [channel] in
                            channel.finish()
                        }
                    }
                }
                let cameBack = await channel.take(into: &batch, lastTake: &lastTake)
                if batch.isEmpty { return nil }
                if let cameBack, cameBack(batch[0]) {
                    // Merged changes back where they started: no change, no element.
                    batch.removeAll(keepingCapacity: true)
                }
            }
            let element = batch[index]
            index += 1
            if index == batch.count {
                // Returned elements are released now, not with the next batch; a large batch's
                // storage is not kept.
                batch.removeAll(keepingCapacity: batch.count <= 1_024)
                index = 0
            }
            return element
        }
    }

    /// Ends the iteration when its iterator is dropped (a `for` loop that breaks).
    @usableFromInline
    final class Ending: Sendable {
        let channel: StreamChannel<Element>

        @usableFromInline
        init(_ channel: StreamChannel<Element>) {
            self.channel = channel
        }

        deinit {
            channel.finish()
        }
    }
}

extension StoreStream {
    /// A sequence fed by a consumer of `store` that `add` sets up; `post` hands each change to the
    /// channel (made by the caller's inlined code, so it runs specialised for `Value`).
    @usableFromInline
    static func changes<State: Sendable, Value: Sendable>(
        of store: Store<State>,
        buffering: StreamBuffering,
        post: @escaping @Sendable (StreamChannel<Change<Value>>, Value, Value) -> Void,
        add: @escaping @Sendable (StateConsumer<State>, @escaping @Sendable (Value, Value) -> Void) -> Void
    ) -> StoreStream<Change<Value>> where Element == Change<Value> {
        changes(of: store, endingWith: [], buffering: buffering, post: post, add: add)
    }

    /// A sequence fed by a consumer of `store` that `add` sets up, ending with every `teardown`.
    static func changes<State: Sendable, Value: Sendable>(
        of store: Store<State>,
        endingWith teardowns: [Teardown],
        buffering: StreamBuffering,
        post: @escaping @Sendable (StreamChannel<Change<Value>>, Value, Value) -> Void,
        add: @escaping @Sendable (StateConsumer<State>, @escaping @Sendable (Value, Value) -> Void) -> Void
    ) -> StoreStream<Change<Value>> where Element == Change<Value> {
        StoreStream(buffering: buffering) { [weak store] channel in
            guard let store else {
                channel.finish()
                return
            }
            // Subscribed and registered in one job of the store, the member added after: once
            // `subscriberCount` counts the iteration, it hears every change after (and an
            // `.instantly` member gets the state of that moment). A consumer without members has
            // no host of its own yet, so it attaches here, after the channel took its feed.
            await store.performAsync { store in
                let consumer = StateConsumer<State>()
                let (registration, subscription) = store.consumerSubscription(consumer)
                channel.attach(feed: subscription, teardowns: [store.teardown] + teardowns)
                registration?(store)
                add(consumer) { old, new in post(channel, old, new) }
            }
        }
    }

    /// What posts a change to a channel, specialised where it is made (in the caller's inlined
    /// code).
    ///
    /// - Parameter isSame: How the stream's member compares values (`==` or its `isEqual`), `nil`
    ///   when it fires for every state: merged changes that come back where they started are then
    ///   dropped (see ``StreamChannel/postChange(from:to:cameBack:)``).
    @inlinable
    static func changePoster<Value>(
        isSame: (@Sendable (Value, Value) -> Bool)?
    ) -> @Sendable (StreamChannel<Change<Value>>, Value, Value) -> Void where Element == Change<Value> {
        var cameBack: (@Sendable (Change<Value>) -> Bool)?
        if let isSame {
            cameBack = { change in isSame(change.old, change.new) }
        }
        return { [cameBack] channel, old, new in channel.postChange(from: old, to: new, cameBack: cameBack) }
    }

    /// ``changePoster(isSame:)`` for a member compared with `==`, unless `options` make it fire
    /// for every state.
    @inlinable
    static func changePoster<Value: Equatable>(
        options: ConsumeOptions
    ) -> @Sendable (StreamChannel<Change<Value>>, Value, Value) -> Void where Element == Change<Value> {
        guard !options.contains(.pulse) else { return changePoster(isSame: nil) }
        return changePoster(isSame: { (old: Value, new: Value) in old == new })
    }
}

extension StreamChannel {
    /// Hands the channel its feed, finishing it with the first of `teardowns` to run.
    func attach(feed: any Cancellable, teardowns: [Teardown]) {
        var cleanup: [@Sendable () -> Void] = []
        for teardown in teardowns {
            if let id = teardown.add({ [weak self] in self?.finish() }) {
                cleanup.append { teardown.remove(id) }
            }
        }
        attach(feed: feed, cleanup: cleanup)
    }
}
