import Dispatch

/// Links property selectors to callbacks that fire only when the selected value changed, with the
/// old and the new value.
///
/// ```swift
/// let consumer = StateConsumer<AppState>()
/// consumer.add(\.counter) { old, new in print("counter: \(old) → \(new)") }
/// consumer.add(\.name) { old, new in print("name: \(old ?? "nil") → \(new ?? "nil")") }
/// let subscription = store.subscribe(consumer)
/// ```
///
/// Feed it by subscribing it to a store (``Store/subscribe(_:)-(StateConsumer<State>)``), or by hand
/// with ``consume(newState:)``, as in ReSwift-Consumer; one source at a time.
///
/// ## Change rules
/// - A member fires when its selected value differs from the last value it was called with (its
///   last *delivered* value): by `==` for `Equatable` values (collections compare element by
///   element), or by the `isEqual` you give, which then replaces `==`. With
///   ``ConsumeOptions/pulse`` it fires for every new state, and `isEqual` is not consulted.
/// - `old` is the value the member was last called with (or started from), never stale: every
///   callback's `old` is the previous callback's `new`.
/// - A change to or from `nil` fires; `nil` to `nil` does not.
///
/// ## First delivery
/// A member starts from the value at the moment it is added when the state is known (the consumer
/// is subscribed to a store); otherwise from the first state the consumer receives. It fires on
/// the first *change* after that. With ``ConsumeOptions/instantly`` it also fires once, at that
/// first value, with `old == new` — once in its life: not again when the consumer is subscribed
/// anew.
///
/// ## Order, threads and memory
/// Members are called in the order they were added, one at a time, synchronously on the thread
/// that processes the store (or asynchronously on the queue given at creation, in the same order).
/// Adding and removing members is safe from any thread and from inside callbacks: once removal
/// returns, the member's callback is never started again, not even later in a pass in progress; a
/// member added inside a callback starts with the next state. The consumer keeps the selected
/// values only, never a copy of the state; members on the same key path, in every consumer of one
/// store, share one read and one comparison per state.
///
/// ## Lifetime
/// A store keeps a subscribed consumer alive until the subscription is cancelled. A consumer does
/// not keep its store alive.
public final class StateConsumer<State: Sendable>: Sendable {
    let control: Lock<ConsumerControl>
    /// The consumer's members, confined to the drain of its current host.
    let members: ConsumerMembers
    /// Where callbacks that are not called in place wait: the consumer's queue, its actors.
    let routes: DeliveryRoutes
    /// What the consumer's tokens refer to.
    let link: ConsumerLink
    // `control` comes before `members` in lock order: a removal decides under `control`, then
    // takes its drain's lock; nothing takes them the other way round.

    /// Creates a consumer.
    ///
    /// - Parameter queue: Where callbacks run. `nil` (the default) calls them synchronously on the
    ///   thread that feeds the state, before `dispatch` returns; a queue such as `.main` calls them
    ///   asynchronously there, in order. A queue that falls behind gets each member's changes
    ///   merged (the first `old`, the latest `new`), never stale or repeated values.
    public init(deliveringOn queue: DispatchQueue? = nil) {
        routes = DeliveryRoutes(queue: queue.map { DeliveryGate(pump: .queue($0)) })
        control = Lock(ConsumerControl(stateType: State.self))
        members = ConsumerMembers(Registration(routes: routes))
        link = ConsumerLink(routes: routes)
        link.consumer = self
    }

    deinit {
        routes.close()
    }

    /// The number of members added and not yet removed (members whose owner is gone no longer
    /// count, see ``add(_:owner:options:_:)-(KeyPath<State,Value>Sendable,_,_,_)``).
    public var count: Int {
        control.withLock { control in
            control.live.count - control.ownedMembersOfGoneOwners
        }
    }

