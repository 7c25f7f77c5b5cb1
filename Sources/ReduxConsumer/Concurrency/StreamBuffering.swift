/// How an async sequence of a store's changes buffers for a reader that falls behind.
///
/// While changes keep coming, the reader takes what was buffered at most once every 10 µs, so that
/// a fast reader does not slow the dispatching thread: even a reader that keeps up with a busy
/// store gets merged steps (coalescing) or small batches (unbounded). A change that arrives after a
/// pause is handed over at once.
public enum StreamBuffering: Sendable, Hashable {
    /// Keep one pending element at most: changes that arrive while the reader is busy are merged
    /// into it, keeping its `old` and taking the latest `new` (for actions: the latest action).
    /// Every element's `old` is still the previous element's `new`, the last element's `new` is the
    /// latest value, and memory stays bounded whatever the dispatch rate. The default for changes.
    case coalescing
    /// Keep every element until it is read: nothing is lost, memory grows while the reader is
    /// behind. The default for actions.
    case unbounded
}
