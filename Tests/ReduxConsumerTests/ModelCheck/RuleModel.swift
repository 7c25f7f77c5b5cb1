import ReduxConsumer

/// An independent model of the rules the README and the `///` docs state for stores, consumers
/// and tokens, written from those texts alone (not from the engine's code), single-threaded and
/// as plain as possible. Each rule it follows is quoted or paraphrased beside the code that
/// follows it, so that a disagreement with the library can be judged against the docs.
final class RuleModel: ProgramRunner {
    /// A member of a consumer.
    private final class Member {
        let id: Int
        let consumer: Int
        let spec: MemberSpec
        let owner: Int?
        /// The value it was last called with or started from; `nil` until it has a starting value.
        var last: Picked?
        /// For a member added while its consumer was subscribed: the store's action count then.
        /// The store's pass for that action, if still to come, is not for it.
        var startAction: Int?
        var reactionsLeft: Int

        init(id: Int, consumer: Int, spec: MemberSpec, owner: Int?) {
            self.id = id
            self.consumer = consumer
            self.spec = spec
            self.owner = owner
            reactionsLeft = spec.reaction?.times ?? 0
        }

        /// The operations its callback runs this time.
        func takeReaction() -> [Instruction] {
            guard let reaction = spec.reaction, reactionsLeft > 0 else { return [] }
            reactionsLeft -= 1
            return reaction.operations
        }
    }

    /// A consumer's subscription: which one it is, and how many of its handles are live.
    private struct Link {
        var epoch: Int
        var handles: Int
    }

    private final class Consumer {
        /// Live members, in the order they were added.
        var members: [Member] = []
        /// The store's subscription, while one feeds the consumer.
        var subscription: Link?
        /// Whether its subscription ended during the store's job in progress: "a consumer whose
        /// subscription was cancelled while its store was busy ... joins the new store when the old
        /// one has let it go (once that action is over, listeners included)", and a state fed by
        /// hand meanwhile is queued on that store (see `feedByHand`).
        var isLeavingJob = false
    }

    /// Work the store runs after the job in progress, in the order it was queued.
    private enum QueuedJob {
        case action(CheckAction)
        /// A state fed by hand to a consumer that left during an earlier job.
        case feed(consumer: Int, state: CheckState)
    }

    /// A closure subscriber or an action listener.
    private final class Listener {
        let id: Int
        let reaction: Reaction?
        var reactionsLeft: Int
        var isActive = true

        init(id: Int, reaction: Reaction?) {
            self.id = id
            self.reaction = reaction
            reactionsLeft = reaction?.times ?? 0
        }

        /// The operations its callback runs this time.
        func takeReaction() -> [Instruction] {
            guard let reaction, reactionsLeft > 0 else { return [] }
            reactionsLeft -= 1
            return reaction.operations
        }
    }

    private enum Subscriber {
        case closure(Listener)
        case consumer(Int, epoch: Int)
    }

    /// What feeds a consumer a state.
    /// Whether a `.pulse` member that already has a value fires at a subscription's first state:
    /// the README says so ("fires for every new state ... the state a subscription feeds at once
    /// included").
    static let pulseFiresOnSubscription = true

    private enum FeedSource {
        /// The store's pass for an action, through the subscription `epoch`.
        case action(epoch: Int)
        /// A new subscription's first state.
        case subscription(epoch: Int)
        /// `consume(newState:)`.
        case hand

        var isSubscription: Bool {
            if case .subscription = self { return true }
            return false
        }

        var epoch: Int? {
            switch self {
            case .action(let epoch), .subscription(let epoch): epoch
            case .hand: nil
            }
        }
    }

    private enum Handle {
        case closure(Listener)
        case consumer(Int, epoch: Int)
    }

    private var ledger: Ledger
    private var state: CheckState
    private let consumers: [Consumer]
    /// Closure subscribers and consumer subscriptions, in subscription order.
    private var subscribers: [Subscriber] = []
    private var listeners: [Listener] = []
    /// Whether the store is processing (an action, or a job such as feeding a new subscription).
    private var isBusy = false
    private var queue: [QueuedJob] = []
    /// While the subscribers hear of an action: the `.instantly` calls of members added meanwhile,
    /// made when the last subscriber is done ("never inside `add` from inside a callback").
    private var heldInstantCalls: [(member: Member, value: Picked)]?
    /// By token number, as the program numbers them.
    private var members: [Member] = []
    /// By handle number.
    private var handles: [Handle] = []
    private var nextEpoch = 0
    /// How many actions the store has reduced.
    private var actionCount = 0
    private var events: [CallEvent] = []