    /// Passes a new state by hand: every member whose selected value changed is called.
    ///
    /// Safe from any thread; states are consumed one at a time in the order they arrive. Called
    /// from inside one of this consumer's callbacks, the state is consumed right after the current
    /// pass. A consumer subscribed to a store is fed by that store alone: calling this then is a
    /// programming error and stops the program with a message.
    ///
    /// - Parameter newState: The new state.
    public func consume(newState: State) {
        var forgotten: ConsumerHost?
        let host = control.withLock { control -> ConsumerHost in
            forgotten = control.forgetEndedStore()
            if let subscription = control.subscription {
                stopOnMisuse(
                    "StateConsumer<\(State.self)>.consume(newState:) was called while the consumer is subscribed to \(subscription.host); a consumer is fed by one source at a time. Cancel the subscription first, or feed it only from the store."
                )
            }
            // Still on a store it left, whose job is in progress: the state goes there first, and
            // follows the registration home once that job is over.
            if let home = control.home, home !== control.existingOwnHost { return home }
            return control.ownHost()
        }
        // Released after the lock (see `forgetEndedStore`).
        withExtendedLifetime(forgotten) {}
        let context = ThreadContext.current
        let generation = context.isHolder ? context.generation + 1 : 0
        host.drain.submit(.dispatch, generation: generation) { [self] in
            guard control.withLock({ $0.existingOwnHost !== host }) else {
                feed(newState, on: host)
                return
            }
            let removed = release(host)
            let own = control.withLock { control -> ConsumerHost? in
                // Subscribed to a store meanwhile: that store feeds it now.
                guard control.subscription == nil, control.home == nil || control.home === control.existingOwnHost
                else { return nil }
                return control.ownHost()
            }
            if let own {
                own.drain.submit(.dispatch, generation: generation) { [self] in feed(newState, on: own) }
            }
            withExtendedLifetime(removed) {}
        }
    }

    /// Feeds `newState` to the registration on the consumer's own host, from a job of its drain,
    /// unless the consumer moved to a store since the state was passed.
    private func feed(_ newState: State, on host: ConsumerHost) {
        guard control.withLock({ $0.home === host }) else { return }
        var state = newState
        withUnsafeMutablePointer(to: &state) { feed(UnsafeMutableRawPointer($0), in: host) }
    }

    /// Removes the member `token` names: once this returns, its callback is never started again,
    /// not even later in a pass in progress or from a queue; a call already running on another
    /// thread finishes first (unless that thread is waiting for this one).
    ///
    /// - Parameter token: The token `add` returned.
    public func remove(_ token: ConsumerToken) {
        // The link names the consumer without loading the token's weak reference.
        guard token.link === link else { return }
        remove(member: token.id)
    }

    /// Removes every member, with the guarantees of ``remove(_:)``.
    public func removeAll() {
        var last: UInt64 = 0
        var dropsOnActors = false
        removeMembers { control in
            control.live.clear()
            control.removeAllOwnedMembers()
            last = control.lastMemberID
            dropsOnActors = control.hasIsolatedMembers
            return .everyMember(through: last)
        }
        // Only the members removed: one added since (from another thread, or by a callback this
        // removal waited for) may have a call pending already.
        routes.drop(through: last, onActors: dropsOnActors)
    }

    /// Removes one member by identifier.
    func remove(member id: UInt64) {
        var dropsOnActors = false
        removeMembers { control in
            dropsOnActors = control.hasIsolatedMembers
            if !control.owners.isEmpty {
                control.removeOwnedMember(id)
            }
            // An add that has not run yet finds its member gone when it runs, and admits nothing;
            // the registration is asked all the same (it finds nothing then). A member gone
            // already is asked for too: another remover may still be waiting for its call in
            // progress on another thread, and this one must not return before that call ends.
            control.live.remove(id)
            return .member(id)
        }
        routes.drop(id, onActors: dropsOnActors)
    }

    /// Removes a scope of the registration: decided under the consumer's lock (so the consumer
    /// cannot move to another drain in between), done with the guarantees of
    /// ``Drain/remove(tag:_:_:)``. `bookkeeping` updates the counts and returns the scope to
    /// remove, or `nil` when the registration need not be touched at all.
    ///
    /// What the removal takes out (callbacks and their captures) is released once the remover's
    /// work is done, outside the engine's: here, or by the queued job's owner when the drain was
    /// busy on another thread.
    private func removeMembers(bookkeeping: (inout ConsumerControl) -> DrainStateMachine.RemovalScope?) {
        let decision = control.withLock {
            bookkept -> (ConsumerHost, DrainStateMachine.RemovalScope, Drain.RemovalAdmission)? in
            guard let scope = bookkeeping(&bookkept) else { return nil }
            let host = bookkept.currentHost()
            let admission = host.drain.admitRemoval(tag: members.tag, scope) {
                // Queued behind another thread's work: the job keeps what it removes until it
                // is released, after it ran.
                let garbage = Garbage()
                return { [self] in
                    // Other jobs may have run first, and moved the consumer.
                    guard control.withLock({ $0.home === host }) else { return }
                    if let removed = removeNow(scope, from: host) { garbage.keep(removed) }
                }
            }
            return (host, scope, admission)
        }
        guard let (host, scope, admission) = decision else { return }
        var removed: (any Sendable)?
        host.drain.finishRemoval(admission) {
            // Run here only when the decision above found the drain idle or this thread running
            // it: no job ran since, so the consumer is still at home on `host`.
            removed = removeNow(scope, from: host)
        }
        withExtendedLifetime(removed) {}
    }

