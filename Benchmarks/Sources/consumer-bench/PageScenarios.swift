import Dispatch
import ReduxConsumer

/// The state of the pages of P1–P3: a request's small state.
struct PageState: Sendable {
    var count = 0
}

/// The pages' reducer; the scenarios never dispatch to a page, only to the global store.
private let pageReducer = Reducer<PageState> { (state, _: ScalingAction) in
    state.count &+= 1
}

/// A page of P1–P3, built from the global store the way a service builds one per request.
private func makePage(_ global: Store<ScalingState>) -> PageStore<PageState, ScalingState> {
    PageStore(global: global, initialState: { _ in PageState() }, reducer: pageReducer)
}

/// P1: live pages each watching one global key path (`page.globalConsumer.add(\.shared)`), cost
/// per global dispatch when that key path changed and when it did not; against one consumer with
/// as many members on a store of its own, and against the floor, interleaved in the same run.
func pagesWatchingOneKeyPath(_ sizes: ScalingSizes) -> [Report] {
    let pages = sizes.watchingPages
    return [true, false].map { changes in
        let firing = Firing.sharedKeyPath(changes: changes)
        let global = Store(initialState: ScalingState(), reducer: scalingReducer)
        let sink = Sink()
        var live = (0..<pages).map { _ in
            let page = makePage(global)
            page.globalConsumer.add(\.shared) { old, new in sink.recordStep(from: old, to: new) }
            return page
        }
        let driver = ScalingDriver(global, firing: firing, selectors: pages)
        let oneConsumer = ScalingFixture(
            ScalingRow(layout: .oneConsumer, selector: .keyPath, selectors: pages, firing: firing))
        let floorSink = Sink()
        var floor = ScalingFloor(selectors: pages, selector: .keyPath, firing: firing, sink: floorSink)
        let timings = measure(
            within: sizes.budget,
            [
                { driver.run($0) },
                { oneConsumer.driver.run($0) },
                { floor.run($0) },
            ]
        )
        var failure =
            checkCallbacks(sink, expected: driver.expectedCallbacks, of: "pages")
            ?? oneConsumer.cancelAndCheck()
            ?? checkCallbacks(floorSink, expected: floor.expectedCallbacks, of: "floor")
        for page in live {
            page.close()
        }
        live.removeAll()
        let calls = sink.calls
        global.dispatch(ScalingAction.bumpShared)
        if failure == nil, sink.calls != calls || global.subscriberCount != 0 {
            failure = "after closing every page: \(sink.calls - calls) callbacks, \(global.subscriberCount) subscribers"
        }
        let nsPerDispatch = timings[0].timing.median
        var report = Report(
            scenario: "P1",
            title: "\(grouped(pages)) pages × 1 global key path, \(firing.label)",
            nsPerOp: nsPerDispatch,
            minNsPerOp: timings[0].timing.min,
            ratios: [
                ("vs_1_consumer", nsPerDispatch / timings[1].timing.median),
                ("vs_floor", nsPerDispatch / timings[2].timing.median),
            ],
            figures: [
                ("ns_per_page", nsPerDispatch / Double(pages)),
                ("one_consumer_ns_per_op", timings[1].timing.median),
                ("floor_ns_per_op", timings[2].timing.median),
            ],
            target: "≤ 1.5× 1 consumer with \(grouped(pages)) members",
            failure: failure
        )
        report.goalMet = nsPerDispatch <= 1.5 * timings[1].timing.median
        return report
    }
}

