import Dispatch
import ReduxConsumer

/// M4: resident memory a long-lived `ConsumerBag` keeps per subscription inserted into it and then
/// cancelled directly (a session's bag holding each request's subscription), while the bag lives:
/// close to nothing, since insertions let go of settled items.
///
/// A first tenth of the work runs before the measurement, so that what is made once (the
/// process's first store, the allocator's first pages) is not counted per item.
func memoryKeptByALongLivedBag(_ sizes: Sizes) -> Report {
    let count = sizes.memoryConsumers
    let store = Store(initialState: BenchState(), reducer: benchReducer)
    let bag = ConsumerBag()
    let churn = { (rounds: Int) in
        for _ in 0..<rounds {
            let subscription = store.subscribe { _, _ in }
            subscription.store(in: bag)
            subscription.cancel()
        }
    }
    churn(count / 10)
    releaseFreeMemory()
    let before = residentBytes()
    let start = DispatchTime.now().uptimeNanoseconds
    churn(count)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    releaseFreeMemory()
    let after = residentBytes()
    var report = Report(
        scenario: "M4", title: "memory kept by a long-lived bag, \(count) subscriptions cancelled",
        nsPerOp: elapsed / Double(count), minNsPerOp: .nan,
        target: "≤ 1 byte per cancelled subscription while the bag lives")
    report.figures = [("bytes_per_item", bytesPerItem(before, after, count)), ("items_held", Double(bag.count))]
    report.goalMet = report.value("bytes_per_item").map { $0.isNaN ? true : $0 <= 1 }
    if store.subscriberCount != 0 { report.failure = "\(store.subscriberCount) subscriptions still registered" }
    withExtendedLifetime(bag) {}
    return report
}

/// Resident growth per item, or `nan` where resident memory cannot be read.
private func bytesPerItem(_ before: Int?, _ after: Int?, _ count: Int) -> Double {
    guard let before, let after else { return .nan }
    return Double(after - before) / Double(count)
}
