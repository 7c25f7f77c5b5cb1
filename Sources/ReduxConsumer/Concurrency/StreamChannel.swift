/// The buffer between a store's callbacks (which post elements on the store's thread) and the one
/// task reading an async sequence of its changes.
///
/// Its posting and reading paths are `@inlinable`, so that a client's `changes(of:)` stream runs
/// them specialised for its element type: run generically, every post paid several generic
/// metadata look-ups (thousands of instructions). The reader takes every buffered element at once
/// (one lock and at most one wake-up per batch, not per element) and is woken only when it waits:
/// a post to a reader that is still busy costs one uncontended lock and an append (or a merge).
@usableFromInline
final class StreamChannel<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` below is read and written only inside `lock.withLock`; which is also
    // why their accesses skip the dynamic exclusivity checks (`@exclusivity(unchecked)`), a third
    // of a post's cost otherwise: the mutex already makes every access exclusive.
    @usableFromInline let lock = ChannelLock()
    /// Whether a pending element absorbs the newer ones (coalescing buffering).
    @usableFromInline let isCoalescing: Bool
    /// The elements not yet taken by the reader; one at most when coalescing.
    @exclusivity(unchecked) @usableFromInline var buffer: [Element] = []
    /// The reader, while it waits for an element.
    @exclusivity(unchecked) @usableFromInline var reader: CheckedContinuation<Void, Never>?
    /// Whether `reader` waits and no post has claimed its wake-up yet: a post reads this flag, not
    /// the continuation (a resilient type, slow to copy), and only the post that clears it wakes
    /// the reader.
    @exclusivity(unchecked) @usableFromInline var isReaderWaiting = false
    @exclusivity(unchecked) @usableFromInline var isFinished = false
    /// What feeds the channel; cancelled when the channel finishes.
    @exclusivity(unchecked) private var feed: (any Cancellable)?
    /// What finishes the channel; forgotten when the channel finishes.
    @exclusivity(unchecked) private var cleanup: [@Sendable () -> Void] = []

    @usableFromInline
    init(buffering: StreamBuffering) {
        isCoalescing = buffering == .coalescing
    }

    /// Hands the channel what feeds it and what to undo when it finishes; cancels `feed` and runs
    /// `cleanup` at once if it has finished already.
    func attach(feed: any Cancellable, cleanup: [@Sendable () -> Void]) {
        var isFinished = false
        lock.withLock {
            isFinished = self.isFinished
            guard !isFinished else { return }
            self.feed = feed
            self.cleanup = cleanup
        }
        if isFinished {
            feed.cancel()
            for undo in cleanup { undo() }
        }
    }

    /// Adds an element to the buffer (when coalescing, merged into the pending one with `merge`:
    /// `old` from the pending element, the rest from the newer one), and wakes the reader if it
    /// waits. `merge` runs under the channel's lock: it must be the library's own, never user code.
    @inlinable
    func post(_ element: Element, merging merge: (_ pending: Element, _ newer: Element) -> Element) {
        var wakesReader = false
        // The replaced pending element is released after the lock, not under it (its release may
        // run a user deinit).
        var replaced: Element?
        lock.withLock {
            guard !isFinished else { return }
            if isCoalescing, let last = buffer.indices.last {
                replaced = buffer[last]
                buffer[last] = merge(buffer[last], element)
            } else {
                buffer.append(element)
            }
            wakesReader = isReaderWaiting
            isReaderWaiting = false
        }
        withExtendedLifetime(replaced) {}
        if wakesReader { wakeReader() }
    }

    /// Resumes the waiting reader, if it still waits (a `finish` may have resumed it meanwhile).
    @usableFromInline
    func wakeReader() {
        var reader: CheckedContinuation<Void, Never>?
        lock.withLock { reader = self.reader.take() }
        reader?.resume()
    }

    /// Ends the sequence: the reader gets the buffered elements, then `nil`; the feed is cancelled.
    @usableFromInline
    func finish() {
        var reader: CheckedContinuation<Void, Never>?
        var feed: (any Cancellable)?
        var cleanup: [@Sendable () -> Void] = []
        lock.withLock {
            guard !isFinished else { return }
            isFinished = true
            isReaderWaiting = false
            reader = self.reader.take()
            feed = self.feed.take()
            swap(&cleanup, &self.cleanup)
        }
        reader?.resume()
        feed?.cancel()
        for undo in cleanup { undo() }
    }

    /// Moves every buffered element into `batch` (which must be empty), waiting for at least one;
    /// leaves `batch` empty once the sequence is finished (or the reading task is cancelled, which
    /// finishes it) and nothing is left.
    ///
    /// Before it waits, the reader yields its thread up to ``yieldsBeforeWaiting`` times and looks
    /// again: while changes arrive faster than a wake-up takes (a few microseconds), the next one
    /// is usually there by then, and the store's thread never pays for waking the reader.
    @inlinable
    func take(into batch: inout [Element]) async {
        var yields = 0
        while true {
            var isFinished = false
            lock.withLock {
                if buffer.isEmpty {
                    isFinished = self.isFinished
                } else {
                    swap(&batch, &buffer)
                }
            }
            if !batch.isEmpty || isFinished { return }
            if yields < Self.yieldsBeforeWaiting {
                yields += 1
                await Task.yield()
            } else {
                await waitForPost()
            }
        }
    }

    /// How many times the reader yields before it waits for a post (see ``take(into:)``).
    @inlinable
    static var yieldsBeforeWaiting: Int { 2 }

    /// Returns once an element was posted or the sequence finished (at once if either happened).
    @inlinable
    func waitForPost() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Void, Never>) in
                var isReady = false
                lock.withLock {
                    isReady = !buffer.isEmpty || isFinished
                    if !isReady {
                        assert(self.reader == nil, "two readers wait on one stream channel")
                        self.reader = reader
                        isReaderWaiting = true
                    }
                }
                if isReady { reader.resume() }
            }
        } onCancel: {
            finish()
        }
    }
}

extension StreamChannel {
    /// Posts the change from `old` to `new`; when coalescing, merged into the pending change (its
    /// `old` kept, `new` taken), which keeps the chain: each element's `old` is the previous `new`.
    @inlinable
    func postChange<Value>(from old: Value, to new: Value) where Element == Change<Value> {
        post(Change(old: old, new: new)) { pending, newer in Change(old: pending.old, new: newer.new) }
    }
}

/// A stream channel's mutex, behind one call that the channel's inlined code can make.
@usableFromInline
final class ChannelLock: Sendable {
    // The value is unused; not `Void`: a zero-sized value shares its address with the mutex, and
    // ThreadSanitizer then reports the lock's own bookkeeping as a race.
    private let lock = Lock(false)

    @usableFromInline
    init() {}

    /// Runs `body` holding the mutex; `body` must not run user code.
    @usableFromInline
    func withLock(_ body: () -> Void) {
        lock.withLock { _ in body() }
    }
}
