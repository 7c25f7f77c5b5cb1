import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct AsyncHunt2Tests {
    /// `EffectContext` said "once the store is gone (or the page closed), sends are ignored and
    /// `state` is `nil`", but a closed page's store lives on with the page, and its effects read
    /// the state the page closed with (as `PageStore.state` does, and as the service demo's
    /// backend call relies on). What the documentation now says: that state, and no send.
    @Test func anEffectOfAClosedPageReadsTheStateItClosedWithAndSendsNothing() async {
        let started = Signal()
        let seen = Slot<[Int?]>([])
        let effect = Effect<PageCount>.on(PageStep.self, when: { $0 == .start }) { _, context in
            seen.value.append(context.state?.count)
            started.fire()
            await Signal().wait()  // returns once the effect is cancelled
            seen.value.append(context.state?.count)
            await context.send(PageStep.bump)
        }
        await finishesWithoutDeadlock(within: 60) {
            let page = PageStore(
                global: makeStore(), initialState: { _ in PageCount() }, reducer: pageCountReducer, effects: [effect])
            await page.send(PageStep.start)
            await started.wait()
            page.close()
            await page.effectsIdle()
            #expect(seen.value == [1, 1])
            #expect(page.state.count == 1)
        }
    }

    /// `StoreStream`: readers that stop while changes arrive — breaking out, dropping their
    /// iterator, cancelled by another task, or cancelling themselves — keep the chain (each `old`
    /// is the previous `new`; with `.unbounded` every change, one by one), leave
    /// `subscriberCount` at its baseline, and readers still suspended when the store is released
    /// end; then nothing is left: the store, every state value and every buffered element are
    /// freed. Seeded random programs.
    @Test(arguments: [StreamBuffering.coalescing, .unbounded])
    func readersThatStopWhileChangesArriveLeaveNothingBehind(buffering: StreamBuffering) async {
        let rounds = scaled(12, sanitized: 3)
        let sends = scaled(300, sanitized: 60)
        for seed in 0..<UInt64(rounds) {
            let broken = Slot<[String]>([])
            let watch = LeakWatch()
            let finished = await finishesWithoutDeadlock(within: 60) {
                await readersStop(seed: seed, sends: sends, buffering: buffering, watch: watch, broken: broken)
            }
            guard finished else { return }
            #expect(broken.value.isEmpty, "seed \(seed): \(broken.value.prefix(5))")
            #expect(watch.survivors.isEmpty, "seed \(seed): left alive \(watch.survivors.prefix(5))")
        }
    }

    /// `StoreStream` said "cancelling the task that iterates removes its subscription at once:
    /// nothing new is buffered after that", but a reader cancelled while busy in its loop's body
    /// (awaiting something that does not end at cancellation) is out of the sequence's reach: it
    /// kept its subscription, and the changes made meanwhile, until it asked for its next element.
    /// What the documentation now says: removed when it asks, what was buffered until then
    /// returned, then the end.
    @Test func aReaderCancelledWhileBusyInItsLoopIsUnsubscribedWhenItAsksForTheNextElement() async {
        let store = makeStore()
        let gate = Gate()
        let first = Signal()
        let reader = Task { () -> [Int] in
            var values: [Int] = []
            for await change in store.changes(of: \.counter, options: .instantly) {
                values.append(change.new)
                if values.count == 1 {
                    first.fire()
                    await gate.wait()
                }
            }
            return values
        }
        await finishesWithoutDeadlock(within: 60) {
            await first.wait()
            reader.cancel()
            await store.send(CounterAction.increment)  // buffered: the reader has not asked yet
            gate.open()
            #expect(await reader.value == [0, 1])
            #expect(store.subscriberCount == 0)
            await store.send(CounterAction.increment)
            #expect(store.subscriberCount == 0)
        }
    }

    /// Guarantees 5 and 6 for iterators, which are values: an iterator copied before its first
    /// element subscribed once per copy that asked, into one channel that kept only the last
    /// subscription to cancel: the others stayed on the store after every copy was gone
    /// (`subscriberCount` never back at its baseline while the store lived).
    @Test func copiesOfAnIteratorShareOneSubscription() async {
        let store = makeStore()
        await finishesWithoutDeadlock(within: 60) {
            do {
                var first = store.changes(of: \.counter, options: .instantly).makeAsyncIterator()
                var second = first
                #expect(await first.next() == Change(old: 0, new: 0))
                await store.send(CounterAction.increment)
                #expect(await second.next() == Change(old: 0, new: 1))
                #expect(store.subscriberCount == 1)
            }
            #expect(store.subscriberCount == 0)
            await store.send(CounterAction.increment)
            #expect(store.subscriberCount == 0)
        }
    }

    /// `send`: many tasks send at once while others subscribe and remove consumers, closure
    /// subscribers and streams: every action is reduced once, each task's actions in its order,
    /// every subscriber hears each action it heard in the store's order (each `old` the previous
    /// `new`), and `subscriberCount` is back at its baseline.
    @Test func concurrentSendersWithSubscriberChurnReduceEveryActionOnceInOrder() async {
        let senders = 4
        let perSender = scaled(400, sanitized: 80)
        let broken = Slot<[String]>([])
        await finishesWithoutDeadlock(within: 60) {
            let store = Store(initialState: LogState(), reducer: logReducer)
            let sending = Lock(senders)
            let churning = Lock(2)
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<senders {
                    group.addTask {
                        for step in 0..<perSender { await store.send(LogEntry(sender: sender, step: step)) }
                        sending.withLock { $0 -= 1 }
                    }
                }
                for churner in 0..<2 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(churner) &+ 77)
                        while sending.withLock({ $0 }) > 0 {
                            await churn(store, random: &random, broken: broken)
                        }
                        churning.withLock { $0 -= 1 }
                    }
                }
                // Once the senders are done, a churner's stream may still wait for a change.
                group.addTask {
                    while churning.withLock({ $0 }) > 0 {
                        if sending.withLock({ $0 }) == 0 { await store.send(LogEntry(sender: -1, step: 0)) }
                        await Task.yield()
                    }
                }
            }
            let log = store.state.log.filter { $0.sender >= 0 }
            #expect(log.count == senders * perSender)
            for sender in 0..<senders {
                let steps = log.filter { $0.sender == sender }.map(\.step)
                #expect(steps == Array(0..<perSender), "sender \(sender)'s actions were lost, repeated or reordered")
            }
            #expect(store.subscriberCount == 0)
        }
        #expect(broken.value.isEmpty, "\(broken.value.prefix(5))")
    }

    /// "An effect with an `id` cancels the running effect with the same `id` when it starts",
    /// `cancelEffects(id:)` cancels it at any time, and "its sends after cancellation are
    /// ignored": effects that send all the time are replaced and cancelled (from a middleware,
    /// inside the store, and from the test's task); no send of an effect is reduced after the
    /// action that replaced it, or after the cancellation (a marker sent once `cancelEffects`
    /// returned). Seeded random programs.
    @Test func anEffectReplacedOrCancelledByIdNeverSendsAfterwards() async {
        let rounds = scaled(10, sanitized: 3)
        for seed in 0..<UInt64(rounds) {
            let finished = await finishesWithoutDeadlock(within: 60) {
                await effectsStop(seed: seed)
            }
            guard finished else { return }
        }
    }
}