    /// Takes `scope` out of the registration on `host` and returns what it held (one member's
    /// callback, or an array of them), to release once the remover's work is done; call from a
    /// job of `host`'s drain, while the consumer lives on `host`.
    ///
    /// A consumer moves to another host only through a job of its current host's drain, after
    /// applying the marks of its removals (see `leave`); a queued removal checks it is still home.
    private func removeNow(_ scope: DrainStateMachine.RemovalScope, from host: ConsumerHost) -> (any Sendable)? {
        assert(control.withLock { $0.home === host }, "a removal ran on a host the consumer had left")
        let registration = members.registration(in: host)
        switch scope {
        case .member(let id):
            return registration.remove(id)
        case .everyMember(let last):
            return registration.removeAll(through: last)
        case .registration:
            return registration.removeAll().removed
        }
    }

    /// One pass of the consumer's own engine with the state at `state` (it is fed by hand).
    private func feed(_ state: UnsafeMutableRawPointer, in host: ConsumerHost) {
        let registration = members.registration(in: host)
        let engine = host.engine.value
        if registration.engine == nil {
            engine.attach(registration, order: engine.takeOrder(), state: state)
            return
        }
        // Members added by the callbacks below wait for the next state.
        registration.waiting.beginIteration()
        defer { registration.waiting.endIteration() }
        if engine.evaluate(state) > 0 {
            engine.deliverRuns(state: state)
        }
        engine.endPass()
        engine.admitWaiting(in: registration, state: state)
    }

    /// Runs `body` with the registration on the drain of the consumer's current host; follows the
    /// consumer if it moves to another host before the job runs.
    func onHome(
        _ kind: Drain.Kind,
        _ body: @escaping @Sendable (Registration, ConsumerHost) -> Void
    ) {
        let host = control.withLock { $0.currentHost() }
        host.drain.submit(kind, generation: ThreadContext.current.generation) { [self] in
            guard control.withLock({ $0.home === host }) else {
                onHome(kind, body)
                return
            }
            body(members.registration(in: host), host)
        }
    }
}

/// A consumer's bookkeeping that every thread reads: where it lives, its subscription, its
/// identifiers and counts.
///
/// Not generic: the consumer's code that reaches it is not specialised for the state type, and a
/// generic struct would cost a type-metadata lookup on every access.
struct ConsumerControl {
    /// The consumer's state type, for its own host's messages.
    let stateType: any Sendable.Type
    /// The host whose drain the registration is confined to; `nil` until first needed. A store's
    /// host while no subscription is on only briefly, until the job in which the consumer left it
    /// is over (see ``StateConsumer/leave(_:)``).
    var home: ConsumerHost?
    /// The consumer's own host, made on first use (a consumer fed by hand, or with members added
    /// before it is subscribed).
    private var own: ConsumerHost?
    /// The store feeding the consumer, how many subscription handles keep it, and which
    /// subscription this is (a handle of an ended one does nothing).
    var subscription: (host: ConsumerHost, handles: Int, epoch: UInt64)?
    var lastEpoch: UInt64 = 0
    var lastMemberID: UInt64 = 0
    /// Members added and not removed, queued ones included. Identifiers are handed out in
    /// increasing order, so a slot list keeps them with appends and binary searches, no hashing.
    var live = SlotList<Void>()
    /// Members added with an owner, each with the tally of its owner's members, to leave the
    /// members of dead owners out of ``StateConsumer/count``.
    var owners: [UInt64: OwnerTally] = [:]
    /// The tallies with members, by their own identity: ``StateConsumer/count`` asks one link
    /// per owner whether its owner is gone, not one per member (many members share an owner).
    var tallies: [ObjectIdentifier: OwnerTally] = [:]
    /// The tally of each owner that members were added with, by the owner's identity; a gone
    /// owner's identity may be taken by a new object, which then gets a tally of its own.
    var talliesByOwner: [ObjectIdentifier: OwnerTally] = [:]
    /// Whether a member on an actor was ever added: only then may a removal find calls of its
    /// members waiting at the actors' gate.
    var hasIsolatedMembers = false