/// P2 and P3: pages that watch nothing global (no consumers at all). P2 times a global dispatch
/// with them alive against a global store without pages; P3 is the resident memory each takes,
/// beside a plain `Store` of the same state for reference.
func idlePages(_ sizes: ScalingSizes) -> [Report] {
    let count = sizes.idlePages
    let storeBytes = residentBytesPerObject(count) { Store(initialState: PageState(), reducer: pageReducer) }
    let global = Store(initialState: ScalingState(), reducer: scalingReducer)
    let baseline = global.subscriberCount
    var pages: [PageStore<PageState, ScalingState>] = []
    pages.reserveCapacity(count)
    releaseFreeMemory()
    let before = residentBytes()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count {
        pages.append(makePage(global))
    }
    let nsPerPage = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count)
    releaseFreeMemory()
    let after = residentBytes()
    let bare = Store(initialState: ScalingState(), reducer: scalingReducer)
    let withPages = ScalingDriver(global, firing: .sharedKeyPath(changes: true), selectors: 0)
    let withoutPages = ScalingDriver(bare, firing: .sharedKeyPath(changes: true), selectors: 0)
    let timings = measure(within: sizes.budget, [{ withPages.run($0) }, { withoutPages.run($0) }])
    var failure: String?
    if global.state.shared != withPages.dispatched || bare.state.shared != withoutPages.dispatched {
        failure = "a global action was lost"
    }
    pages.removeAll()
    if failure == nil, global.subscriberCount != baseline {
        failure = "\(global.subscriberCount - baseline) subscribers left after every page was released"
    }
    var bytesPerPage = Double.nan
    if let before, let after {
        bytesPerPage = Double(after - before) / Double(count) - Double(MemoryLayout<PageState>.stride)
    }
    let nsPerDispatch = timings[0].timing.median
    return [
        Report(
            scenario: "P2",
            title: "global dispatch, \(grouped(count)) idle pages",
            nsPerOp: nsPerDispatch,
            minNsPerOp: timings[0].timing.min,
            ratios: [("vs_no_pages", nsPerDispatch / timings[1].timing.median)],
            figures: [("no_pages_ns_per_op", timings[1].timing.median)],
            target: "≤ 1.2× no pages",
            failure: failure
        ).meeting(nsPerDispatch <= 1.2 * timings[1].timing.median),
        Report(
            scenario: "P3",
            title: "memory, \(grouped(count)) idle pages",
            nsPerOp: nsPerPage,
            minNsPerOp: .nan,
            figures: [("bytes_per_page", bytesPerPage), ("plain_store_bytes", storeBytes)],
            target: "≤ 1,536 bytes per page beyond its state"
        ).meeting(bytesPerPage.isFinite ? bytesPerPage <= 1_536 : nil),
    ]
}

/// P4: P1's pages while requests come and go: before each global dispatch, the oldest page closes
/// and a new one opens and watches the same key path. Against one consumer with as many members,
/// the oldest member replaced by a new one before each dispatch, interleaved in the same run.
func pagesComingAndGoing(_ sizes: ScalingSizes) -> Report {
    let pages = sizes.watchingPages
    let global = Store(initialState: ScalingState(), reducer: scalingReducer)
    let sink = Sink()
    func open() -> PageStore<PageState, ScalingState> {
        let page = makePage(global)
        page.globalConsumer.add(\.shared) { _, new in sink.record(new) }
        return page
    }
    var live = (0..<pages).map { _ in open() }
    var oldest = 0
    let soloStore = Store(initialState: ScalingState(), reducer: scalingReducer)
    let solo = StateConsumer<ScalingState>()
    let soloSubscription = soloStore.subscribe(solo)
    var members = (0..<pages).map { _ in solo.add(\.shared) { _, new in sink.record(new) } }
    let timings = measure(
        within: sizes.budget,
        [
            { count in
                for _ in 0..<count {
                    live[oldest].close()
                    live[oldest] = open()
                    oldest = (oldest + 1) % pages
                    global.dispatch(ScalingAction.bumpShared)
                }
            },
            { count in
                for _ in 0..<count {
                    members[oldest].cancel()
                    members[oldest] = solo.add(\.shared) { _, new in sink.record(new) }
                    oldest = (oldest + 1) % pages
                    soloStore.dispatch(ScalingAction.bumpShared)
                }
            },
        ]
    )
    var failure: String?
    if global.subscriberCount != pages || solo.count != pages {
        failure = "expected \(pages) pages and members, saw \(global.subscriberCount) and \(solo.count)"
    }
    for page in live { page.close() }
    live.removeAll()
    members.removeAll()
    solo.removeAll()
    soloSubscription.cancel()
    if failure == nil, global.subscriberCount != 0 {
        failure = "\(global.subscriberCount) subscribers left after closing every page"
    }
    let nsPerDispatch = timings[0].timing.median
    let report = Report(
        scenario: "P4",
        title: "\(grouped(pages)) pages × 1 global key path, one page replaced per dispatch",
        nsPerOp: nsPerDispatch,
        minNsPerOp: timings[0].timing.min,
        ratios: [("vs_1_consumer", nsPerDispatch / timings[1].timing.median)],
        figures: [
            ("ns_per_page", nsPerDispatch / Double(pages)),
            ("one_consumer_ns_per_op", timings[1].timing.median),
        ],
        // No goal: a page's lifecycle (a store of its own, its subscription) costs more than a
        // member's, whatever the delivery; the row tells what a service pays per request that
        // comes and goes, beside P1's cost per dispatch.
        target: "none (P1 with requests coming and going)",
        failure: failure
    )
    return report
}
