/// N4: what this machine's caches make of ten times the selectors, for a loop that spends no
/// time on reference counting. A reference for N1's growth column, not a goal.
///
/// N1's floor grows about 10× from 1,000 to 10,000 selectors on any machine: each of its steps
/// retains and releases the selector's closure context (two atomic operations, about 20 ns a
/// selector), which hides the time the step waits for memory. The engine calls its selectors
/// borrowed (about 4 ns a selector), so what it waits for shows: at 10,000 selectors its objects
/// no longer fit the cache nearest the core.
///
/// The reference loop here calls each selector as the engine does (a box per selector, called
/// borrowed through an unretained list, with the selector's closure and the last value), and
/// places the boxes in memory three ways:
/// - dense: nothing allocated between one selector's box and the next one's;
/// - spread like one consumer's members: 6 objects of 128 bytes between them (adding a closure
///   member to one consumer allocates about 900 bytes in 9 objects, its closures included);
/// - spread like N consumers' members: 27 objects of 64 bytes (a consumer and its one member
///   allocate about 2,000 bytes in 30 objects).
///
/// The filler objects stay alive, as the engine's do, but the loop never reads them.
func cacheReference(_ sizes: ScalingSizes) -> [Report] {
    let counts = Array(sizes.selectorCounts.suffix(2))
    let spreads = [
        FillerSpread(label: "dense", objects: 0, bytes: 0),
        FillerSpread(label: "spread like 1 consumer's members", objects: 6, bytes: 128),
        FillerSpread(label: "spread like N consumers' members", objects: 27, bytes: 64),
    ]
    var reports: [Report] = []
    for period in [100, 1] {
        let firing = Firing.slots(period: period)
        for spread in spreads {
            let sinks = counts.map { _ in Sink() }
            let loops = counts.indices.map { index in
                ReferenceLoop(selectors: counts[index], spread: spread, firing: firing, sink: sinks[index])
            }
            let timings = measure(within: sizes.budget, loops.indices.map { index in { loops[index].run($0) } })
            for index in counts.indices {
                var failure = checkCallbacks(
                    sinks[index], expected: loops[index].expectedCallbacks, of: "reference loop")
                if failure == nil, loops[index].dispatched == 0 {
                    failure = "reference loop: nothing was dispatched"
                }
                var ratios: [(String, Double)] = []
                if index > 0 {
                    ratios.append(("growth", timings[index].timing.median / timings[index - 1].timing.median))
                }
                let report = Report(
                    scenario: "N4",
                    title: "reference loop, \(spread.label), \(firing.label), N = \(grouped(counts[index]))",
                    nsPerOp: timings[index].timing.median,
                    minNsPerOp: timings[index].timing.min,
                    ratios: ratios,
                    figures: [("ns_per_selector", timings[index].timing.median / Double(counts[index]))],
                    target: "reported: the machine's growth for N1's memory layouts",
                    failure: failure
                )
                reports.append(report)
            }
            withExtendedLifetime(loops) {}
        }
    }
    return reports
}

/// How many objects a ``ReferenceLoop`` allocates, and keeps, between two selectors' boxes.
struct FillerSpread {
    let label: String
    let objects: Int
    /// The size of each allocation, its header included.
    let bytes: Int
}

/// One selector of a ``ReferenceLoop``: what the engine keeps for a closure selector (its cell).
private final class ReferenceBox {
    let select: @Sendable (ScalingState) -> Int
    var last: Int
    let callback: (_ old: Int, _ new: Int) -> Void

    init(select: @escaping @Sendable (ScalingState) -> Int, last: Int, callback: @escaping (Int, Int) -> Void) {
        self.select = select
        self.last = last
        self.callback = callback
    }
}

/// N closure selectors on distinct slots, each in a box of its own, compared and called back in a
/// loop that retains nothing: the engine's way of calling, without its bookkeeping.
private final class ReferenceLoop {
    private var state: ScalingState
    /// Each box retained once, by this list, until `deinit`: called borrowed, with no retain.
    private let boxes: [Unmanaged<ReferenceBox>]
    /// The objects between the boxes, kept so their memory is not handed to the next box.
    private let fillers: [ContiguousArray<UInt8>]
    private let firing: Firing
    private(set) var dispatched = 0
    private(set) var expectedCallbacks = 0

    init(selectors: Int, spread: FillerSpread, firing: Firing, sink: Sink) {
        let state = firing.initialState(selectors: selectors)
        self.state = state
        self.firing = firing
        var fillers: [ContiguousArray<UInt8>] = []
        fillers.reserveCapacity(selectors * spread.objects)
        var boxes: [Unmanaged<ReferenceBox>] = []
        boxes.reserveCapacity(selectors)
        for index in 0..<selectors {
            let select = firing.selector(index)
            for _ in 0..<spread.objects {
                // An array's buffer takes 32 bytes of header on 64-bit platforms.
                fillers.append(ContiguousArray(repeating: 0, count: max(spread.bytes - 32, 1)))
            }
            let box = ReferenceBox(select: select, last: select(state)) { old, new in
                sink.recordStep(from: old, to: new)
            }
            boxes.append(Unmanaged.passRetained(box))
        }
        self.boxes = boxes
        self.fillers = fillers
    }

    deinit {
        for box in boxes {
            box.release()
        }
    }

    /// Applies `count` actions and runs the loop after each.
    func run(_ count: Int) {
        for _ in 0..<count {
            dispatched += 1
            expectedCallbacks += firing.firedSelectors(boxes.count, round: dispatched)
            state.apply(firing.action(round: dispatched))
            let snapshot = state
            boxes.withUnsafeBufferPointer { boxes in
                for box in boxes {
                    // Guaranteed: `boxes` retains every box until `deinit`.
                    box._withUnsafeGuaranteedRef { box in
                        let new = box.select(snapshot)
                        if new != box.last {
                            let old = box.last
                            box.last = new
                            box.callback(old, new)
                        }
                    }
                }
            }
        }
    }
}
