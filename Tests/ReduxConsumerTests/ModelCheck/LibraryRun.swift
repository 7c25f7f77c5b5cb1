import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport

/// Runs a program against the library: a real `Store`, real `StateConsumer`s, tokens, bags and
/// owners, recording every callback.
// @unchecked Sendable: only the test's thread touches it; programs are single-threaded and every
// callback runs synchronously on the dispatching thread (checked in `called`).
final class LibraryRun: ProgramRunner, @unchecked Sendable {
    /// Everything the program made; dropped at the end to check that it all goes.
    private final class Graph {
        let store: Store<CheckState>
        let consumers: [StateConsumer<CheckState>]
        var tokens: [ConsumerToken] = []
        var handles: [Subscription] = []
        var bags: [ConsumerBag]
        var owners: [MemberOwner?] = []

        init(store: Store<CheckState>, consumerCount: Int) {
            self.store = store
            consumers = (0..<consumerCount).map { _ in StateConsumer<CheckState>() }
            bags = (0..<ModelCheck.bagCount).map { _ in ConsumerBag() }
        }
    }

    private var graph: Graph?

    /// The graph of a program still running (`finish()` drops it).
    private var live: Graph {
        guard let graph else { preconditionFailure("the program already finished") }
        return graph
    }
    private var ledger: Ledger
    private var events: [CallEvent] = []
    /// Each registration's reaction, with the number of calls it still runs on.
    private var reactions: [Int: Reaction] = [:]
    private let diagnostics = Recorder<String>()
    private let thread = Thread.current

    init(program: Program) {
        ledger = Ledger(consumerCount: program.consumerCount, bagCount: ModelCheck.bagCount)
        let diagnostics = diagnostics
        let store = Store(
            initialState: program.initialState,
            reducer: checkReducer,
            diagnostics: { diagnostics.append($0) }
        )
        graph = Graph(store: store, consumerCount: program.consumerCount)
    }

    func run(_ step: Instruction) -> StepOutcome {
        events = []
        let diagnosticsBefore = diagnostics.values.count
        perform(step)
        for message in diagnostics.values.dropFirst(diagnosticsBefore) {
            events.append(.anomaly("diagnostic: \(message)"))
        }
        let graph = live
        return StepOutcome(
            events: events,
            memberCounts: graph.consumers.map(\.count),
            subscriberCount: graph.store.subscriberCount,
            bagCounts: graph.bags.map(\.count),
            state: graph.store.state
        )
    }

    /// Drops the whole graph (store, consumers, tokens, subscriptions, bags, owners) without
    /// cancelling anything, and reports whatever outlives it: nothing should.
    func finish() -> [CallEvent] {
        let (store, consumers) = probes()
        graph = nil
        var anomalies: [CallEvent] = []
        if store.object != nil {
            anomalies.append(.anomaly("the store outlived the program"))
        }
        for (index, consumer) in consumers.enumerated() where consumer.object != nil {
            anomalies.append(.anomaly("consumer c\(index) outlived the program"))
        }
        return anomalies
    }

    /// Weak references to the store and the consumers (no strong one stays on the caller's stack).
    private func probes() -> (store: WeakReference, consumers: [WeakReference]) {
        guard let graph else { return (WeakReference(nil), []) }
        return (WeakReference(graph.store), graph.consumers.map(WeakReference.init))
    }

    // MARK: Operations

