/// The floor of the scaling scenarios: what a careful programmer writes by hand, with no library.
///
/// Reduce in place; then, for every selector, read the value, compare it with the last one and
/// call back when it changed. One entry per selector, whatever the library's layout (one consumer
/// with N members or N consumers): by hand, both are the same loop.
///
/// Each entry reads its value the cheapest way open to the library for the same selection, so the
/// ratio measures the engine's bookkeeping, not how values are read: a closure selector through
/// the same closure; a key path to a stored property directly (the library reads it at its byte
/// offset); any other key path (here, into an array slot) through the key path, `state[keyPath:]`,
/// as the library must: the runtime projects such a path component by component, at many times
/// the cost of a closure.
struct ScalingFloor {
    private struct Entry {
        let select: (ScalingState) -> Int
        var last: Int
        let callback: (_ old: Int, _ new: Int) -> Void
    }

    private var state: ScalingState
    private var entries: [Entry]
    private let firing: Firing
    private(set) var dispatched = 0
    private(set) var expectedCallbacks = 0

    /// A floor with `selectors` entries reading what ``Firing`` says (slot `i`, or the shared
    /// field) through `selector`'s kind, each calling `sink.recordStep`.
    init(selectors: Int, selector: SelectorKind, firing: Firing, sink: Sink) {
        let state = firing.initialState(selectors: selectors)
        self.state = state
        self.firing = firing
        entries = (0..<selectors).map { index in
            let select: (ScalingState) -> Int
            switch selector {
            case .keyPath where MemoryLayout<ScalingState>.offset(of: firing.keyPath(index)) == nil:
                let keyPath = firing.keyPath(index)
                select = { $0[keyPath: keyPath] }
            case .keyPath, .closure, .closureValue:
                select = firing.selector(index)
            }
            return Entry(select: select, last: select(state)) { old, new in sink.recordStep(from: old, to: new) }
        }
    }

    /// Applies `count` actions and notifies the entries after each.
    mutating func run(_ count: Int) {
        for _ in 0..<count {
            dispatched += 1
            expectedCallbacks += firing.firedSelectors(entries.count, round: dispatched)
            state.apply(firing.action(round: dispatched))
            for index in entries.indices {
                let new = entries[index].select(state)
                if new != entries[index].last {
                    let old = entries[index].last
                    entries[index].last = new
                    entries[index].callback(old, new)
                }
            }
        }
    }
}
