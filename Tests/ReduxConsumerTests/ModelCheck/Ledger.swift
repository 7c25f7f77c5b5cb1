/// The program's own bookkeeping, kept the same way by the model and by the run against the
/// library: what it registered, what it cancelled, which owners it still holds and which
/// callbacks are running. It decides which numbered thing an operation means and whether an
/// operation is allowed at that moment; it holds no rule of the library beyond "a bag cancels what
/// it holds".
struct Ledger {
    /// One `add`: the consumer it added a member to.
    struct Token {
        var consumer: Int
    }

    /// One `subscribe` or `observeActions` handle: whom it subscribed (`nil` for a closure or a
    /// listener) and whether the program cancelled it.
    struct Handle {
        var consumer: Int?
        var isCancelled = false
    }

    enum BagItem {
        case token(Int)
        case handle(Int)
    }

    /// A callback in progress: the consumer whose member runs, and that member's owner.
    struct Frame {
        var consumer: Int?
        var owner: Int?
    }

    let consumerCount: Int
    private(set) var tokens: [Token] = []
    private(set) var handles: [Handle] = []
    private(set) var bags: [[BagItem]]
    private(set) var owners: [Bool] = []
    private(set) var frames: [Frame] = []
    /// Registration numbers (members, closure subscribers, listeners), in the order of the calls
    /// that made them: the names events use.
    private var nextRegistration = 0

    init(consumerCount: Int, bagCount: Int) {
        self.consumerCount = consumerCount
        bags = Array(repeating: [], count: bagCount)
    }

    // MARK: Naming

    func consumer(_ number: Int) -> Int {
        number % consumerCount
    }

    func token(_ number: Int) -> Int? {
        tokens.isEmpty ? nil : number % tokens.count
    }

    func tokenRecord(_ index: Int) -> Token {
        tokens[index]
    }

    func handle(_ number: Int) -> Int? {
        handles.isEmpty ? nil : number % handles.count
    }

    /// The indices of `consumer`'s uncancelled subscription handles, oldest first.
    func liveHandles(of consumer: Int) -> [Int] {
        handles.indices.filter { handles[$0].consumer == consumer && !handles[$0].isCancelled }
    }

    func bag(_ number: Int) -> Int {
        number % bags.count
    }

    /// The owner an `owner:` member gets: a live one, or (`nil`) a new one.
    func owner(for number: Int) -> Int? {
        let live = owners.indices.filter { owners[$0] }
        let pick = number % (live.count + 1)
        return pick == live.count ? nil : live[pick]
    }

    /// A live owner to release, unless it is in use by a running callback.
    func ownerToRelease(_ number: Int) -> Int? {
        let live = owners.indices.filter { owners[$0] }
        guard !live.isEmpty else { return nil }
        let owner = live[number % live.count]
        return frames.contains { $0.owner == owner } || adding.contains(owner) ? nil : owner
    }

    /// The owners of the `add(_:owner:)` calls in progress, innermost last: the caller holds its
    /// argument until the call returns, so such an owner cannot be released meanwhile.
    private(set) var adding: [Int?] = []

    mutating func beginAdding(owner: Int?) {
        adding.append(owner)
    }

    mutating func endAdding() {
        adding.removeLast()
    }

    // MARK: Questions

    func isOwnerAlive(_ owner: Int) -> Bool {
        owners[owner]
    }

    /// Whether the program holds an uncancelled subscription handle of `consumer`.
    func isSubscribed(_ consumer: Int) -> Bool {
        subscribing.contains(consumer) || handles.contains { $0.consumer == consumer && !$0.isCancelled }
    }

    /// Consumers whose `subscribe` call is in progress: subscribed already (a callback it runs
    /// may reach them), though their handle is recorded once the call returns.
    private(set) var subscribing: [Int] = []

    mutating func beginSubscribing(_ consumer: Int) {
        subscribing.append(consumer)
    }

    mutating func endSubscribing() {
        subscribing.removeLast()
    }

    /// Whether a member of `consumer` is being called.
    func isInPass(_ consumer: Int) -> Bool {
        frames.contains { $0.consumer == consumer }
    }

    /// Feeding by hand is for consumers no store feeds, outside their own pass (a state fed from
    /// inside its own pass would be queued behind it, and could then meet a subscription).
    func mayFeed(_ consumer: Int) -> Bool {
        !isSubscribed(consumer) && !isInPass(consumer)
    }

    /// Subscribing again is always allowed; a first subscription not from inside the consumer's
    /// own pass (its feeding would have to wait for that pass).
    func maySubscribe(_ consumer: Int) -> Bool {
        isSubscribed(consumer) || !isInPass(consumer)
    }

    // MARK: Changes

    mutating func newRegistration() -> Int {
        defer { nextRegistration += 1 }
        return nextRegistration
    }

    mutating func newOwner() -> Int {
        owners.append(true)
        return owners.count - 1
    }

    mutating func releaseOwner(_ owner: Int) {
        owners[owner] = false
    }

    mutating func recordToken(consumer: Int, bag: Int?) {
        tokens.append(Token(consumer: consumer))
        if let bag {
            bags[self.bag(bag)].append(.token(tokens.count - 1))
        }
    }

    mutating func recordHandle(consumer: Int?, bag: Int?) {
        handles.append(Handle(consumer: consumer))
        if let bag {
            bags[self.bag(bag)].append(.handle(handles.count - 1))
        }
    }

    /// Marks the handle cancelled; returns whether it was live.
    mutating func cancelHandle(_ index: Int) -> Bool {
        defer { handles[index].isCancelled = true }
        return !handles[index].isCancelled
    }

    /// Empties the bag and returns what it held, in insertion order (to cancel in that order).
    mutating func emptyBag(_ bag: Int) -> [BagItem] {
        defer { bags[bag] = [] }
        return bags[bag]
    }

    var bagCounts: [Int] {
        bags.map(\.count)
    }

    mutating func enter(_ frame: Frame) {
        frames.append(frame)
    }

    mutating func leave() {
        frames.removeLast()
    }
}