    init(stateType: any Sendable.Type) {
        self.stateType = stateType
    }

    /// The consumer's own host, made if needed; it becomes home if the consumer has none.
    mutating func ownHost() -> ConsumerHost {
        let host = own ?? ConsumerHost(stateType: stateType)
        own = host
        if home == nil { home = host }
        return host
    }

    /// The host to run a job on now.
    mutating func currentHost() -> ConsumerHost {
        home ?? ownHost()
    }

    /// The consumer's own host if it was ever made.
    var existingOwnHost: ConsumerHost? { own }

    /// Ends a subscription whose store is gone while the job that ends it for the store waits
    /// (see ``ConsumerHost/hasEnded``): the consumer may be subscribed or fed again at once,
    /// and its registration follows from that store's drain once the job has run.
    ///
    /// Returns the host it let go of, for the caller to release after the lock (its last reference
    /// may be this one, and its engine's members hold user callbacks).
    mutating func forgetEndedStore() -> ConsumerHost? {
        guard let subscription, subscription.host.hasEnded else { return nil }
        self.subscription = nil
        return subscription.host
    }
}

/// The consumer's registration, confined to the drain of the consumer's current host: every access
/// is from a job of that drain, which debug builds check.
final class ConsumerMembers: @unchecked Sendable {
    // @unchecked: only touched through `registration(in:)`, from a job of the host's drain.
    private let registration: Registration
    /// The registration's name in drains' removal marks: its identity, readable anywhere.
    let tag: UInt

    init(_ registration: Registration) {
        self.registration = registration
        tag = registration.tag
    }

    func registration(in host: ConsumerHost) -> Registration {
        assert(host.drain.isAccessibleFromCurrentThread, "a consumer's members were touched outside its host's drain")
        return registration
    }
}

/// Holds what removal took out of an engine until the remover is done, so that deinits it
/// triggers (a callback's captures) run outside the engine's work.
final class Garbage: @unchecked Sendable {
    // @unchecked: filled by one removal job on its drain, read by nobody; released with whoever
    // holds it last (the job once it ran, or the remover once it returns), outside the engine's
    // work.
    private var removed: [any Sendable] = []

    func keep(_ removed: [any Sendable]) {
        self.removed += removed
    }

    func keep(_ removed: any Sendable) {
        self.removed.append(removed)
    }
}

/// The members a consumer has with one owner, and a link to that owner (all of them see it go at
/// once).
final class OwnerTally {
    let link: any OwnerTracking
    var members = 0

    init(_ link: any OwnerTracking) {
        self.link = link
    }
}

extension ConsumerControl {
    /// Counts member `id`, added with `owner`, in its owner's tally.
    mutating func addOwnedMember(_ id: UInt64, owner: any OwnerTracking) {
        let key = owner.ownerIdentifier
        let tally: OwnerTally
        if let existing = talliesByOwner[key], !existing.link.isOwnerGone {
            // Alive, so the very object `owner` names: no two live objects share an identity.
            tally = existing
        } else {
            // None yet, or the identity of a gone owner, now another object's.
            tally = OwnerTally(owner)
            talliesByOwner[key] = tally
            tallies[ObjectIdentifier(tally)] = tally
        }
        tally.members += 1
        owners[id] = tally
    }

    /// Forgets member `id` (if it was added with an owner).
    mutating func removeOwnedMember(_ id: UInt64) {
        guard let tally = owners.removeValue(forKey: id) else { return }
        tally.members -= 1
        guard tally.members == 0 else { return }
        tallies.removeValue(forKey: ObjectIdentifier(tally))
        let key = tally.link.ownerIdentifier
        if talliesByOwner[key] === tally {
            talliesByOwner.removeValue(forKey: key)
        }
    }

    /// Forgets every member added with an owner.
    mutating func removeAllOwnedMembers() {
        owners.removeAll()
        tallies.removeAll()
        talliesByOwner.removeAll()
    }

    /// How many members have an owner that is gone: one look per owner.
    var ownedMembersOfGoneOwners: Int {
        tallies.values.reduce(0) { $0 + ($1.link.isOwnerGone ? $1.members : 0) }
    }
}