    init(program: Program) {
        ledger = Ledger(consumerCount: program.consumerCount, bagCount: ModelCheck.bagCount)
        state = program.initialState
        consumers = (0..<program.consumerCount).map { _ in Consumer() }
    }

    func run(_ step: Instruction) -> StepOutcome {
        events = []
        perform(step)
        return StepOutcome(
            events: events,
            memberCounts: consumers.map { consumer in consumer.members.filter(isLive).count },
            subscriberCount: subscribers.count + listeners.count,
            bagCounts: ledger.bagCounts,
            state: state
        )
    }

    func finish() -> [CallEvent] {
        []
    }

    // MARK: Operations

    private func perform(_ operation: Instruction) {
        switch operation {
        case .dispatch(let action):
            dispatch(action)
        case .add(let consumer, let spec):
            add(spec, to: ledger.consumer(consumer))
        case .cancelToken(let number), .removeToken(let number):
            if let token = ledger.token(number) {
                remove(members[token])
            }
        case .removeAll(let number):
            let consumer = consumers[ledger.consumer(number)]
            consumer.members = []
        case .emptyBag(let bag), .releaseBag(let bag):
            cancelItems(of: ledger.bag(bag))
        case .releaseOwner(let number):
            // "An `owner:` member is inert from the moment its owner is released": it is never
            // called again and `count` leaves it out.
            if let owner = ledger.ownerToRelease(number) {
                ledger.releaseOwner(owner)
            }
        case .subscribe(let number, let bag):
            let consumer = ledger.consumer(number)
            if ledger.maySubscribe(consumer) {
                ledger.beginSubscribing(consumer)
                subscribe(consumer)
                ledger.endSubscribing()
                ledger.recordHandle(consumer: consumer, bag: bag)
            }
        case .resubscribe(let number):
            // The same steps as in the other runner, so both see the same handles.
            for handle in ledger.liveHandles(of: ledger.consumer(number)) {
                perform(.cancelSubscription(handle))
            }
            perform(.subscribe(consumer: number, bag: nil))
        case .cancelSubscription(let number):
            if let handle = ledger.handle(number) {
                cancel(handle)
            }
        case .feed(let number, let fed):
            // "Passes a new state by hand: every member whose selected value changed is called."
            let consumer = ledger.consumer(number)
            if ledger.mayFeed(consumer) {
                feedByHand(consumer, fed)
            }
        case .subscribeClosure(let reaction, let bag):
            // "Not called for the state current at subscription time; a closure subscribed from
            // inside one of this store's actions starts with the action after it."
            let listener = Listener(id: ledger.newRegistration(), reaction: reaction)
            subscribers.append(.closure(listener))
            handles.append(.closure(listener))
            ledger.recordHandle(consumer: nil, bag: bag)
        case .observeActions(let reaction, let bag):
            let listener = Listener(id: ledger.newRegistration(), reaction: reaction)
            listeners.append(listener)
            handles.append(.closure(listener))
            ledger.recordHandle(consumer: nil, bag: bag)
        }
    }

    /// "Actions are reduced one at a time in one order"; a dispatch from inside the store's own
    /// callbacks "is queued and runs right after the current one".
    private func dispatch(_ action: CheckAction) {
        if isBusy {
            queue.append(.action(action))
        } else {
            storeJob { process(action) }
        }
    }