// MARK: - The effect of a closed page

private struct PageCount: Equatable, Sendable {
    var count = 0
}

private enum PageStep: Action, Equatable {
    case start
    case bump
}

private let pageCountReducer = Reducer<PageCount> { (state, action: PageStep) in
    switch action {
    case .start: state.count = 1
    case .bump: state.count += 1
    }
}

// MARK: - Readers that stop

/// A one-shot gate that a task awaits and that, unlike ``Signal``, stays shut when the task is
/// cancelled.
private final class Gate: Sendable {
    private let state = Lock<(isOpen: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiter = waiter
                return false
            }
            if isOpen { waiter.resume() }
        }
    }

    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isOpen = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

/// A state value that the leak watch follows: equal by identity.
private final class Held: Sendable {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }
}

private struct BoxState: Sendable {
    var box: Held
}

private struct NextBox: Action {}

/// How a reader of `readersStop` ends.
private enum Stop: CaseIterable {
    /// Breaks out of its loop once the value reached its target.
    case breaks
    /// Stops calling `next()` once the value reached its target, and drops its iterator.
    case dropsIterator
    /// Cancels its own task once the value reached its target, and reads on to the end.
    case cancelsItself
    /// Reads until the writer cancels its task.
    case isCancelled
    /// Reads until the store is released.
    case outlivesTheStore
}