    private func perform(_ operation: Instruction) {
        let graph = live
        switch operation {
        case .dispatch(let action):
            graph.store.dispatch(action)
        case .add(let number, let spec):
            add(spec, to: ledger.consumer(number), in: graph)
        case .cancelToken(let number):
            if let token = ledger.token(number) {
                graph.tokens[token].cancel()
            }
        case .removeToken(let number):
            if let token = ledger.token(number) {
                graph.consumers[ledger.tokenRecord(token).consumer].remove(graph.tokens[token])
            }
        case .removeAll(let number):
            graph.consumers[ledger.consumer(number)].removeAll()
        case .emptyBag(let number):
            let bag = ledger.bag(number)
            markCancelled(ledger.emptyBag(bag))
            graph.bags[bag].removeAll()
        case .releaseBag(let number):
            let bag = ledger.bag(number)
            markCancelled(ledger.emptyBag(bag))
            graph.bags[bag] = ConsumerBag()
        case .releaseOwner(let number):
            if let owner = ledger.ownerToRelease(number) {
                ledger.releaseOwner(owner)
                weak let released = graph.owners[owner]
                graph.owners[owner] = nil
                if released != nil {
                    events.append(.anomaly("owner[\(owner)] outlived its release"))
                }
            }
        case .subscribe(let number, let bag):
            let consumer = ledger.consumer(number)
            if ledger.maySubscribe(consumer) {
                ledger.beginSubscribing(consumer)
                let subscription = graph.store.subscribe(graph.consumers[consumer])
                ledger.endSubscribing()
                keep(subscription, consumer: consumer, bag: bag, in: graph)
            }
        case .resubscribe(let number):
            // The same steps as in the other runner, so both see the same handles.
            for handle in ledger.liveHandles(of: ledger.consumer(number)) {
                perform(.cancelSubscription(handle))
            }
            perform(.subscribe(consumer: number, bag: nil))
        case .cancelSubscription(let number):
            if let handle = ledger.handle(number) {
                _ = ledger.cancelHandle(handle)
                graph.handles[handle].cancel()
            }
        case .feed(let number, let state):
            let consumer = ledger.consumer(number)
            if ledger.mayFeed(consumer) {
                graph.consumers[consumer].consume(newState: state)
            }
        case .subscribeClosure(let reaction, let bag):
            let id = newRegistration(reaction)
            let subscription = graph.store.subscribe { [weak self] old, new in
                self?.called(id, .subscriber(id, old: old, new: new), frame: Ledger.Frame())
            }
            keep(subscription, consumer: nil, bag: bag, in: graph)
        case .observeActions(let reaction, let bag):
            let id = newRegistration(reaction)
            let subscription = graph.store.observeActions { [weak self] action in
                let event: CallEvent =
                    if let action = action as? CheckAction {
                        .listener(id, action)
                    } else {
                        .anomaly("l\(id) heard a foreign action \(action)")
                    }
                self?.called(id, event, frame: Ledger.Frame())
            }
            keep(subscription, consumer: nil, bag: bag, in: graph)
        }
    }

    private func add(_ spec: MemberSpec, to consumer: Int, in graph: Graph) {
        var owner: MemberOwner?
        var ownerIndex: Int?
        if case .owner(let number) = spec.shape {
            if let existing = ledger.owner(for: number) {
                ownerIndex = existing
            } else {
                let index = ledger.newOwner()
                graph.owners.append(MemberOwner(index: index))
                ownerIndex = index
            }
            owner = ownerIndex.flatMap { graph.owners[$0] }
        }
        let id = newRegistration(spec.reaction)
        ledger.beginAdding(owner: ownerIndex)
        let token = graph.consumers[consumer].add(spec, owner: owner) { [weak self] old, new, state, owner in
            let event = CallEvent.member(
                member: id,
                consumer: consumer,
                owner: owner?.index,
                old: old,
                new: new,
                state: state
            )
            self?.called(id, event, frame: Ledger.Frame(consumer: consumer, owner: owner?.index))
        }
        owner = nil
        ledger.endAdding()
        graph.tokens.append(token)
        ledger.recordToken(consumer: consumer, bag: spec.bag)
        if let bag = spec.bag {
            token.store(in: graph.bags[ledger.bag(bag)])
        }
    }

    private func keep(_ subscription: Subscription, consumer: Int?, bag: Int?, in graph: Graph) {
        graph.handles.append(subscription)
        ledger.recordHandle(consumer: consumer, bag: bag)
        if let bag {
            subscription.store(in: graph.bags[ledger.bag(bag)])
        }
    }

    private func markCancelled(_ items: [Ledger.BagItem]) {
        for case .handle(let handle) in items {
            _ = ledger.cancelHandle(handle)
        }
    }

    // MARK: Calls

    private func newRegistration(_ reaction: Reaction?) -> Int {
        let id = ledger.newRegistration()
        reactions[id] = reaction
        return id
    }

    /// A callback: records it, then runs its reaction if it has one left.
    private func called(_ id: Int, _ event: CallEvent, frame: Ledger.Frame) {
        precondition(Thread.current == thread, "a callback ran on another thread")
        events.append(event)
        let operations = reaction(of: id)
        guard !operations.isEmpty else { return }
        ledger.enter(frame)
        for operation in operations {
            perform(operation)
        }
        ledger.leave()
    }

    /// What registration `id`'s callback runs this time.
    private func reaction(of id: Int) -> [Instruction] {
        guard var reaction = reactions[id], reaction.times > 0 else { return [] }
        reaction.times -= 1
        reactions[id] = reaction
        return reaction.operations
    }
}

/// A weak reference, to see whether an object was freed.
private struct WeakReference {
    weak var object: AnyObject?

    init(_ object: AnyObject?) {
        self.object = object
    }
}