    /// Runs `body` as work of the store: at once when the store is already processing (we are
    /// inside its callbacks), else as a job after which the queued actions run.
    private func storeJob(_ body: () -> Void) {
        if isBusy {
            body()
            return
        }
        isBusy = true
        body()
        endJob()
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .action(let action):
                process(action)
            case .feed(let consumer, let fed):
                // "Subscribed to a store meanwhile: that store feeds it now."
                if consumers[consumer].subscription == nil {
                    feed(consumer, fed, from: .hand)
                }
            }
            endJob()
        }
        isBusy = false
    }

    /// The store lets go of the consumers that left during the job that just ended.
    private func endJob() {
        for consumer in consumers {
            consumer.isLeavingJob = false
        }
    }

    /// `consume(newState:)`: "every member whose selected value changed is called", at once,
    /// except for a consumer that left the store during the store's job in progress: the state
    /// follows the consumer once the store has let it go, queued behind the work queued there
    /// before it.
    private func feedByHand(_ consumer: Int, _ fed: CheckState) {
        if isBusy, consumers[consumer].isLeavingJob {
            queue.append(.feed(consumer: consumer, state: fed))
        } else {
            feed(consumer, fed, from: .hand)
        }
    }

    /// "For every action, subscribers are called in the order they subscribed (closure subscribers
    /// and consumers alike); a consumer's members are called together, in the order they were
    /// added; action listeners come last." Registrations made during the action start with the
    /// next one; registrations removed during it are not called later in it.
    private func process(_ action: CheckAction) {
        let old = state
        action.apply(to: &state)
        actionCount += 1
        let new = state
        // Both lists as they are now: registrations made during the action are not in them.
        let subscribers = subscribers
        let listeners = listeners
        heldInstantCalls = []
        for subscriber in subscribers {
            switch subscriber {
            case .closure(let listener):
                guard listener.isActive else { continue }
                events.append(.subscriber(listener.id, old: old, new: new))
                react(listener.takeReaction(), frame: Ledger.Frame())
            case .consumer(let consumer, let epoch):
                guard consumers[consumer].subscription?.epoch == epoch else { continue }
                feed(consumer, new, from: .action(epoch: epoch))
            }
        }
        makeHeldInstantCalls()
        for listener in listeners where listener.isActive {
            events.append(.listener(listener.id, action))
            react(listener.takeReaction(), frame: Ledger.Frame())
        }
    }

    /// Makes the `.instantly` calls held since `heldInstantCalls` was set, in the order their
    /// members were added (calls they make may add more), and stops holding them.
    private func makeHeldInstantCalls() {
        var next = 0
        while let held = heldInstantCalls, next < held.count {
            let (member, value) = held[next]
            next += 1
            let consumer = consumers[member.consumer]
            guard isLive(member), consumer.subscription != nil, consumer.members.contains(where: { $0 === member })
            else { continue }
            call(member, old: value, new: value, state: state)
        }
        heldInstantCalls = nil
    }

    /// One pass of a consumer over `fed`.
    private func feed(_ index: Int, _ fed: CheckState, from source: FeedSource) {
        let epoch = source.epoch
        let consumer = consumers[index]
        for member in consumer.members {
            // "Once cancel() returns, the subscriber is never called again": a consumer
            // unsubscribed during its own pass is not called for the rest of it.
            if let epoch, consumer.subscription?.epoch != epoch {
                return
            }
            // "One removed inside a callback is not called again, not even later in the same
            // pass"; one added inside a callback is not in `members` as this loop captured it.
            guard isLive(member), consumer.members.contains(where: { $0 === member }) else { continue }
            // "One added inside a callback starts with the next state", also when it was added to
            // a consumer whose pass for this action is still to come.
            if case .action = source, member.startAction == actionCount {
                continue
            }
            let value = member.spec.selector.pick(fed)
            guard let last = member.last else {
                // "Otherwise from the first state the consumer receives"; `.instantly` "also fires
                // once at that first value, with old == new".
                member.last = value
                if member.spec.options.contains(.instantly) {
                    call(member, old: value, new: value, state: fed)
                }
                continue
            }
            // "`.pulse` fires for every new state ... with `.pulse`, `isEqual` is not consulted";
            // else `isEqual`, which "replaces ==", against the last *delivered* value.
            let isSame = member.spec.equivalence?.holds(last, value) ?? (last == value)
            let pulses =
                member.spec.options.contains(.pulse) && (Self.pulseFiresOnSubscription || !source.isSubscription)
            if pulses || !isSame {
                member.last = value
                call(member, old: last, new: value, state: fed)
            }
        }
    }

    private func add(_ spec: MemberSpec, to consumer: Int) {
        var owner: Int?
        if case .owner(let number) = spec.shape {
            owner = ledger.owner(for: number) ?? ledger.newOwner()
        }
        ledger.beginAdding(owner: owner)
        defer { ledger.endAdding() }
        let member = Member(id: ledger.newRegistration(), consumer: consumer, spec: spec, owner: owner)
        consumers[consumer].members.append(member)
        // "A member starts from the value at the moment it is added when the state is known (its
        // StateConsumer is subscribed to a store)"; `.instantly` "happens inside add" then, except
        // inside a callback (a subscriber's, or one of a subscription's first feed), where it
        // waits for the end of that pass. Inside a
        // callback, that is the state being processed, and the member "starts with the next
        // state" (it is not in the pass in progress).
        if consumers[consumer].subscription != nil {
            let value = spec.selector.pick(state)
            member.last = value
            member.startAction = actionCount
            if spec.options.contains(.instantly) {
                if heldInstantCalls != nil {
                    heldInstantCalls?.append((member, value))
                } else {
                    storeJob { call(member, old: value, new: value, state: state) }
                }
            }
        }
        members.append(member)
        ledger.recordToken(consumer: consumer, bag: spec.bag)
    }

    private func remove(_ member: Member) {
        consumers[member.consumer].members.removeAll { $0 === member }
    }

    /// "Subscribing a consumer feeds it the store's current state at once"; "subscribing it again
    /// to the same store is harmless: the consumer is fed once and counted once; each call returns
    /// a handle of that one subscription, which ends when every handle is cancelled."
    private func subscribe(_ index: Int) {
        let consumer = consumers[index]
        if let subscription = consumer.subscription {
            consumer.subscription?.handles += 1
            handles.append(.consumer(index, epoch: subscription.epoch))
            return
        }
        nextEpoch += 1
        let epoch = nextEpoch
        consumer.subscription = Link(epoch: epoch, handles: 1)
        subscribers.append(.consumer(index, epoch: epoch))
        storeJob {
            // The feed is a pass too: a member added by one of its callbacks makes its
            // `.instantly` call "at the end of the pass in progress, after the members added
            // before it, never inside `add`" (inside an action's pass, at that pass's end).
            guard heldInstantCalls == nil else { return feed(index, state, from: .subscription(epoch: epoch)) }
            heldInstantCalls = []
            feed(index, state, from: .subscription(epoch: epoch))
            makeHeldInstantCalls()
        }
        handles.append(.consumer(index, epoch: epoch))
    }

    /// "Calling it again does nothing."
    private func cancel(_ handle: Int) {
        guard ledger.cancelHandle(handle) else { return }
        switch handles[handle] {
        case .closure(let listener):
            listener.isActive = false
            subscribers.removeAll {
                if case .closure(let other) = $0 { return other === listener }
                return false
            }
            listeners.removeAll { $0 === listener }
        case .consumer(let index, let epoch):
            let consumer = consumers[index]
            guard var subscription = consumer.subscription, subscription.epoch == epoch else { return }
            subscription.handles -= 1
            if subscription.handles > 0 {
                consumer.subscription = subscription
                return
            }
            consumer.subscription = nil
            consumer.isLeavingJob = isBusy
            subscribers.removeAll {
                if case .consumer(let other, let otherEpoch) = $0 { return other == index && otherEpoch == epoch }
                return false
            }
        }
    }

    /// "Cancels everything in the bag, in the order it was inserted, and empties it"; a released
    /// bag does the same.
    private func cancelItems(of bag: Int) {
        for item in ledger.emptyBag(bag) {
            switch item {
            case .token(let token): remove(members[token])
            case .handle(let handle): cancel(handle)
            }
        }
    }

    // MARK: Calls

    private func isLive(_ member: Member) -> Bool {
        member.owner.map { ledger.isOwnerAlive($0) } ?? true
    }

    private func call(_ member: Member, old: Picked, new: Picked, state fed: CheckState) {
        events.append(
            .member(
                member: member.id,
                consumer: member.consumer,
                owner: member.owner,
                old: member.spec.shape == .new ? nil : old,
                new: new,
                state: member.spec.shape == .oldNewState ? fed : nil
            )
        )
        react(member.takeReaction(), frame: Ledger.Frame(consumer: member.consumer, owner: member.owner))
    }

    private func react(_ operations: [Instruction], frame: Ledger.Frame) {
        ledger.enter(frame)
        for operation in operations {
            perform(operation)
        }
        ledger.leave()
    }
}