private func readersStop(
    seed: UInt64, sends: Int, buffering: StreamBuffering, watch: LeakWatch, broken: Slot<[String]>
) async {
    var random = SplitMix64(seed: seed)
    let reducer = Reducer<BoxState> { (state, _: NextBox) in
        state.box = watch.track(Held(state.box.value + 1))
    }
    var store: Store<BoxState>? = Store(initialState: BoxState(box: watch.track(Held(0))), reducer: reducer)
    weak let weakStore = store
    var readers: [(stop: Stop, target: Int, task: Task<Void, Never>)] = []
    for index in 0..<6 {
        let stop = Stop.allCases.randomElement(using: &random)!
        let target = Int.random(in: 0...sends, using: &random)
        // Made here: the reader's task holds the sequence, which holds its store weakly.
        let changes = store!.changes(of: \.box, isEqual: { $0 === $1 }, options: .instantly, buffering: buffering)
        let task = Task {
            await readUntilStop(
                changes, reader: index, stop: stop, target: target, isUnbounded: buffering == .unbounded,
                broken: broken)
        }
        readers.append((stop, target, task))
    }
    let cancelAt = readers.map { $0.stop == .isCancelled ? $0.target : -1 }
    for step in 1...sends {
        await store!.send(NextBox())
        for (index, reader) in readers.enumerated() where cancelAt[index] == step {
            reader.task.cancel()
        }
        if step % 16 == 0 { await Task.yield() }
    }
    for reader in readers where reader.stop == .isCancelled && reader.target == 0 { reader.task.cancel() }
    for reader in readers where reader.stop != .outlivesTheStore { await reader.task.value }
    let outliving = readers.filter { $0.stop == .outlivesTheStore }
    // Each reader still iterating is one subscriber, once it has asked for its first element.
    if outliving.isEmpty, store!.subscriberCount != 0 {
        broken.value.append("\(store!.subscriberCount) subscribers left after every reader stopped")
    }
    store = nil
    for reader in outliving { await reader.task.value }
    if weakStore != nil { broken.value.append("the store outlived its streams") }
}

private func readUntilStop(
    _ changes: StoreStream<Change<Held>>, reader: Int, stop: Stop, target: Int, isUnbounded: Bool,
    broken: Slot<[String]>
) async {
    var previous: Int?
    var iterator: StoreStream<Change<Held>>.Iterator? = changes.makeAsyncIterator()
    var hasCancelled = false
    var afterCancel = 0
    while let change = await iterator?.next() {
        let (old, new) = (change.old.value, change.new.value)
        if let previous {
            if old != previous || new <= old || (isUnbounded && new != old + 1) {
                broken.value.append("reader \(reader) (\(stop)): \(previous) then \(old) → \(new)")
            }
        } else if old > new || (isUnbounded && old != new) {
            // The starting value (`.instantly`), merged with later changes only when coalescing.
            broken.value.append("reader \(reader): first element \(old) → \(new)")
        }
        previous = new
        if hasCancelled { afterCancel += 1 }
        guard new >= target else { continue }
        switch stop {
        case .breaks: return
        case .dropsIterator: iterator = nil
        case .cancelsItself where !hasCancelled:
            withUnsafeCurrentTask { $0?.cancel() }
            hasCancelled = true
        default: break
        }
    }
    if hasCancelled, !isUnbounded, afterCancel > 1 {
        broken.value.append("reader \(reader): \(afterCancel) elements after its cancellation")
    }
}

// MARK: - Senders and churn

private struct LogEntry: Action, Equatable {
    let sender: Int
    let step: Int
}

private struct LogState: Sendable {
    var log: [LogEntry] = []
    var counter = 0
}

private let logReducer = Reducer<LogState> { (state, action: LogEntry) in
    state.log.append(action)
    state.counter += 1
}

