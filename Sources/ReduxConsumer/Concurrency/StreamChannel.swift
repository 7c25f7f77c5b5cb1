import ReduxConsumerAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// The buffer between a store's callbacks (which post elements on the store's thread) and the one
/// task reading an async sequence of its changes.
///
/// Its posting and reading paths are `@inlinable`, so that a client's `changes(of:)` stream runs
/// them specialised for its element type: run generically, every post paid several generic
/// metadata look-ups (thousands of instructions). The reader takes every buffered element at once
/// (one lock and at most one wake-up per batch, not per element), at most once per
/// ``lingerNanoseconds`` while elements keep coming, and is woken only when it waits: a post to a
/// reader that is still busy costs one uncontended lock and an append (or a merge) on memory the
/// reader has not touched since its last take.
@usableFromInline
final class StreamChannel<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` below is read and written only inside `lock.withLock`; which is also
    // why their accesses skip the dynamic exclusivity checks (`@exclusivity(unchecked)`), a third
    // of a post's cost otherwise: the mutex already makes every access exclusive.
    @usableFromInline let lock = ChannelLock()
    /// Whether a pending element absorbs the newer ones (coalescing buffering).
    @usableFromInline let isCoalescing: Bool
    /// The elements not yet taken by the reader (unbounded buffering).
    @exclusivity(unchecked) @usableFromInline var buffer: [Element] = []
    /// The element not yet taken by the reader, newer ones merged into it (coalescing buffering):
    /// kept inline, not in `buffer`, so that a post touches no array.
    @exclusivity(unchecked) @usableFromInline var pending: Element?
    /// Whether `pending` began as a change (not an `.instantly` element, not one of a member that
    /// fires for every state) and absorbed newer ones since: its value may have come back to
    /// where it started, which the reader checks with `cameBack` (outside the lock: it is user
    /// code) and then drops the element.
    @exclusivity(unchecked) @usableFromInline var pendingStartedAsChange = false
    @exclusivity(unchecked) @usableFromInline var pendingIsMerged = false
    /// Set by the first post of a change stream: whether a change's values are the same.
    @exclusivity(unchecked) @usableFromInline var cameBack: (@Sendable (Element) -> Bool)?
    /// The reader, while it waits for an element. Resumed exactly once, by whoever takes it out of
    /// this field under the lock: unsafe in release builds (no allocation per wait), checked in
    /// debug builds (a second resume or a lost one is reported).
    @exclusivity(unchecked) @usableFromInline var reader: ReaderContinuation?
    @exclusivity(unchecked) @usableFromInline var isFinished = false
    /// Whether an iterator has claimed the one subscription that feeds the channel (see
    /// ``claimStart()``, the only code that touches it, under `lock`; read once per iteration, so
    /// it keeps the exclusivity check).
    @usableFromInline var isStarted = false
    /// Whether an element (or the end) came since the reader last took: a word the posting thread
    /// sets under the lock and the reader watches without it while it spins (see ``take(into:lastTake:)``).
    /// Alone in a 128-byte block (allocated in `init`, freed in `deinit`, only ever accessed
    /// through the `rc_` atomics), so that the reader's watching never shares a cache line with
    /// the lock or the pending element, which the posting thread writes on every post.
    @usableFromInline let posted: UnsafeMutablePointer<UInt>
    /// What feeds the channel; cancelled when the channel finishes.
    @exclusivity(unchecked) private var feed: (any Cancellable)?
    /// What finishes the channel; forgotten when the channel finishes.
    @exclusivity(unchecked) private var cleanup: [@Sendable () -> Void] = []

    #if DEBUG
        @usableFromInline typealias ReaderContinuation = CheckedContinuation<Void, Never>
    #else
        @usableFromInline typealias ReaderContinuation = UnsafeContinuation<Void, Never>
    #endif

    @usableFromInline
    init(buffering: StreamBuffering) {
        isCoalescing = buffering == .coalescing
        posted = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
            .bindMemory(to: UInt.self, capacity: 1)
        posted.initialize(to: 0)
    }

    deinit {
        posted.deallocate()
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

    /// Claims the one subscription that feeds the channel: `true` the first time only. Copies of
    /// an iterator share its channel, and each would otherwise subscribe, while the channel keeps
    /// one feed to cancel.
    @inlinable
    func claimStart() -> Bool {
        var isFirst = false
        lock.withLock {
            isFirst = !isStarted
            isStarted = true
        }
        return isFirst
    }

    /// Adds an element to the buffer (when coalescing, merged into the pending one with `merge`:
    /// `old` from the pending element, the rest from the newer one), and wakes the reader if it
    /// waits. `merge` runs under the channel's lock: it must be the library's own, never user code.
    @inlinable
    func post(
        _ element: Element, isChange: Bool = false, cameBack: (@Sendable (Element) -> Bool)? = nil,
        merging merge: (_ pending: Element, _ newer: Element) -> Element
    ) {
        var waiting: ReaderContinuation?
        // The replaced pending element is released after the lock, not under it (its release may
        // run a user deinit).
        var replaced: Element?
        lock.withLock {
            guard !isFinished else { return }
            if isCoalescing {
                if let current = pending {
                    pending = merge(current, element)
                    replaced = current
                    pendingIsMerged = true
                    if pendingStartedAsChange, self.cameBack == nil { self.cameBack = cameBack }
                } else {
                    pending = element
                    pendingStartedAsChange = isChange && cameBack != nil
                    pendingIsMerged = false
                    rc_store_relaxed(posted, 1)
                }
            } else {
                buffer.append(element)
                if buffer.count == 1 { rc_store_relaxed(posted, 1) }
            }
            if reader != nil { waiting = reader.take() }
        }
        withExtendedLifetime(replaced) {}
        // Resumed after the lock: the resume schedules the reader's task.
        waiting?.resume()
    }

    /// Ends the sequence: the reader gets the buffered elements, then `nil`; the feed is cancelled.
    @usableFromInline
    func finish() {
        var waiting: ReaderContinuation?
        var feed: (any Cancellable)?
        var cleanup: [@Sendable () -> Void] = []
        lock.withLock {
            guard !isFinished else { return }
            isFinished = true
            rc_store_relaxed(posted, 1)
            waiting = reader.take()
            feed = self.feed.take()
            swap(&cleanup, &self.cleanup)
        }
        waiting?.resume()
        feed?.cancel()
        for undo in cleanup { undo() }
    }

    /// Moves every buffered element into `batch` (which must be empty), waiting for at least one;
    /// leaves `batch` empty once the sequence is finished (or the reading task is cancelled, which
    /// finishes it, whether the reader waits or not) and nothing is left.
    ///
    /// A reader that comes back less than ``lingerNanoseconds`` after its last take (`lastTake`,
    /// which this updates) first lets that time pass without touching the channel: while changes
    /// arrive faster than the reader handles them, each take moves the lock and the pending element
    /// to the reader's processor and the posting thread pays to get them back, so a reader that
    /// took every change as soon as it came slowed the store's thread by up to 2.9×; one take per
    /// linger (a few changes merged, or appended, meanwhile) bounds that cost whatever the reader's
    /// speed.
    ///
    /// Before it waits, the reader watches for a post for a few microseconds (see
    /// ``awaitPostBriefly()``): while changes arrive faster than a wake-up takes, the next one is
    /// usually there by then, and neither side pays for a wake-up: the store's thread does not
    /// resume the reader, and the reader does not reschedule itself (a `Task.yield` wakes an idle
    /// thread of the pool, which the kernel may run in place of the store's).
    /// Returns the check of a coalesced element that may have come back to where it started (see
    /// ``pendingIsMerged``), to make outside the lock; `nil` when there is nothing to check.
    ///
    /// Cancelling the reading task finishes the channel at once wherever the reader is in here
    /// (lingering, watching for a post or waiting), so nothing posted after the cancellation is
    /// taken; if the task was cancelled before, it finishes the channel as the reader comes in.
    @inlinable
    func take(into batch: inout [Element], lastTake: inout UInt64) async -> (@Sendable (Element) -> Bool)? {
        await withTaskCancellationHandler {
            await takeUncancelled(into: &batch, lastTake: &lastTake)
        } onCancel: {
            finish()
        }
    }

    /// ``take(into:lastTake:)`` without its cancellation handler.
    @inlinable
    func takeUncancelled(
        into batch: inout [Element], lastTake: inout UInt64
    ) async -> (@Sendable (Element) -> Bool)? {
        if lastTake != 0, !Task.isCancelled {
            Self.linger(since: lastTake)
        }
        var hasWatched = false
        while true {
            var isFinished = false
            var check: (@Sendable (Element) -> Bool)?
            lock.withLock {
                if let element = pending.take() {
                    batch.append(element)
                    if pendingIsMerged, pendingStartedAsChange { check = cameBack }
                    pendingIsMerged = false
                    pendingStartedAsChange = false
                    rc_store_relaxed(posted, 0)
                } else if !buffer.isEmpty {
                    swap(&batch, &buffer)
                    rc_store_relaxed(posted, 0)
                } else {
                    isFinished = self.isFinished
                }
            }
            if !batch.isEmpty {
                lastTake = Self.monotonicNanoseconds()
                return check
            }
            if isFinished { return nil }
            if !hasWatched {
                hasWatched = true
                if awaitPostBriefly() { continue }
            }
            await waitForPost()
            hasWatched = false
        }
    }

    /// The shortest time between two takes while elements keep coming (10 µs): about as long as
    /// a waiting reader's wake-up takes, and long enough that a take's cost to the posting thread
    /// (about a microsecond: the lock, the pending element and the post flag move to the reader's
    /// processor and back) stays near a tenth of its time at any dispatch rate.
    @usableFromInline
    static var lingerNanoseconds: UInt64 { 10_000 }

    /// Returns once ``lingerNanoseconds`` have passed since `lastTake`, yielding the processor
    /// between looks at the clock (to the store's thread, when both share a processor).
    @usableFromInline
    static func linger(since lastTake: UInt64) {
        while monotonicNanoseconds() &- lastTake < lingerNanoseconds {
            sched_yield()
        }
    }

    /// The monotonic clock, in nanoseconds.
    @usableFromInline
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Watches for a post for a few microseconds, without the lock; returns whether one came.
    ///
    /// A bounded busy wait on the reader's thread, cheaper than rescheduling the task; between
    /// looks it yields its processor to any thread that waits for one (the store's thread, when
    /// both share a processor), so it never delays the posts it waits for.
    @usableFromInline
    func awaitPostBriefly() -> Bool {
        for _ in 0..<Self.postWatchRounds {
            for _ in 0..<Self.postWatchLoads {
                if rc_load_relaxed(posted) != 0 { return true }
            }
            sched_yield()
        }
        return false
    }

    /// How many times ``awaitPostBriefly()`` looks at the post flag between yields of the
    /// processor (about a nanosecond each), and how many such rounds it makes.
    static var postWatchLoads: Int { 256 }
    static var postWatchRounds: Int { 8 }

    /// Returns once an element was posted or the sequence finished (at once if either happened).
    /// A cancellation finishes the sequence through ``take(into:lastTake:)``'s handler.
    @inlinable
    func waitForPost() async {
        #if DEBUG
            await withCheckedContinuation { wait($0) }
        #else
            await withUnsafeContinuation { wait($0) }
        #endif
    }

    /// Leaves `reader` for the next post (or the end) to resume, or resumes it at once if an element
    /// or the end is already there.
    @inlinable
    func wait(_ reader: ReaderContinuation) {
        var isReady = false
        lock.withLock {
            isReady = !buffer.isEmpty || pending != nil || isFinished
            if !isReady {
                assert(self.reader == nil, "two readers wait on one stream channel")
                self.reader = reader
            }
        }
        if isReady { reader.resume() }
    }
}

extension StreamChannel {
    /// Posts the change from `old` to `new`; when coalescing, merged into the pending change (its
    /// `old` kept, `new` taken), which keeps the chain: each element's `old` is the previous `new`.
    ///
    /// `cameBack` says whether a change's values are the same (`nil` for a stream of a member that
    /// fires for every state): asked here, before the lock, whether this change is one (an
    /// `.instantly` element is not), and by the reader whether merged changes came back where they
    /// started (then they are no change, and the reader never sees them).
    @inlinable
    func postChange<Value>(
        from old: Value, to new: Value, cameBack: (@Sendable (Change<Value>) -> Bool)?
    ) where Element == Change<Value> {
        let change = Change(old: old, new: new)
        // Only merged elements are ever dropped: an unbounded channel never asks.
        let isChange = isCoalescing ? cameBack.map { !$0(change) } ?? false : false
        post(change, isChange: isChange, cameBack: cameBack) { pending, newer in
            Change(old: pending.old, new: newer.new)
        }
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
