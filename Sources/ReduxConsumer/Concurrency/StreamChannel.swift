/// The buffer between a store's callbacks (which post elements on the store's thread) and the one
/// task reading an async sequence of its changes.
final class StreamChannel<Element: Sendable>: Sendable {
    private let state: Lock<State>
    /// Merges a newer element into a pending one (coalescing buffering).
    private let merge: @Sendable (_ pending: Element, _ newer: Element) -> Element

    private struct State {
        var buffer: [Element] = []
        var head = 0
        var isCoalescing: Bool
        var reader: CheckedContinuation<Element?, Never>?
        var isFinished = false
        /// What feeds the channel; cancelled when the channel finishes.
        var feed: (any Cancellable)?
        /// What finishes the channel; forgotten when the channel finishes.
        var cleanup: [@Sendable () -> Void] = []
    }

    init(buffering: StreamBuffering, merge: @escaping @Sendable (Element, Element) -> Element) {
        state = Lock(State(isCoalescing: buffering == .coalescing))
        self.merge = merge
    }

    /// Hands the channel what feeds it and what to undo when it finishes; returns `false` (and
    /// cancels `feed`) if it has finished already.
    func attach(feed: any Cancellable, cleanup: [@Sendable () -> Void]) {
        let isFinished = state.withLock { state -> Bool in
            guard !state.isFinished else { return true }
            state.feed = feed
            state.cleanup = cleanup
            return false
        }
        if isFinished {
            feed.cancel()
            for undo in cleanup { undo() }
        }
    }

    /// Adds an element: to the waiting reader, or to the buffer.
    func post(_ element: Element) {
        let reader = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard !state.isFinished else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            if state.isCoalescing, state.head < state.buffer.count {
                state.buffer[state.buffer.count - 1] = merge(state.buffer[state.buffer.count - 1], element)
            } else {
                state.buffer.append(element)
            }
            return nil
        }
        reader?.resume(returning: element)
    }

    /// Ends the sequence: the reader gets the buffered elements, then `nil`; the feed is cancelled.
    func finish() {
        let (reader, feed, cleanup) = state.withLock { state in
            guard !state.isFinished else {
                return (nil, nil, [])
                    as (CheckedContinuation<Element?, Never>?, (any Cancellable)?, [@Sendable () -> Void])
            }
            state.isFinished = true
            defer {
                state.reader = nil
                state.feed = nil
                state.cleanup = []
            }
            return (state.reader, state.feed, state.cleanup)
        }
        reader?.resume(returning: nil)
        feed?.cancel()
        for undo in cleanup { undo() }
    }

    /// The next element, waiting for one; `nil` once the sequence is finished (or the reading
    /// task is cancelled, which finishes it).
    func next() async -> Element? {
        if let element = takeBuffered() {
            return element
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Element?? in
                    if state.head < state.buffer.count { return .some(take(&state)) }
                    if state.isFinished { return .some(nil) }
                    state.reader = reader
                    return nil
                }
                if let ready { reader.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    private func takeBuffered() -> Element? {
        state.withLock { state in state.head < state.buffer.count ? take(&state) : nil }
    }

    private func take(_ state: inout State) -> Element {
        let element = state.buffer[state.head]
        state.head += 1
        if state.head == state.buffer.count {
            state.buffer.removeAll(keepingCapacity: state.buffer.count <= 64)
            state.head = 0
        }
        return element
    }
}