/// One round of churn: a consumer, a closure subscriber and a stream come and go while the store
/// is sent to, each checking that what it hears keeps the store's order.
private func churn(_ store: Store<LogState>, random: inout SplitMix64, broken: Slot<[String]>) async {
    let consumer = StateConsumer<LogState>()
    let lastSeen = Lock<Int?>(nil)
    consumer.add(\.counter) { old, new in
        lastSeen.withLock { last in
            if let seen = last, seen != old || new <= old {
                broken.value.append("consumer: \(seen) then \(old) → \(new)")
            }
            last = new
        }
    }
    let subscription = store.subscribe(consumer)
    let closure = store.subscribe { old, new in
        if new.counter != old.counter + 1 { broken.value.append("subscriber: \(old.counter) → \(new.counter)") }
    }
    var previous: Int?
    let wanted = Int.random(in: 1...4, using: &random)
    var got = 0
    for await change in store.changes(of: \.counter, options: .instantly) {
        if let previous, change.old != previous || change.new <= change.old {
            broken.value.append("stream: \(previous) then \(change.old) → \(change.new)")
        }
        previous = change.new
        got += 1
        if got == wanted { break }
        if Bool.random(using: &random) { break }
    }
    for _ in 0..<Int.random(in: 0...3, using: &random) { await Task.yield() }
    if Bool.random(using: &random) {
        subscription.cancel()
        closure.cancel()
    } else {
        closure.cancel()
        subscription.cancel()
    }
}

// MARK: - Effects that stop

private enum Tick: Action, Equatable {
    /// Starts generation `generation` of the effect named `id` (cancelling the one before).
    case start(id: Int, generation: Int)
    case tick(id: Int, generation: Int, step: Int)
    /// Sent once `cancelEffects(id:)` returned for generation `generation` of `id`.
    case cancelled(id: Int, generation: Int)
}

private struct TickState: Sendable {
    /// The running generation of each id.
    var current: [Int: Int] = [:]
    /// The generations cancelled, as `id * 1_000 + generation`.
    var cancelled: Set<Int> = []
    var ticks = 0
    var late: [String] = []
}

private let tickReducer = Reducer<TickState> { (state, action: Tick) in
    switch action {
    case .start(let id, let generation):
        state.current[id] = generation
    case .tick(let id, let generation, let step):
        state.ticks += 1
        if state.current[id] != generation || state.cancelled.contains(id * 1_000 + generation) {
            state.late.append("id \(id) generation \(generation) step \(step)")
        }
    case .cancelled(let id, let generation):
        state.cancelled.insert(id * 1_000 + generation)
    }
}

private func effectsStop(seed: UInt64) async {
    var random = SplitMix64(seed: seed)
    let ids = 3
    let ticker = Effect<TickState>.on(
        Tick.self,
        when: { if case .start = $0 { true } else { false } },
        id: { action in if case .start(let id, _) = action { id } else { nil } }
    ) { action, context in
        guard case .start(let id, let generation) = action else { return }
        for step in 0..<200 {
            await context.send(Tick.tick(id: id, generation: generation, step: step))
            if step % 8 == 0 { await Task.yield() }
        }
    }
    // Cancels a generation from inside the store, once it ticked `limit` times: a tick of it
    // reduced after that is late (the marker runs right after the tick that cancelled it).
    let limits = (0..<ids).map { _ in Int.random(in: 1...50, using: &random) }
    let store = Store(initialState: TickState(), reducer: tickReducer, effects: [ticker])
    let canceller = store.observeActions { [weak store] action in
        guard let store, case .tick(let id, let generation, let step) = action as? Tick, step == limits[id] else {
            return
        }
        store.cancelEffects(id: id)
        store.dispatch(Tick.cancelled(id: id, generation: generation))
    }
    var generations = [Int](repeating: 0, count: ids)
    for _ in 0..<30 {
        let id = Int.random(in: 0..<ids, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            generations[id] += 1
            await store.send(Tick.start(id: id, generation: generations[id]))
        case 1:
            store.cancelEffects(id: id)
            await store.send(Tick.cancelled(id: id, generation: generations[id]))
        default:
            for _ in 0..<Int.random(in: 1...20, using: &random) { await Task.yield() }
        }
    }
    for id in 0..<ids {
        store.cancelEffects(id: id)
        await store.send(Tick.cancelled(id: id, generation: generations[id]))
    }
    await store.effectsIdle()
    canceller.cancel()
    #expect(store.state.ticks > 0)
    #expect(
        store.state.late.isEmpty,
        "seed \(seed): sends reduced after their effect was replaced or cancelled: \(store.state.late.prefix(5))")
}
